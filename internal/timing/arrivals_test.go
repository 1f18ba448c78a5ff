package timing

import (
	"math"
	"strings"
	"testing"
	"time"
)

// take draws up to n due times from a.
func take(t testing.TB, a Arrivals, n int) []time.Duration {
	t.Helper()
	out := make([]time.Duration, 0, n)
	for range n {
		d, ok := a.Next()
		if !ok {
			break
		}
		out = append(out, d)
	}
	return out
}

func TestConstantExact(t *testing.T) {
	tests := []struct {
		rate float64
		want []time.Duration
	}{
		// The first request is one interval after the phase start, as in
		// AIPerf 0.13.
		{10, []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 300 * time.Millisecond, 400 * time.Millisecond, 500 * time.Millisecond}},
		{1, []time.Duration{time.Second, 2 * time.Second, 3 * time.Second}},
		{0.5, []time.Duration{2 * time.Second, 4 * time.Second, 6 * time.Second}},
		{3, []time.Duration{333333333, 666666667, time.Second, 1333333333}},
		{1e6, []time.Duration{time.Microsecond, 2 * time.Microsecond, 3 * time.Microsecond}},
		{7.5, []time.Duration{133333333, 266666667, 400 * time.Millisecond}},
	}
	for _, tt := range tests {
		a, err := Constant(tt.rate)
		if err != nil {
			t.Fatalf("Constant(%v): %v", tt.rate, err)
		}
		got := take(t, a, len(tt.want))
		if len(got) != len(tt.want) {
			t.Fatalf("Constant(%v): got %d due times, want %d", tt.rate, len(got), len(tt.want))
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("Constant(%v) due[%d] = %d, want %d", tt.rate, i, got[i], tt.want[i])
			}
		}
	}
}

// TestConstantNoDrift checks due times far into a schedule are still exact:
// they are computed from n, never by summing rounded intervals.
func TestConstantNoDrift(t *testing.T) {
	a, err := Constant(3) // interval 333333333.33 ns: summing would drift
	if err != nil {
		t.Fatal(err)
	}
	const n = 3_000_001
	var prev time.Duration = -1
	for i := range n {
		d, ok := a.Next()
		if !ok {
			t.Fatalf("schedule ended at %d", i)
		}
		if d < prev {
			t.Fatalf("due[%d] = %v < due[%d] = %v", i, d, i-1, prev)
		}
		if (i+1)%3 == 0 && d != time.Duration((i+1)/3)*time.Second {
			t.Fatalf("due[%d] = %d, want exactly %d", i, d, time.Duration((i+1)/3)*time.Second)
		}
		prev = d
	}
}

func TestArrivalsRejectInvalid(t *testing.T) {
	bad := []float64{0, -1, math.NaN(), math.Inf(1), math.Inf(-1)}
	for _, r := range bad {
		if _, err := Constant(r); err == nil {
			t.Errorf("Constant(%v): want error", r)
		}
		if _, err := Poisson(r, 1); err == nil {
			t.Errorf("Poisson(%v): want error", r)
		}
		if _, err := Gamma(r, 1, 1); err == nil {
			t.Errorf("Gamma(rate=%v): want error", r)
		}
		if _, err := Gamma(1, r, 1); err == nil {
			t.Errorf("Gamma(smoothness=%v): want error", r)
		}
	}
}

// TestArrivalsOverflowEnds checks a schedule that would pass the largest
// time.Duration ends instead of wrapping, and stays ended.
func TestArrivalsOverflowEnds(t *testing.T) {
	c, _ := Constant(1e-12) // first due time is 1e12 s, past 292 years
	p, _ := Poisson(1e-300, 1)
	g, _ := Gamma(1e-300, 0.5, 1)
	for name, a := range map[string]Arrivals{"constant": c, "poisson": p, "gamma": g} {
		got := take(t, a, 5)
		if len(got) != 0 {
			t.Errorf("%s: got %v, want nothing", name, got)
		}
		if _, ok := a.Next(); ok {
			t.Errorf("%s: Next after the end returned ok", name)
		}
	}
}

// gapStats returns the mean and coefficient of variation of the gaps
// between n draws of a, counting the first due time as a gap from 0.
func gapStats(t *testing.T, a Arrivals, n int) (mean, cv float64) {
	t.Helper()
	var prev time.Duration
	var sum, sumSq float64
	for i := range n {
		d, ok := a.Next()
		if !ok {
			t.Fatalf("schedule ended at %d", i)
		}
		if d < prev {
			t.Fatalf("due[%d] = %v before due[%d] = %v", i, d, i-1, prev)
		}
		g := (d - prev).Seconds()
		prev = d
		sum += g
		sumSq += g * g
	}
	mean = sum / float64(n)
	variance := sumSq/float64(n) - mean*mean
	return mean, math.Sqrt(variance) / mean
}

