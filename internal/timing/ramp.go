package timing

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"time"
)

// RampStrategy is the curve a ramp follows from its start value to its
// target (AIPerf's ramp plugins: linear, exponential, poisson).
type RampStrategy string

// The ramp strategies.
const (
	// RampLinear moves at a constant speed: value v is reached at
	// duration * (v - start) / (target - start).
	RampLinear RampStrategy = "linear"
	// RampExponential eases in: slow at first, fast at the end. Value
	// progress is time progress squared, so v is reached at
	// duration * sqrt((v - start) / (target - start)).
	RampExponential RampStrategy = "exponential"
	// RampPoisson steps at the events of a Poisson process of rate
	// |target - start| / duration, stretched to end exactly at duration,
	// each event moving an equal share of the way (a stochastic staircase
	// that always arrives on time).
	RampPoisson RampStrategy = "poisson"
)

// RampStrategies lists the strategies in AIPerf's plugin order.
func RampStrategies() []RampStrategy {
	return []RampStrategy{RampExponential, RampLinear, RampPoisson}
}

// RampUpdateInterval is how often a continuous (request-rate) ramp or a
// rate series updates the rate: AIPerf's AIPERF_TIMING_RATE_RAMP_UPDATE_INTERVAL
// default of 0.1 s.
const RampUpdateInterval = 100 * time.Millisecond

// poissonRampStream is the PCG stream of the poisson ramp ("ramp" in
// ASCII), so a ramp and an arrival process built from one seed differ.
const poissonRampStream uint64 = 0x72616d70

// Step is one change of a stepped value: from At (an offset from the phase
// start) on, the value is Value.
type Step struct {
	At    time.Duration
	Value float64
}

// Ramp describes a ramp from Start to Target over Duration.
type Ramp struct {
	Strategy RampStrategy
	Start    float64
	Target   float64
	Duration time.Duration
	// Seed drives the poisson strategy; the others ignore it.
	Seed uint64
}

// validate reports why r cannot ramp.
func (r Ramp) validate() error {
	switch r.Strategy {
	case RampLinear, RampExponential, RampPoisson:
	default:
		return fmt.Errorf("timing: unknown ramp strategy %q (linear, exponential or poisson)", r.Strategy)
	}
	if !(r.Start > 0) || !(r.Target > 0) || math.IsInf(r.Start, 0) || math.IsInf(r.Target, 0) {
		return fmt.Errorf("timing: a ramp needs finite start and target values > 0, got %v -> %v", r.Start, r.Target)
	}
	if r.Duration <= 0 {
		return fmt.Errorf("timing: a ramp needs a duration > 0, got %v", r.Duration)
	}
	return nil
}

// Steps is the ramp in discrete mode, as AIPerf ramps concurrency: the
// value moves one unit at a time (the last step lands on Target), and
// each step is at the time the strategy's curve reaches it. The value
// before the first step is Start. The poisson strategy steps at its own
// events instead. Times are exact offsets from the phase start, so the
// schedule is a pure function of the ramp.
//
// Steps of a linear ramp from 1 to 5 over 4 s: 2 at 1 s, 3 at 2 s, 4 at
// 3 s, 5 at 4 s. An exponential ramp reaches 2 at 4 s * sqrt(1/4) = 2 s,
// 3 at 2.83 s, 4 at 3.46 s, 5 at 4 s.
func (r Ramp) Steps() ([]Step, error) {
	if err := r.validate(); err != nil {
		return nil, err
	}
	span := math.Abs(r.Target - r.Start)
	if span == 0 {
		return nil, nil
	}
	if r.Strategy == RampPoisson {
		return r.poissonSteps(span), nil
	}
	dir := math.Copysign(1, r.Target-r.Start)
	var out []Step
	for v := r.Start; v != r.Target; {
		next := v + dir
		if (dir > 0 && next > r.Target) || (dir < 0 && next < r.Target) {
			next = r.Target
		}
		progress := math.Abs(next-r.Start) / span
		out = append(out, Step{At: r.timeAt(progress), Value: next})
		v = next
	}
	return out, nil
}

