package benchmark

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/config"
)

// TestOverSaturation runs the knee mock (4 slots, 32-token answers: a
// request takes about 1 s when the slots are full, so the server serves
// at most ~4 requests/s, and ~1.3 s at 1 in flight) at rates on both
// sides of its capacity. At 16/s the queue grows by ~12 requests every
// second and each TTFT by ~3/4 s per second of run: flagged in monitor
// mode, stopped in enforce mode well before the schedule's end. At 1/s
// (a quarter of the capacity) nobody queues: TTFT stays a step or two
// (tens of ms), far under the 1 s floor a loaded machine would need to
// add before a TTFT counted as a violation, so it is never flagged. The
// detector judges from 5 s on (its points per second cap the effective
// count, and it needs 5).
func TestOverSaturation(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name     string
		mode     string
		rate     float64
		duration float64
		flagged  bool
		stopped  bool
	}{
		{name: "past the knee, enforce", mode: config.OverSaturationEnforce, rate: 16, duration: 40, flagged: true, stopped: true},
		{name: "past the knee, monitor", mode: config.OverSaturationMonitor, rate: 16, duration: 12, flagged: true},
		{name: "below the knee, enforce", mode: config.OverSaturationEnforce, rate: 1, duration: 12},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			url, posts := kneeMock(t)
			cfg := baseConfig(t, url)
			cfg.Input.OutputTokens.Mean = ptr(32)
			cfg.Load.RequestCount = nil
			cfg.Load.RequestRate = ptr(c.rate)
			cfg.Load.BenchmarkDuration = ptr(c.duration)
			cfg.Load.BenchmarkGracePeriod = ptr(config.Seconds(0))
			cfg.Fidelity.OverSaturation = c.mode
			cfg.Fidelity.OverSaturationMinSeconds = ptr(3.0)
			cfg.Fidelity.OverSaturationMinTTFT = ptr(1.0)
			out, err := run(t, t.Context(), cfg)
			if err != nil {
				t.Fatalf("run: %v\n%s", err, out)
			}
			doc := summary(t, filepath.Join(cfg.Output.ArtifactDir, "profile_export_aiperf.json"))
			var got saturationResult
			if err := json.Unmarshal(doc["over_saturation"], &got); err != nil {
				t.Fatalf("over_saturation %s: %v", doc["over_saturation"], err)
			}
			if got.Mode != c.mode || got.OverSaturated != c.flagged || got.Stopped != c.stopped {
				t.Fatalf("over_saturation %s; want mode %s, flagged %v, stopped %v", doc["over_saturation"], c.mode, c.flagged, c.stopped)
			}
			if c.flagged && !(got.ConcurrentSlope > 0 && got.TTFTSlope > 0 && got.ConcurrentMOE < 2 && got.TTFTMOE < 2) {
				t.Errorf("flagged with slopes and margins %+v", got.Verdict)
			}
			if !strings.Contains(out, "Over-saturation:") {
				t.Errorf("console has no over-saturation line:\n%s", out)
			}
			sent := len(posts())
			if c.stopped && float64(sent) > 0.75*c.rate*c.duration {
				t.Errorf("enforce mode: the server saw %d requests of the %v scheduled; the phase was not stopped", sent, c.rate*c.duration)
			}
			if c.stopped && got.Seconds > 0.75*c.duration {
				t.Errorf("stopped at %.1f s of %v s", got.Seconds, c.duration)
			}
		})
	}
}
