package benchmark

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/live"
	"github.com/aiperf-go/aiperf/internal/record"
)

func TestOverloadMessage(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	cases := []struct {
		name string
		p    live.Progress
		rate float64
		lag  time.Duration
		want bool
	}{
		{"keeps up", live.Progress{Elapsed: 2 * time.Second, Sent: 1990}, 1000, ms, false},
		{"too early to judge", live.Progress{Elapsed: 500 * ms, Sent: 10}, 1000, time.Second, false},
		{"not a rate phase", live.Progress{Elapsed: 5 * time.Second, Sent: 1}, 0, time.Second, false},
		{"sends fell short", live.Progress{Elapsed: 2 * time.Second, Sent: 1000}, 1000, ms, true},
		{"just within the share", live.Progress{Elapsed: 2 * time.Second, Sent: 1800}, 1000, ms, false},
		{"late though the count is met", live.Progress{Elapsed: 2 * time.Second, Sent: 2000}, 1000, 150 * ms, true},
		{"all requests sent: due capped at the total", live.Progress{Elapsed: 10 * time.Second, Sent: 100, Total: 100}, 1000, ms, false},
		{"duration over, waiting for the last responses: none more is due", live.Progress{Elapsed: 11200 * ms, Duration: 10 * time.Second, Sent: 2000}, 200, ms, false},
		{"duration over, and the sends had fallen short", live.Progress{Elapsed: 11200 * ms, Duration: 10 * time.Second, Sent: 1500}, 200, ms, true},
	}
	for _, c := range cases {
		msg, got := overloadMessage(c.p, c.rate, c.lag)
		if got != c.want {
			t.Errorf("%s: warned %v (%q); want %v", c.name, got, msg, c.want)
		}
	}
	msg, _ := overloadMessage(live.Progress{Elapsed: 2 * time.Second, Sent: 1000}, 10000, 7382*ms)
	for _, part := range []string{"sent 1000 of the 20000 requests due after 2.0 s", "500/s of the asked 10000/s", "lag p99 7382.0 ms"} {
		if !strings.Contains(msg, part) {
			t.Errorf("message %q lacks %q", msg, part)
		}
	}
}

// The watch judges fixed-rate phases only and warns at most every
// overloadEvery.
func TestOverloadWatch(t *testing.T) {
	t.Parallel()
	plan := &Plan{Phases: []*PhaseSpec{
		{Phase: record.Warmup, Concurrency: 4},
		{Phase: record.Profiling, Rate: 1000},
	}}
	var buf bytes.Buffer
	w := newOverloadWatch(plan, slog.New(slog.NewTextHandler(&buf, nil)))
	if w == nil {
		t.Fatal("no watch for a plan with a fixed-rate phase")
	}
	snap := func(at time.Duration, phase string, sent int) *live.Snapshot {
		return &live.Snapshot{At: at, Phase: live.Progress{Phase: phase, Elapsed: at, Sent: sent}}
	}
	for _, s := range []*live.Snapshot{
		snap(2*time.Second, "warmup", 1),       // concurrency phase: not judged
		snap(2*time.Second, "profiling", 100),  // behind: warns
		snap(3*time.Second, "profiling", 200),  // behind, within overloadEvery: quiet
		snap(8*time.Second, "profiling", 900),  // behind, later: warns again
		snap(9*time.Second, "profiling", 9000), // keeps up
	} {
		w.Observe(s)
	}
	if n := strings.Count(buf.String(), "client overloaded"); n != 2 {
		t.Errorf("%d warnings; want 2:\n%s", n, buf.String())
	}
	if newOverloadWatch(&Plan{Phases: []*PhaseSpec{{Phase: record.Profiling, Rate: 10, RateRamp: &config.Ramp{}}}}, nil) != nil {
		t.Error("a watch for a ramped rate, which has no one asked rate")
	}
}
