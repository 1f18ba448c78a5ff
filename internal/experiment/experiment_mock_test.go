package experiment

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/benchmark"
	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/mockserver"
)

// TestExperimentGridSweepAgainstMock is the sweep's acceptance test: a 3x2
// grid sweep (concurrency x ISL) with 3 profile runs each, against the
// mock server, gives 18 run directories, the per-variation aggregates and
// the sweep aggregate, and intervals equal (to 1e-9) to a hand computation
// from the 18 per-run summary files. The 6 variations are built here by
// hand, as the sweep expansion would build them.
func TestExperimentGridSweepAgainstMock(t *testing.T) {
	t.Parallel()
	url, requests := mock(t, nil)
	base := *baseConfig(t, url)
	base.Load.RequestCount = ptr(4)
	base.Warmup.RequestCount = ptr(2)
	base.Experiment.NumProfileRuns = 3
	base.Input.RandomSeed = nil // the consistent seed, 42, applies
	if err := base.Validate(); err != nil {
		t.Fatal(err)
	}
	conc, isl := []int{1, 2, 4}, []int{32, 64}
	vars := sweepVars(base, conc, isl)
	if len(vars) != 6 {
		t.Fatalf("%d variations", len(vars))
	}
	var stdout, stderr bytes.Buffer
	err := RunExperiment(context.Background(), vars, benchmark.IO{Stdout: &stdout, Stderr: &stderr, IsTTY: true, Version: "test", CLICommand: "aiperf profile (test)"})
	if err != nil {
		t.Fatalf("RunExperiment: %v\n%s", err, stderr.String())
	}
	dir := base.Output.ArtifactDir

	// 18 runs, warmup only in each variation's first trial.
	if got, want := requests.Load(), int64(18*4+6*2); got != want {
		t.Errorf("mock received %d requests, want %d (18 runs x 4 + 6 warmups x 2)", got, want)
	}
	runs, _ := filepath.Glob(filepath.Join(dir, "profile_runs", "trial_*", "*", "profile_export_aiperf.json"))
	if len(runs) != 18 {
		t.Fatalf("%d run directories with a summary, want 18", len(runs))
	}
	if n := strings.Count(stderr.String(), "trials"); n != 6 {
		t.Errorf("live sweep table printed %d times, want 6 (once per finished variation)", n)
	}

	var sweepID string
	for v, vr := range vars {
		vdir := VariationDirName(&vr)
		var per []map[string]json.RawMessage
		for trial := 1; trial <= 3; trial++ {
			p := filepath.Join(dir, "profile_runs", fmt.Sprintf("trial_%04d", trial), vdir, "profile_export_aiperf.json")
			var doc map[string]json.RawMessage
			readJSON(t, p, &doc)
			var info struct {
				Seed           int64          `json:"random_seed"`
				Trial          int            `json:"trial"`
				Label          string         `json:"run_label"`
				SweepID        string         `json:"sweep_id"`
				VariationLabel string         `json:"variation_label"`
				VariationIndex *int           `json:"variation_index"`
				Values         map[string]any `json:"variation_values"`
			}
			if err := json.Unmarshal(doc["run_info"], &info); err != nil {
				t.Fatal(err)
			}
			if info.Seed != int64(42+v) || info.Trial != trial-1 || info.Label != fmt.Sprintf("run_%04d", trial) {
				t.Errorf("%s: run_info = %+v, want seed %d trial %d", p, info, 42+v, trial-1)
			}
			if sweepID == "" {
				sweepID = info.SweepID
			}
			if info.SweepID == "" || info.SweepID != sweepID || info.VariationIndex == nil || *info.VariationIndex != v ||
				info.VariationLabel != VariationLabel(&vars[v]) || len(info.Values) != len(vr.Params) {
				t.Errorf("%s: run_info sweep fields = %+v; want sweep id %q shared by every run, variation %d %q with %d values",
					p, info, sweepID, v, VariationLabel(&vars[v]), len(vr.Params))
			}
			// run_config.json: AIPerf's BenchmarkRun, written into every run's directory.
			var rc struct {
				BenchmarkID string `json:"benchmark_id"`
				SweepID     string `json:"sweep_id"`
				Cfg         struct {
					Models   map[string]any `json:"models"`
					Datasets []any          `json:"datasets"`
				} `json:"cfg"`
				Variation struct {
					Index  int            `json:"index"`
					Label  string         `json:"label"`
					Values map[string]any `json:"values"`
				} `json:"variation"`
				Trial       int    `json:"trial"`
				ArtifactDir string `json:"artifact_dir"`
				Label       string `json:"label"`
				CLICommand  string `json:"cli_command"`
				RandomSeed  int64  `json:"random_seed"`
			}
			readJSON(t, filepath.Join(filepath.Dir(p), benchmark.RunConfigFile), &rc)
			var id string
			_ = json.Unmarshal(doc["benchmark_id"], &id)
			if rc.BenchmarkID == "" || rc.BenchmarkID != id || rc.SweepID != sweepID || rc.Trial != trial-1 || rc.Label != info.Label ||
				rc.ArtifactDir != filepath.Dir(p) || rc.Variation.Index != v || rc.Variation.Label != info.VariationLabel ||
				len(rc.Variation.Values) != len(vr.Params) || rc.RandomSeed != info.Seed || rc.CLICommand != "aiperf profile (test)" ||
				rc.Cfg.Models == nil || len(rc.Cfg.Datasets) != 1 {
				t.Errorf("%s: run_config.json %+v; want the run's benchmark id %q, trial, label, variation and configuration", p, rc, id)
			}
			per = append(per, doc)
		}
		var agg struct {
			Metadata struct {
				NumOK  int            `json:"num_successful_runs"`
				Values map[string]int `json:"variation_values"`
			} `json:"metadata"`
			Metrics map[string]map[string]any `json:"metrics"`
		}
		readJSON(t, filepath.Join(dir, "aggregate", vdir, aggregateJSONName), &agg)
		if agg.Metadata.NumOK != 3 || agg.Metadata.Values["phases.profiling.concurrency"] != conc[v/2] {
			t.Errorf("%s metadata = %+v", vdir, agg.Metadata)
		}
		checked := 0
		for _, tag := range []string{"request_latency", "time_to_first_token", "inter_token_latency", "request_throughput", "output_token_throughput", "input_sequence_length"} {
			for _, stat := range []string{"avg", "min", "max", "p50", "p99", "std"} {
				vals, ok := statAcross(t, per, tag, stat)
				if !ok {
					continue
				}
				checked++
				got := agg.Metrics[tag+"_"+stat]
				if got == nil {
					t.Errorf("%s: %s_%s missing from the aggregate", vdir, tag, stat)
					continue
				}
				want := handCI(vals)
				for field, w := range want {
					g, isNum := got[field].(float64)
					if !isNum {
						if math.IsInf(w, 0) && got[field] == nil {
							continue // an infinite CV is written as null
						}
						t.Errorf("%s %s_%s.%s = %v, want %v", vdir, tag, stat, field, got[field], w)
						continue
					}
					if math.Abs(g-w) > 1e-9*math.Max(1, math.Abs(w)) {
						t.Errorf("%s %s_%s.%s = %.17g, want %.17g", vdir, tag, stat, field, g, w)
					}
				}
			}
		}
		if checked < 25 {
			t.Errorf("%s: only %d statistics checked", vdir, checked)
		}
	}

	for _, name := range []string{sweepJSONName, sweepCSVName} {
		if _, err := os.Stat(filepath.Join(dir, "aggregate", "sweep_aggregate", name)); err != nil {
			t.Error(err)
		}
	}
	var sweep struct {
		NumRuns  int `json:"num_profile_runs"`
		Metadata struct {
			Params []struct {
				Name   string `json:"name"`
				Values []int  `json:"values"`
			} `json:"sweep_parameters"`
			NumCombinations int `json:"num_combinations"`
		} `json:"metadata"`
		Combos []struct {
			Parameters map[string]int            `json:"parameters"`
			Metrics    map[string]map[string]any `json:"metrics"`
		} `json:"per_combination_metrics"`
		Best map[string]any `json:"best_configurations"`
	}
	readJSON(t, filepath.Join(dir, "aggregate", "sweep_aggregate", sweepJSONName), &sweep)
	if sweep.NumRuns != 18 || sweep.Metadata.NumCombinations != 6 || len(sweep.Combos) != 6 ||
		len(sweep.Metadata.Params) != 2 || sweep.Metadata.Params[0].Name != "concurrency" || sweep.Metadata.Params[1].Name != "isl" {
		t.Errorf("sweep aggregate: runs %d, combinations %d, rows %d, params %+v",
			sweep.NumRuns, sweep.Metadata.NumCombinations, len(sweep.Combos), sweep.Metadata.Params)
	}
	if _, ok := sweep.Best["best_throughput"]; !ok {
		t.Errorf("no best_throughput in %v", sweep.Best)
	}
}

