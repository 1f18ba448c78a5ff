package benchmark

import (
	"context"
	"encoding/json"
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/aiperf-go/aiperf/internal/config"
)

// TestRunPerRecordDueAndSent checks the schedule reaches the per-record
// export: with a constant 100 requests/s, credit_issued_ns (the record's
// Due) steps by exactly 10 ms, and every request_start_ns (Sent) is at or
// after its Due.
func TestRunPerRecordDueAndSent(t *testing.T) {
	t.Parallel()
	url, _ := mock(t, nil)
	cfg := baseConfig(t, url)
	cfg.Load.RequestRate = ptr(100.0)
	cfg.Load.ArrivalPattern = config.ArrivalConstant
	cfg.Load.RequestCount = ptr(8)
	if out, err := run(t, context.Background(), cfg); err != nil {
		t.Fatalf("Run: %v\n%s", err, out)
	}
	var dues []int64
	for _, l := range lines(t, filepath.Join(cfg.Output.ArtifactDir, "profile_export.jsonl")) {
		var rec struct {
			Metadata struct {
				Due  int64 `json:"credit_issued_ns"`
				Sent int64 `json:"request_start_ns"`
			}
		}
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatal(err)
		}
		if rec.Metadata.Sent < rec.Metadata.Due {
			t.Errorf("request_start_ns %d before credit_issued_ns %d", rec.Metadata.Sent, rec.Metadata.Due)
		}
		dues = append(dues, rec.Metadata.Due)
	}
	slices.Sort(dues)
	if len(dues) != 8 {
		t.Fatalf("%d records, want 8", len(dues))
	}
	for i := 1; i < len(dues); i++ {
		if d := dues[i] - dues[0]; d != int64(i)*10_000_000 {
			t.Errorf("due[%d] - due[0] = %d ns, want exactly %d", i, d, int64(i)*10_000_000)
		}
	}
}

// TestRunThroughputOverPhaseWindow checks AIPerf 0.13's two definitions end
// to end: a constant 20 requests/s phase sends its first request one
// interval (50 ms) after the phase starts, and request_throughput divides by
// the phase window (phase start to the last response), not by
// benchmark_duration. The window is recovered from the summary as
// request_count / request_throughput and anchored at the last
// request_end_ns; the phase start it implies must then lie 50 ms before the
// first credit_issued_ns.
func TestRunThroughputOverPhaseWindow(t *testing.T) {
	t.Parallel()
	url, _ := mock(t, nil)
	cfg := baseConfig(t, url)
	cfg.Load.RequestRate = ptr(20.0)
	cfg.Load.ArrivalPattern = config.ArrivalConstant
	cfg.Load.RequestCount = ptr(5)
	if out, err := run(t, context.Background(), cfg); err != nil {
		t.Fatalf("Run: %v\n%s", err, out)
	}
	firstDue, lastEnd := int64(math.MaxInt64), int64(0)
	for _, l := range lines(t, filepath.Join(cfg.Output.ArtifactDir, "profile_export.jsonl")) {
		var rec struct {
			Metadata struct {
				Due int64 `json:"credit_issued_ns"`
				End int64 `json:"request_end_ns"`
			}
		}
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatal(err)
		}
		firstDue, lastEnd = min(firstDue, rec.Metadata.Due), max(lastEnd, rec.Metadata.End)
	}
	doc := summary(t, filepath.Join(cfg.Output.ArtifactDir, "profile_export_aiperf.json"))
	window := avg(t, doc, "request_count") / avg(t, doc, "request_throughput") // seconds
	phaseStart := float64(lastEnd) - window*1e9
	if lead := (float64(firstDue) - phaseStart) / 1e6; math.Abs(lead-50) > 0.01 {
		t.Errorf("first request due %.4f ms after the phase start, want 50 (one interval)", lead)
	}
	if d := avg(t, doc, "benchmark_duration"); window-d < 0.049 {
		t.Errorf("throughput window %.4f s, benchmark_duration %.4f s: want the window longer by the 50 ms lead", window, d)
	}
}
