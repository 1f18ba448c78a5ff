package search

import (
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// TPE settings, as Optuna's TPESampler defaults where it has them.
const (
	// tpeCandidates is how many points are drawn from the good density
	// per proposal (Optuna's n_ei_candidates).
	tpeCandidates = 24
	// tpeGamma is the fraction of observations taken as "good"
	// (hyperopt's 0.25), at least one.
	tpeGamma = 0.25
)

// TPEPlanner is a Tree-structured Parzen Estimator (Bergstra et al.
// 2011), the sampler Optuna and so AIPerf's bayesian planner fall back to:
//
//  1. The first nInit points are a randomly shifted Halton design over the
//     unit cube (AIPerf uses Sobol; both are low-discrepancy).
//  2. Then observations are ranked feasibility first (a feasible point
//     beats every infeasible one, whatever its objective; points without
//     an objective are last), the best ceil(0.25 n) form the "good" set
//     and the rest the "bad" set.
//  3. Each dimension gets two Parzen densities in unit space, l from the
//     good and g from the bad points: a truncated normal per point, its
//     width the larger gap to its neighbours (clipped to [1/min(100, n+1),
//     1]), plus a wide prior component.
//  4. 24 candidates are drawn from l; the one maximising l(x)/g(x), the
//     expected-improvement criterion of TPE, is proposed. A candidate
//     equal to a point already run (integer dimensions) is skipped while
//     others remain.
//
// Dimensions are modelled independently, as Optuna's default univariate
// TPE. Everything is seeded: the same seed gives the same proposals for
// the same observations.
type TPEPlanner struct {
	base
	nInit int
	rng   *rand.Rand
	init  [][]float64 // the initial design, unit cube
	units [][]float64 // unit coordinates of each observed point
	seen  map[string]bool
}

// NewTPE is a TPE search of maxIter points, the first nInit of them a
// Halton design, optimising the objective in direction dir.
func NewTPE(space []Dim, maxIter, nInit int, dir Direction, seed uint64) *TPEPlanner {
	nInit = max(1, min(nInit, maxIter))
	t := &TPEPlanner{
		base:  base{space: space, maxIter: maxIter, dir: dir},
		nInit: nInit,
		rng:   rand.New(rand.NewPCG(seed, seed^0x7e7e)),
		seen:  map[string]bool{},
	}
	t.init = halton(nInit, len(space), t.rng)
	return t
}

// haltonPrimes are the bases of the first Halton dimensions.
var haltonPrimes = []int{2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53}

// halton is n points of the d-dimensional Halton sequence (radical
// inverses in prime bases), skipping the all-zero first point and shifted
// by a random rotation per dimension (Cranley-Patterson), so that seeds
// give different but equally even designs.
func halton(n, d int, rng *rand.Rand) [][]float64 {
	shift := make([]float64, d)
	for j := range shift {
		shift[j] = rng.Float64()
	}
	out := make([][]float64, n)
	for i := range out {
		out[i] = make([]float64, d)
		for j := range d {
			b := haltonPrimes[j%len(haltonPrimes)]
			v, f := 0.0, 1.0/float64(b)
			for k := i + 1; k > 0; k /= b {
				v += f * float64(k%b)
				f /= float64(b)
			}
			out[i][j] = math.Mod(v+shift[j], 1)
		}
	}
	return out
}

// Next implements Planner.
func (t *TPEPlanner) Next() (Point, bool) {
	if !t.budgetLeft() {
		return nil, false
	}
	var u []float64
	if n := len(t.hist); n < t.nInit {
		u = t.init[n]
	} else {
		u = t.suggest()
	}
	p := t.fromUnit(u)
	t.seen[p.key()] = true
	t.units = append(t.units, u)
	return t.propose(p)
}

// Observe implements Planner.
func (t *TPEPlanner) Observe(o Observation) { t.record(o); t.track(o) }

// SetStopping sets the early stop (AIPerf's improvement patience and
// plateau); the zero value stops only at the budget.
func (t *TPEPlanner) SetStopping(s Stopping) { t.stop = s }

// rank orders observation indices best first, feasibility first.
func (t *TPEPlanner) rank() []int {
	idx := make([]int, len(t.hist))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		oa, ob := t.hist[a].Observation, t.hist[b].Observation
		na, nb := math.IsNaN(oa.Objective), math.IsNaN(ob.Objective)
		switch {
		case oa.Feasible != ob.Feasible:
			if oa.Feasible {
				return -1
			}
			return 1
		case na != nb:
			if nb {
				return -1
			}
			return 1
		case na:
			return 0
		case t.dir.better(oa.Objective, ob.Objective):
			return -1
		case t.dir.better(ob.Objective, oa.Objective):
			return 1
		}
		return 0
	})
	return idx
}

