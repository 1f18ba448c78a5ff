package timing

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"time"
)

// RateCurve is a request rate that changes over a phase: a step function
// whose first step is at 0 (requests per second from At on). Ramps
// (Ramp.Samples) and rate series (SeriesSamples) are both sampled into one,
// on AIPerf's update grid, so the rate the arrivals follow is exactly the
// sequence of rates AIPerf's controllers would set.
type RateCurve []Step

// validate checks that c starts at 0, is sorted and has finite rates > 0.
func (c RateCurve) validate() error {
	if len(c) == 0 || c[0].At != 0 {
		return errors.New("timing: a rate curve needs a first step at 0")
	}
	for i, s := range c {
		if err := validRate(s.Value); err != nil {
			return fmt.Errorf("rate curve step %d: %w", i, err)
		}
		if i > 0 && s.At <= c[i-1].At {
			return fmt.Errorf("timing: rate curve step %d (%v) is not after step %d (%v)", i, s.At, i-1, c[i-1].At)
		}
	}
	return nil
}

// Then appends next, shifted by offset, after c: the rate follows c until
// offset, then next. Steps of c at or after offset are dropped.
func (c RateCurve) Then(offset time.Duration, next RateCurve) RateCurve {
	out := RateCurve{}
	for _, s := range c {
		if s.At < offset {
			out = append(out, s)
		}
	}
	for _, s := range next {
		out = append(out, Step{At: s.At + offset, Value: s.Value})
	}
	return out
}

// SeriesPoint is one control point of a request-rate series: QPS at
// Time seconds from the series start (AIPerf's --request-rate-series).
type SeriesPoint struct {
	Time float64 `json:"time_s"`
	QPS  float64 `json:"qps"`
}

// ValidateSeries reports every problem of a rate series: at least two
// points, finite values, times >= 0 and strictly increasing, rates > 0.
func ValidateSeries(points []SeriesPoint) error {
	var errs []error
	if len(points) < 2 {
		errs = append(errs, fmt.Errorf("a request-rate series needs at least two points, got %d", len(points)))
	}
	for i, p := range points {
		if math.IsNaN(p.Time) || math.IsInf(p.Time, 0) || p.Time < 0 {
			errs = append(errs, fmt.Errorf("point %d: time_s must be a finite number >= 0, got %v", i, p.Time))
		}
		if math.IsNaN(p.QPS) || math.IsInf(p.QPS, 0) || p.QPS <= 0 {
			errs = append(errs, fmt.Errorf("point %d: qps must be a finite number > 0, got %v", i, p.QPS))
		}
		if i > 0 && !(p.Time > points[i-1].Time) {
			errs = append(errs, fmt.Errorf("point %d: time_s %v is not after point %d's %v (times must strictly increase)", i, p.Time, i-1, points[i-1].Time))
		}
	}
	return errors.Join(errs...)
}

// seriesValue interpolates the series at t seconds: the first rate before
// the first point, the last after the last point.
func seriesValue(points []SeriesPoint, t float64) float64 {
	if t <= points[0].Time {
		return points[0].QPS
	}
	last := points[len(points)-1]
	if t >= last.Time {
		return last.QPS
	}
	for i := 1; i < len(points); i++ {
		if t < points[i].Time {
			l, r := points[i-1], points[i]
			return l.QPS + (r.QPS-l.QPS)*(t-l.Time)/(r.Time-l.Time)
		}
	}
	return last.QPS
}

// SeriesSamples samples a piecewise-linear rate series on the update grid,
// as AIPerf's series controller sets it: the interpolated rate at 0 and
// every interval after, until the first sample at or past the last point,
// which is the last rate (kept from then on).
func SeriesSamples(points []SeriesPoint, interval time.Duration) (RateCurve, error) {
	if err := ValidateSeries(points); err != nil {
		return nil, err
	}
	if interval <= 0 {
		return nil, fmt.Errorf("timing: a rate series' update interval must be > 0, got %v", interval)
	}
	end := points[len(points)-1].Time
	var out RateCurve
	for k := int64(0); ; k++ {
		t := time.Duration(k) * interval
		if t.Seconds() >= end {
			return append(out, Step{At: t, Value: points[len(points)-1].QPS}), nil
		}
		out = append(out, Step{At: t, Value: seriesValue(points, t.Seconds())})
	}
}

