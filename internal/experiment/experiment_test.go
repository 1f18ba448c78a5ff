package experiment

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/benchmark"
	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/export"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// fakeRun is a stand-in for Run: it records each call and writes a summary
// JSON whose request_latency avg is value(call).
type fakeRun struct {
	calls []fakeCall
	value func(n int, cfg *config.Config) float64
	fail  func(n int) error
	// cancel, when set, is called during the given call (1-based) to
	// simulate Ctrl-C while that run is in flight.
	cancelAt int
	cancel   context.CancelFunc
}

type fakeCall struct {
	dir    string
	seed   int64
	warmup bool
	trial  int
	label  string
}

func (f *fakeRun) run(ctx context.Context, cfg *config.Config, rio benchmark.IO) error {
	n := len(f.calls) + 1
	var seed int64 = -1
	if cfg.Input.RandomSeed != nil {
		seed = *cfg.Input.RandomSeed
	}
	f.calls = append(f.calls, fakeCall{dir: cfg.Output.ArtifactDir, seed: seed, warmup: cfg.WarmupEnabled(), trial: rio.Trial, label: rio.RunLabel})
	if n == f.cancelAt {
		f.cancel()
		return &config.ExitError{Code: config.ExitInterrupted, Err: errors.New("interrupted")}
	}
	if f.fail != nil {
		if err := f.fail(n); err != nil {
			return err
		}
	}
	v := float64(n)
	if f.value != nil {
		v = f.value(n, cfg)
	}
	if err := os.MkdirAll(cfg.Output.ArtifactDir, 0o755); err != nil {
		return err
	}
	doc := fmt.Sprintf(`{"schema_version":"1.4","request_latency":{"unit":"ms","avg":%v,"min":%v,"max":%v,"p99":%v,"std":1.0,"count":4,"sum":%v},`+
		`"request_throughput":{"unit":"requests/sec","avg":%v},"time_to_first_token":{"unit":"ms","avg":%v,"p99":%v},`+
		`"request_count":{"unit":"requests","avg":4.0},"input_config":{"unit":"not a metric"},"run_info":{"trial":0}}`,
		v, v-1, v+1, v+2, 4*v, 100/v, v/2, v/2+1)
	return os.WriteFile(filepath.Join(cfg.Output.ArtifactDir, "profile_export_aiperf.json"), []byte(doc), 0o644)
}

// sweepVars builds a grid of variations by hand (what the sweep expansion
// produces): concurrency x isl.
func sweepVars(base config.Config, conc []int, isl []int) []config.Variation {
	var out []config.Variation
	for _, c := range conc {
		for _, i := range isl {
			cfg := base
			cfg.Load.Concurrency = ptr(c)
			cfg.Input.InputTokens.Mean = i
			var params []config.Param
			label := fmt.Sprintf("concurrency_%d", c)
			params = append(params, config.Param{Path: "phases.profiling.concurrency", Value: c})
			if len(isl) > 1 {
				params = append(params, config.Param{Path: "datasets.default.prompts.isl", Value: i})
				label += fmt.Sprintf("-isl_%d", i)
			}
			out = append(out, config.Variation{Index: len(out), Label: label, Params: params, Config: cfg})
		}
	}
	return out
}

func fakeExperiment(t *testing.T, vars []config.Variation, f *fakeRun) (*experiment, *[]time.Duration, *bytes.Buffer) {
	t.Helper()
	var stderr bytes.Buffer
	x := newExperiment(vars, benchmark.IO{Stdout: &bytes.Buffer{}, Stderr: &stderr, Version: "test"})
	x.runOne = f.run
	var sleeps []time.Duration
	x.sleep = func(ctx context.Context, d time.Duration) error {
		sleeps = append(sleeps, d)
		return ctx.Err()
	}
	return x, &sleeps, &stderr
}

func experimentBase(t *testing.T) config.Config {
	cfg := config.Defaults()
	cfg.Endpoint.ModelNames = []string{"mock-model"}
	cfg.Output.ArtifactDir = t.TempDir()
	cfg.Output.ArtifactDirExplicit = true
	cfg.Service.UIType = config.UINone
	return cfg
}

