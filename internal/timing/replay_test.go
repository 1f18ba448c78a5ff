package timing

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestReplaySchedule(t *testing.T) {
	t.Parallel()
	ts := []time.Duration{300 * ms, 100 * ms, 200 * ms, 100 * ms, 500 * ms}
	tests := []struct {
		name string
		w    ReplayWindow
		want []ReplayEntry
	}{
		{"absolute: timestamps are offsets from the start, sorted, ties in trace order",
			ReplayWindow{},
			[]ReplayEntry{{1, 100 * ms}, {3, 100 * ms}, {2, 200 * ms}, {0, 300 * ms}, {4, 500 * ms}}},
		{"auto offset: the first timestamp is zero",
			ReplayWindow{AutoOffset: true},
			[]ReplayEntry{{1, 0}, {3, 0}, {2, 100 * ms}, {0, 200 * ms}, {4, 400 * ms}}},
		{"start offset filters inclusively and is the zero",
			ReplayWindow{Start: 200 * ms, HasStart: true},
			[]ReplayEntry{{2, 0}, {0, 100 * ms}, {4, 300 * ms}}},
		{"end offset filters inclusively",
			ReplayWindow{End: 300 * ms, HasEnd: true},
			[]ReplayEntry{{1, 100 * ms}, {3, 100 * ms}, {2, 200 * ms}, {0, 300 * ms}}},
		{"window with auto offset",
			ReplayWindow{AutoOffset: true, End: 250 * ms, HasEnd: true},
			[]ReplayEntry{{1, 0}, {3, 0}, {2, 100 * ms}}},
		{"start and end equal keep exact matches",
			ReplayWindow{Start: 100 * ms, HasStart: true, End: 100 * ms, HasEnd: true},
			[]ReplayEntry{{1, 0}, {3, 0}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Replay(ts, tc.w)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %v\nwant %v", got, tc.want)
			}
			if _, err := Fixed(Dues(got)); err != nil {
				t.Errorf("dues are not a valid fixed schedule: %v", err)
			}
		})
	}
}

func TestReplayErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		ts   []time.Duration
		w    ReplayWindow
		want []string
	}{
		{"empty trace", nil, ReplayWindow{}, []string{"no timestamped entries"}},
		{"negative timestamps are all named", []time.Duration{-1, 0, -2}, ReplayWindow{}, []string{"timestamp 0 is negative", "timestamp 2 is negative"}},
		{"window keeps nothing", []time.Duration{10 * ms, 20 * ms}, ReplayWindow{Start: 30 * ms, HasStart: true}, []string{"replay window [30ms, +inf]", "10ms to 20ms"}},
		{"start after end", []time.Duration{10 * ms}, ReplayWindow{Start: 30 * ms, HasStart: true, End: 20 * ms, HasEnd: true}, []string{"start 30ms is after its end 20ms"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Replay(tc.ts, tc.w)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// FuzzReplay checks the schedule's invariants on arbitrary traces and
// windows: dues are >= 0 and non-decreasing, every kept entry lies in the
// window, every entry in the window is kept exactly once, and the zero is
// the rule's.
func FuzzReplay(f *testing.F) {
	f.Add([]byte{3, 1, 2, 1, 5}, false, int16(-1), int16(-1))
	f.Add([]byte{9, 0, 4}, true, int16(2), int16(8))
	f.Fuzz(func(t *testing.T, raw []byte, auto bool, start, end int16) {
		ts := make([]time.Duration, len(raw))
		for i, b := range raw {
			ts[i] = time.Duration(b) * ms
		}
		w := ReplayWindow{AutoOffset: auto}
		if start >= 0 {
			w.Start, w.HasStart = time.Duration(start)*ms, true
		}
		if end >= 0 {
			w.End, w.HasEnd = time.Duration(end)*ms, true
		}
		got, err := Replay(ts, w)
		inWindow := func(d time.Duration) bool {
			return (!w.HasStart || d >= w.Start) && (!w.HasEnd || d <= w.End)
		}
		var want []int
		for i, d := range ts {
			if inWindow(d) {
				want = append(want, i)
			}
		}
		if err != nil {
			if len(want) > 0 && !(w.HasStart && w.HasEnd && w.Start > w.End) {
				t.Fatalf("error %v although entries %v lie in the window", err, want)
			}
			return
		}
		idx := make([]int, len(got))
		for i, e := range got {
			idx[i] = e.Index
			if e.Due < 0 || (i > 0 && e.Due < got[i-1].Due) {
				t.Fatalf("dues not non-negative and non-decreasing: %v", got)
			}
		}
		slices.Sort(idx)
		if !slices.Equal(idx, want) {
			t.Fatalf("kept %v, want %v", idx, want)
		}
		zero := time.Duration(0)
		switch {
		case auto:
			zero = slices.Min(func() []time.Duration {
				var k []time.Duration
				for _, i := range want {
					k = append(k, ts[i])
				}
				return k
			}())
		case w.HasStart:
			zero = w.Start
		}
		for _, e := range got {
			if e.Due != ts[e.Index]-zero {
				t.Fatalf("entry %d due %v, want %v - %v", e.Index, e.Due, ts[e.Index], zero)
			}
		}
	})
}
