package search

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Direction is whether the objective is to be maximised or minimised.
type Direction string

// Directions, as AIPerf spells them on the command line.
const (
	Maximize Direction = "maximize"
	Minimize Direction = "minimize"
)

// better reports whether objective a beats b in direction d.
func (d Direction) better(a, b float64) bool {
	if d == Minimize {
		return a < b
	}
	return a > b
}

// Observation is what the runs of one point measured.
type Observation struct {
	// Objective is the objective statistic (the mean over the point's
	// successful runs); NaN when no run measured it.
	Objective float64
	// Feasible is true when at least one successful run met every SLA
	// filter (true without filters), AIPerf's rule.
	Feasible bool
}

// Iteration is one point of the search and its outcome.
type Iteration struct {
	Index       int
	Point       Point
	Observation Observation
	// NonMonotonic marks a verdict that contradicts the boundary found so
	// far (a pass above a fail), for the monotonic planner.
	NonMonotonic bool
}

// Planner proposes the points of a search. Next returns the next point,
// or false when the search is over (Reason then says why); Observe must
// follow each Next with the outcome of that point. A Planner is used by
// one goroutine.
type Planner interface {
	Next() (Point, bool)
	Observe(Observation)
	// History is every observed iteration, in order.
	History() []Iteration
	// Reason is why Next returned false: "max_iterations", "grid_exhausted",
	// "monotonic_precision_reached", ...; "" while the search goes on.
	Reason() string
}

// base holds what every planner shares: the space, the budget and the
// history, and the point awaiting its observation.
type base struct {
	space   []Dim
	maxIter int
	dir     Direction
	hist    []Iteration
	pending Point
	reason  string
	// stop is the early stop of the sampling planners (bayesian, random).
	stop Stopping
	// sinceBest counts iterations since the objective last improved.
	sinceBest int
	best      float64
	hasBest   bool
}

// Stopping is AIPerf's early stop of its sampling planners, besides the
// iteration budget: "improvement_patience" after Patience iterations
// without a better objective, "plateau_cv" when the last Window
// objectives vary by less than Threshold (sample std over |mean|). Zero
// fields are off.
type Stopping struct {
	Patience  int
	Window    int
	Threshold float64
}

// DefaultStopping is AIPerf's: patience 10, a plateau of 8 within 1 %.
var DefaultStopping = Stopping{Patience: 10, Window: 8, Threshold: 0.01}

// plateauMeanEpsilon keeps the plateau test from dividing by a zero mean.
const plateauMeanEpsilon = 1e-12

func (b *base) History() []Iteration { return slices.Clone(b.hist) }
func (b *base) Reason() string       { return b.reason }

// budgetLeft latches max_iterations once the budget is spent, and the
// early stops of Stopping.
func (b *base) budgetLeft() bool {
	if b.reason != "" {
		return false
	}
	if b.maxIter > 0 && len(b.hist) >= b.maxIter {
		b.reason = "max_iterations"
		return false
	}
	if b.stop.Patience > 0 && b.sinceBest >= b.stop.Patience {
		b.reason = "improvement_patience"
		return false
	}
	if w := b.stop.Window; w >= 2 && len(b.hist) >= w {
		var vals []float64
		for _, it := range b.hist[len(b.hist)-w:] {
			if v := it.Observation.Objective; !math.IsNaN(v) && !math.IsInf(v, 0) {
				vals = append(vals, v)
			}
		}
		if len(vals) == w {
			mean := 0.0
			for _, v := range vals {
				mean += v
			}
			mean /= float64(w)
			ss := 0.0
			for _, v := range vals {
				ss += (v - mean) * (v - mean)
			}
			if math.Abs(mean) >= plateauMeanEpsilon && math.Sqrt(ss/float64(w-1))/math.Abs(mean) < b.stop.Threshold {
				b.reason = "plateau_cv"
				return false
			}
		}
	}
	return true
}

// track updates the improvement counter with an observed objective.
func (b *base) track(o Observation) {
	v := o.Objective
	if math.IsNaN(v) || math.IsInf(v, 0) {
		b.sinceBest++
		return
	}
	if !b.hasBest || b.dir.better(v, b.best) {
		b.best, b.hasBest, b.sinceBest = v, true, 0
		return
	}
	b.sinceBest++
}

