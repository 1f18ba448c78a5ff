package export

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/aiperf-go/aiperf/internal/metrics"
	"github.com/aiperf-go/aiperf/internal/metrics/stats"
	"github.com/aiperf-go/aiperf/internal/record"
)

func TestSummaryJSONGolden(t *testing.T) {
	t.Parallel()
	b, err := SummaryJSON(fixtureSummary(), fixtureRunInfo())
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "summary.json.golden", b)
}

// topKeys returns the top-level member names of a JSON object, in order.
func topKeys(t *testing.T, b []byte) []string {
	t.Helper()
	d := jsontext.NewDecoder(strings.NewReader(string(b)))
	if tok, err := d.ReadToken(); err != nil || tok.Kind() != '{' {
		t.Fatalf("not an object: %v", err)
	}
	var keys []string
	for d.PeekKind() != '}' {
		k, err := d.ReadToken()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.String())
		if err := d.SkipValue(); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// TestSummaryJSONKeyOrder pins AIPerf 0.13's top-level layout: the
// GenAI-Perf metric fields first, the run fields, then every other metric.
func TestSummaryJSONKeyOrder(t *testing.T) {
	t.Parallel()
	b, err := SummaryJSON(fixtureSummary(), fixtureRunInfo())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"schema_version", "aiperf_version", "benchmark_id",
		"request_throughput", "request_latency", "request_count", "time_to_first_token",
		"time_to_second_token", "inter_token_latency", "output_token_throughput",
		"output_token_throughput_per_user", "output_sequence_length", "input_sequence_length",
		"inter_chunk_latency", "benchmark_duration", "total_osl", "error_request_count", "error_isl",
		"input_config", "run_info", "was_cancelled", "is_complete", "error_summary", "start_time", "end_time",
		"usage_prompt_tokens", "completed_request_count", "request_error_rate", "total_usage_prompt_tokens",
		"schedule_lag", "osl_mismatch_diff_pct", "late_request_count", "osl_mismatch_count", "usage_discrepancy_count",
	}
	if got := topKeys(t, b); !slices.Equal(got, want) {
		t.Errorf("top-level keys\n got %v\nwant %v", got, want)
	}

	var doc map[string]jsontext.Value
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if got := topKeys(t, doc["request_latency"]); !slices.Equal(got, []string{
		"unit", "avg", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "min", "max", "std", "count", "sum"}) {
		t.Errorf("record metric keys = %v", got)
	}
	if got := topKeys(t, doc["request_throughput"]); !slices.Equal(got, []string{"unit", "avg"}) {
		t.Errorf("derived metric keys = %v", got)
	}
	if _, ok := doc["credit_drop_latency"]; ok {
		t.Error("INTERNAL metric credit_drop_latency exported")
	}
	if _, ok := doc["min_request_timestamp"]; ok {
		t.Error("INTERNAL metric min_request_timestamp exported")
	}
}

func TestSummaryJSONRunFields(t *testing.T) {
	t.Parallel()
	info := RunInfo{
		Start:            time.Date(2026, 11, 30, 1, 59, 31, 0, time.UTC),
		End:              time.Date(2026, 11, 30, 1, 59, 32, 999999600, time.UTC),
		WasCancelled:     true,
		IncompleteReason: "record stall",
		Warmup: &metrics.Summary{Results: []metrics.Result{
			{Metric: mThroughput, Value: 3},
			{Metric: mCreditDrop, Stats: statsOf(1, 2, 3)},
		}},
	}
	b, err := SummaryJSON(&metrics.Summary{}, info)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	checks := map[string]any{
		"start_time":        "2026-11-30T01:59:31", // no fraction when it is zero
		"end_time":          "2026-11-30T01:59:33", // rounds to the microsecond
		"was_cancelled":     true,
		"is_complete":       false,
		"incomplete_reason": "record stall",
	}
	for k, want := range checks {
		if doc[k] != want {
			t.Errorf("%s = %v; want %v", k, doc[k], want)
		}
	}
	for _, k := range []string{"aiperf_version", "benchmark_id", "input_config"} {
		if _, ok := doc[k]; ok {
			t.Errorf("unset %s written", k)
		}
	}
	warm, _ := doc["warmup_metrics"].(map[string]any)
	if len(warm) != 1 || warm["request_throughput"] == nil {
		t.Errorf("warmup_metrics = %v; want only request_throughput", doc["warmup_metrics"])
	}
	if got := doc["run_info"]; fmt.Sprint(got) != "map[trial:0]" {
		t.Errorf("run_info = %v", got)
	}
}

func TestIsoTime(t *testing.T) {
	t.Parallel()
	loc := time.FixedZone("X", 3600)
	cases := []struct {
		t    time.Time
		want string
	}{
		{time.Unix(0, 1796003971870762149).UTC(), "2026-11-30T01:59:31.870762"},
		{time.Unix(0, 1796003972238150624).UTC(), "2026-11-30T01:59:32.238151"},
		{time.Unix(1796003971, 0).In(loc), "2026-11-30T02:59:31"},
		{time.Unix(1796003971, 500).UTC(), "2026-11-30T01:59:31"},
	}
	for _, c := range cases {
		if got := isoTime(c.t); got != c.want {
			t.Errorf("isoTime(%v) = %s; want %s", c.t, got, c.want)
		}
	}
}