func rel(t *testing.T, base string, calls []fakeCall) []string {
	t.Helper()
	out := make([]string, len(calls))
	for i, c := range calls {
		r, err := filepath.Rel(base, c.dir)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = filepath.ToSlash(r)
	}
	return out
}

func TestExperimentOrderLayoutSeedsWarmup(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		conc      []int
		runs      int
		mode      config.SweepMode
		sameSeed  bool
		seed      *int64
		wantDirs  []string
		wantSeeds []int64
		wantWarm  []bool
		wantSleep []time.Duration
		wantFiles []string
	}{
		{
			name: "multi-run", conc: []int{4}, runs: 3,
			wantDirs:  []string{"profile_runs/run_0001", "profile_runs/run_0002", "profile_runs/run_0003"},
			wantSeeds: []int64{42, 42, 42},
			wantWarm:  []bool{true, false, false},
			wantSleep: []time.Duration{2 * time.Second, 2 * time.Second},
			wantFiles: []string{"aggregate/profile_export_aiperf_aggregate.json", "aggregate/profile_export_aiperf_aggregate.csv"},
		},
		{
			name: "sweep one run each", conc: []int{1, 2}, runs: 1, seed: ptr(int64(7)),
			wantDirs:  []string{"concurrency_1", "concurrency_2"},
			wantSeeds: []int64{7, 8},
			wantWarm:  []bool{true, true},
			wantSleep: []time.Duration{500 * time.Millisecond},
			wantFiles: []string{"aggregate/concurrency_1/profile_export_aiperf_aggregate.json",
				"aggregate/concurrency_2/profile_export_aiperf_aggregate.csv",
				"sweep_aggregate/profile_export_aiperf_sweep.json", "sweep_aggregate/profile_export_aiperf_sweep.csv"},
		},
		{
			name: "sweep repeated", conc: []int{1, 2}, runs: 2,
			wantDirs: []string{"profile_runs/trial_0001/concurrency_1", "profile_runs/trial_0001/concurrency_2",
				"profile_runs/trial_0002/concurrency_1", "profile_runs/trial_0002/concurrency_2"},
			wantSeeds: []int64{42, 43, 42, 43},
			wantWarm:  []bool{true, true, false, false},
			wantSleep: []time.Duration{500 * time.Millisecond, 2 * time.Second, 500 * time.Millisecond},
			wantFiles: []string{"aggregate/concurrency_1/profile_export_aiperf_aggregate.json",
				"aggregate/sweep_aggregate/profile_export_aiperf_sweep.json"},
		},
		{
			name: "sweep independent same seed", conc: []int{1, 2}, runs: 2, mode: config.SweepIndependent, sameSeed: true,
			wantDirs: []string{"concurrency_1/profile_runs/trial_0001", "concurrency_1/profile_runs/trial_0002",
				"concurrency_2/profile_runs/trial_0001", "concurrency_2/profile_runs/trial_0002"},
			wantSeeds: []int64{42, 42, 42, 42},
			wantWarm:  []bool{true, false, true, false},
			wantSleep: []time.Duration{2 * time.Second, 500 * time.Millisecond, 2 * time.Second},
			wantFiles: []string{"concurrency_2/aggregate/profile_export_aiperf_aggregate.csv",
				"sweep_aggregate/profile_export_aiperf_sweep.csv"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			base := experimentBase(t)
			base.Experiment.NumProfileRuns = tt.runs
			base.Experiment.ParameterSweepMode = tt.mode
			base.Experiment.ParameterSweepSameSeed = tt.sameSeed
			base.Experiment.ParameterSweepCooldownSeconds = 0.5
			if tt.runs > 1 {
				base.Experiment.ProfileRunCooldownSeconds = ptr(2.0)
			}
			base.Input.RandomSeed = tt.seed
			base.Warmup.RequestCount = ptr(3)
			vars := sweepVars(base, tt.conc, []int{550})
			f := &fakeRun{}
			x, sleeps, _ := fakeExperiment(t, vars, f)
			if err := x.run(context.Background()); err != nil {
				t.Fatalf("run: %v", err)
			}
			if got := rel(t, base.Output.ArtifactDir, f.calls); !slices.Equal(got, tt.wantDirs) {
				t.Errorf("dirs = %v, want %v", got, tt.wantDirs)
			}
			var seeds []int64
			var warm []bool
			for _, c := range f.calls {
				seeds, warm = append(seeds, c.seed), append(warm, c.warmup)
			}
			if !slices.Equal(seeds, tt.wantSeeds) {
				t.Errorf("seeds = %v, want %v", seeds, tt.wantSeeds)
			}
			if !slices.Equal(warm, tt.wantWarm) {
				t.Errorf("warmup = %v, want %v", warm, tt.wantWarm)
			}
			if !slices.Equal(*sleeps, tt.wantSleep) {
				t.Errorf("cooldowns = %v, want %v", *sleeps, tt.wantSleep)
			}
			for _, name := range tt.wantFiles {
				if _, err := os.Stat(filepath.Join(base.Output.ArtifactDir, name)); err != nil {
					t.Errorf("missing %s: %v", name, err)
				}
			}
		})
	}
}

