package export

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestPrefixBase(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"":                             "",
		"myrun":                        "myrun",
		"myrun.json":                   "myrun",
		"myrun.jsonl":                  "myrun",
		"myrun.csv":                    "myrun",
		"myrun_raw.jsonl":              "myrun",
		"myrun_console.txt":            "myrun",
		"myrun_timeslices.csv":         "myrun",
		"myrun_server_metrics.parquet": "myrun",
		"myrun.parquet":                "myrun",
		"myrun.json.json":              "myrun.json", // only one suffix goes
		"myrun_accuracy.jsonl":         "myrun_accuracy",
		"my.run":                       "my.run",
	}
	for in, want := range cases {
		if got := PrefixBase(in); got != want {
			t.Errorf("PrefixBase(%q) = %q; want %q", in, got, want)
		}
	}
}

func TestNewPaths(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("artifacts", "m-openai-chat-concurrency2")
	p := NewPaths(dir, "", LevelRecords)
	want := Paths{
		Dir: dir, Level: LevelRecords,
		JSON:                 filepath.Join(dir, "profile_export_aiperf.json"),
		CSV:                  filepath.Join(dir, "profile_export_aiperf.csv"),
		JSONL:                filepath.Join(dir, "profile_export.jsonl"),
		RawJSONL:             filepath.Join(dir, "profile_export_raw.jsonl"),
		ConsoleTxt:           filepath.Join(dir, "profile_export_console.txt"),
		TimeslicesJSON:       filepath.Join(dir, "profile_export_aiperf_timeslices.json"),
		TimeslicesCSV:        filepath.Join(dir, "profile_export_aiperf_timeslices.csv"),
		ServerMetricsJSON:    filepath.Join(dir, "server_metrics_export.json"),
		ServerMetricsCSV:     filepath.Join(dir, "server_metrics_export.csv"),
		ServerMetricsJSONL:   filepath.Join(dir, "server_metrics_export.jsonl"),
		ServerMetricsParquet: filepath.Join(dir, "server_metrics_export.parquet"),
		GPUTelemetryJSONL:    filepath.Join(dir, "gpu_telemetry_export.jsonl"),
		NetworkLatencyJSONL:  filepath.Join(dir, "profile_export_network_latency.jsonl"),
		Inputs:               filepath.Join(dir, "inputs.json"),
		Log:                  filepath.Join(dir, "logs", "aiperf.log"),
		Outputs:              filepath.Join(dir, "outputs.json"),
	}
	if p != want {
		t.Errorf("NewPaths default = %+v; want %+v", p, want)
	}

	p = NewPaths(dir, "myrun.json", LevelSummary)
	for got, want := range map[string]string{
		p.JSON: "myrun.json", p.CSV: "myrun.csv", p.JSONL: "myrun.jsonl",
		p.RawJSONL: "myrun_raw.jsonl", p.ConsoleTxt: "myrun_console.txt", p.Inputs: "inputs.json", p.Outputs: "outputs.json",
		p.TimeslicesJSON: "myrun_timeslices.json", p.TimeslicesCSV: "myrun_timeslices.csv",
		p.ServerMetricsJSON: "myrun_server_metrics.json", p.ServerMetricsCSV: "myrun_server_metrics.csv",
		p.ServerMetricsJSONL: "myrun_server_metrics.jsonl", p.ServerMetricsParquet: "myrun_server_metrics.parquet",
		p.GPUTelemetryJSONL: "myrun_gpu_telemetry.jsonl",
	} {
		if filepath.Base(got) != want {
			t.Errorf("prefixed path %s; want base %s", got, want)
		}
	}
}

