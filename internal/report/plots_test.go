package report

import (
	"bytes"
	"fmt"
	"image/color"
	"image/png"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/results"
)

// singleRun loads testdata/go/run with its requests.
func singleRun(t *testing.T) *Run {
	t.Helper()
	run, err := LoadRun(filepath.Join("testdata", "go", "run"), LoadOptions{Requests: true})
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// near reports whether c is within tol of want on every channel.
func near(c color.Color, want color.Color, tol int) bool {
	r, g, b, _ := c.RGBA()
	wr, wg, wb, _ := want.RGBA()
	d := func(a, b uint32) int { return int(a>>8) - int(b>>8) }
	abs := func(v int) int { return max(v, -v) }
	return abs(d(r, wr)) <= tol && abs(d(g, wg)) <= tol && abs(d(b, wb)) <= tol
}

// TestDualAxisSeriesAreDistinctAndVisible: the throughput and the
// requests in flight, which have the same shape (each request generates
// at about one rate), are drawn apart, each in its own colour: decoded
// from the PNG, in most columns of the plot where either is drawn both
// are, and their lines lie well apart (they used to share every pixel,
// the one underneath hidden).
func TestDualAxisSeriesAreDistinctAndVisible(t *testing.T) {
	t.Parallel()
	spec := DefaultConfig().Visualization.SingleRunPlots["throughput_and_concurrency_over_time"]
	c, err := singleChart("tc", spec, singleRun(t))
	if err != nil {
		t.Fatal(err)
	}
	b, err := RenderPNG(c, LightTheme)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	cols := [2]color.Color{LightTheme.color(c.Series[0].Group), LightTheme.color(c.Series[1].Group)}
	var either, both, apart int
	bd := img.Bounds()
	for x := bd.Min.X + 120; x < bd.Max.X-120; x++ { // inside the axes
		var rows [2][]int
		for y := bd.Min.Y + 70; y < bd.Max.Y-70; y++ { // below the legend, above the axis line
			for k, col := range cols {
				if near(img.At(x, y), col, 24) {
					rows[k] = append(rows[k], y)
				}
			}
		}
		if len(rows[0]) == 0 && len(rows[1]) == 0 {
			continue
		}
		either++
		if len(rows[0]) == 0 || len(rows[1]) == 0 {
			continue
		}
		both++
		if math.Abs(float64(rows[0][len(rows[0])/2]-rows[1][len(rows[1])/2])) > 40 {
			apart++
		}
	}
	t.Logf("columns with a series %d, with both %d, both and 40 px apart %d", either, both, apart)
	if both*10 < either*8 || apart*10 < both*5 {
		t.Errorf("of %d columns with a series, %d show both and %d show them 40 px apart; want 80 %% and half of those", either, both, apart)
	}
}

// TestTimeAxisLabels: the dual-axis charts' time axis has several round
// labels, each within the axis, none "-0", and covers the data (a GPU
// sample just before the first request used to give one label,
// "-0.000326").
func TestTimeAxisLabels(t *testing.T) {
	for _, tc := range []struct{ lo, hi float64 }{
		{-0.000326, 1.48}, {0, 0.0002}, {0, 1.49}, {3.2, 3.9}, {0, 59.7}, {0, 1234}, {-2, 2}, {5, 5},
	} {
		grid, labels, count := timeGrid(tc.lo, tc.hi)
		if grid[0] > tc.lo || grid[len(grid)-1] < tc.hi && tc.hi > tc.lo {
			t.Errorf("[%v, %v]: grid %v..%v does not cover it", tc.lo, tc.hi, grid[0], grid[len(grid)-1])
		}
		var vals []float64
		for i, l := range labels {
			if l == "" {
				continue
			}
			v, err := strconv.ParseFloat(l, 64)
			if err != nil || strings.HasPrefix(l, "-0") && v == 0 || v < grid[0]-1e-9 || v > grid[len(grid)-1]+1e-9 || math.Abs(v-grid[i]) > 1e-9*max(1, math.Abs(v)) {
				t.Errorf("[%v, %v]: label %q at %d (grid %v) is not a value in range", tc.lo, tc.hi, l, i, grid[i])
			}
			vals = append(vals, v)
		}
		if len(vals) < 4 || len(vals) != count {
			t.Errorf("[%v, %v]: labels %v (count %d); want 4 or more", tc.lo, tc.hi, vals, count)
			continue
		}
		step := vals[1] - vals[0]
		for i := 2; i < len(vals); i++ {
			if math.Abs(vals[i]-vals[i-1]-step) > 1e-9*max(1, step) {
				t.Errorf("[%v, %v]: labels %v are not evenly spaced", tc.lo, tc.hi, vals)
			}
		}
		if m := step / math.Pow(10, math.Floor(math.Log10(step))); !slices.ContainsFunc([]float64{1, 2, 2.5, 5}, func(r float64) bool { return math.Abs(m-r) < 1e-9 }) {
			t.Errorf("[%v, %v]: step %v is not round", tc.lo, tc.hi, step)
		}
	}
	// The GPU chart of a run whose first GPU sample precedes its first
	// request starts at 0.
	run := gpuRun(t, "")
	run.GPU[0].TimestampNs = run.Requests[0].StartNs - 326_000
	c, err := singleChart("gpu", DefaultConfig().Visualization.SingleRunPlots["gpu_utilization_and_throughput_over_time"], run)
	if err != nil {
		t.Fatal(err)
	}
	grid, labels, _ := dualAxisGrid(c)
	if grid[0] != 0 || labels[0] != "0" && labels[0] != "0.0" && labels[0] != "0.00" {
		t.Errorf("GPU chart's time axis starts at %v labelled %q; want 0", grid[0], labels[0])
	}
}

// TestTimelineLegendDropsInvisibleSegments: a timeline whose TTFT
// segments are all too short to see has no TTFT legend entry and says
// why; one whose TTFT is visible keeps it.
func TestTimelineLegendDropsInvisibleSegments(t *testing.T) {
	t.Parallel()
	spec := DefaultConfig().Visualization.SingleRunPlots["ttft_timeline"]
	for _, ttftScale := range []float64{1, 1e-4} {
		run := singleRun(t)
		for i := range run.Requests {
			if v, ok := run.Requests[i].Metrics["time_to_first_token"]; ok {
				run.Requests[i].Metrics["time_to_first_token"] = v * ttftScale
			}
		}
		c, err := singleChart("tl", spec, run)
		if err != nil {
			t.Fatal(err)
		}
		ttft := c.Series[0]
		if ttft.Name != "Time to first token" {
			t.Fatalf("series %q", ttft.Name)
		}
		invisible := ttftScale < 1
		if ttft.NoLegend != invisible || slices.ContainsFunc(c.Notes, func(n string) bool { return strings.Contains(n, "too short to see") }) != invisible {
			t.Errorf("TTFT x %v: legend dropped %v, notes %q; want dropped and said %v", ttftScale, ttft.NoLegend, c.Notes, invisible)
		}
		if c.Series[1].NoLegend {
			t.Errorf("TTFT x %v: the generation segments lost their legend entry", ttftScale)
		}
	}
}

// TestPointLabelsDoNotOverlap: on every multi-run chart of both sweeps,
// and on points that sit on top of each other, no two point labels
// overlap, and a label is dropped only for an overlap.
func TestPointLabelsDoNotOverlap(t *testing.T) {
	t.Parallel()
	check := func(name string, c *Chart) {
		t.Helper()
		boxes := c.labelBoxes()
		keys := make([][2]int, 0, len(boxes))
		for k := range boxes {
			keys = append(keys, k)
		}
		for i, a := range keys {
			for _, b := range keys[i+1:] {
				if boxes[a].overlaps(boxes[b]) {
					t.Errorf("%s: labels %q and %q overlap", name, c.Series[a[0]].Labels[a[1]], c.Series[b[0]].Labels[b[1]])
				}
			}
		}
		if len(boxes) == 0 {
			t.Errorf("%s: no label left", name)
		}
	}
	cfg := DefaultConfig().Visualization
	for _, fx := range []string{"aiperf-0.13/sweep", "go/sweep"} {
		runs := sweepRuns(t, fx)
		for name, spec := range cfg.MultiRunPlots {
			c, err := multiChart(name, spec, runs, false)
			if err != nil {
				t.Fatal(err)
			}
			check(fx+" "+name, c)
		}
	}
	// Two ISLs whose points nearly coincide at c=1 and c=2 (as in a sweep
	// against a fast server): the second ISL's labels there go, its c=4
	// label, away from the others, stays.
	var runs []*Run
	for _, p := range []struct {
		isl, conc       int
		latency, tokens float64
	}{{32, 1, 96.30, 165}, {32, 2, 96.40, 330}, {32, 4, 97.1, 655}, {64, 1, 96.31, 166}, {64, 2, 96.41, 331}, {64, 4, 96.0, 660}} {
		s, err := results.ParseSummary(fmt.Appendf(nil, `{"request_latency":{"unit":"ms","avg":%v},"output_token_throughput":{"unit":"tokens/sec","avg":%v}}`, p.latency, p.tokens))
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, &Run{Name: fmt.Sprint(p.isl, p.conc), Concurrency: p.conc, Summary: s, VariationValues: map[string]any{"isl": p.isl, "concurrency": p.conc}})
	}
	c, err := multiChart("p", cfg.MultiRunPlots["pareto_curve_throughput_per_gpu_vs_latency"], runs, false)
	if err != nil {
		t.Fatal(err)
	}
	check("coinciding", c)
	var labels []string
	for _, s := range c.Series {
		if len(s.Labels) > 0 {
			labels = append(labels, strings.Join(s.Labels, "|"))
		}
	}
	if got := strings.Join(labels, " "); got != "c=1|c=2|c=4 c=4||" {
		t.Errorf("labels after declutter: %s", got)
	}
}

