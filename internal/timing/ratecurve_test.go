package timing

import (
	"math"
	"slices"
	"testing"
	"time"
)

// TestVaryingConstantRate: a constant pattern on a stepped rate. 2 req/s
// for the first second, then 4 req/s: the unit events 1, 2 fall at 0.5 s
// and 1 s, then 3, 4, 5, 6 at 1.25, 1.5, 1.75 and 2 s.
func TestVaryingConstantRate(t *testing.T) {
	t.Parallel()
	a, err := Varying("constant", RateCurve{{0, 2}, {time.Second, 4}}, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []time.Duration
	for range 6 {
		d, _ := a.Next()
		got = append(got, d)
	}
	want := msList(500, 1000, 1250, 1500, 1750, 2000)
	if !slices.Equal(got, want) {
		t.Errorf("dues = %v; want %v", got, want)
	}
}

// TestVaryingMatchesFixedRate: on a flat curve, Varying is the fixed-rate
// pattern, due for due.
func TestVaryingMatchesFixedRate(t *testing.T) {
	t.Parallel()
	flat := RateCurve{{0, 7}}
	c, _ := Constant(7)
	p, _ := Poisson(7, 42)
	g, _ := Gamma(7, 3, 42)
	vc, _ := Varying("constant", flat, 1, 42)
	vp, _ := Varying("poisson", flat, 1, 42)
	vg, _ := Varying("gamma", flat, 3, 42)
	for _, pair := range [][2]Arrivals{{c, vc}, {p, vp}, {g, vg}} {
		for i := range 200 {
			x, _ := pair[0].Next()
			y, _ := pair[1].Next()
			if d := x - y; d < -time.Microsecond || d > time.Microsecond {
				t.Fatalf("due %d: fixed %v, varying %v", i, x, y)
			}
		}
	}
}

// TestVaryingRampRate: a linear rate ramp 1 -> 10 req/s over 10 s, sampled
// every 100 ms, then flat. Counting arrivals per second checks that they
// follow the integral of the rate.
func TestVaryingRampRate(t *testing.T) {
	t.Parallel()
	r := Ramp{Strategy: RampLinear, Start: 1, Target: 10, Duration: 10 * time.Second}
	curve, err := r.Samples(RampUpdateInterval)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := Varying("constant", curve, 1, 0)
	count := make([]int, 12)
	for {
		d, _ := a.Next()
		if d >= 12*time.Second {
			break
		}
		count[int(d/time.Second)]++
	}
	// The rate over second k averages about 1 + 0.9*(k+0.45) req/s.
	for k := range 10 {
		want := 1 + 0.9*(float64(k)+0.45)
		if math.Abs(float64(count[k])-want) > 1.01 {
			t.Errorf("second %d: %d arrivals; want %.1f +- 1", k, count[k], want)
		}
	}
	if count[10] != 10 || count[11] != 10 {
		t.Errorf("after the ramp: %d, %d arrivals per second; want 10", count[10], count[11])
	}
}

func TestSeriesSamples(t *testing.T) {
	t.Parallel()
	pts := []SeriesPoint{{0, 2}, {0.2, 4}, {0.3, 1}}
	got, err := SeriesSamples(pts, 100*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	want := RateCurve{{0, 2}, {100 * ms, 3}, {200 * ms, 4}, {300 * ms, 1}}
	if len(got) != len(want) {
		t.Fatalf("SeriesSamples = %v; want %v", got, want)
	}
	for i := range want {
		if got[i].At != want[i].At || math.Abs(got[i].Value-want[i].Value) > 1e-9 {
			t.Errorf("sample %d = %+v; want %+v", i, got[i], want[i])
		}
	}
	// After a ramp of 0.5 s the series takes over, shifted.
	ramp := RateCurve{{0, 1}, {250 * ms, 3}, {500 * ms, 5}}
	joined := ramp.Then(500*ms, got)
	wantJ := RateCurve{{0, 1}, {250 * ms, 3}, {500 * ms, 2}, {600 * ms, 3}, {700 * ms, 4}, {800 * ms, 1}}
	for i := range wantJ {
		if joined[i].At != wantJ[i].At || math.Abs(joined[i].Value-wantJ[i].Value) > 1e-9 {
			t.Errorf("joined %d = %+v; want %+v", i, joined[i], wantJ[i])
		}
	}
}

func TestValidateSeries(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		pts  []SeriesPoint
		errs int
	}{
		{[]SeriesPoint{{0, 1}, {1, 2}}, 0},
		{[]SeriesPoint{{0, 1}}, 1},
		{[]SeriesPoint{{0, 1}, {0, 2}}, 1},
		{[]SeriesPoint{{-1, 0}, {math.NaN(), 2}}, 4},
	} {
		err := ValidateSeries(tc.pts)
		n := 0
		if err != nil {
			n = len(splitLines(err.Error()))
		}
		if n != tc.errs {
			t.Errorf("ValidateSeries(%v) = %v; want %d problems", tc.pts, err, tc.errs)
		}
	}
}

func splitLines(s string) []string {
	var out []string
	start := 0
	for i := range len(s) {
		if s[i] == '\n' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// TestAdjustableRate: 2 req/s constant; at 1 s the rate goes to 4 req/s.
// The due handed out before the change (1 s) stays; after it the gaps are
// a quarter second.
func TestAdjustableRate(t *testing.T) {
	t.Parallel()
	a, err := NewAdjustableRate("constant", 2, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []time.Duration
	for range 2 {
		d, _ := a.Next()
		got = append(got, d)
	}
	if err := a.SetRate(900*time.Millisecond, 4); err != nil {
		t.Fatal(err)
	}
	if err := a.SetRate(900*time.Millisecond, 0); err == nil {
		t.Error("SetRate(0) = nil error")
	}
	for range 3 {
		d, _ := a.Next()
		got = append(got, d)
	}
	if want := msList(500, 1000, 1250, 1500, 1750); !slices.Equal(got, want) {
		t.Errorf("dues = %v; want %v", got, want)
	}
}
