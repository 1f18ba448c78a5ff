// Package search plans adaptive searches over benchmark parameters, as
// AIPerf's adaptive_search sweep and its search recipes: which point to
// run next (a concurrency, an input length, ...), given what the runs so
// far measured and whether they met the SLA filters.
//
// A Planner is a pure state machine, Next then Observe, with no clock and
// no I/O; the experiment runner owns the loop that runs each point and
// tells the planner the outcome. Planners:
//
//   - grid: every point of a fixed list (the recipes' log-spaced ramps);
//   - random: seeded uniform (or log-uniform) samples;
//   - bayesian: a Tree-structured Parzen Estimator (TPE) written here over
//     gonum's normal distribution, after a Halton design (AIPerf drives
//     Optuna, which Go does not have), feasibility first;
//   - monotonic: AIPerf's SLA-saturation search on one integer axis,
//     exponential probe then bisection, O(log n) runs where a grid needs n.
package search

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Dim is one dimension of a search space: a dot path into the benchmark
// configuration (phases.profiling.concurrency) and its inclusive bounds.
type Dim struct {
	Path   string  `json:"path"`
	Lo, Hi float64 `json:"-"`
	// Int rounds proposals to whole numbers (kind "int"); otherwise the
	// kind is "real".
	Int bool `json:"-"`
	// Log samples log-uniformly (prior "log-uniform", lo > 0): even
	// coverage of 1-10 and 100-1000.
	Log bool `json:"-"`
}

// Kind is AIPerf's name of the dimension's type.
func (d Dim) Kind() string {
	if d.Int {
		return "int"
	}
	return "real"
}

// Validate checks the bounds.
func (d Dim) Validate() error {
	var errs []error
	if strings.TrimSpace(d.Path) == "" {
		errs = append(errs, errors.New("the path must not be empty"))
	}
	if math.IsNaN(d.Lo) || math.IsInf(d.Lo, 0) || math.IsNaN(d.Hi) || math.IsInf(d.Hi, 0) {
		errs = append(errs, fmt.Errorf("bounds must be finite, got %v,%v", d.Lo, d.Hi))
	} else if !(d.Hi > d.Lo) {
		errs = append(errs, fmt.Errorf("hi (%v) must be > lo (%v)", d.Hi, d.Lo))
	}
	if d.Log && !(d.Lo > 0) {
		errs = append(errs, fmt.Errorf("a log-uniform dimension needs lo > 0, got %v", d.Lo))
	}
	return errors.Join(errs...)
}

// ParseDim reads one --search-space value, "path:lo,hi[:kind]" with kind
// int or real (the default), e.g. "phases.profiling.concurrency:1,1000:int".
func ParseDim(s string) (Dim, error) {
	parts := strings.Split(s, ":")
	if len(parts) < 2 || len(parts) > 3 || !strings.Contains(parts[1], ",") {
		return Dim{}, fmt.Errorf("%q: expected path:lo,hi[:kind], e.g. phases.profiling.concurrency:1,1000:int", s)
	}
	d := Dim{Path: parts[0]}
	if len(parts) == 3 {
		switch parts[2] {
		case "int":
			d.Int = true
		case "real":
		default:
			return Dim{}, fmt.Errorf("%q: kind must be int or real, got %q", s, parts[2])
		}
	}
	lo, hi, _ := strings.Cut(parts[1], ",")
	var err1, err2 error
	d.Lo, err1 = strconv.ParseFloat(strings.TrimSpace(lo), 64)
	d.Hi, err2 = strconv.ParseFloat(strings.TrimSpace(hi), 64)
	if err1 != nil || err2 != nil {
		return Dim{}, fmt.Errorf("%q: the bounds %q are not two numbers", s, parts[1])
	}
	if err := d.Validate(); err != nil {
		return Dim{}, fmt.Errorf("%q: %w", s, err)
	}
	return d, nil
}

// String is the --search-space form.
func (d Dim) String() string {
	s := d.Path + ":" + strconv.FormatFloat(d.Lo, 'g', -1, 64) + "," + strconv.FormatFloat(d.Hi, 'g', -1, 64)
	if d.Int {
		s += ":int"
	}
	return s
}

// FromUnit maps u in [0, 1] to the dimension: linear or logarithmic
// between the bounds, then rounded for int dimensions (and clamped, so
// rounding never leaves them).
func (d Dim) FromUnit(u float64) float64 {
	u = min(max(u, 0), 1)
	var v float64
	if d.Log {
		v = math.Exp(math.Log(d.Lo) + u*(math.Log(d.Hi)-math.Log(d.Lo)))
	} else {
		v = d.Lo + u*(d.Hi-d.Lo)
	}
	if d.Int {
		v = math.Round(v)
	}
	return min(max(v, d.Lo), d.Hi)
}

// ToUnit is FromUnit's inverse (before rounding).
func (d Dim) ToUnit(v float64) float64 {
	if d.Log {
		return (math.Log(v) - math.Log(d.Lo)) / (math.Log(d.Hi) - math.Log(d.Lo))
	}
	return (v - d.Lo) / (d.Hi - d.Lo)
}

// Point is one proposal: a value per dimension of the space, in order.
type Point []float64

// key identifies a point for de-duplication.
func (p Point) key() string {
	var b strings.Builder
	for i, v := range p {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
	}
	return b.String()
}

// LogSteps returns steps log-spaced whole numbers from lo to hi, both
// included, rounded and de-duplicated, ascending: AIPerf's recipe ramps
// (lo 1, hi 1000, 8 steps: 1 3 7 19 52 139 373 1000).
func LogSteps(lo, hi float64, steps int) ([]int, error) {
	if steps < 2 {
		return nil, fmt.Errorf("steps must be >= 2 (got %d): one point has no baseline", steps)
	}
	if !(lo > 0) || !(hi > lo) {
		return nil, fmt.Errorf("a log-spaced ramp needs 0 < lo < hi (got %v, %v)", lo, hi)
	}
	var out []int
	for i := range steps {
		v := max(int(math.RoundToEven(math.Exp(math.Log(lo)+(math.Log(hi)-math.Log(lo))*float64(i)/float64(steps-1)))), 1)
		if len(out) == 0 || out[len(out)-1] != v {
			out = append(out, v)
		}
	}
	return out, nil
}