// sweepRuns loads a sweep fixture's points.
func sweepRuns(t *testing.T, fx string) []*Run {
	t.Helper()
	dirs, err := FindRuns([]string{filepath.Join("testdata", fx)})
	if err != nil {
		t.Fatal(err)
	}
	var runs []*Run
	for _, d := range dirs {
		r, err := LoadRun(d, LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, r)
	}
	return runs
}

// TestEllipsesNeedFiveRuns: points of 5 runs get their confidence
// ellipse; points of 2 get none (t at 1 degree of freedom made them 6.5
// times the width of the 5-run ones' scale), and the caption says so.
func TestEllipsesNeedFiveRuns(t *testing.T) {
	t.Parallel()
	point := func(conc, n int) *Run {
		r := &Run{Name: fmt.Sprint("c", conc), Concurrency: conc}
		for i := range n {
			s, err := results.ParseSummary(fmt.Appendf(nil, `{"request_latency":{"unit":"ms","avg":%v},"output_token_throughput":{"unit":"tokens/sec","avg":%v}}`,
				100+float64(conc)+float64(i%3), 200*float64(conc)+float64(i*i%5)))
			if err != nil {
				t.Fatal(err)
			}
			r.Trials = append(r.Trials, s)
		}
		r.Summary = r.Trials[0]
		return r
	}
	spec := DefaultConfig().Visualization.MultiRunPlots["latency_throughput_uncertainty"]
	c, err := multiChart("u", spec, []*Run{point(1, 5), point(2, 5), point(4, 2)}, false)
	if err != nil {
		t.Fatal(err)
	}
	var ellipses []string
	for _, s := range c.Series {
		if s.Kind == Polygon {
			ellipses = append(ellipses, s.Name)
		}
	}
	if len(ellipses) != 2 || !strings.Contains(strings.Join(ellipses, ";"), "n=5") {
		t.Errorf("ellipses %q; want the two 5-run points'", ellipses)
	}
	if !slices.ContainsFunc(c.Notes, func(n string) bool {
		return strings.Contains(n, "no confidence ellipse for 1 of 3 point(s)") && strings.Contains(n, "as few as 2")
	}) {
		t.Errorf("notes %q do not say which point has no ellipse and why", c.Notes)
	}
}

