package search

import (
	"math"
	"slices"
	"strings"
	"testing"
)

func TestParseDim(t *testing.T) {
	t.Parallel()
	d, err := ParseDim("phases.profiling.concurrency:1,1000:int")
	if err != nil || d.Path != "phases.profiling.concurrency" || d.Lo != 1 || d.Hi != 1000 || !d.Int || d.String() != "phases.profiling.concurrency:1,1000:int" {
		t.Errorf("ParseDim = %+v, %v", d, err)
	}
	if d, err := ParseDim("x:0,0.5"); err != nil || d.Int || d.Hi != 0.5 {
		t.Errorf("real dim = %+v, %v", d, err)
	}
	for in, want := range map[string]string{
		"x":          "expected path:lo,hi",
		"x:1:int":    "expected path:lo,hi",
		"x:5,1":      "hi (1) must be > lo (5)",
		"x:1,a":      "not two numbers",
		"x:1,2:bool": "kind must be int or real",
		":1,2":       "path must not be empty",
		"x:1,inf":    "finite",
	} {
		if _, err := ParseDim(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseDim(%q) = %v; want %q", in, err, want)
		}
	}
}

func TestDimUnit(t *testing.T) {
	t.Parallel()
	lin := Dim{Lo: 1, Hi: 11, Int: true}
	logd := Dim{Lo: 1, Hi: 1000, Log: true}
	for _, c := range []struct {
		d    Dim
		u, v float64
	}{{lin, 0, 1}, {lin, 1, 11}, {lin, 0.5, 6}, {lin, 0.04, 1}, {logd, 0.5, math.Sqrt(1000)}, {logd, 1.5, 1000}} {
		if got := c.d.FromUnit(c.u); math.Abs(got-c.v) > 1e-9 {
			t.Errorf("%+v.FromUnit(%v) = %v; want %v", c.d, c.u, got, c.v)
		}
	}
	if u := logd.ToUnit(31.622776601683793); math.Abs(u-0.5) > 1e-12 {
		t.Errorf("ToUnit = %v", u)
	}
}

// TestLogSteps matches AIPerf's _logspace_int_steps.
func TestLogSteps(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		lo, hi float64
		n      int
		want   []int
	}{
		{1, 1000, 8, []int{1, 3, 7, 19, 52, 139, 373, 1000}},
		{1, 200, 6, []int{1, 3, 8, 24, 69, 200}},
		{64, 1024, 4, []int{64, 161, 406, 1024}},
		{256, 32768, 8, []int{256, 512, 1024, 2048, 4096, 8192, 16384, 32768}},
		{1, 32, 6, []int{1, 2, 4, 8, 16, 32}},
	} {
		got, err := LogSteps(c.lo, c.hi, c.n)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("LogSteps(%v, %v, %d) = %v, %v; want %v", c.lo, c.hi, c.n, got, err, c.want)
		}
	}
	if _, err := LogSteps(1, 10, 1); err == nil {
		t.Error("one step accepted")
	}
}

// drive runs a planner against f (feasible when f's second result is
// true) until it stops, returning the points it asked for.
func drive(p Planner, f func(Point) (float64, bool)) []Point {
	var pts []Point
	for {
		pt, ok := p.Next()
		if !ok {
			return pts
		}
		pts = append(pts, pt)
		v, feasible := f(pt)
		p.Observe(Observation{Objective: v, Feasible: feasible})
	}
}

// TestMonotonic: an SLA that holds up to a knee k over [1, 1000] is found
// exactly in O(log) points, as AIPerf's planner walks it.
func TestMonotonic(t *testing.T) {
	t.Parallel()
	dim := Dim{Path: "c", Lo: 1, Hi: 1000, Int: true}
	for _, c := range []struct {
		knee   int
		points []float64
		reason string
	}{
		{12, []float64{1, 2, 4, 8, 16, 12, 14, 13}, "monotonic_precision_reached"},
		{4, []float64{1, 2, 4, 8, 6, 5}, "monotonic_precision_reached"},
		{0, []float64{1}, "monotonic_no_pass_in_range"},
		{5000, []float64{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1000}, "monotonic_no_failure_in_range"},
		// 5 % precision: between 512 and 1000 it stops once the gap is under 5 %
		{700, []float64{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1000, 756, 634, 695, 725}, "monotonic_precision_reached"}, // 725-695 = 30 < 5 % of 725
	} {
		m, err := NewMonotonic(dim, 30)
		if err != nil {
			t.Fatal(err)
		}
		pts := drive(m, func(p Point) (float64, bool) { return p[0], int(p[0]) <= c.knee })
		var got []float64
		for _, p := range pts {
			got = append(got, p[0])
		}
		if !slices.Equal(got, c.points) || m.Reason() != c.reason {
			t.Errorf("knee %d: points %v, %s; want %v, %s", c.knee, got, m.Reason(), c.points, c.reason)
		}
		if c.knee >= 1 && c.knee <= 1000 && (m.FeasibleMax > c.knee || c.knee-m.FeasibleMax > int(0.05*float64(m.InfeasibleMin))+1) {
			t.Errorf("knee %d: bracket [%d, %d]", c.knee, m.FeasibleMax, m.InfeasibleMin)
		}
	}
	m, _ := NewMonotonic(dim, 3)
	if pts := drive(m, func(p Point) (float64, bool) { return 0, true }); len(pts) != 3 || m.Reason() != "max_iterations" {
		t.Errorf("budget 3: %d points, %s", len(pts), m.Reason())
	}
	if _, err := NewMonotonic(Dim{Path: "x", Lo: 0, Hi: 1}, 5); err == nil {
		t.Error("real dimension accepted")
	}
}

