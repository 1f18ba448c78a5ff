package benchmark

import (
	"context"
	"encoding/json"
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
