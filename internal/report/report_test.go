package report

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// fixtures are real artifacts (see testdata/README.md): one single run and
// one sweep with repeated runs each, from AIPerf 0.13 and from this tool.
var fixtures = []struct {
	name   string
	single bool
}{
	{"aiperf-0.13/run", true},
	{"go/run", true},
	{"aiperf-0.13/sweep", false},
	{"go/sweep", false},
}

// notBlank reports whether a decoded image has real content: enough
// pixels away from its background (the top-left pixel) and several
// colours.
func notBlank(img image.Image) (changed float64, colours int) {
	b := img.Bounds()
	bg := img.At(b.Min.X, b.Min.Y)
	br, bgG, bb, _ := bg.RGBA()
	seen := map[[3]uint32]bool{}
	diff := 0
	for y := b.Min.Y; y < b.Max.Y; y += 4 {
		for x := b.Min.X; x < b.Max.X; x += 4 {
			r, g, bl, _ := img.At(x, y).RGBA()
			seen[[3]uint32{r >> 12, g >> 12, bl >> 12}] = true
			if r != br || g != bgG || bl != bb {
				diff++
			}
		}
	}
	return float64(diff) / float64((b.Dx()/4)*(b.Dy()/4)), len(seen)
}

// TestEveryPlotTypeFromFixtures draws every plot type from both tools'
// artifacts and checks that each PNG decodes at 1600x800 and is not blank.
func TestEveryPlotTypeFromFixtures(t *testing.T) {
	t.Parallel()
	cfg := DefaultConfig()
	drawn := map[string]map[string]bool{} // type -> fixture
	for _, fx := range fixtures {
		dirs, err := FindRuns([]string{filepath.Join("testdata", fx.name)})
		if err != nil {
			t.Fatal(err)
		}
		if got := len(dirs) == 1; got != fx.single {
			t.Fatalf("%s: %d run directories %v; single-run %v expected", fx.name, len(dirs), dirs, fx.single)
		}
		var runs []*Run
		for _, d := range dirs {
			r, err := LoadRun(d, LoadOptions{Requests: fx.single})
			if err != nil {
				t.Fatal(err)
			}
			runs = append(runs, r)
		}
		plots := cfg.Visualization.MultiRunPlots
		if fx.single {
			plots = cfg.Visualization.SingleRunPlots
		}
		for _, name := range sortedKeys(plots) {
			spec := plots[name]
			var c *Chart
			if fx.single {
				c, err = singleChart(name, spec, runs[0])
			} else {
				c, err = multiChart(name, spec, runs, false)
			}
			if strings.HasPrefix(name, "gpu_") {
				continue // the fixtures have no GPU telemetry; dual_axis is drawn by throughput_and_concurrency_over_time
			}
			if err != nil {
				t.Errorf("%s: %s: %v", fx.name, name, err)
				continue
			}
			b, err := RenderPNG(c, LightTheme)
			if err != nil {
				t.Errorf("%s: %s: render: %v", fx.name, name, err)
				continue
			}
			img, err := png.Decode(bytes.NewReader(b))
			if err != nil {
				t.Errorf("%s: %s: the PNG does not decode: %v", fx.name, name, err)
				continue
			}
			if s := img.Bounds().Size(); s.X != PNGWidth || s.Y != PNGHeight {
				t.Errorf("%s: %s: PNG is %dx%d; want %dx%d", fx.name, name, s.X, s.Y, PNGWidth, PNGHeight)
			}
			if changed, colours := notBlank(img); changed < 0.01 || colours < 4 {
				t.Errorf("%s: %s: PNG looks blank: %.2f%% of pixels drawn, %d colours", fx.name, name, changed*100, colours)
			}
			if drawn[spec.Type] == nil {
				drawn[spec.Type] = map[string]bool{}
			}
			drawn[spec.Type][fx.name] = true
		}
	}
	for _, typ := range Types() {
		if len(drawn[typ]) < 2 {
			t.Errorf("plot type %s drawn from %v; want both tools' artifacts", typ, drawn[typ])
		}
	}
}

