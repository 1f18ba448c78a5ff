package agenticcode

import (
	"path/filepath"
	"testing"
)

// TestSimulate checks the serving simulation's bookkeeping on a small
// synthesized dataset: every turn runs once, the counters end at rest,
// and a cache too small for the sessions evicts them and loses hits.
func TestSimulate(t *testing.T) {
	t.Parallel()
	cfg := Defaults()
	sessions, err := NewSynthesizer(cfg, 5).Sessions(40)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := WriteDataset(filepath.Join(t.TempDir(), "d.jsonl"), sessions, cfg.BlockSize)
	if err != nil {
		t.Fatal(err)
	}
	turns := 0
	for _, s := range sessions {
		turns += len(s.Turns)
	}
	big := Simulate(sessions, rows, &cfg, DefaultSimParams)
	if big.Turns != turns {
		t.Fatalf("simulated %d turns; the dataset has %d", big.Turns, turns)
	}
	last := big.Points[len(big.Points)-1]
	if last.ActiveRequests != 0 || last.ActiveSessions != 0 || last.Queued != 0 || last.InputTokens != 0 {
		t.Errorf("the run does not end at rest: %+v", last)
	}
	if big.HitRate <= 0 || big.HitRate >= 1 || big.Evictions != 0 {
		t.Errorf("300 GB cache: hit rate %v, %d evictions; want hits and no evictions", big.HitRate, big.Evictions)
	}
	small := DefaultSimParams
	small.KVCapacityGB = 5
	tight := Simulate(sessions, rows, &cfg, small)
	if tight.Evictions == 0 || tight.HitRate >= big.HitRate {
		t.Errorf("5 GB cache: %d evictions, hit rate %v (300 GB: %v); want evictions and fewer hits", tight.Evictions, tight.HitRate, big.HitRate)
	}
	if tight.AvgTTFTMs <= big.AvgTTFTMs {
		t.Errorf("misses cost prefill: TTFT %v ms at 5 GB, %v ms at 300 GB", tight.AvgTTFTMs, big.AvgTTFTMs)
	}
}