// propose records p as pending and returns it.
func (b *base) propose(p Point) (Point, bool) {
	b.pending = p
	return slices.Clone(p), true
}

// record appends the pending point's observation.
func (b *base) record(o Observation) *Iteration {
	if b.pending == nil {
		panic("search: Observe without Next")
	}
	b.hist = append(b.hist, Iteration{Index: len(b.hist), Point: b.pending, Observation: o})
	b.pending = nil
	return &b.hist[len(b.hist)-1]
}

// fromUnit maps a point of the unit cube into the space.
func (b *base) fromUnit(u []float64) Point {
	p := make(Point, len(b.space))
	for i, d := range b.space {
		p[i] = d.FromUnit(u[i])
	}
	return p
}

// Best is the best iteration of a history, AIPerf's feasibility-first
// rule: the best objective among feasible iterations, or among all when
// none is feasible; iterations without an objective never win. ok is
// false when no iteration has one. feasible counts the feasible ones.
func Best(hist []Iteration, dir Direction) (best Iteration, feasible int, ok bool) {
	for _, it := range hist {
		if it.Observation.Feasible {
			feasible++
		}
	}
	for _, it := range hist {
		o := it.Observation
		if math.IsNaN(o.Objective) || math.IsInf(o.Objective, 0) || (feasible > 0 && !o.Feasible) {
			continue
		}
		if !ok || dir.better(o.Objective, best.Observation.Objective) {
			best, ok = it, true
		}
	}
	return best, feasible, ok
}

// GridPlanner proposes a fixed list of points in order.
type GridPlanner struct {
	base
	points []Point
}

// NewGrid is a planner over the Cartesian product of values (one list
// per dimension), the last dimension varying fastest.
func NewGrid(space []Dim, values [][]float64) (*GridPlanner, error) {
	if len(values) != len(space) || len(space) == 0 {
		return nil, fmt.Errorf("a grid needs one value list per dimension (%d dimensions, %d lists)", len(space), len(values))
	}
	pts := []Point{{}}
	for _, vs := range values {
		if len(vs) == 0 {
			return nil, fmt.Errorf("a grid dimension has no values")
		}
		var next []Point
		for _, p := range pts {
			for _, v := range vs {
				next = append(next, append(slices.Clone(p), v))
			}
		}
		pts = next
	}
	return &GridPlanner{base: base{space: space}, points: pts}, nil
}

// Next implements Planner.
func (g *GridPlanner) Next() (Point, bool) {
	if g.reason != "" {
		return nil, false
	}
	if len(g.hist) >= len(g.points) {
		g.reason = "grid_exhausted"
		return nil, false
	}
	return g.propose(g.points[len(g.hist)])
}

// Observe implements Planner.
func (g *GridPlanner) Observe(o Observation) { g.record(o) }

// SetStopping sets the early stop of a sampling planner.
func (r *RandomPlanner) SetStopping(s Stopping) { r.stop = s }

// RandomPlanner proposes seeded uniform samples of the space (log-uniform
// on log dimensions), maxIter of them; repeats of a whole-number point
// are redrawn a few times.
type RandomPlanner struct {
	base
	rng  *rand.Rand
	seen map[string]bool
}

// NewRandom is a random search of maxIter points seeded with seed.
func NewRandom(space []Dim, maxIter int, dir Direction, seed uint64) *RandomPlanner {
	return &RandomPlanner{base: base{space: space, maxIter: maxIter, dir: dir}, rng: rand.New(rand.NewPCG(seed, seed^0x5eed)), seen: map[string]bool{}}
}

// Next implements Planner.
func (r *RandomPlanner) Next() (Point, bool) {
	if !r.budgetLeft() {
		return nil, false
	}
	var p Point
	for range 16 {
		u := make([]float64, len(r.space))
		for i := range u {
			u[i] = r.rng.Float64()
		}
		if p = r.fromUnit(u); !r.seen[p.key()] {
			break
		}
	}
	r.seen[p.key()] = true
	return r.propose(p)
}

// Observe implements Planner.
func (r *RandomPlanner) Observe(o Observation) { r.record(o); r.track(o) }