// TestMultiRunChartsFromRepeatedRuns checks the data behind the multi-run
// plots of a sweep with two runs per point: a Pareto front of points that
// exist, and each point's mean without a confidence ellipse (two runs are
// too few: see minRunsForEllipse), which the caption says.
func TestMultiRunChartsFromRepeatedRuns(t *testing.T) {
	t.Parallel()
	for _, fx := range []string{"aiperf-0.13/sweep", "go/sweep"} {
		runs := sweepRuns(t, fx)
		for _, r := range runs {
			if r.Aggregate == nil || len(r.Trials) != 2 || r.Concurrency == 0 {
				t.Fatalf("%s: %s: aggregate %v, %d trials, concurrency %d; want the aggregate, its 2 runs and the concurrency", fx, r.Dir, r.Aggregate != nil, len(r.Trials), r.Concurrency)
			}
		}
		cfg := DefaultConfig()
		spec := cfg.Visualization.MultiRunPlots["latency_throughput_uncertainty"]
		c, err := multiChart("u", spec, runs, false)
		if err != nil {
			t.Fatal(err)
		}
		var ellipses, means int
		for _, s := range c.Series {
			switch s.Kind {
			case Polygon:
				ellipses++
			case Markers:
				means += len(s.X)
			}
		}
		if ellipses != 0 || means != len(runs) {
			t.Errorf("%s: %d ellipses and %d means for %d points of 2 runs each; want no ellipse and every mean", fx, ellipses, means, len(runs))
		}
		if !slices.ContainsFunc(c.Notes, func(n string) bool { return strings.Contains(n, "fewer than 5 runs (as few as 2)") }) {
			t.Errorf("%s: notes %q do not say why there are no ellipses", fx, c.Notes)
		}
		p, err := multiChart("p", cfg.Visualization.MultiRunPlots["pareto_curve_throughput_per_gpu_vs_latency"], runs, false)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Series) != 2 || p.Series[1].Len() < 1 || p.Series[1].Len() > len(runs) {
			t.Errorf("%s: pareto series %+v", fx, p.Series)
		}
		if len(p.Notes) == 0 || !strings.Contains(p.Notes[0], "no GPU telemetry") {
			t.Errorf("%s: per-GPU throughput without telemetry: notes %v; want the total-throughput note", fx, p.Notes)
		}
	}
}