// suggest proposes a point by the l/g criterion.
func (t *TPEPlanner) suggest() []float64 {
	order := t.rank()
	nGood := max(1, int(math.Ceil(tpeGamma*float64(len(order)))))
	good, bad := order[:nGood], order[nGood:]
	l := make([]parzen, len(t.space))
	g := make([]parzen, len(t.space))
	for d := range t.space {
		l[d] = t.parzenOf(good, d)
		g[d] = t.parzenOf(bad, d)
	}
	var best, bestFresh []float64
	bestScore, bestFreshScore := math.Inf(-1), math.Inf(-1)
	for range tpeCandidates {
		c := make([]float64, len(t.space))
		score := 0.0
		for d := range t.space {
			c[d] = l[d].sample(t.rng)
			score += l[d].logProb(c[d]) - g[d].logProb(c[d])
		}
		if score > bestScore {
			best, bestScore = c, score
		}
		if !t.seen[t.fromUnit(c).key()] && score > bestFreshScore {
			bestFresh, bestFreshScore = c, score
		}
	}
	if bestFresh != nil {
		return bestFresh
	}
	return best
}

// parzen is a one-dimensional Parzen density on [0, 1]: equally weighted
// normals truncated to the interval.
type parzen struct {
	mu, sigma []float64
}

// parzenOf builds the density of dimension d from the observations idx,
// with the prior component N(0.5, 1) first.
func (t *TPEPlanner) parzenOf(idx []int, d int) parzen {
	xs := make([]float64, len(idx))
	for i, j := range idx {
		xs[i] = t.units[j][d]
	}
	slices.Sort(xs)
	p := parzen{mu: []float64{0.5}, sigma: []float64{1}}
	minSigma := 1 / float64(min(100, len(xs)+1))
	for i, x := range xs {
		lo, hi := 0.0, 1.0
		if i > 0 {
			lo = xs[i-1]
		}
		if i < len(xs)-1 {
			hi = xs[i+1]
		}
		s := max(x-lo, hi-x)
		p.mu = append(p.mu, x)
		p.sigma = append(p.sigma, min(max(s, minSigma), 1))
	}
	return p
}

// sample draws from the mixture: a component uniformly, then its normal
// truncated to [0, 1] by inverse CDF.
func (p parzen) sample(rng *rand.Rand) float64 {
	k := rng.IntN(len(p.mu))
	n := distuv.Normal{Mu: p.mu[k], Sigma: p.sigma[k]}
	a, b := n.CDF(0), n.CDF(1)
	u := a + rng.Float64()*(b-a)
	return min(max(n.Quantile(u), 0), 1)
}

// logProb is the mixture's log density at x.
func (p parzen) logProb(x float64) float64 {
	sum := 0.0
	for k := range p.mu {
		n := distuv.Normal{Mu: p.mu[k], Sigma: p.sigma[k]}
		if z := n.CDF(1) - n.CDF(0); z > 0 {
			sum += n.Prob(x) / z
		}
	}
	return math.Log(sum / float64(len(p.mu)))
}
