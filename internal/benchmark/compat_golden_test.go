package benchmark

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/mockserver"
	"github.com/aiperf-go/aiperf/internal/tokenizer/testmodels"
)

// The golden half of the compatibility harness: scripts/aiperf-compat.sh
// runs AIPerf 0.13 on fixed cases against this repo's mock server and
// checks in the shape of each artifact directory (files, keys, metric
// tags, units and statistics; testdata/aiperf013/*.shape.json) and the
// inputs.json of seeded synthetic runs. These tests run the same cases
// here and compare. The cases must match run_case's in the script.

// goldenCase is one harness case: AIPerf's flags there, our config here.
type goldenCase struct {
	name string
	edit func(c *config.Config)
}

func goldenCases() []goldenCase {
	stream := func(seed int64) func(c *config.Config) {
		return func(c *config.Config) {
			c.Endpoint.Streaming = true
			c.Input.InputTokens = config.InputTokens{Mean: 128, Stddev: 32}
			c.Input.OutputTokens = config.OutputTokens{Mean: ptr(16)}
			c.Input.RandomSeed = ptr(seed)
			c.Load.RequestCount, c.Load.Concurrency = ptr(20), ptr(2)
		}
	}
	return []goldenCase{
		{"stream", stream(42)},
		{"raw", func(c *config.Config) {
			c.Endpoint.Streaming = true
			c.Input.InputTokens = config.InputTokens{Mean: 32}
			c.Input.OutputTokens = config.OutputTokens{Mean: ptr(8)}
			c.Input.RandomSeed = ptr(int64(1))
			c.Load.RequestCount, c.Load.Concurrency = ptr(4), ptr(2)
			c.Warmup.RequestCount = ptr(2)
			c.Output.ExportLevel = config.ExportRaw
			c.Artifacts.ExportOutputsJSON = true
		}},
		{"nonstream", func(c *config.Config) {
			c.Endpoint.Streaming = false
			c.Input.InputTokens = config.InputTokens{Mean: 64}
			c.Input.OutputTokens = config.OutputTokens{Mean: ptr(8)}
			c.Input.RandomSeed = ptr(int64(7))
			c.Load.RequestCount, c.Load.Concurrency = ptr(6), ptr(2)
		}},
		{"seed1", stream(1)},
		{"seed123", stream(123)},
	}
}