func TestPlotWritesFilesAndSkipsWhatIsMissing(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	res, err := Plot(Options{Paths: []string{filepath.Join("testdata", "go", "run")}, Output: out, Now: time.Unix(0, 0)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Mode != "single-run" || len(res.Charts) != 13 {
		t.Errorf("mode %s, %d charts; want single-run, 13", res.Mode, len(res.Charts))
	}
	if len(res.Skipped) != 1 || !strings.Contains(res.Skipped[0], "gpu_utilization") {
		t.Errorf("skipped %v; want the GPU plot only (no telemetry)", res.Skipped)
	}
	for _, name := range []string{"ttft_over_time.png", "timeslices_ttft.png", ReportName, "summary.txt"} {
		if _, err := os.Stat(filepath.Join(out, name)); err != nil {
			t.Errorf("missing %s: %v", name, err)
		}
	}
	sum, _ := os.ReadFile(filepath.Join(out, "summary.txt"))
	if !strings.HasPrefix(string(sum), "AIPerf Plot Export Summary\n") || !strings.Contains(string(sum), "Generated 13 plots") {
		t.Errorf("summary.txt:\n%s", sum)
	}

	// A directory with no run is an error naming it.
	if _, err := Plot(Options{Paths: []string{t.TempDir()}, Output: out}); err == nil || !strings.Contains(err.Error(), "holds no run") {
		t.Errorf("empty directory: %v", err)
	}
}

func TestFindRunsLayouts(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	touch := func(parts ...string) {
		p := filepath.Join(append([]string{root}, parts...)...)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A one-trial sweep: <cell>/ runs, aggregate/<cell>/ shadows.
	touch("one", "c1", "profile_export.jsonl")
	touch("one", "c1", "profile_export_aiperf.json")
	touch("one", "aggregate", "c1", "profile_export_aiperf_aggregate.json")
	// Repeated runs: aggregate/<cell>/ stands for profile_runs/.
	touch("rep", "profile_runs", "trial_0001", "c1", "profile_export.jsonl")
	touch("rep", "profile_runs", "trial_0001", "c1", "profile_export_aiperf.json")
	touch("rep", "aggregate", "c1", "profile_export_aiperf_aggregate.json")
	// Independent: <cell>/aggregate.
	touch("ind", "c2", "aggregate", "profile_export_aiperf_aggregate.json")
	touch("ind", "c2", "profile_runs", "trial_0001", "profile_export.jsonl")
	touch("ind", "c2", "profile_runs", "trial_0001", "profile_export_aiperf.json")
	got, err := FindRuns([]string{filepath.Join(root, "one"), filepath.Join(root, "rep"), filepath.Join(root, "ind"), filepath.Join(root, "one")})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		filepath.Join(root, "ind", "c2", "aggregate"),
		filepath.Join(root, "one", "c1"),
		filepath.Join(root, "rep", "aggregate", "c1"),
	}
	if !slices.Equal(got, want) {
		t.Errorf("FindRuns = %v\nwant %v", got, want)
	}
	if _, err := FindRuns([]string{filepath.Join(root, "nope")}); err == nil {
		t.Error("a missing path is not an error")
	}
}

func TestConfigErrors(t *testing.T) {
	t.Parallel()
	if c := DefaultConfig(); len(c.Visualization.SingleRunDefaults) == 0 || len(c.Visualization.MultiRunDefaults) != 4 {
		t.Fatalf("default config: %+v", c.Visualization)
	}
	tests := []struct {
		name, yaml string
		want       []string
	}{
		{"unknown key with its line", "visualization:\n  single_run_defaults: []\n  colour: red\n", []string{"colour", "3:"}},
		{"default without a preset", "visualization:\n  single_run_defaults: [nope]\n", []string{`names "nope"`}},
		{"bad type and a multi-run type in single-run", `visualization:
  single_run_plots:
    a: {type: violin, x: request_number, y: time_to_first_token}
    b: {type: pareto, x: {metric: request_latency}, y: {metric: request_throughput}}
`, []string{"single_run_plots.a: type \"violin\"", "single_run_plots.b: type pareto cannot be a single-run plot"}},
		{"dual axis without y2", "visualization:\n  single_run_plots:\n    d: {type: dual_axis, x: timestamp_s, y: throughput_tokens_per_sec}\n", []string{"needs y2"}},
		{"ci level", "visualization:\n  multi_run_plots:\n    u: {type: latency_throughput_uncertainty, x: {metric: a}, y: {metric: b}, ci_level: 95}\n", []string{"ci_level 95"}},
	}
	for _, tt := range tests {
		_, err := ParseConfig([]byte(tt.yaml), "my.yaml")
		if err == nil {
			t.Errorf("%s: no error", tt.name)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) || !strings.Contains(err.Error(), "my.yaml") {
				t.Errorf("%s: error %q lacks %q or the file name", tt.name, err, w)
			}
		}
	}
}

func TestLoadConfigOrder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	user := filepath.Join(dir, "home", ".aiperf", "plot_config.yaml")
	c, err := LoadConfig("", "", user)
	if err != nil || c.Source != "(built-in)" {
		t.Fatalf("first use: %v, %s", err, c.Source)
	}
	if b, err := os.ReadFile(user); err != nil || !bytes.Equal(b, DefaultConfigYAML) {
		t.Fatalf("first use leaves no editable copy: %v", err)
	}
	if c, _ := LoadConfig("", "", user); c.Source != user {
		t.Errorf("second use reads %s; want the user's file", c.Source)
	}
	run := filepath.Join(dir, "run")
	os.MkdirAll(run, 0o755)
	os.WriteFile(filepath.Join(run, RunConfigName), []byte("visualization:\n  single_run_defaults: [x]\n  single_run_plots:\n    x: {type: scatter, x: request_number, y: time_to_first_token}\n"), 0o644)
	if c, _ := LoadConfig("", run, user); c.Source != filepath.Join(run, RunConfigName) {
		t.Errorf("run receipt not preferred: %s", c.Source)
	}
	explicit := filepath.Join(dir, "e.yaml")
	os.WriteFile(explicit, []byte("visualization: {}\n"), 0o644)
	if c, _ := LoadConfig(explicit, run, user); c.Source != explicit {
		t.Errorf("--config not preferred: %s", c.Source)
	}
}

