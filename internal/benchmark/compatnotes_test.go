package benchmark

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/live"
)

func TestCompatNotes(t *testing.T) {
	t.Parallel()
	cfg := config.Defaults()
	if n := compatNotes(&cfg); len(n) != 0 {
		t.Errorf("notes for a default config: %v", n)
	}
	two := 2
	cfg.Compat = config.Compat{ZMQHost: "10.0.0.1", ZMQIPCPath: "/tmp/zmq", ZMQDualBind: true, WorkersMax: &two, UnsafeOverride: true}
	cfg.Shape.BurstPhaseStarts = true
	got := strings.Join(compatNotes(&cfg), "\n")
	for _, want := range []string{"--zmq-host has no effect", "--zmq-ipc-path has no effect", "--zmq-dual-bind has no effect",
		"--workers-max has no effect", "--unsafe-override has no effect without --scenario",
		"--burst-phase-starts has no effect: it applies only to the agentic_replay timing mode"} {
		if !strings.Contains(got, want) {
			t.Errorf("notes lack %q:\n%s", want, got)
		}
	}
	// Under agentic replay the agentic flags act; --replay-speedup does not.
	ag := config.Defaults()
	ag.Shape.TimingMode, ag.Shape.BurstPhaseStarts, ag.Shape.Replay.Speedup = config.TimingAgenticReplay, true, ptr(2.0)
	if n := strings.Join(compatNotes(&ag), "\n"); strings.Contains(n, "--burst-phase-starts") || !strings.Contains(n, "--replay-speedup has no effect") {
		t.Errorf("agentic replay notes:\n%s", n)
	}
}

// TestStatsLog checks --stats-interval: one block per interval of run time
// after the first snapshot, none for the final snapshot or an interval of 0.
func TestStatsLog(t *testing.T) {
	t.Parallel()
	if newStatsLog(slog.Default(), 0) != nil {
		t.Error("--stats-interval 0 built a stats log")
	}
	var buf bytes.Buffer
	o := newStatsLog(slog.New(slog.NewTextHandler(&buf, nil)), 1)
	snap := func(at time.Duration, final bool) *live.Snapshot {
		return &live.Snapshot{At: at, Final: final, Phase: live.Progress{Phase: "profiling", Sent: 7, Done: 5, Errors: 1, InFlight: 2},
			Metrics: []live.Metric{
				{Tag: "time_to_first_token", Unit: "ms", Kind: live.Distribution, Count: 5, Avg: 21, P50: 20.5, P99: 30.25},
				{Tag: "request_throughput", Unit: "requests/sec", Kind: live.Rate, Count: 3, Avg: 12.345},
			}}
	}
	for _, s := range []*live.Snapshot{snap(0, false), snap(500*time.Millisecond, false), snap(time.Second, false),
		snap(1500*time.Millisecond, false), snap(2200*time.Millisecond, false), snap(3500*time.Millisecond, true)} {
		o.Observe(s)
	}
	out := buf.String()
	if n := strings.Count(out, "realtime stats"); n != 2 {
		t.Fatalf("%d stats blocks, want 2 (at 1 s and 2.2 s):\n%s", n, out)
	}
	for _, want := range []string{"phase=profiling", "sent=7", "done=5", "errors=1", "in_flight=2",
		"time_to_first_token_p50_ms=20.5", "time_to_first_token_p99_ms=30.25", "request_throughput=12.35"} {
		if !strings.Contains(out, want) {
			t.Errorf("stats block lacks %q:\n%s", want, out)
		}
	}
}