// runGolden runs a case against the in-process mock with the harness's
// mock settings (TTFT 10 ms, ITL 2 ms, 75 % accepted prediction tokens,
// seed 1) and Qwen3's tokenizer; it returns the artifact directory.
func runGolden(t *testing.T, gc goldenCase) string {
	t.Helper()
	url, _ := mock(t, func(c *mockserver.Config) {
		c.Fast, c.TTFT, c.ITL = false, 10*time.Millisecond, 2*time.Millisecond
		c.PredictionAcceptRate = 0.75
		c.RandomSeed, c.SeedSet = 1, true
	})
	cfg := baseConfig(t, url)
	cfg.Tokenizer.Name = testmodels.Dir(t, "qwen3")
	// As AIPerf: server metrics from the mock's /metrics, GPU telemetry
	// from whatever DCGM exporter answers (none: an empty telemetry_data).
	zero := 0.0
	cfg.Telemetry.ServerMetrics.Disabled, cfg.Telemetry.ServerMetrics.FlushSeconds = false, &zero
	cfg.Telemetry.GPU.Disabled = false
	gc.edit(cfg)
	if out, err := run(t, context.Background(), cfg); err != nil {
		t.Fatalf("%s: Run: %v\n%s", gc.name, err, out)
	}
	return cfg.Output.ArtifactDir
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// artShape is what artifact_shapes.py prints: the structure of an artifact
// directory without its values.
type artShape struct {
	Files   []string    `json:"files"`
	Summary *artJSON    `json:"profile_export_aiperf.json"`
	CSV     *artCSV     `json:"profile_export_aiperf.csv"`
	JSONL   *artJSONL   `json:"profile_export.jsonl"`
	Raw     *artJSONL   `json:"profile_export_raw.jsonl"`
	Outputs *artOutputs `json:"outputs.json"`
	Ready   []string    `json:".aiperf_results_ready.json"`
}

type artJSON struct {
	Top     []string             `json:"top"`
	Metrics map[string]artMetric `json:"metrics"`
}

type artMetric struct {
	Unit  string   `json:"unit"`
	Stats []string `json:"stats"`
}

type artCSV struct {
	Headers   [][]string `json:"headers"`
	StatRows  []string   `json:"stat_rows"`
	ValueRows []string   `json:"value_rows"`
}

type artJSONL struct {
	Top      []string          `json:"top"`
	Metadata []string          `json:"metadata"`
	Metrics  map[string]string `json:"metrics"`
	Phases   []string          `json:"phases"`
}

type artOutputs struct {
	Top     []string `json:"top"`
	Schema  string   `json:"schema_version"`
	Entry   []string `json:"entry"`
	Metrics []string `json:"metrics"`
}

// artShapeOf computes the shape of an artifact directory, as
// artifact_shapes.py does.
func artShapeOf(t *testing.T, dir string) artShape {
	t.Helper()
	var s artShape
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "logs" {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			s.Files = append(s.Files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(s.Files)
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil
		}
		return b
	}
	if b := read("profile_export_aiperf.json"); b != nil {
		var doc map[string]json.RawMessage
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		js := &artJSON{Metrics: map[string]artMetric{}}
		for k, v := range doc {
			var m map[string]json.RawMessage
			if json.Unmarshal(v, &m) == nil && m["unit"] != nil {
				var ms artMetric
				_ = json.Unmarshal(m["unit"], &ms.Unit)
				for sk := range m {
					if sk != "unit" {
						ms.Stats = append(ms.Stats, sk)
					}
				}
				slices.Sort(ms.Stats)
				js.Metrics[k] = ms
				continue
			}
			js.Top = append(js.Top, k)
		}
		slices.Sort(js.Top)
		s.Summary = js
	}
	if b := read("profile_export_aiperf.csv"); b != nil {
		r := csv.NewReader(bytes.NewReader(b))
		r.FieldsPerRecord = -1
		rows, err := r.ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		cs := &artCSV{}
		section := ""
		for _, row := range rows {
			if row[0] == "Metric" { // encoding/csv skips the blank line between sections
				section = ""
			}
			switch {
			case section == "":
				section = "value"
				if row[0] == "Metric" && len(row) > 2 {
					section = "Metric"
				}
				cs.Headers = append(cs.Headers, row)
			case section == "Metric":
				cs.StatRows = append(cs.StatRows, row[0])
			default:
				cs.ValueRows = append(cs.ValueRows, row[0])
			}
		}
		slices.Sort(cs.StatRows)
		slices.Sort(cs.ValueRows)
		s.CSV = cs
	}
	s.JSONL = artJSONLOf(t, read("profile_export.jsonl"))
	s.Raw = artJSONLOf(t, read("profile_export_raw.jsonl"))
	if b := read("outputs.json"); b != nil {
		var doc struct {
			Schema string                       `json:"schema_version"`
			Data   []map[string]json.RawMessage `json:"data"`
		}
		var top map[string]json.RawMessage
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		_ = json.Unmarshal(b, &top)
		os := &artOutputs{Top: sortedKeys(top), Schema: doc.Schema}
		entry, mets := map[string]bool{}, map[string]bool{}
		for _, e := range doc.Data {
			for k := range e {
				entry[k] = true
			}
			var m map[string]json.RawMessage
			_ = json.Unmarshal(e["metrics"], &m)
			for k := range m {
				mets[k] = true
			}
		}
		os.Entry, os.Metrics = slices.Sorted(maps.Keys(entry)), slices.Sorted(maps.Keys(mets))
		s.Outputs = os
	}
	if b := read(".aiperf_results_ready.json"); b != nil {
		var m map[string]json.RawMessage
		_ = json.Unmarshal(b, &m)
		s.Ready = sortedKeys(m)
	}
	return s
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

func artJSONLOf(t *testing.T, b []byte) *artJSONL {
	t.Helper()
	if b == nil {
		return nil
	}
	top, meta, phases := map[string]bool{}, map[string]bool{}, map[string]bool{}
	js := &artJSONL{Metrics: map[string]string{}}
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var rec map[string]json.RawMessage
		if err := json.Unmarshal(line, &rec); err != nil {
			t.Fatal(err)
		}
		for k := range rec {
			top[k] = true
		}
		var md map[string]json.RawMessage
		_ = json.Unmarshal(rec["metadata"], &md)
		for k := range md {
			meta[k] = true
		}
		var phase string
		_ = json.Unmarshal(md["benchmark_phase"], &phase)
		phases[phase] = phase != ""
		var ms map[string]struct {
			Unit string `json:"unit"`
		}
		_ = json.Unmarshal(rec["metrics"], &ms)
		for k, v := range ms {
			js.Metrics[k] = v.Unit
		}
	}
	js.Top, js.Metadata = sortedKeys(top), sortedKeys(meta)
	for p, ok := range phases {
		if ok {
			js.Phases = append(js.Phases, p)
		}
	}
	slices.Sort(js.Phases)
	return js
}

// shapeDiff lists how ours differs from AIPerf's: items AIPerf has that we
// lack ("missing"), items we have that it lacks ("extra"), and tags whose
// unit or statistics differ ("mismatch"). Items are "<file>: <what>".
type shapeDiff struct{ missing, extra, mismatch []string }

func diffShapes(ours, theirs artShape) shapeDiff {
	var d shapeDiff
	sets := func(file string, a, b []string) {
		for _, x := range b {
			if !slices.Contains(a, x) {
				d.missing = append(d.missing, file+": "+x)
			}
		}
		for _, x := range a {
			if !slices.Contains(b, x) {
				d.extra = append(d.extra, file+": "+x)
			}
		}
	}
	sets("files", ours.Files, theirs.Files)
	if o, a := ours.Summary, theirs.Summary; o != nil && a != nil {
		sets("summary json key", o.Top, a.Top)
		sets("summary json metric", sortedKeys(o.Metrics), sortedKeys(a.Metrics))
		for tag, am := range a.Metrics {
			if om, ok := o.Metrics[tag]; ok && (om.Unit != am.Unit || !slices.Equal(om.Stats, am.Stats)) {
				d.mismatch = append(d.mismatch, "summary json metric: "+tag+": ours "+om.Unit+" "+strings.Join(om.Stats, ",")+
					"; AIPerf "+am.Unit+" "+strings.Join(am.Stats, ","))
			}
		}
	}
	if o, a := ours.CSV, theirs.CSV; o != nil && a != nil {
		sets("summary csv row", o.StatRows, a.StatRows)
		sets("summary csv value row", o.ValueRows, a.ValueRows)
		if len(o.Headers) > 0 && len(a.Headers) > 0 && !slices.Equal(o.Headers[0], a.Headers[0]) {
			d.mismatch = append(d.mismatch, "summary csv header: ours "+strings.Join(o.Headers[0], ",")+"; AIPerf "+strings.Join(a.Headers[0], ","))
		}
	}
	for _, f := range []struct {
		name string
		o, a *artJSONL
	}{{"records jsonl", ours.JSONL, theirs.JSONL}, {"raw jsonl", ours.Raw, theirs.Raw}} {
		if f.o == nil || f.a == nil {
			continue
		}
		sets(f.name+" key", f.o.Top, f.a.Top)
		sets(f.name+" metadata", f.o.Metadata, f.a.Metadata)
		sets(f.name+" phase", f.o.Phases, f.a.Phases)
		sets(f.name+" metric", sortedKeys(f.o.Metrics), sortedKeys(f.a.Metrics))
		for tag, u := range f.a.Metrics {
			if ou, ok := f.o.Metrics[tag]; ok && ou != u {
				d.mismatch = append(d.mismatch, f.name+" metric: "+tag+": unit ours "+ou+", AIPerf "+u)
			}
		}
	}
	if o, a := ours.Outputs, theirs.Outputs; o != nil && a != nil {
		sets("outputs.json key", o.Top, a.Top)
		sets("outputs.json entry", o.Entry, a.Entry)
		sets("outputs.json metric", o.Metrics, a.Metrics)
		if o.Schema != a.Schema {
			d.mismatch = append(d.mismatch, "outputs.json schema_version: ours "+o.Schema+", AIPerf "+a.Schema)
		}
	}
	sets("ready marker key", ours.Ready, theirs.Ready)
	return d
}

// TestAIPerfGolden runs every harness case and compares it with AIPerf
// 0.13's output for the same case:
//
//   - inputs.json of the seeded synthetic cases (Qwen3 tokenizer, ISL
//     128 +- 32, OSL 16, seeds 1, 42, 123) must be byte-identical;
//   - every AIPerf file, key, metric tag (with its unit and statistics),
//     CSV row, JSONL field and outputs.json field must be ours too, but for
//     those listed in goldenPending (each waiting for the issue that owns
//     it); what we add must be listed in goldenExtra with the reason.
//
// With AIPERF_COMPAT_REPORT=1 it prints every difference.
func TestAIPerfGolden(t *testing.T) {
	t.Parallel()
	seeds := map[string]string{"stream": "42", "seed1": "1", "seed123": "123"}
	for _, gc := range goldenCases() {
		t.Run(gc.name, func(t *testing.T) {
			t.Parallel()
			dir := runGolden(t, gc)
			if seed, ok := seeds[gc.name]; ok {
				want, err := os.ReadFile(filepath.Join("testdata", "aiperf013", "inputs_qwen3_isl128_seed"+seed+".json"))
				if err != nil {
					t.Fatal(err)
				}
				got, err := os.ReadFile(filepath.Join(dir, "inputs.json"))
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("inputs.json differs from AIPerf 0.13's for seed %s (%d vs %d bytes); first difference at byte %d",
						seed, len(got), len(want), firstDiff(got, want))
				}
			}
			b, err := os.ReadFile(filepath.Join("testdata", "aiperf013", gc.name+".shape.json"))
			if os.IsNotExist(err) {
				return // an inputs-only case
			}
			if err != nil {
				t.Fatal(err)
			}
			var theirs artShape
			if err := json.Unmarshal(b, &theirs); err != nil {
				t.Fatal(err)
			}
			d := diffShapes(artShapeOf(t, dir), theirs)
			report := os.Getenv("AIPERF_COMPAT_REPORT") != ""
			for _, c := range []struct {
				items      []string
				known      map[string]string
				word, hint string
			}{
				{d.missing, goldenPending, "missing", "AIPerf writes it, we do not: add it, or list it in goldenPending with its owner"},
				{d.extra, goldenExtra, "extra", "we write it, AIPerf does not: list it in goldenExtra with the reason"},
			} {
				for _, m := range c.items {
					why, ok := lookupPrefix(c.known, m)
					if report {
						t.Logf("%s: %s %s (%s)", gc.name, c.word, m, why)
					}
					if !ok {
						t.Errorf("%s %s: %s", c.word, m, c.hint)
					}
				}
			}
			for _, m := range d.mismatch {
				t.Errorf("%s: %s", gc.name, m)
			}
		})
	}
}