// TestRandomArrivalsDistribution draws 100k gaps per pattern with a fixed
// seed (so the test is deterministic, never flaky) and checks the mean gap
// is within 1% of 1/rate and the CV within 2% of its theoretical value.
func TestRandomArrivalsDistribution(t *testing.T) {
	const n = 100_000
	tests := []struct {
		name       string
		rate       float64
		smoothness float64 // 0: Poisson
	}{
		{"poisson/10", 10, 0},
		{"poisson/2500", 2500, 0},
		{"gamma/k=0.25", 10, 0.25},
		{"gamma/k=0.5", 50, 0.5},
		{"gamma/k=1", 10, 1},
		{"gamma/k=2", 10, 2},
		{"gamma/k=4", 100, 4},
		{"gamma/k=10", 10, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var a Arrivals
			var err error
			wantCV := 1.0
			if tt.smoothness == 0 {
				a, err = Poisson(tt.rate, 42)
			} else {
				a, err = Gamma(tt.rate, tt.smoothness, 42)
				wantCV = 1 / math.Sqrt(tt.smoothness)
			}
			if err != nil {
				t.Fatal(err)
			}
			mean, cv := gapStats(t, a, n)
			wantMean := 1 / tt.rate
			if rel := math.Abs(mean-wantMean) / wantMean; rel > 0.01 {
				t.Errorf("mean gap = %.6g s, want %.6g s within 1%% (off by %.2f%%)", mean, wantMean, 100*rel)
			}
			if rel := math.Abs(cv-wantCV) / wantCV; rel > 0.02 {
				t.Errorf("CV = %.4f, want %.4f within 2%% (off by %.2f%%)", cv, wantCV, 100*rel)
			}
		})
	}
}

func TestRandomArrivalsSeeding(t *testing.T) {
	build := map[string]func(seed uint64) Arrivals{
		"poisson": func(seed uint64) Arrivals { a, _ := Poisson(100, seed); return a },
		"gamma":   func(seed uint64) Arrivals { a, _ := Gamma(100, 3, seed); return a },
		"gamma/1": func(seed uint64) Arrivals { a, _ := Gamma(100, 1, seed); return a },
	}
	const n = 1000
	for name, mk := range build {
		a1, a2, b := take(t, mk(7), n), take(t, mk(7), n), take(t, mk(8), n)
		if !equalDurations(a1, a2) {
			t.Errorf("%s: same seed gave different sequences", name)
		}
		if equalDurations(a1, b) {
			t.Errorf("%s: seeds 7 and 8 gave the same sequence", name)
		}
		if a1[0] <= 0 {
			t.Errorf("%s: first due = %v, want one gap after the start (> 0)", name, a1[0])
		}
	}
	// Poisson and shape-1 gamma are the same distribution but draw from
	// separate streams.
	if equalDurations(take(t, build["poisson"](7), n), take(t, build["gamma/1"](7), n)) {
		t.Error("poisson and gamma(k=1) with one seed gave the same sequence")
	}
}

func equalDurations(a, b []time.Duration) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestFixed(t *testing.T) {
	in := []time.Duration{0, 0, 5 * time.Millisecond, time.Second}
	a, err := Fixed(in)
	if err != nil {
		t.Fatal(err)
	}
	in[1] = time.Hour // Fixed copies its input
	if got := take(t, a, 10); !equalDurations(got, []time.Duration{0, 0, 5 * time.Millisecond, time.Second}) {
		t.Errorf("Fixed replay = %v", got)
	}
	if _, ok := a.Next(); ok {
		t.Error("Next after the end returned ok")
	}

	_, err = Fixed([]time.Duration{-1, 5, 3})
	if err == nil {
		t.Fatal("want error")
	}
	for _, want := range []string{"entry 0 is negative", "entry 2 (3ns) is before entry 1"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

// FuzzGamma checks any valid rate and smoothness give finite,
// non-decreasing due times.
func FuzzGamma(f *testing.F) {
	f.Add(10.0, 1.0, uint64(1))
	f.Add(1e-3, 0.01, uint64(2))
	f.Add(1e9, 100.0, uint64(3))
	f.Fuzz(func(t *testing.T, rate, smoothness float64, seed uint64) {
		a, err := Gamma(rate, smoothness, seed)
		if err != nil {
			return
		}
		var prev time.Duration
		for range 200 {
			d, ok := a.Next()
			if !ok {
				return
			}
			if d < prev {
				t.Fatalf("due %v after %v", d, prev)
			}
			prev = d
		}
	})
}

func BenchmarkConstantNext(b *testing.B) {
	a, _ := Constant(1000)
	for b.Loop() {
		a.Next()
	}
}

func BenchmarkPoissonNext(b *testing.B) {
	a, _ := Poisson(1000, 1)
	for b.Loop() {
		a.Next()
	}
}

func BenchmarkGammaNext(b *testing.B) {
	a, _ := Gamma(1000, 0.5, 1)
	for b.Loop() {
		a.Next()
	}
}
