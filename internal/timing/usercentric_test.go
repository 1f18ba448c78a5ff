package timing

import (
	"testing"
	"time"
)

// TestUserCentricVirtualHistory pins AIPerf's documented example: 15
// users, 20 turns, 1 QPS. User 1 is virtually done, user 16 starts fresh
// at 0, then users 5, 9, 13, 2, ... one per second with the turns their
// virtual age leaves them.
func TestUserCentricVirtualHistory(t *testing.T) {
	t.Parallel()
	u, err := NewUserCentric(1, 15, 20, func() int { return 20 })
	if err != nil {
		t.Fatal(err)
	}
	if u.Gap() != 15*time.Second {
		t.Errorf("gap = %v; want 15 users / 1 QPS = 15s", u.Gap())
	}
	want := []UserStart{
		{0, 20, 16}, {1 * time.Second, 6, 5}, {2 * time.Second, 11, 9}, {3 * time.Second, 16, 13},
		{4 * time.Second, 2, 2}, {5 * time.Second, 7, 6}, {6 * time.Second, 12, 10}, {7 * time.Second, 17, 14},
		{8 * time.Second, 3, 3}, {9 * time.Second, 8, 7}, {10 * time.Second, 13, 11}, {11 * time.Second, 18, 15},
		{12 * time.Second, 4, 4}, {13 * time.Second, 9, 8}, {14 * time.Second, 14, 12},
	}
	for i, w := range want {
		d, ok := u.Next()
		if !ok || d != w.Due || u.Last() != w {
			t.Errorf("start %d: %v, %+v; want %+v", i, d, u.Last(), w)
		}
	}
	// Replacements: user 2 (4 s, 2 turns) frees its slot at 4 + 2*15 = 34 s,
	// before user 3's replacement at 8 + 3*15 = 53 s.
	d, _ := u.Next()
	if d != 34*time.Second || u.Last().Turns != 20 || u.Last().User != 17 {
		t.Errorf("first replacement %v %+v; want a fresh user 17 with 20 turns at 34s", d, u.Last())
	}
	d, _ = u.Next()
	if d != 53*time.Second {
		t.Errorf("second replacement at %v; want 53s", d)
	}
}

// TestUserCentricAlternateSpacing: when users and lifetime share a factor
// the alternate step keeps every start order distinct.
func TestUserCentricAlternateSpacing(t *testing.T) {
	t.Parallel()
	u, err := NewUserCentric(2, 4, 3, func() int { return 3 }) // lifetime 2, gcd(4, 2) = 2
	if err != nil {
		t.Fatal(err)
	}
	seen := map[time.Duration]bool{}
	for range 4 {
		d, _ := u.Next()
		if seen[d] {
			t.Errorf("two initial users start at %v", d)
		}
		seen[d] = true
	}
}

// TestUserCentricHoldsUsers: over a long window the schedule keeps one
// user per slot: starts of each slot are exactly turns*gap apart, so the
// number of users between their first turn and their slot's end is U.
func TestUserCentricHoldsUsers(t *testing.T) {
	t.Parallel()
	const users, turns = 6, 4
	u, _ := NewUserCentric(3, users, turns, func() int { return turns })
	gap := u.Gap()
	type span struct{ from, to time.Duration }
	var spans []span
	for {
		d, _ := u.Next()
		if d > 60*time.Second {
			break
		}
		spans = append(spans, span{d, d + time.Duration(u.Last().Turns)*gap})
	}
	for at := 10 * time.Second; at < 50*time.Second; at += 250 * time.Millisecond {
		n := 0
		for _, s := range spans {
			if s.from <= at && at < s.to {
				n++
			}
		}
		if n != users {
			t.Fatalf("%d users active at %v; want %d", n, at, users)
		}
	}
}

func TestUserTurnDue(t *testing.T) {
	t.Parallel()
	s := time.Second
	for _, tc := range []struct{ prev, gap, now, want time.Duration }{
		{0, 2 * s, 1 * s, 2 * s},     // response in time: one gap after the last turn
		{0, 2 * s, 3 * s, 3 * s},     // response slower than the gap: at once
		{3 * s, 2 * s, 4 * s, 5 * s}, // and the cadence restarts from there
	} {
		if got := UserTurnDue(tc.prev, tc.gap, tc.now); got != tc.want {
			t.Errorf("UserTurnDue(%v, %v, %v) = %v; want %v", tc.prev, tc.gap, tc.now, got, tc.want)
		}
	}
}

func TestUserCentricErrors(t *testing.T) {
	t.Parallel()
	if _, err := NewUserCentric(0, 0, 0, nil); err == nil {
		t.Error("NewUserCentric with nothing valid = nil error")
	}
}
