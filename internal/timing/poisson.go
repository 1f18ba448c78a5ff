package timing

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// PCG stream selectors, one per random pattern, so that Poisson and Gamma
// built from the same user seed draw independent sequences (AIPerf derives a
// named stream per use in the same spirit). The values are "poisson" and
// "gamma" in ASCII; they are part of the reproducibility contract: changing
// them changes every seeded schedule.
const (
	poissonStream uint64 = 0x706f6973736f6e
	gammaStream   uint64 = 0x67616d6d61
)

// renewalArrivals is a renewal process: due times are the running sum of
// independent, identically distributed gaps. The sum is kept in float64
// seconds and converted once per due time, so rounding to nanoseconds never
// accumulates.
type renewalArrivals struct {
	gap  func() float64 // next gap in seconds, >= 0
	sum  float64        // seconds since the phase start
	done bool
}

// Next implements Arrivals.
func (r *renewalArrivals) Next() (time.Duration, bool) {
	if r.done {
		return 0, false
	}
	r.sum += r.gap()
	d, ok := secondsToDuration(r.sum)
	if !ok {
		r.done = true
		return 0, false
	}
	return d, true
}

// Poisson returns Arrivals of a Poisson process with the given mean rate
// (requests per second): gaps are exponential with mean 1/rate (CV 1), drawn
// from a PCG generator seeded with seed, so a seed always yields the same
// schedule.
//
// The first request is due one gap after the phase start, not at 0. That is
// what AIPerf does (its rate loop targets start + next_interval() before the
// first credit), and it is the stationary process: a Poisson process observed
// from any instant has its next event one exponential gap away.
func Poisson(rate float64, seed uint64) (Arrivals, error) {
	if err := validRate(rate); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, poissonStream))
	return &renewalArrivals{gap: func() float64 { return rng.ExpFloat64() / rate }}, nil
}

// Gamma returns Arrivals whose gaps follow a gamma distribution with shape
// k = smoothness and scale 1/(rate*k): the mean gap stays 1/rate and the
// coefficient of variation is 1/sqrt(k). This is AIPerf's gamma pattern
// (--arrival-smoothness) and vLLM's --burstiness: smoothness 1 is the
// exponential (Poisson) case, below 1 burstier, above 1 more regular.
// smoothness must be finite and > 0; AIPerf treats an unset smoothness as 1,
// and so should the caller. As with Poisson, the first request is due one gap
// after the phase start, and the schedule is reproducible from seed.
func Gamma(rate, smoothness float64, seed uint64) (Arrivals, error) {
	if err := validRate(rate); err != nil {
		return nil, err
	}
	if math.IsNaN(smoothness) || math.IsInf(smoothness, 0) || smoothness <= 0 {
		return nil, fmt.Errorf("timing: arrival smoothness must be a finite number > 0, got %v", smoothness)
	}
	rng := rand.New(rand.NewPCG(seed, gammaStream))
	scale := 1 / (rate * smoothness)
	if smoothness == 1 {
		// Shape 1 is exactly the exponential distribution; skip the
		// rejection sampler.
		return &renewalArrivals{gap: func() float64 { return rng.ExpFloat64() * scale }}, nil
	}
	return &renewalArrivals{gap: func() float64 { return gammaDraw(rng, smoothness) * scale }}, nil
}

// gammaDraw returns one Gamma(shape, 1) variate using Marsaglia and Tsang's
// method (ACM TOMS 26(3), 2000). For shape < 1 it draws Gamma(shape+1) and
// multiplies by U^(1/shape), which is exact.
func gammaDraw(rng *rand.Rand, shape float64) float64 {
	if shape < 1 {
		u := 1 - rng.Float64() // (0, 1]
		return gammaDraw(rng, shape+1) * math.Pow(u, 1/shape)
	}
	d := shape - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := 1 - rng.Float64() // (0, 1], so log(u) is finite
		x2 := x * x
		if u < 1-0.0331*x2*x2 {
			return d * v
		}
		if math.Log(u) < 0.5*x2+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}