func TestPathsLevels(t *testing.T) {
	t.Parallel()
	cases := []struct {
		level   Level
		files   []string
		exports []string
	}{
		{LevelSummary,
			[]string{"profile_export_aiperf.json", "profile_export_aiperf.csv", "profile_export_console.txt", "inputs.json", "aiperf.log"},
			[]string{"CSV Export", "JSON Export"}},
		{LevelRecords,
			[]string{"profile_export_aiperf.json", "profile_export_aiperf.csv", "profile_export.jsonl", "profile_export_console.txt", "inputs.json", "aiperf.log"},
			[]string{"CSV Export", "JSON Export"}},
		{LevelRaw,
			[]string{"profile_export_aiperf.json", "profile_export_aiperf.csv", "profile_export.jsonl", "profile_export_raw.jsonl", "profile_export_console.txt", "inputs.json", "aiperf.log"},
			[]string{"CSV Export", "JSON Export", "Raw Records"}},
	}
	for _, c := range cases {
		p := NewPaths("d", "", c.level)
		var files, exports []string
		for _, f := range p.Files() {
			files = append(files, filepath.Base(f))
		}
		for _, e := range p.Exports() {
			exports = append(exports, e.Label)
		}
		if !slices.Equal(files, c.files) {
			t.Errorf("%v.Files() = %v; want %v", c.level, files, c.files)
		}
		if !slices.Equal(exports, c.exports) {
			t.Errorf("%v.Exports() = %v; want %v", c.level, exports, c.exports)
		}
	}
}

func TestParseLevel(t *testing.T) {
	t.Parallel()
	for _, l := range []Level{LevelSummary, LevelRecords, LevelRaw} {
		got, err := ParseLevel(strings.ToUpper(l.String()))
		if err != nil || got != l {
			t.Errorf("ParseLevel(%q) = %v, %v; want %v", l.String(), got, err, l)
		}
	}
	if _, err := ParseLevel("full"); err == nil {
		t.Error("ParseLevel(full) succeeded; want an error")
	}
}

func TestDirName(t *testing.T) {
	t.Parallel()
	cases := []struct {
		models      []string
		kind, etype string
		s           Stimulus
		want        string
	}{
		{[]string{"mock-model"}, "openai", "chat", Stimulus{Concurrency: 2}, "mock-model-openai-chat-concurrency2"},
		{[]string{"mock-model"}, "openai", "completions", Stimulus{RequestRate: 20}, "mock-model-openai-completions-request_rate20.0"},
		{[]string{"Qwen/Qwen3-0.6B"}, "openai", "chat", Stimulus{Concurrency: 10}, "Qwen_Qwen3-0.6B-openai-chat-concurrency10"},
		{[]string{"a/b", "c"}, "openai", "chat", Stimulus{Concurrency: 4, RequestRate: 2.5}, "a_b_multi-openai-chat-concurrency4-request_rate2.5"},
		{[]string{"m"}, "openai", "chat", Stimulus{UserCentric: true, Users: 8, RequestRate: 1.5}, "m-openai-chat-user_centric-users8-qps1.5"},
		{[]string{"m"}, "openai", "chat", Stimulus{FixedSchedule: true, Concurrency: 3}, "m-openai-chat-fixed_schedule"},
		{[]string{"m"}, "", "embeddings", Stimulus{}, "m-embeddings"},
		{nil, "openai", "chat", Stimulus{RequestRate: 0.25}, "openai-chat-request_rate0.25"},
	}
	for _, c := range cases {
		if got := DirName(c.models, c.kind, c.etype, c.s); got != c.want {
			t.Errorf("DirName(%v, %q, %q, %+v) = %q; want %q", c.models, c.kind, c.etype, c.s, got, c.want)
		}
	}
}

// FuzzPrefixBase checks that stripping removes at most one known suffix
// and never adds anything.
func FuzzPrefixBase(f *testing.F) {
	for _, s := range []string{"myrun", "myrun_raw.jsonl", "x.json", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b := PrefixBase(s)
		if !strings.HasPrefix(s, b) {
			t.Fatalf("PrefixBase(%q) = %q; not a prefix", s, b)
		}
		if b != s && !slices.Contains(prefixSuffixes[:], s[len(b):]) {
			t.Fatalf("PrefixBase(%q) removed %q, not a known suffix", s, s[len(b):])
		}
	})
}