// TestPerGPUTitleOnlyWithGPUs: a per-GPU preset drawn without GPU
// telemetry (the total instead) has no "per GPU" in its title; with GPU
// telemetry it keeps it.
func TestPerGPUTitleOnlyWithGPUs(t *testing.T) {
	t.Parallel()
	cfg := DefaultConfig().Visualization
	for _, name := range []string{"pareto_curve_throughput_per_gpu_vs_latency", "pareto_curve_throughput_per_gpu_vs_interactivity", "latency_throughput_uncertainty"} {
		c, err := multiChart(name, cfg.MultiRunPlots[name], sweepRuns(t, "go/sweep"), false)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(strings.ToLower(c.Title), "per gpu") || strings.Contains(strings.ToLower(c.YLabel), "per gpu") {
			t.Errorf("%s without GPUs: title %q, y label %q", name, c.Title, c.YLabel)
		}
	}
	c, err := multiChart("p", cfg.MultiRunPlots["pareto_curve_throughput_per_gpu_vs_latency"], []*Run{gpuRun(t, "")}, false)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(c.Title, "per GPU") {
		t.Errorf("with GPUs: title %q lost its per GPU", c.Title)
	}
}

// TestScatterLineJoinsPointsInXOrder: the TTFT-vs-throughput line joins
// its points in x order, so it never doubles back, whatever order the
// configurations put them in; the labels still name each point.
func TestScatterLineJoinsPointsInXOrder(t *testing.T) {
	t.Parallel()
	var runs []*Run
	for _, p := range []struct {
		conc       int
		ttft, rate float64
	}{{1, 21.1, 10}, {2, 20.5, 20}, {4, 21.0, 40}, {8, 23.9, 41}} {
		s, err := results.ParseSummary(fmt.Appendf(nil, `{"time_to_first_token":{"unit":"ms","avg":%v},"request_throughput":{"unit":"requests/sec","avg":%v}}`, p.ttft, p.rate))
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, &Run{Name: fmt.Sprint("c", p.conc), Concurrency: p.conc, Summary: s})
	}
	c, err := multiChart("tt", DefaultConfig().Visualization.MultiRunPlots["ttft_vs_throughput"], runs, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range c.Series {
		if s.Kind == Line && !slices.IsSorted(s.X) {
			t.Errorf("line %q joins x %v out of order", s.Name, s.X)
		}
		for i, l := range s.Labels {
			want := map[float64]string{20.5: "c=2", 21: "c=4", 21.1: "c=1", 23.9: "c=8"}[s.X[i]]
			if l != "" && l != want {
				t.Errorf("point at x %v labelled %q, want %q", s.X[i], l, want)
			}
		}
	}
}

// TestHTMLHidesOverlappingLabels: the report's charts are smaller than
// the PNGs the labels were thinned for, so ECharts is asked to hide the
// labels that still overlap there.
func TestHTMLHidesOverlappingLabels(t *testing.T) {
	t.Parallel()
	c := &Chart{Name: "p", Type: TypeScatterLine, Series: []Series{{Name: "runs", Kind: Line, X: []float64{1, 2}, Y: []float64{3, 4}, Labels: []string{"c=1", "c=2"}}}}
	sn, err := echartOf(c, "p", LightTheme)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(sn.Script), `"labelLayout":{"hideOverlap":true}`) {
		t.Errorf("the chart's script does not hide overlapping labels:\n%s", sn.Script)
	}
}