// varyingArrivals follows a time-varying rate by time rescaling: with
// Lambda(t) the integral of the rate from 0 to t, request n is due at
// Lambda^-1(u_n), where u_n are the event times of the same pattern at
// rate 1 (n+1 for constant, sums of unit exponential or unit-mean gamma
// gaps). At a fixed rate this is exactly Constant, Poisson or Gamma; when
// the rate changes, the gaps stretch or shrink with it from that instant
// on, which is the inhomogeneous process the rate describes (AIPerf
// approximates it by re-drawing the next gap at each update).
type varyingArrivals struct {
	curve RateCurve
	unit  func() float64 // next unit-rate event time (increasing)
	seg   int            // segment of the last due time
	base  float64        // Lambda at curve[seg].At
	done  bool
}

// Varying returns Arrivals for pattern at the time-varying rate curve.
// pattern is "constant", "poisson" or "gamma" (smoothness is the gamma
// shape); seed drives the random patterns as in Poisson and Gamma.
func Varying(pattern string, curve RateCurve, smoothness float64, seed uint64) (Arrivals, error) {
	if err := curve.validate(); err != nil {
		return nil, err
	}
	a := &varyingArrivals{curve: curve}
	switch pattern {
	case "constant":
		n := 0.0
		a.unit = func() float64 { n++; return n }
	case "poisson", "":
		rng := rand.New(rand.NewPCG(seed, poissonStream))
		sum := 0.0
		a.unit = func() float64 { sum += rng.ExpFloat64(); return sum }
	case "gamma":
		if math.IsNaN(smoothness) || math.IsInf(smoothness, 0) || smoothness <= 0 {
			return nil, fmt.Errorf("timing: arrival smoothness must be a finite number > 0, got %v", smoothness)
		}
		rng := rand.New(rand.NewPCG(seed, gammaStream))
		sum := 0.0
		a.unit = func() float64 {
			if smoothness == 1 {
				sum += rng.ExpFloat64()
			} else {
				sum += gammaDraw(rng, smoothness) / smoothness
			}
			return sum
		}
	default:
		return nil, fmt.Errorf("timing: a varying rate needs a constant, poisson or gamma arrival pattern, not %q", pattern)
	}
	return a, nil
}

// Next implements Arrivals.
func (a *varyingArrivals) Next() (time.Duration, bool) {
	if a.done {
		return 0, false
	}
	u := a.unit()
	// Walk forward to the segment holding Lambda = u; unit times only
	// grow, so the walk never goes back.
	for a.seg+1 < len(a.curve) {
		s, next := a.curve[a.seg], a.curve[a.seg+1]
		end := a.base + s.Value*(next.At-s.At).Seconds()
		if u < end {
			break
		}
		a.base, a.seg = end, a.seg+1
	}
	s := a.curve[a.seg]
	d, ok := secondsToDuration(s.At.Seconds() + (u-a.base)/s.Value)
	if !ok {
		a.done = true
		return 0, false
	}
	return d, true
}

// AdjustableRate is an arrival schedule whose rate a controller changes
// while the phase runs (adaptive scale over request_rate). It follows the
// rate curve built so far by time rescaling, like Varying; SetRate adds a
// step. A change takes effect from the first due time not yet handed out:
// the scheduler has already taken the next one (and may be sleeping until
// it), so a new step starts no earlier than that due time, which keeps the
// schedule non-decreasing. Next and SetRate are safe to call from
// different goroutines.
type AdjustableRate struct {
	mu    sync.Mutex
	inner *varyingArrivals
	last  time.Duration
}

// NewAdjustableRate returns arrivals of pattern at rate until SetRate.
func NewAdjustableRate(pattern string, rate, smoothness float64, seed uint64) (*AdjustableRate, error) {
	a, err := Varying(pattern, RateCurve{{At: 0, Value: rate}}, smoothness, seed)
	if err != nil {
		return nil, err
	}
	return &AdjustableRate{inner: a.(*varyingArrivals)}, nil
}

// Next implements Arrivals.
func (a *AdjustableRate) Next() (time.Duration, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	d, ok := a.inner.Next()
	if ok {
		d = max(d, a.last)
		a.last = d
	}
	return d, ok
}

// SetRate changes the rate from phase offset at on (or from the last due
// time handed out, if later). rate must be finite and > 0.
func (a *AdjustableRate) SetRate(at time.Duration, rate float64) error {
	if err := validRate(rate); err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	at = max(at, a.last)
	c := a.inner.curve
	if n := len(c) - 1; at <= c[n].At {
		if n > a.inner.seg { // not reached yet: it can still change
			c[n].Value = rate
			return nil
		}
		at = c[n].At + 1
	}
	a.inner.curve = append(c, Step{At: at, Value: rate})
	return nil
}