func TestExperimentRunInfoLabels(t *testing.T) {
	t.Parallel()
	base := experimentBase(t)
	base.Experiment.NumProfileRuns = 2
	f := &fakeRun{}
	x, _, _ := fakeExperiment(t, sweepVars(base, []int{1}, []int{550}), f)
	if err := x.run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if f.calls[0].trial != 0 || f.calls[0].label != "run_0001" || f.calls[1].trial != 1 || f.calls[1].label != "run_0002" {
		t.Errorf("trial/labels = %+v", f.calls)
	}
	// request_latency avg is 1 then 2: mean 1.5, std 0.7071, t(0.975, 1).
	out := x.rio.Stdout.(*bytes.Buffer).String()
	for _, want := range []string{"AGGREGATE STATISTICS SUMMARY", "Successful Runs: 2", "Request Latency (Avg):",
		"  Mean:          1.5000 ms", "  Std Dev:       0.7071 ms", "  CV:            47.14%", "  95% CI: [-4.8531, 7.8531] ms"} {
		if !strings.Contains(out, want) {
			t.Errorf("console summary lacks %q:\n%s", want, out)
		}
	}
}

// TestExperimentFailedRunsAndExit: failed runs are listed and excluded; one
// successful run is not enough for statistics (exit 1, no aggregate).
func TestExperimentFailedRunsAndExit(t *testing.T) {
	t.Parallel()
	base := experimentBase(t)
	base.Experiment.NumProfileRuns = 3
	f := &fakeRun{fail: func(n int) error {
		if n == 2 {
			return &config.ExitError{Code: config.ExitFailure, Err: errors.New("all 4 requests failed")}
		}
		return nil
	}}
	x, _, _ := fakeExperiment(t, sweepVars(base, []int{1}, []int{550}), f)
	if err := x.run(context.Background()); err != nil {
		t.Fatalf("two of three succeeded: %v", err)
	}
	var doc struct {
		Metadata struct {
			NumRuns   int              `json:"num_profile_runs"`
			NumOK     int              `json:"num_successful_runs"`
			Failed    []map[string]any `json:"failed_runs"`
			RunLabels []string         `json:"run_labels"`
		} `json:"metadata"`
		Metrics map[string]map[string]any `json:"metrics"`
	}
	readJSON(t, filepath.Join(base.Output.ArtifactDir, "aggregate", aggregateJSONName), &doc)
	if doc.Metadata.NumRuns != 3 || doc.Metadata.NumOK != 2 || len(doc.Metadata.Failed) != 1 ||
		doc.Metadata.Failed[0]["label"] != "run_0002" || !strings.Contains(doc.Metadata.Failed[0]["error"].(string), "all 4 requests failed") ||
		!slices.Equal(doc.Metadata.RunLabels, []string{"run_0001", "run_0003"}) {
		t.Errorf("metadata = %+v", doc.Metadata)
	}
	// request_latency avg = call number: runs 1 and 3 -> mean 2.
	if got := doc.Metrics["request_latency_avg"]["mean"]; got != 2.0 {
		t.Errorf("mean = %v, want 2", got)
	}

	base2 := experimentBase(t)
	base2.Experiment.NumProfileRuns = 2
	f2 := &fakeRun{fail: func(n int) error {
		if n == 1 {
			return &config.ExitError{Code: config.ExitFailure, Err: errors.New("boom")}
		}
		return nil
	}}
	x2, _, _ := fakeExperiment(t, sweepVars(base2, []int{1}, []int{550}), f2)
	err := x2.run(context.Background())
	var ee *config.ExitError
	if !errors.As(err, &ee) || ee.Code != config.ExitFailure {
		t.Fatalf("one success: err = %v, want exit 1", err)
	}
	if _, err := os.Stat(filepath.Join(base2.Output.ArtifactDir, "aggregate")); !os.IsNotExist(err) {
		t.Errorf("aggregate written with a single successful run: %v", err)
	}
}

