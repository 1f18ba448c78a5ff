package fdlimit

import (
	"reflect"
	"strings"
	"testing"
)

func TestPlan(t *testing.T) {
	tests := []struct {
		name   string
		want   uint64
		cur    Limit
		nrOpen uint64
		tries  []Limit
	}{
		{"enough already", 1000, Limit{20000, 20000}, 1 << 20, nil},
		{"soft below hard", 15000, Limit{1024, 20000}, 1 << 20, []Limit{{15000, 20000}}},
		{"above hard: privileged first, then the hard limit", 210000, Limit{1024, 20000}, 1 << 20,
			[]Limit{{210000, 210000}, {20000, 20000}}},
		{"above hard, soft already at hard", 210000, Limit{20000, 20000}, 1 << 20, []Limit{{210000, 210000}}},
		{"capped at nr_open", 2 << 20, Limit{20000, 20000}, 1 << 20, []Limit{{1 << 20, 1 << 20}}},
		{"nr_open unknown", 210000, Limit{20000, 20000}, 0, []Limit{{210000, 210000}}},
		{"nr_open at hard: nothing to try", 210000, Limit{20000, 20000}, 20000, nil},
	}
	for _, tt := range tests {
		if got := plan(tt.want, tt.cur, tt.nrOpen); !reflect.DeepEqual(got, tt.tries) {
			t.Errorf("%s: plan(%d, %v, %d) = %v, want %v", tt.name, tt.want, tt.cur, tt.nrOpen, got, tt.tries)
		}
	}
}

func TestResultString(t *testing.T) {
	short := Result{Want: 210000, Before: Limit{20000, 20000}, After: Limit{20000, 20000}, NrOpen: 1 << 20}
	if s := short.String(); !short.Short() || !strings.Contains(s, "below the 210000") || !strings.Contains(s, "hard limit is 20000") {
		t.Errorf("short: %q", s)
	}
	capped := Result{Want: 2 << 20, After: Limit{1 << 20, 1 << 20}, NrOpen: 1 << 20}
	if s := capped.String(); !strings.Contains(s, "fs.nr_open is 1048576") {
		t.Errorf("capped: %q", s)
	}
	raised := Result{Want: 210000, Before: Limit{20000, 20000}, After: Limit{210000, 210000}}
	if s := raised.String(); raised.Short() || !strings.Contains(s, "raised from 20000 (hard 20000) to 210000") {
		t.Errorf("raised: %q", s)
	}
}

// TestRaise raises this test process's own limit: to its soft limit (a
// no-op), then just above its hard limit, which works when the test runs
// privileged and is reported as short otherwise. Either way the result
// matches the limits read back.
func TestRaise(t *testing.T) {
	cur, err := get()
	if err != nil {
		t.Skip("no RLIMIT_NOFILE here")
	}
	if r := Raise(cur.Soft); r.Changed() || r.Short() {
		t.Errorf("Raise(soft %d) = %+v; want no change", cur.Soft, r)
	}
	want := cur.Hard + 16
	if n := nrOpen(); n > 0 && want > n {
		t.Skipf("hard limit %d is at fs.nr_open %d", cur.Hard, n)
	}
	r := Raise(want)
	now, _ := get()
	if r.After != now {
		t.Errorf("After = %v, limits read back %v", r.After, now)
	}
	if r.Short() != (now.Soft < want) || (r.Short() && r.Err == nil) {
		t.Errorf("Raise(%d) = %+v (%s); inconsistent with %v", want, r, r, now)
	}
	t.Log(r)
}
