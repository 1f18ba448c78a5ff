package benchmark

import (
	"bytes"
	"encoding/gob"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/builtin"
	"github.com/aiperf-go/aiperf/internal/clock"
	"github.com/aiperf-go/aiperf/internal/config"
)

// TestLoadWorkerPoolOptions: a load worker rebuilds the plan from the
// controller's setup, and the worker options it builds its pools from are
// the controller's own: --inter-turn-delay-cap-seconds clamps the think
// times its sessions wait, as it does in this process. As in AIPerf the cap
// reaches a file dataset's delays, not synthetic sessions'.
func TestLoadWorkerPoolOptions(t *testing.T) {
	file := filepath.Join(t.TempDir(), "multi_turn.jsonl")
	if err := os.WriteFile(file, []byte(`{"session_id": "s1", "turns": [{"text": "hello"}, {"text": "again", "delay": 900}]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		cap  *float64
		file bool
		want time.Duration // 0: no cap
	}{
		{"no cap", nil, true, 0},
		{"cap", ptr(0.25), true, 250 * time.Millisecond},
		{"cap on synthetic sessions", ptr(0.25), false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := baseConfig(t, "http://127.0.0.1:1")
			cfg.Conversation.InterTurnDelayCapSeconds = tc.cap
			if tc.file {
				cfg.Dataset.InputFile, cfg.Dataset.CustomType = file, config.DatasetMultiTurn
			}
			p, err := NewPlan(cfg, builtin.New(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := p.BuildDataset(); err != nil {
				t.Fatal(err)
			}
			var blob bytes.Buffer
			if err := gob.NewEncoder(&blob).Encode(&clusterSetup{Config: p.Config, Seed: p.Seed, Dataset: p.Dataset, Payloads: p.Payloads}); err != nil {
				t.Fatal(err)
			}
			w, err := newWorkerRunner(blob.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			defer w.client.Close()
			for who, plan := range map[string]*Plan{"controller": p, "load worker": w.plan} {
				wo := plan.poolOptions(w.client, clock.New(), false)
				if wo.CapDelays != (tc.want > 0) || wo.DelayCap != tc.want {
					t.Errorf("%s: CapDelays %v DelayCap %v; want %v", who, wo.CapDelays, wo.DelayCap, tc.want)
				}
			}
		})
	}
}
