package timing

import (
	"math"
	"slices"
	"testing"
	"time"
)

func TestRampStepsLinearAndExponential(t *testing.T) {
	t.Parallel()
	s := time.Second
	tests := []struct {
		r    Ramp
		want []Step
	}{
		// Linear, 1 -> 5 over 4 s: one unit per second.
		{Ramp{Strategy: RampLinear, Start: 1, Target: 5, Duration: 4 * s},
			[]Step{{1 * s, 2}, {2 * s, 3}, {3 * s, 4}, {4 * s, 5}}},
		// Exponential: v is reached at D * sqrt((v-1)/4).
		{Ramp{Strategy: RampExponential, Start: 1, Target: 5, Duration: 4 * s},
			[]Step{{2 * s, 2}, {2828427125 * time.Nanosecond, 3}, {3464101615 * time.Nanosecond, 4}, {4 * s, 5}}},
		// A fractional target: the last step lands on it.
		{Ramp{Strategy: RampLinear, Start: 1, Target: 2.5, Duration: 3 * s},
			[]Step{{2 * s, 2}, {3 * s, 2.5}}},
		// Downward.
		{Ramp{Strategy: RampLinear, Start: 3, Target: 1, Duration: 2 * s},
			[]Step{{1 * s, 2}, {2 * s, 1}}},
		// Nothing to do.
		{Ramp{Strategy: RampLinear, Start: 4, Target: 4, Duration: s}, nil},
	}
	for _, tc := range tests {
		got, err := tc.r.Steps()
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%+v.Steps() = %v, %v; want %v", tc.r, got, err, tc.want)
		}
	}
}

func TestRampStepsPoisson(t *testing.T) {
	t.Parallel()
	// Pinned: seed 3, 1 -> 5 over 4 s draws three events (the count is
	// stochastic), each a third of the way, the last exactly at 4 s.
	pinned, err := (Ramp{Strategy: RampPoisson, Start: 1, Target: 5, Duration: 4 * time.Second, Seed: 3}).Steps()
	want := []Step{{1142365711, 1 + 4.0/3}, {3289636232, 1 + 8.0/3}, {4 * time.Second, 5}}
	if err != nil || len(pinned) != len(want) {
		t.Fatalf("pinned poisson ramp = %v, %v; want %v", pinned, err, want)
	}
	for i := range want {
		if pinned[i].At != want[i].At || math.Abs(pinned[i].Value-want[i].Value) > 1e-12 {
			t.Errorf("pinned step %d = %+v; want %+v", i, pinned[i], want[i])
		}
	}
	r := Ramp{Strategy: RampPoisson, Start: 1, Target: 33, Duration: 8 * time.Second, Seed: 7}
	a, err := r.Steps()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := r.Steps()
	if !slices.Equal(a, b) {
		t.Fatal("poisson ramp is not reproducible from its seed")
	}
	last := a[len(a)-1]
	if last.At != r.Duration || last.Value != r.Target {
		t.Errorf("last step %+v; want the target at exactly the duration", last)
	}
	step := (r.Target - r.Start) / float64(len(a))
	for i, s := range a {
		if i > 0 && s.At < a[i-1].At {
			t.Fatalf("step %d at %v before step %d at %v", i, s.At, i-1, a[i-1].At)
		}
		if want := r.Start + step*float64(i+1); math.Abs(s.Value-want) > 1e-9 {
			t.Errorf("step %d value %v; want equal shares, %v", i, s.Value, want)
		}
	}
	// The event count is stochastic around span = 32.
	if n := len(a); n < 16 || n > 64 {
		t.Errorf("%d events for a span of 32; want about 32", n)
	}
	if c, _ := (Ramp{Strategy: RampPoisson, Start: 1, Target: 33, Duration: 8 * time.Second, Seed: 8}).Steps(); slices.Equal(a, c) {
		t.Error("another seed gave the same staircase")
	}
}

// TestRampSamplesRate pins the continuous mode of AIPerf's request-rate
// ramp: start at target*interval/duration, re-read every interval, target
// from the first sample at or past the duration.
func TestRampSamplesRate(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	r := Ramp{Strategy: RampLinear, Start: 10 * 0.1 / 0.5, Target: 10, Duration: 500 * ms}
	got, err := r.Samples(100 * ms)
	if err != nil {
		t.Fatal(err)
	}
	want := []Step{{0, 2}, {100 * ms, 3.6}, {200 * ms, 5.2}, {300 * ms, 6.8}, {400 * ms, 8.4}, {500 * ms, 10}}
	if len(got) != len(want) {
		t.Fatalf("Samples = %v; want %v", got, want)
	}
	for i := range want {
		if got[i].At != want[i].At || math.Abs(got[i].Value-want[i].Value) > 1e-9 {
			t.Errorf("sample %d = %+v; want %+v", i, got[i], want[i])
		}
	}
	e := Ramp{Strategy: RampExponential, Start: 1, Target: 5, Duration: 400 * ms}
	got, _ = e.Samples(100 * ms)
	wantE := []float64{1, 1.25, 2, 3.25, 5} // 1 + 4*(t/D)^2
	for i, w := range wantE {
		if math.Abs(got[i].Value-w) > 1e-9 {
			t.Errorf("exponential sample %d = %v; want %v", i, got[i].Value, w)
		}
	}
}

func TestRampErrors(t *testing.T) {
	t.Parallel()
	for _, r := range []Ramp{
		{Strategy: "cubic", Start: 1, Target: 2, Duration: time.Second},
		{Strategy: RampLinear, Start: 0, Target: 2, Duration: time.Second},
		{Strategy: RampLinear, Start: 1, Target: math.Inf(1), Duration: time.Second},
		{Strategy: RampLinear, Start: 1, Target: 2},
	} {
		if _, err := r.Steps(); err == nil {
			t.Errorf("%+v.Steps() = nil error; want one", r)
		}
	}
	if _, err := (Ramp{Strategy: RampLinear, Start: 1, Target: 2, Duration: time.Second}).Samples(0); err == nil {
		t.Error("Samples(0) = nil error; want one")
	}
}

func TestIntStepsAndStepValue(t *testing.T) {
	t.Parallel()
	s := time.Second
	steps := []Step{{1 * s, 1.5}, {2 * s, 2.2}, {3 * s, 2.9}, {4 * s, 3}}
	start, got := IntSteps(1, steps)
	want := []LimitStep{{2 * s, 2}, {4 * s, 3}}
	if start != 1 || !slices.Equal(got, want) {
		t.Errorf("IntSteps = %d, %v; want 1, %v", start, got, want)
	}
	for _, tc := range []struct {
		t    time.Duration
		want float64
	}{{0, 1}, {s, 1.5}, {2500 * time.Millisecond, 2.2}, {10 * s, 3}} {
		if got := StepValue(1, steps, tc.t); got != tc.want {
			t.Errorf("StepValue(%v) = %v; want %v", tc.t, got, tc.want)
		}
	}
}
