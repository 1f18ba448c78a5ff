package ui

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		s    Snapshot
		want string
	}{
		{
			name: "count bound",
			s:    Snapshot{Phase: "profiling", Elapsed: 2 * time.Second, Done: 50, Total: 100, InFlight: 8, Errors: 1, Late: 2, MaxLag: 1500 * time.Microsecond},
			want: "Profiling: 50/100 [==========          ]  50% | 25.0 req/s | in-flight 8 | errors 1 | late 2 (max lag 1.50 ms) | 00:02",
		},
		{
			name: "duration bound",
			s:    Snapshot{Phase: "warmup", Elapsed: 15 * time.Second, Done: 30, Duration: 60 * time.Second},
			want: "Warmup: 30 [=====               ]  25% | 2.0 req/s | in-flight 0 | errors 0 | late 0 (max lag 0.00 ms) | 00:15",
		},
		{
			name: "no bound known",
			s:    Snapshot{Phase: "profiling"},
			want: "Profiling: 0 | 0.0 req/s | in-flight 0 | errors 0 | late 0 (max lag 0.00 ms) | 00:00",
		},
	}
	for _, tt := range tests {
		if got := Line(tt.s, 0); got != tt.want {
			t.Errorf("%s: Line() =\n%q\nwant\n%q", tt.name, got, tt.want)
		}
	}
	if got := Line(tests[0].s, 10); len(got) != 10 {
		t.Errorf("Line(width 10) has %d columns", len(got))
	}
}

func TestFractionClamps(t *testing.T) {
	t.Parallel()
	s := Snapshot{Done: 12, Total: 10, Elapsed: time.Minute, Duration: time.Second}
	if f := s.Fraction(); f != 1 {
		t.Errorf("Fraction() = %v; want 1", f)
	}
}

func TestSimpleTTYRedrawsInPlace(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	v := &Simple{W: &buf, TTY: true}
	v.Update(Snapshot{Phase: "profiling", Done: 1, Total: 2})
	v.Close(Snapshot{Phase: "profiling", Done: 2, Total: 2})
	out := buf.String()
	if strings.Count(out, "\r\x1b[K") != 2 || !strings.HasSuffix(out, "\n") || strings.Count(out, "\n") != 1 {
		t.Errorf("TTY output = %q; want two in-place redraws and one final newline", out)
	}
}

func TestSimplePlainThrottles(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	v := &Simple{W: &buf, Every: 5 * time.Second}
	for i := 0; i <= 10; i++ {
		v.Update(Snapshot{Phase: "profiling", Elapsed: time.Duration(i) * time.Second, Done: i})
	}
	if n := strings.Count(buf.String(), "\n"); n != 3 { // at 0 s, 5 s and 10 s
		t.Errorf("printed %d lines; want 3:\n%s", n, buf.String())
	}
}