// goldenPending lists what AIPerf 0.13 writes that we do not yet, as
// prefixes of shapeDiff items, with the issue that owns it.
var goldenPending = map[string]string{
	// Timing, not a gap: AIPerf drops the tag when every ITL rounds to 0.
	"summary json metric: output_token_throughput_per_user":  "timing: absent when every ITL is 0",
	"summary csv row: Output Token Throughput Per User":      "timing: absent when every ITL is 0",
	"records jsonl metric: output_token_throughput_per_user": "timing: absent when every ITL is 0",
	"raw jsonl metric: output_token_throughput_per_user":     "timing: absent when every ITL is 0",
}

// goldenExtra lists what we write beyond AIPerf 0.13, as prefixes of
// shapeDiff items, with the reason.
var goldenExtra = map[string]string{
	"summary json metric: schedule_lag":                   "ours: how late each request was sent (our extra tags stay)",
	"summary csv row: Schedule Lag":                       "ours: schedule_lag",
	"records jsonl metric: schedule_lag":                  "ours: schedule_lag",
	"raw jsonl metric: schedule_lag":                      "ours: schedule_lag",
	"summary json metric: late_request_count":             "ours: sends more than 1 ms late",
	"summary csv value row: Late Requests":                "ours: late_request_count",
	"summary json key: client_health":                     "ours: the load generator's self-assessment",
	"summary json metric: stream_incomplete_count":        "ours: streams that ended without [DONE]",
	"summary csv value row: Incomplete Streams":           "ours: stream_incomplete_count",
	"summary json metric: e2e_normalized_interactivity_":  "AIPerf 0.14's E2E normalized interactivity (the golden is 0.13's)",
	"summary csv value row: E2E Normalized Interactivity": "AIPerf 0.14: e2e_normalized_interactivity_p75/_p90",
}

func lookupPrefix(m map[string]string, item string) (string, bool) {
	for p, v := range m {
		if strings.HasPrefix(item, p) {
			return v, true
		}
	}
	return "", false
}