// TestGPUTelemetryPlots: with AIPerf's gpu_telemetry_export.jsonl beside
// a run, the GPU dual-axis preset draws the average utilisation across
// GPUs, and per-GPU throughput divides by the GPUs seen.
func TestGPUTelemetryPlots(t *testing.T) {
	t.Parallel()
	run := gpuRun(t, "")
	if n := run.gpuCount(); n != 2 {
		t.Fatalf("%d GPUs seen; want 2", n)
	}
	total, _ := run.Value("output_token_throughput", "avg")
	if per, ok := run.Value("output_token_throughput_per_gpu", "avg"); !ok || per != total/2 {
		t.Errorf("per-GPU throughput %v, %v; want %v", per, ok, total/2)
	}
	spec := DefaultConfig().Visualization.SingleRunPlots["gpu_utilization_and_throughput_over_time"]
	c, err := singleChart("gpu", spec, run)
	if err != nil {
		t.Fatal(err)
	}
	gpu := c.Series[1]
	if !gpu.OnY2 || gpu.Len() != 5 || gpu.Y[0] != 60 || gpu.Y[4] != 64 {
		t.Errorf("GPU series: y2 %v, %d samples %v; want 5 averages 60..64 on the right axis", gpu.OnY2, gpu.Len(), gpu.Y)
	}
	if _, err := RenderPNG(c, DarkTheme); err != nil {
		t.Fatal(err)
	}
}

// TestSimulatedGPUsMarkTheirCharts: GPU telemetry from the mock's invented
// GPUs ("simulated": true on its lines) marks the title of every chart
// drawn from it, the GPU time chart and the per-GPU Pareto curve; real
// GPUs' charts are not marked.
func TestSimulatedGPUsMarkTheirCharts(t *testing.T) {
	t.Parallel()
	cfg := DefaultConfig().Visualization
	for _, simulated := range []bool{true, false} {
		extra := ""
		if simulated {
			extra = `,"simulated":true`
		}
		run := gpuRun(t, extra)
		single, err := singleChart("gpu", cfg.SingleRunPlots["gpu_utilization_and_throughput_over_time"], run)
		if err != nil {
			t.Fatal(err)
		}
		multi, err := multiChart("pareto", cfg.MultiRunPlots["pareto_curve_throughput_per_gpu_vs_latency"], []*Run{run}, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []*Chart{single, multi} {
			if got := strings.HasSuffix(c.Title, " (simulated GPUs)"); got != simulated {
				t.Errorf("simulated %v: title %q", simulated, c.Title)
			}
		}
	}
}

// gpuRun is testdata/go/run with a gpu_telemetry_export.jsonl of two GPUs
// over five samples; extra is added to each line's members.
func gpuRun(t *testing.T, extra string) *Run {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"profile_export.jsonl", "profile_export_aiperf.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", "go", "run", f))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, f), b, 0o644)
	}
	run, err := LoadRun(filepath.Join("testdata", "go", "run"), LoadOptions{Requests: true})
	if err != nil {
		t.Fatal(err)
	}
	t0 := run.Requests[0].StartNs
	var lines []string
	for i := range 5 {
		for gpu, util := range []float64{40, 80} {
			lines = append(lines, fmt.Sprintf(`{"gpu_index":%d,"gpu_uuid":"GPU-%d","gpu_model_name":"H100","timestamp_ns":%d,"telemetry_source_url":"http://localhost:9400/metrics","telemetry_data":{"nvidia_gpu_utilization":%v,"nvidia_power_usage":300.0,"nvidia_memory_used":null}%s}`,
				gpu, gpu, t0+int64(i)*int64(500*time.Millisecond), util+float64(i), extra))
		}
	}
	os.WriteFile(filepath.Join(dir, gpuTelemetryName), []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	run, err = LoadRun(dir, LoadOptions{Requests: true})
	if err != nil {
		t.Fatal(err)
	}
	return run
}