// TestMonotonicFlagsNonMonotonic: a verdict against the bracket (here a
// pass above the known failure, as a noisy server can give) is flagged
// and leaves the bracket alone.
func TestMonotonicFlagsNonMonotonic(t *testing.T) {
	t.Parallel()
	m, _ := NewMonotonic(Dim{Path: "c", Lo: 1, Hi: 64, Int: true}, 20)
	verdict := map[float64]bool{1: true, 2: true, 4: true, 8: false}
	for range 4 {
		p, _ := m.Next()
		m.Observe(Observation{Feasible: verdict[p[0]]})
	}
	m.pending = Point{9} // as if the point were proposed again by a retry
	m.Observe(Observation{Feasible: true})
	h := m.History()
	if !h[4].NonMonotonic || m.FeasibleMax != 4 || m.InfeasibleMin != 8 {
		t.Errorf("non-monotonic pass: flagged %v, bracket [%d, %d]", h[4].NonMonotonic, m.FeasibleMax, m.InfeasibleMin)
	}
}

func TestGridAndBest(t *testing.T) {
	t.Parallel()
	g, err := NewGrid([]Dim{{Path: "a"}, {Path: "b"}}, [][]float64{{1, 2}, {10, 20, 30}})
	if err != nil {
		t.Fatal(err)
	}
	pts := drive(g, func(p Point) (float64, bool) { return p[0] * p[1], p[1] < 30 })
	if len(pts) != 6 || !slices.Equal(pts[1], Point{1, 20}) || g.Reason() != "grid_exhausted" {
		t.Errorf("grid points %v, %s", pts, g.Reason())
	}
	best, feasible, ok := Best(g.History(), Maximize)
	if !ok || feasible != 4 || !slices.Equal(best.Point, Point{2, 20}) {
		t.Errorf("Best = %+v, %d feasible", best, feasible)
	}
	// none feasible: the best of all
	hist := []Iteration{{Point: Point{1}, Observation: Observation{Objective: 5}}, {Point: Point{2}, Observation: Observation{Objective: 3}}, {Point: Point{3}, Observation: Observation{Objective: math.NaN(), Feasible: false}}}
	if best, n, ok := Best(hist, Minimize); !ok || n != 0 || best.Point[0] != 2 {
		t.Errorf("Best(no feasible, minimize) = %+v, %d, %v", best, n, ok)
	}
}

// branin is the Branin-Hoo function on x in [-5, 10], y in [0, 15]; its
// minimum, 0.397887, is at three points.
func branin(x, y float64) float64 {
	a, b, c, r, s, tt := 1.0, 5.1/(4*math.Pi*math.Pi), 5/math.Pi, 6.0, 10.0, 1/(8*math.Pi)
	return a*math.Pow(y-b*x*x+c*x-r, 2) + s*(1-tt)*math.Cos(x) + s
}

