package transport

import (
	"testing"
	"time"
)

// TestCloseLearner: learnAfter closes in a row, each soon after the
// connection's one response, stop reuse for that server only; a close
// after a long idle (an idle timeout) is no evidence, and a connection
// that carried more than one response resets the count.
func TestCloseLearner(t *testing.T) {
	t.Parallel()
	type event struct {
		served int
		idle   time.Duration
	}
	soon := event{1, 10 * time.Millisecond}
	for _, tc := range []struct {
		name   string
		events []event
		off    bool
	}{
		{"closes every connection at once", []event{soon, soon, soon}, true},
		{"two are not enough", []event{soon, soon}, false},
		{"idle timeout of 5 s", []event{{1, 5 * time.Second}, {1, 5 * time.Second}, {1, 5 * time.Second}, {1, 5 * time.Second}}, false},
		{"a kept connection resets the count", []event{soon, soon, {2, time.Millisecond}, soon, soon}, false},
		{"then three in a row again", []event{soon, soon, {3, time.Millisecond}, soon, soon, soon}, true},
	} {
		l := &closeLearner{}
		s := &connStats{learn: l}
		for _, e := range tc.events {
			s.idleClosed("h:1", e.served, e.idle)
		}
		if got := l.noReuse("h:1"); got != tc.off {
			t.Errorf("%s: no reuse %v; want %v", tc.name, got, tc.off)
		}
		if l.noReuse("other:1") {
			t.Errorf("%s: another server was learned too", tc.name)
		}
		want := 0
		if tc.off {
			want = 1
		}
		if hosts := l.hosts(); len(hosts) != want {
			t.Errorf("%s: hosts %v; want %d", tc.name, hosts, want)
		}
	}
}