// randFloat returns awkward values: NaN, infinities, zeros, huge and tiny
// magnitudes, ordinary numbers.
func randFloat(r *rand.Rand) float64 {
	switch r.IntN(10) {
	case 0:
		return math.NaN()
	case 1:
		return math.Inf(1)
	case 2:
		return math.Inf(-1)
	case 3:
		return 0
	case 4:
		return math.Ldexp(r.Float64(), r.IntN(2000)-1000)
	default:
		return (r.Float64() - 0.3) * math.Pow(10, float64(r.IntN(12)-4))
	}
}

func randSummary(r *rand.Rand) *metrics.Summary {
	defs := []*metrics.Metric{mTTFT, mLatency, mOSL, mICL, mCreditDrop, mThroughput, mDuration, mRequestCount, mErrorISL, mUsagePrompt}
	s := &metrics.Summary{}
	for i, m := range defs {
		if r.IntN(4) == 0 {
			continue
		}
		res := metrics.Result{Metric: m}
		if m.Kind == metrics.KindRecord {
			st := &metrics.Stats{Count: r.IntN(100)}
			for _, p := range []*float64{&st.Avg, &st.Min, &st.Max, &st.Sum, &st.P1, &st.P5, &st.P10,
				&st.P25, &st.P50, &st.P75, &st.P90, &st.P95, &st.P99, &st.Std} {
				*p = randFloat(r)
			}
			res.Stats = st
		} else {
			res.Value = randFloat(r)
		}
		s.Results = append(s.Results, res)
		if i%3 == 0 {
			s.Errors = append(s.Errors, metrics.ErrorCount{
				Error: record.ErrorDetails{Code: r.IntN(600), Type: "T", Message: "m\u2028\"x\x01"}, Count: r.IntN(5)})
		}
	}
	return s
}

// checkNumbers walks a JSON document and fails on any null or on any
// number that is not a finite float64.
func checkNumbers(t *testing.T, name string, b []byte) {
	t.Helper()
	d := jsontext.NewDecoder(strings.NewReader(string(b)))
	for {
		tok, err := d.ReadToken()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				t.Fatalf("%s: invalid JSON: %v\n%s", name, err, b)
			}
			return
		}
		switch tok.Kind() {
		case 'n':
			t.Fatalf("%s: null in output\n%s", name, b)
		case '0':
			if f, err := tok.Float(); err != nil || !stats.Finite(f) {
				t.Fatalf("%s: bad number %v (%v)\n%s", name, f, err, b)
			}
		}
	}
}

// TestSummaryArtifactsStayFinite feeds random summaries full of NaN and
// infinities through the JSON, CSV and console writers: the JSON stays
// valid with no null or non-finite number, and no NaN or Inf spelling
// reaches any artifact.
func TestSummaryArtifactsStayFinite(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		s := randSummary(r)
		b, err := SummaryJSON(s, fixtureRunInfo())
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("case %d", i)
		if !jsontext.Value(b).IsValid() {
			t.Fatalf("%s: invalid JSON\n%s", name, b)
		}
		checkNumbers(t, name, b)
		var sb strings.Builder
		if err := Console(&sb, s, ConsoleOptions{Title: "T"}); err != nil {
			t.Fatal(err)
		}
		if err := ConsoleTrailer(&sb, s, ConsoleOptions{}); err != nil {
			t.Fatal(err)
		}
		for _, out := range []string{string(b), string(SummaryCSV(s)), sb.String()} {
			for _, bad := range []string{"NaN", "Inf"} {
				if strings.Contains(out, bad) {
					t.Fatalf("%s: %q in output\n%s", name, bad, out)
				}
			}
		}
	}
}

func TestWriteSummaryJSONAtomic(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "nested")
	path := filepath.Join(dir, "profile_export_aiperf.json")
	if err := WriteSummaryJSON(path, fixtureSummary(), fixtureRunInfo()); err != nil {
		t.Fatal(err)
	}
	if err := WriteSummaryJSON(path, &metrics.Summary{}, RunInfo{IsComplete: true}); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := SummaryJSON(&metrics.Summary{}, RunInfo{IsComplete: true})
	if string(got) != string(want) {
		t.Errorf("file = %s; want %s", got, want)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("dir holds %d entries; want only the JSON (no temp files left)", len(entries))
	}
	// A directory where the file should go makes the rename fail; the old
	// content and no temp file remain.
	bad := filepath.Join(dir, "sub")
	if err := os.MkdirAll(filepath.Join(bad, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteSummaryJSON(bad, &metrics.Summary{}, RunInfo{}); err == nil {
		t.Error("writing over a non-empty directory succeeded")
	}
	entries, _ = os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temp file %s left behind", e.Name())
		}
	}
}