// TestExperimentInterrupt: Ctrl-C during a run stops the experiment; the
// runs that finished are aggregated and the exit code is 130.
func TestExperimentInterrupt(t *testing.T) {
	t.Parallel()
	base := experimentBase(t)
	base.Experiment.NumProfileRuns = 2
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := &fakeRun{cancelAt: 4, cancel: cancel}
	vars := sweepVars(base, []int{1, 2, 3}, []int{550})
	x, _, _ := fakeExperiment(t, vars, f)
	err := x.run(ctx)
	var ee *config.ExitError
	if !errors.As(err, &ee) || ee.Code != config.ExitInterrupted {
		t.Fatalf("err = %v, want exit %d", err, config.ExitInterrupted)
	}
	if len(f.calls) != 4 {
		t.Errorf("%d runs started, want 4 (stop after the interrupted one)", len(f.calls))
	}
	var sweep struct {
		NumRuns int `json:"num_profile_runs"`
		NumOK   int `json:"num_successful_runs"`
		Combos  []struct {
			Parameters map[string]any `json:"parameters"`
		} `json:"per_combination_metrics"`
	}
	readJSON(t, filepath.Join(base.Output.ArtifactDir, "aggregate", "sweep_aggregate", sweepJSONName), &sweep)
	if sweep.NumRuns != 4 || sweep.NumOK != 3 || len(sweep.Combos) != 3 {
		t.Errorf("sweep aggregate = %+v", sweep)
	}
	if _, err := os.Stat(filepath.Join(base.Output.ArtifactDir, "aggregate", "concurrency_1", aggregateJSONName)); err != nil {
		t.Errorf("per-variation aggregate missing: %v", err)
	}
}

// TestExperimentUsageErrorStops: a configuration that cannot run stops the
// experiment at once with its exit code.
func TestExperimentUsageErrorStops(t *testing.T) {
	t.Parallel()
	base := experimentBase(t)
	base.Experiment.NumProfileRuns = 3
	f := &fakeRun{fail: func(int) error {
		return &config.ExitError{Code: config.ExitUsage, Err: errors.New("--tokenizer: unknown")}
	}}
	x, _, _ := fakeExperiment(t, sweepVars(base, []int{1}, []int{550}), f)
	err := x.run(context.Background())
	var ee *config.ExitError
	if !errors.As(err, &ee) || ee.Code != config.ExitUsage || len(f.calls) != 1 {
		t.Fatalf("err = %v after %d runs, want exit 2 after 1", err, len(f.calls))
	}
}