// TestBayesianBeatsRandom is the acceptance test: on Branin (minimise,
// 50 points) and on a narrow peak in 3 dimensions (maximise, 50 points),
// the TPE planner's best value is better than random search's, averaged
// over the same 12 seeds, and on most seeds.
func TestBayesianBeatsRandom(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		space []Dim
		dir   Direction
		f     func(Point) float64
	}{
		{"branin", []Dim{{Path: "x", Lo: -5, Hi: 10}, {Path: "y", Lo: 0, Hi: 15}}, Minimize, func(p Point) float64 { return branin(p[0], p[1]) }},
		{"peak3", []Dim{{Path: "a", Lo: 0, Hi: 1}, {Path: "b", Lo: 0, Hi: 1}, {Path: "c", Lo: 0, Hi: 1}}, Maximize, func(p Point) float64 {
			d := (p[0]-0.8)*(p[0]-0.8) + (p[1]-0.25)*(p[1]-0.25) + (p[2]-0.6)*(p[2]-0.6)
			return math.Exp(-d / 0.02)
		}},
	}
	for _, c := range cases {
		var sumTPE, sumRand float64
		wins := 0
		const seeds = 12
		for seed := uint64(1); seed <= seeds; seed++ {
			bestOf := func(p Planner) float64 {
				drive(p, func(pt Point) (float64, bool) { return c.f(pt), true })
				b, _, _ := Best(p.History(), c.dir)
				return b.Observation.Objective
			}
			tpe := bestOf(NewTPE(c.space, 50, 8, c.dir, seed))
			rnd := bestOf(NewRandom(c.space, 50, c.dir, seed))
			if c.dir == Minimize {
				tpe, rnd = -tpe, -rnd
			}
			sumTPE += tpe
			sumRand += rnd
			if tpe > rnd {
				wins++
			}
		}
		t.Logf("%s: mean best TPE %.4f, random %.4f (sign: higher is better); TPE better on %d of %d seeds", c.name, sumTPE/seeds, sumRand/seeds, wins, seeds)
		if sumTPE <= sumRand || wins < seeds/2+1 {
			t.Errorf("%s: TPE did not beat random search (mean %.4f vs %.4f, %d of %d seeds)", c.name, sumTPE/seeds, sumRand/seeds, wins, seeds)
		}
	}
}

// TestTPEDeterministicAndFeasibilityFirst: the same seed gives the same
// points, and an infeasible region is avoided once seen.
func TestTPEDeterministicAndFeasibilityFirst(t *testing.T) {
	t.Parallel()
	space := []Dim{{Path: "c", Lo: 1, Hi: 256, Int: true, Log: true}}
	// throughput rises with concurrency, the SLA holds up to 40
	f := func(p Point) (float64, bool) { return p[0], p[0] <= 40 }
	a := drive(NewTPE(space, 20, 5, Maximize, 7), f)
	b := drive(NewTPE(space, 20, 5, Maximize, 7), f)
	if !slices.EqualFunc(a, b, func(x, y Point) bool { return slices.Equal(x, y) }) {
		t.Fatalf("same seed, different points:\n%v\n%v", a, b)
	}
	p := NewTPE(space, 20, 5, Maximize, 7)
	drive(p, f)
	best, feasible, _ := Best(p.History(), Maximize)
	if best.Point[0] > 40 || best.Point[0] < 30 || feasible < 8 {
		t.Errorf("best %v with %d feasible points; want the feasible maximum near 40", best.Point, feasible)
	}
}

// TestMonotonicStabilityWindow: with AIPerf's window of 2 every value is
// asked until two verdicts agree; a flip asks a third time.
func TestMonotonicStabilityWindow(t *testing.T) {
	t.Parallel()
	m, _ := NewMonotonic(Dim{Path: "c", Lo: 1, Hi: 64, Int: true}, 40)
	m.Stability = 2
	asked := map[float64]int{}
	pts := drive(m, func(p Point) (float64, bool) {
		asked[p[0]]++
		if p[0] == 2 && asked[2] == 1 {
			return 0, false // a spurious failure, outvoted
		}
		return 0, p[0] <= 4
	})
	var got []float64
	for _, p := range pts {
		got = append(got, p[0])
	}
	want := []float64{1, 1, 2, 2, 2, 4, 4, 8, 8, 6, 6, 5, 5}
	if !slices.Equal(got, want) || m.FeasibleMax != 4 || m.InfeasibleMin != 5 {
		t.Errorf("points %v, bracket [%d, %d]; want %v, [4, 5]", got, m.FeasibleMax, m.InfeasibleMin, want)
	}
}

// TestEarlyStopping: patience ends a search that stops improving, a
// plateau one whose objective no longer moves.
func TestEarlyStopping(t *testing.T) {
	t.Parallel()
	space := []Dim{{Path: "x", Lo: 0, Hi: 1}}
	r := NewRandom(space, 100, Maximize, 1)
	r.SetStopping(Stopping{Patience: 3})
	n := 0
	drive(r, func(Point) (float64, bool) { n++; return float64(min(n, 2)), true }) // improves twice, then flat
	if r.Reason() != "improvement_patience" || len(r.History()) != 5 {
		t.Errorf("patience: %s after %d", r.Reason(), len(r.History()))
	}
	tp := NewTPE(space, 100, 2, Maximize, 1)
	tp.SetStopping(Stopping{Window: 4, Threshold: 0.01})
	n = 0
	drive(tp, func(Point) (float64, bool) { n++; return 100 + 0.01*float64(n), true }) // rising, but by 0.01 %
	if tp.Reason() != "plateau_cv" || len(tp.History()) != 4 {
		t.Errorf("plateau: %s after %d", tp.Reason(), len(tp.History()))
	}
}