// statAcross collects stat of tag from each run's summary.
func statAcross(t *testing.T, docs []map[string]json.RawMessage, tag, stat string) ([]float64, bool) {
	t.Helper()
	var out []float64
	for _, d := range docs {
		raw, ok := d[tag]
		if !ok {
			return nil, false
		}
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		v, ok := m[stat].(float64)
		if !ok {
			return nil, false
		}
		out = append(out, v)
	}
	return out, true
}

// handCI computes the expected aggregate fields of three runs directly:
// mean, sample std (n-1), se, t(0.975, df 2) from scipy, mean ± t·se.
func handCI(v []float64) map[string]float64 {
	const t975df2 = 4.302652729749462 // scipy.stats.t.ppf(0.975, 2)
	n := float64(len(v))
	mean := (v[0] + v[1] + v[2]) / n
	ss := 0.0
	for _, x := range v {
		ss += (x - mean) * (x - mean)
	}
	std := math.Sqrt(ss / (n - 1))
	se := std / math.Sqrt(n)
	cv := math.Inf(1)
	if mean != 0 {
		cv = std / mean
	}
	return map[string]float64{
		"mean": mean, "std": std, "se": se, "cv": cv,
		"min": math.Min(v[0], math.Min(v[1], v[2])), "max": math.Max(v[0], math.Max(v[1], v[2])),
		"t_critical": t975df2, "ci_low": mean - t975df2*se, "ci_high": mean + t975df2*se,
	}
}

