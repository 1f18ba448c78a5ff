package ui

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/live"
)

func TestLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		p    live.Progress
		want string
	}{
		{
			name: "count bound",
			p:    live.Progress{Phase: "profiling", Elapsed: 2 * time.Second, Done: 50, Total: 100, InFlight: 8, Errors: 1, Late: 2, MaxLag: 1500 * time.Microsecond},
			want: "Profiling: 50/100 [==========          ]  50% | 25.0 req/s | in-flight 8 | errors 1 | late 2 (max lag 1.50 ms) | 00:02 <00:02",
		},
		{
			name: "duration bound",
			p:    live.Progress{Phase: "warmup", Elapsed: 15 * time.Second, Done: 30, Duration: 60 * time.Second},
			want: "Warmup: 30 [=====               ]  25% | 2.0 req/s | in-flight 0 | errors 0 | late 0 (max lag 0.00 ms) | 00:15 <00:45",
		},
		{
			name: "done: no ETA",
			p:    live.Progress{Phase: "profiling", Elapsed: 2 * time.Hour, Done: 10, Total: 10},
			want: "Profiling: 10/10 [====================] 100% | 0.0 req/s | in-flight 0 | errors 0 | late 0 (max lag 0.00 ms) | 2:00:00",
		},
		{
			name: "no bound known",
			p:    live.Progress{Phase: "profiling"},
			want: "Profiling: 0 | 0.0 req/s | in-flight 0 | errors 0 | late 0 (max lag 0.00 ms) | 00:00",
		},
	}
	for _, tt := range tests {
		if got := Line(tt.p, 0); got != tt.want {
			t.Errorf("%s: Line() =\n%q\nwant\n%q", tt.name, got, tt.want)
		}
	}
	if got := Line(tests[0].p, 10); len(got) != 10 {
		t.Errorf("Line(width 10) has %d columns", len(got))
	}
}

func snap(phase string, done int, final bool, finished ...live.Progress) *live.Snapshot {
	return &live.Snapshot{Phase: live.Progress{Phase: phase, Done: done, Total: 2}, Final: final, Finished: finished}
}

func TestSimpleTTYRedrawsInPlace(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	v := &Simple{W: &buf, TTY: true}
	v.Observe(snap("warmup", 1, false))
	// the warmup ended between two snapshots: its final line comes from Finished
	v.Observe(snap("profiling", 1, false, live.Progress{Phase: "warmup", Done: 2, Total: 2}))
	v.Observe(snap("profiling", 2, true, live.Progress{Phase: "warmup", Done: 2, Total: 2}))
	out := buf.String()
	if strings.Count(out, "\r\x1b[K") != 4 || !strings.HasSuffix(out, "\n") || strings.Count(out, "\n") != 2 {
		t.Errorf("TTY output = %q; want four in-place redraws and two line ends", out)
	}
	if !strings.Contains(out, "Warmup: 2/2") || !strings.Contains(out, "Profiling: 2/2") {
		t.Errorf("TTY output = %q; want both phases' final states", out)
	}
}

func TestSimplePlainThrottles(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	v := &Simple{W: &buf, Every: 5 * time.Second}
	for i := 0; i <= 10; i++ {
		v.Observe(&live.Snapshot{Phase: live.Progress{Phase: "profiling", Elapsed: time.Duration(i) * time.Second, Done: i}})
	}
	v.Observe(&live.Snapshot{Phase: live.Progress{Phase: "profiling", Elapsed: 11 * time.Second, Done: 11}, Final: true})
	if n := strings.Count(buf.String(), "\n"); n != 4 { // at 0 s, 5 s and 10 s, and the final line
		t.Errorf("printed %d lines; want 4:\n%s", n, buf.String())
	}
}
