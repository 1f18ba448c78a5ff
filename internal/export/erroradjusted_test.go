package export

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/metrics"
	"github.com/aiperf-go/aiperf/internal/record"
)

// adjustedSummary is a phase of three successes (request latencies 40, 50
// and 60 ms) and one failed request, summarised by the accumulator.
func adjustedSummary(t *testing.T) *metrics.Summary {
	t.Helper()
	reg := metrics.Builtin()
	lat, ok := reg.Lookup("request_latency")
	if !ok {
		t.Fatal("no request_latency")
	}
	acc := metrics.NewAccumulator(reg, []*metrics.Metric{lat}, nil)
	for i, v := range []float64{60, 40, 50, -1} {
		rec := &record.Record{Seq: uint64(i), Phase: record.Profiling,
			Sent: time.Duration(i) * time.Millisecond, End: time.Duration(i+1) * time.Millisecond}
		p := &metrics.Processed{Record: rec, StartNs: int64(rec.Sent), EndNs: int64(rec.End)}
		if v < 0 {
			rec.Error = &record.ErrorDetails{Code: 500, Type: "InternalServerError", Message: "boom"}
		} else {
			p.Valid = true
			p.Values = []metrics.Value{{Metric: lat, Scalar: v}}
		}
		acc.Add(p)
	}
	s := acc.Summarize()
	if len(s.ErrorAdjusted) != 1 {
		t.Fatalf("ErrorAdjusted = %+v", s.ErrorAdjusted)
	}
	return &s
}

// TestErrorAdjustedArtifacts pins how each artifact writes an adj_*
// metric, as AIPerf 0.13 does: in the summary JSON after every other
// metric, its +Inf statistics null and its std left out; in the CSV and on
// the console "inf" (Python's f"{inf:.2f}") and an empty std; in the
// timeslice CSV one "inf" row per +Inf statistic.
func TestErrorAdjustedArtifacts(t *testing.T) {
	t.Parallel()
	s := adjustedSummary(t)
	// numpy nearest over [40, 50, 60, +Inf]: p1..p25 at index 0 or 1, p50
	// and p75 at index 2, p90 and above at the +Inf.
	const wantJSON = `"adj_request_latency": {
    "unit": "ms",
    "avg": null,
    "p1": 40.0,
    "p5": 40.0,
    "p10": 40.0,
    "p25": 50.0,
    "p50": 60.0,
    "p75": 60.0,
    "p90": null,
    "p95": null,
    "p99": null,
    "min": 40.0,
    "max": null,
    "count": 4,
    "sum": null
  }
}`
	b, err := SummaryJSON(s, RunInfo{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(string(b), wantJSON) {
		t.Errorf("summary JSON does not end with\n%s\n got:\n%s", wantJSON, b)
	}
	checkJSON(t, 0, "summary", b)

	const wantCSV = "Request Latency (error-adjusted) (ms),inf,40.00,inf,inf,40.00,40.00,40.00,50.00,60.00,60.00,inf,inf,inf,\r\n"
	if c := string(SummaryCSV(s)); !strings.Contains(c, wantCSV) {
		t.Errorf("CSV has no row\n%q\n got:\n%s", wantCSV, c)
	}

	var console bytes.Buffer
	if err := Console(&console, s, ConsoleOptions{Title: "t", Width: 200}); err != nil {
		t.Fatal(err)
	}
	var row string
	for _, l := range strings.Split(console.String(), "\n") {
		if strings.Contains(l, "(error-adjusted)") {
			row = strings.Join(strings.Fields(strings.NewReplacer("│", " ", "┃", " ").Replace(l)), " ")
		}
	}
	// avg, min, max, p99, p90, p50, std; a header over 30 characters puts
	// its unit on the next line, as AIPerf's does.
	if want := "Request Latency (error-adjusted) inf 40.00 inf inf inf 60.00 N/A"; row != want {
		t.Errorf("console row = %q, want %q\n%s", row, want, console.String())
	}

	ts := TimeslicesCSV([]Timeslice{{Start: time.Unix(0, 0), End: time.Unix(1, 0), Complete: true, Summary: *s}})
	for _, want := range []string{",Request Latency (error-adjusted),ms,avg,inf\r\n", ",Request Latency (error-adjusted),ms,min,40.00\r\n", ",Request Latency (error-adjusted),ms,p99,inf\r\n"} {
		if !strings.Contains(string(ts), want) {
			t.Errorf("timeslice CSV has no row ending %q:\n%s", want, ts)
		}
	}
	if strings.Contains(string(ts), "error-adjusted),ms,std") {
		t.Errorf("timeslice CSV writes the adjusted std:\n%s", ts)
	}
}