// TestAggregateGolden pins the exact bytes of the aggregate files for a
// fixed set of runs (run with -update to rewrite them).
func TestAggregateGolden(t *testing.T) {
	t.Parallel()
	base := experimentBase(t)
	base.Experiment.NumProfileRuns = 2
	base.Input.RandomSeed = ptr(int64(1))
	vars := sweepVars(base, []int{1, 2}, []int{128, 512})
	f := &fakeRun{value: func(n int, cfg *config.Config) float64 {
		return float64(*cfg.Load.Concurrency)*10 + float64(cfg.Input.InputTokens.Mean)/64 + float64(n%3)*0.25
	}}
	x, _, _ := fakeExperiment(t, vars, f)
	if err := x.run(context.Background()); err != nil {
		t.Fatal(err)
	}
	dir := base.Output.ArtifactDir
	for _, name := range []string{
		"aggregate/concurrency_1__isl_128/" + aggregateJSONName,
		"aggregate/concurrency_1__isl_128/" + aggregateCSVName,
		"aggregate/sweep_aggregate/" + sweepJSONName,
		"aggregate/sweep_aggregate/" + sweepCSVName,
	} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		golden := filepath.Join("testdata", strings.ReplaceAll(name, "/", "_"))
		if *update {
			if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(golden, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run with -update)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from %s:\n%s", name, golden, got)
		}
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func TestVariationNames(t *testing.T) {
	t.Parallel()
	tests := []struct {
		v          config.Variation
		dir, label string
	}{
		{config.Variation{Params: []config.Param{{Path: "phases.profiling.concurrency", Value: 10}}}, "concurrency_10", "phases.profiling.concurrency=10"},
		{config.Variation{Params: []config.Param{{Path: "phases.profiling.rate", Value: 5.0}}}, "rate_5.0", "phases.profiling.rate=5.0"},
		{config.Variation{Label: "x", Params: []config.Param{{Path: "a.b", Value: 1}, {Path: "c.d", Value: "z"}}}, "b_1__d_z", "x"},
		{config.Variation{Label: "qps:100/../a"}, "qps100a", "qps:100/../a"},
		{config.Variation{Index: 3, Label: ".."}, "variation_3", ".."},
		{config.Variation{Params: []config.Param{{Path: "p", Value: true}}}, "p_True", "p=True"},
	}
	for _, tt := range tests {
		if got := VariationDirName(&tt.v); got != tt.dir {
			t.Errorf("dir(%+v) = %q, want %q", tt.v, got, tt.dir)
		}
		if got := VariationLabel(&tt.v); got != tt.label {
			t.Errorf("label(%+v) = %q, want %q", tt.v, got, tt.label)
		}
	}
}

func TestPyFormatting(t *testing.T) {
	t.Parallel()
	tests := []struct {
		f          float64
		json, repr string
	}{
		{0, "0.0", "0.0"},
		{5, "5.0", "5.0"},
		{103.6, "103.6", "103.6"},
		{0.000015, "0.000015", "1.5e-05"},
		{1e-7, "1e-7", "1e-07"},
		{1e16, "1e+16", "1e+16"},
		{123456789012345.6, "123456789012345.6", "123456789012345.6"},
		{-2.5, "-2.5", "-2.5"},
	}
	for _, tt := range tests {
		if got := string(export.AppendJSONFloat(nil, tt.f)); got != tt.json {
			t.Errorf("json(%v) = %q, want %q", tt.f, got, tt.json)
		}
		if got := pyStr(tt.f); got != tt.repr {
			t.Errorf("repr(%v) = %q, want %q", tt.f, got, tt.repr)
		}
	}
	if got := string(marshalIndent((&jobj{}).set("a", []any{}).set("b", &jobj{}).set("c", math.NaN()).set("d", "q\"\n"))); got != "{\n  \"a\": [],\n  \"b\": {},\n  \"c\": null,\n  \"d\": \"q\\\"\\n\"\n}" {
		t.Errorf("marshalIndent = %s", got)
	}
	if got := pyTitle("best_latency_p99"); got != "Best Latency P99" {
		t.Errorf("pyTitle = %q", got)
	}
}

// TestSweepTableUnderEveryUI: the live sweep table prints whatever the UI
// and whether stdout is a terminal; only --no-sweep-table and a single
// variation leave it out.
func TestSweepTableUnderEveryUI(t *testing.T) {
	t.Parallel()
	base := *baseConfig(t, "http://127.0.0.1:1")
	vars := sweepVars(base, []int{1, 2}, []int{32})
	for _, ui := range []config.UIType{config.UIDashboard, config.UISimple, config.UINone, ""} {
		for _, tty := range []bool{true, false} {
			vs := slices.Clone(vars)
			for i := range vs {
				vs[i].Config.Service.UIType = ui
			}
			if x := newExperiment(vs, benchmark.IO{IsTTY: tty}); x.table == nil {
				t.Errorf("--ui-type %q, tty %v: no live sweep table", ui, tty)
			}
		}
	}
	vs := slices.Clone(vars)
	for i := range vs {
		vs[i].Config.Experiment.NoSweepTable = true
	}
	if x := newExperiment(vs, benchmark.IO{IsTTY: true}); x.table != nil {
		t.Error("--no-sweep-table: the table is still printed")
	}
	if x := newExperiment(vars[:1], benchmark.IO{IsTTY: true}); x.table != nil {
		t.Error("a single variation has a sweep table")
	}
}
