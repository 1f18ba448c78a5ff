package results

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadAIPerfSummary reads a summary AIPerf 0.13 wrote (10 requests at
// concurrency 2, ISL 128, OSL 16; see run_info.cli_command in the file).
func TestReadAIPerfSummary(t *testing.T) {
	t.Parallel()
	s, err := ReadSummary(filepath.Join("testdata", "aiperf013_run", SummaryName))
	if err != nil {
		t.Fatal(err)
	}
	if s.Version != "0.13.0" || s.BenchmarkID == "" || s.Producer != "aiperf" || s.Start == "" || s.End == "" || !strings.HasPrefix(s.CLICommand, "aiperf profile") || len(s.InputConfig) == 0 {
		t.Errorf("version %q, id %q, producer %q, times %q..%q, command %q", s.Version, s.BenchmarkID, s.Producer, s.Start, s.End, s.CLICommand)
	}
	want := RunConfig{Model: "mock-model", EndpointType: "chat", Streaming: true, Concurrency: 2, ISL: 128, OSL: 16, ISLStddev: 32, DatasetType: "synthetic"}
	if s.Run != want {
		t.Errorf("Run = %+v; want %+v", s.Run, want)
	}
	if v, ok := s.Value("request_count", "avg"); !ok || v != 10 {
		t.Errorf("request_count = %v, %v; want 10", v, ok)
	}
	if v, ok := s.Value("output_token_throughput", "avg"); !ok || math.Abs(v-862.642720531444) > 1e-9 {
		t.Errorf("output_token_throughput = %v", v)
	}
	if _, ok := s.Value("time_to_first_token", "p99"); !ok || s.Unit("time_to_first_token") != "ms" {
		t.Error("time_to_first_token p99 missing")
	}
	for _, skipped := range []string{"input_config", "run_info", "error_summary", "telemetry_data"} {
		if _, ok := s.Get(skipped); ok {
			t.Errorf("%s read as a metric", skipped)
		}
	}
}

func TestReadAIPerfRecords(t *testing.T) {
	t.Parallel()
	n := 0
	err := ReadRecords(filepath.Join("testdata", "aiperf013_run", RecordsName), func(r *Record) error {
		n++
		if r.Phase != "profiling" || r.Failed {
			t.Errorf("record %d: phase %q failed %v", n, r.Phase, r.Failed)
		}
		icl := r.Metrics["inter_chunk_latency"]
		osl, ok := r.Scalar("output_sequence_length")
		if !icl.IsList || !ok || len(icl.List) != int(osl)-1 || icl.Unit != "ms" {
			t.Errorf("record %d: inter_chunk_latency %+v, osl %v", n, icl, osl)
		}
		return nil
	})
	if err != nil || n != 10 {
		t.Errorf("ReadRecords = %v after %d records; want 10", err, n)
	}
}

func TestScanRecordsErrors(t *testing.T) {
	t.Parallel()
	err := ScanRecords(strings.NewReader("{\"metrics\":{}}\n\nnot json\n"), "x.jsonl", func(*Record) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "x.jsonl:3: not a record line") {
		t.Errorf("error = %v; want x.jsonl:3", err)
	}
	var got []bool
	err = ScanRecords(strings.NewReader(`{"metadata":{"benchmark_phase":"warmup"},"metrics":{"a":{"value":[1,2],"unit":"ms"},"b":{"value":3,"unit":"ms"}},"error":{"code":500}}`+"\n"), "y", func(r *Record) error {
		got = append(got, r.Failed, r.Metrics["a"].IsList, r.Phase == "warmup")
		return nil
	})
	if err != nil || len(got) != 3 || !got[0] || !got[1] || !got[2] {
		t.Errorf("ScanRecords = %v, %v", got, err)
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestFind lays out a run, a multi-run and a sweep below one directory
// (a "models" directory) and finds each once, as its kind.
func TestFind(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	run := `{"aiperf_version":"x","input_config":{"models":{"items":[{"name":"m1"}]},"phases":[{"name":"profiling","kind":"profiling","concurrency":8}]},"request_throughput":{"unit":"requests/sec","avg":2}}`
	write(t, filepath.Join(root, "a_run", SummaryName), run)
	write(t, filepath.Join(root, "b_multi", "aggregate", AggregateName), `{"metadata":{"num_profile_runs":3,"num_successful_runs":3,"confidence_level":0.95},"metrics":{"request_throughput_avg":{"mean":2.5,"std":0.1,"ci_low":2.4,"ci_high":2.6,"unit":"requests/sec"},"time_to_first_token_p99":{"mean":null,"unit":"ms"}}}`)
	write(t, filepath.Join(root, "b_multi", "profile_runs", "run_0001", SummaryName), run)
	write(t, filepath.Join(root, "c_sweep", "sweep_aggregate", SweepName), `{"metadata":{"sweep_parameters":[{"name":"concurrency","values":[1,2]}]},"per_combination_metrics":[{"parameters":{"concurrency":1},"metrics":{"request_throughput":{"mean":1,"avg":1,"p99":1.5}}},{"parameters":{"concurrency":2},"metrics":{"request_throughput_avg":{"mean":1.9}}}]}`)
	write(t, filepath.Join(root, "c_sweep", "concurrency_1", SummaryName), run)
	write(t, filepath.Join(root, "d_empty", "notes.txt"), "x")

	arts, err := Find(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(arts) != 3 || arts[0].Kind != KindRun || arts[1].Kind != KindMultiRun || arts[2].Kind != KindSweep {
		t.Fatalf("Find = %+v", arts)
	}
	if arts[0].Label() != "m1 (a_run)" || arts[0].Summary.Run.Concurrency != 8 {
		t.Errorf("run: label %q, run %+v", arts[0].Label(), arts[0].Summary.Run)
	}
	agg := arts[1].Aggregate
	if v, ok := agg.Value("request_throughput", "avg"); !ok || v != 2.5 || agg.NumRuns != 3 || arts[1].Summary == nil {
		t.Errorf("aggregate = %+v", agg)
	}
	if _, ok := agg.Value("time_to_first_token", "p99"); ok {
		t.Error("a null mean read as a value")
	}
	sw := arts[2].Sweep
	if len(sw.Points) != 2 || sw.ParamNames[0] != "concurrency" {
		t.Fatalf("sweep = %+v", sw)
	}
	if v, ok := sw.Points[0].Value("request_throughput", "p99"); !ok || v != 1.5 {
		t.Errorf("single-trial layout p99 = %v, %v", v, ok)
	}
	if v, ok := sw.Points[1].Value("request_throughput", "avg"); !ok || v != 1.9 {
		t.Errorf("multi-trial layout avg = %v, %v", v, ok)
	}
	if c, ok := sw.Points[1].Param("concurrency"); !ok || c != 2 || sw.Points[1].Label() != "concurrency=2" {
		t.Errorf("param = %v %v %q", c, ok, sw.Points[1].Label())
	}
	// a summary file names its run directly
	if one, err := Find(filepath.Join(root, "a_run", SummaryName)); err != nil || len(one) != 1 || one[0].Kind != KindRun {
		t.Errorf("Find(file) = %+v, %v", one, err)
	}
	if _, err := Find(filepath.Join(root, "d_empty")); err == nil || !strings.Contains(err.Error(), "no benchmark results") {
		t.Errorf("Find(empty) = %v", err)
	}
}

func TestSplitKey(t *testing.T) {
	t.Parallel()
	for key, want := range map[string][2]string{
		"time_to_first_token_p99": {"time_to_first_token", "p99"},
		"request_throughput_avg":  {"request_throughput", "avg"},
		"inter_token_latency_std": {"inter_token_latency", "std"},
	} {
		tag, stat, ok := SplitKey(key)
		if !ok || tag != want[0] || stat != want[1] {
			t.Errorf("SplitKey(%q) = %q, %q, %v", key, tag, stat, ok)
		}
	}
	for _, key := range []string{"request_count", "_p99", "x_total"} {
		if _, _, ok := SplitKey(key); ok {
			t.Errorf("SplitKey(%q) accepted", key)
		}
	}
}

func FuzzParseSummary(f *testing.F) {
	f.Add([]byte(`{"a":{"unit":"ms","avg":1.5,"count":3},"b":[1],"c":{"x":1},"input_config":{"phases":[{"kind":"profiling","concurrency":2}]}}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`[1]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseSummary(data)
		if err != nil {
			return
		}
		for _, m := range s.Metrics {
			if m.Stats == nil {
				t.Fatalf("metric %q without stats", m.Tag)
			}
		}
	})
}

func FuzzParseAggregateAndSweep(f *testing.F) {
	f.Add([]byte(`{"metadata":{"num_profile_runs":2},"metrics":{"x_avg":{"mean":1,"unit":"ms"}}}`))
	f.Add([]byte(`{"per_combination_metrics":[{"parameters":{"concurrency":1},"metrics":{"x":{"mean":1}}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if a, err := ParseAggregate(data); err == nil && len(a.Keys) != len(a.Metrics) {
			t.Fatalf("keys %v vs metrics %v", a.Keys, a.Metrics)
		}
		if s, err := ParseSweep(data); err == nil {
			for _, p := range s.Points {
				_, _ = p.Value("x", "avg")
			}
		}
	})
}

func FuzzScanRecords(f *testing.F) {
	f.Add([]byte(`{"metadata":{"benchmark_phase":"profiling"},"metrics":{"a":{"value":[1,2],"unit":"ms"}}}` + "\n"))
	f.Add([]byte("{}\n{\"metrics\":{\"b\":{\"value\":\"x\"}}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_ = ScanRecords(strings.NewReader(string(data)), "fuzz", func(r *Record) error {
			if r.Metrics == nil {
				t.Fatal("nil metrics")
			}
			return nil
		})
	})
}