// timeAt is when the curve reaches progress (a fraction of the way).
func (r Ramp) timeAt(progress float64) time.Duration {
	f := progress
	if r.Strategy == RampExponential {
		f = math.Sqrt(progress)
	}
	return time.Duration(math.Round(f * float64(r.Duration)))
}

// valueAt is the continuous value at elapsed time t < Duration.
func (r Ramp) valueAt(t time.Duration) float64 {
	p := float64(t) / float64(r.Duration)
	if r.Strategy == RampExponential {
		p *= p
	}
	return r.Start + (r.Target-r.Start)*p
}

// Samples is the ramp in continuous mode, as AIPerf ramps a request rate:
// the value is Start at 0 and is re-read every interval, at k*interval for
// k = 1, 2, ..., from the strategy's curve (linear interpolation, or its
// square for exponential, or the poisson staircase); the first sample at or
// after Duration is Target. The result is a step function of time whose
// first step is at 0.
func (r Ramp) Samples(interval time.Duration) ([]Step, error) {
	if err := r.validate(); err != nil {
		return nil, err
	}
	if interval <= 0 {
		return nil, fmt.Errorf("timing: a ramp's update interval must be > 0, got %v", interval)
	}
	out := []Step{{At: 0, Value: r.Start}}
	if r.Start == r.Target {
		return out, nil
	}
	var stairs []Step
	if r.Strategy == RampPoisson {
		stairs = r.poissonSteps(math.Abs(r.Target - r.Start))
	}
	for k := int64(1); ; k++ {
		t := time.Duration(k) * interval
		if t >= r.Duration {
			return append(out, Step{At: t, Value: r.Target}), nil
		}
		v := r.valueAt(t)
		if stairs != nil {
			v = StepValue(r.Start, stairs, t)
		}
		out = append(out, Step{At: t, Value: v})
	}
}

// poissonSteps draws the poisson staircase: exponential gaps of mean
// duration/span until they pass the duration, all scaled so the last
// event is at exactly Duration, each event moving span/events further
// (the last landing exactly on Target).
func (r Ramp) poissonSteps(span float64) []Step {
	rng := rand.New(rand.NewPCG(r.Seed, poissonRampStream))
	rate := span / r.Duration.Seconds()
	var gaps []float64
	sum := 0.0
	for sum < r.Duration.Seconds() {
		g := rng.ExpFloat64() / rate
		gaps = append(gaps, g)
		sum += g
	}
	scale := r.Duration.Seconds() / sum
	stepSize := span / float64(len(gaps))
	dir := math.Copysign(1, r.Target-r.Start)
	out := make([]Step, len(gaps))
	at := 0.0
	for i, g := range gaps {
		at += g * scale
		v := r.Start + dir*stepSize*float64(i+1)
		if i == len(gaps)-1 {
			v, at = r.Target, r.Duration.Seconds()
		}
		out[i] = Step{At: time.Duration(math.Round(at * 1e9)), Value: v}
	}
	return out
}

// StepValue is the value of a step function at t: the last step at or
// before t, or start before the first. steps must be sorted by At.
func StepValue(start float64, steps []Step, t time.Duration) float64 {
	i := sort.Search(len(steps), func(i int) bool { return steps[i].At > t })
	if i == 0 {
		return start
	}
	return steps[i-1].Value
}

// IntSteps converts a stepped value to whole numbers (truncating, as
// AIPerf's concurrency setters do) and drops steps that do not change it.
func IntSteps(start float64, steps []Step) (int, []LimitStep) {
	cur := int(start)
	var out []LimitStep
	for _, s := range steps {
		if v := int(s.Value); v != cur {
			out = append(out, LimitStep{At: s.At, Limit: v})
			cur = v
		}
	}
	return int(start), out
}

// LimitStep is one change of a concurrency limit: from At on, Limit.
type LimitStep struct {
	At    time.Duration
	Limit int
}