// TestRunExperimentSingleRunIsRun: one variation run once is a plain Run
// (today's layout: the files directly in the artifact directory).
func TestRunExperimentSingleRunIsRun(t *testing.T) {
	t.Parallel()
	url, _ := mock(t, nil)
	cfg := *baseConfig(t, url)
	cfg.Load.RequestCount = ptr(2)
	var out bytes.Buffer
	err := RunExperiment(context.Background(), []config.Variation{{Label: "base", Config: cfg}}, benchmark.IO{Stdout: &out, Stderr: &out, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(cfg.Output.ArtifactDir, "profile_export_aiperf.json")); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(cfg.Output.ArtifactDir, "profile_runs")); !os.IsNotExist(err) {
		t.Errorf("profile_runs exists for a single run: %v", err)
	}
	if _, err := os.Stat(filepath.Join(cfg.Output.ArtifactDir, benchmark.RunConfigFile)); !os.IsNotExist(err) {
		t.Errorf("run_config.json exists for a single run, which AIPerf does not write: %v", err)
	}
}

// TestExperimentSingleRunSweepAgainstMock: a sweep with one run per point
// (no --num-profile-runs) fills best_configurations and pareto_optimal
// from each run's own statistics, and prints the comparison table without
// a terminal.
func TestExperimentSingleRunSweepAgainstMock(t *testing.T) {
	t.Parallel()
	url, _ := mock(t, func(c *mockserver.Config) {
		c.Fast = false
		c.TTFT, c.ITL = 5*time.Millisecond, time.Millisecond
	})
	base := *baseConfig(t, url)
	base.Load.RequestCount = ptr(8)
	conc := []int{1, 2, 4}
	vars := sweepVars(base, conc, []int{32})
	var stdout, stderr bytes.Buffer
	if err := RunExperiment(context.Background(), vars, benchmark.IO{Stdout: &stdout, Stderr: &stderr, Version: "test"}); err != nil {
		t.Fatalf("RunExperiment: %v\n%s", err, stderr.String())
	}
	dir := base.Output.ArtifactDir
	type point struct{ thr, lat float64 }
	points := map[int]point{}
	for v := range vars {
		var doc map[string]json.RawMessage
		readJSON(t, filepath.Join(dir, VariationDirName(&vars[v]), "profile_export_aiperf.json"), &doc)
		var thr, ttft struct{ Avg, P99 float64 }
		if json.Unmarshal(doc["request_throughput"], &thr) != nil || json.Unmarshal(doc["time_to_first_token"], &ttft) != nil || thr.Avg == 0 || ttft.P99 == 0 {
			t.Fatalf("variation %d: no request_throughput avg or time_to_first_token p99", v)
		}
		points[conc[v]] = point{thr.Avg, ttft.P99}
	}
	var sweep struct {
		Best map[string]struct {
			Parameters map[string]int `json:"parameters"`
			Metric     float64        `json:"metric"`
			Unit       string         `json:"unit"`
		} `json:"best_configurations"`
		Pareto []map[string]int `json:"pareto_optimal"`
	}
	readJSON(t, filepath.Join(dir, "sweep_aggregate", sweepJSONName), &sweep)
	bestThr, bestLat := conc[0], conc[0]
	for _, c := range conc {
		if points[c].thr > points[bestThr].thr {
			bestThr = c
		}
		if points[c].lat < points[bestLat].lat {
			bestLat = c
		}
	}
	if b := sweep.Best["best_throughput"]; b.Parameters["concurrency"] != bestThr || b.Metric != points[bestThr].thr || b.Unit != "requests/sec" {
		t.Errorf("best_throughput = %+v; want concurrency %d at %v requests/sec (points %v)", b, bestThr, points[bestThr].thr, points)
	}
	if b := sweep.Best["best_latency_p99"]; b.Parameters["concurrency"] != bestLat || b.Metric != points[bestLat].lat || b.Unit != "ms" {
		t.Errorf("best_latency_p99 = %+v; want concurrency %d at %v ms (points %v)", b, bestLat, points[bestLat].lat, points)
	}
	if len(sweep.Pareto) == 0 {
		t.Fatalf("pareto_optimal is empty (points %v)", points)
	}
	for _, p := range sweep.Pareto {
		c := p["concurrency"]
		for _, o := range conc {
			if q := points[o]; q.thr >= points[c].thr && q.lat <= points[c].lat && (q.thr > points[c].thr || q.lat < points[c].lat) {
				t.Errorf("pareto point concurrency %d is dominated by %d (points %v)", c, o, points)
			}
		}
	}
	if n := strings.Count(stdout.String(), "trials"); n != 1 {
		t.Errorf("the sweep table appears %d times on stdout without a terminal; want once:\n%s", n, stdout.String())
	}
	if !strings.Contains(stdout.String(), "Best throughput: concurrency=") {
		t.Errorf("stdout lacks the best configurations:\n%s", stdout.String())
	}
}
