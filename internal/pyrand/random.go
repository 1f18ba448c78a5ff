package pyrand

import (
	"fmt"
	"math"
	"math/bits"
)

// Random is CPython's random.Random: MT19937 seeded as random.seed(int)
// seeds it, with the same methods drawing the same values.
type Random struct {
	mt        mt19937
	gaussNext float64
	hasGauss  bool
}

// NewRandom returns random.Random(seed) for a non-negative Python int seed.
// CPython splits abs(seed) into 32-bit words, least significant first (one
// word for 0), and seeds MT19937 with init_by_array.
func NewRandom(seed uint64) *Random {
	key := []uint32{uint32(seed)}
	if hi := uint32(seed >> 32); hi != 0 {
		key = append(key, hi)
	}
	r := &Random{}
	r.mt.initByArray(key)
	return r
}

// Random returns random.random(): a float64 in [0, 1) with 53 random bits.
func (r *Random) Random() float64 { return r.mt.double() }

// GetRandBits returns random.getrandbits(k) for 0 <= k <= 64: k random
// bits from ceil(k/32) outputs, the first output the least significant
// word and the last one cut to the bits still needed.
func (r *Random) GetRandBits(k int) uint64 {
	if k < 0 || k > 64 {
		panic(fmt.Sprintf("pyrand: GetRandBits(%d): k must be in [0, 64]", k))
	}
	if k == 0 {
		return 0
	}
	if k <= 32 {
		return uint64(r.mt.next() >> (32 - k))
	}
	lo := uint64(r.mt.next())
	hi := r.mt.next() >> (64 - k)
	return lo | uint64(hi)<<32
}

// RandBelow returns random._randbelow(n), a uniform integer in [0, n) for
// n >= 1: getrandbits(n.bit_length()) drawn until it is below n. It is what
// randrange, randint, choice and shuffle use.
func (r *Random) RandBelow(n uint64) uint64 {
	if n == 0 {
		panic("pyrand: RandBelow(0)")
	}
	k := bits.Len64(n)
	v := r.GetRandBits(k)
	for v >= n {
		v = r.GetRandBits(k)
	}
	return v
}

// RandRange returns random.randrange(stop) for stop >= 1.
func (r *Random) RandRange(stop int) int { return int(r.RandBelow(uint64(stop))) }

// RandInt returns random.randint(a, b): a uniform integer in [a, b].
func (r *Random) RandInt(a, b int) int { return a + int(r.RandBelow(uint64(b-a+1))) }

// Choice returns the index random.choice picks from a sequence of n >= 1
// elements.
func (r *Random) Choice(n int) int { return r.RandRange(n) }

// Shuffle is random.shuffle of a sequence of n elements: for i from n-1
// down to 1, swap(i, randbelow(i+1)).
func (r *Random) Shuffle(n int, swap func(i, j int)) {
	for i := n - 1; i > 0; i-- {
		swap(i, int(r.RandBelow(uint64(i+1))))
	}
}

// Uniform returns random.uniform(a, b): a + (b-a)*random().
func (r *Random) Uniform(a, b float64) float64 { return a + (b-a)*r.Random() }

// Gauss returns random.gauss(mu, sigma): the Box-Muller pair, the second
// value kept for the next call, as CPython does (its gauss_next).
func (r *Random) Gauss(mu, sigma float64) float64 {
	z := r.gaussNext
	if !r.hasGauss {
		x2pi := r.Random() * 2 * math.Pi
		g2rad := math.Sqrt(-2.0 * math.Log(1.0-r.Random()))
		z = math.Cos(x2pi) * g2rad
		r.gaussNext = math.Sin(x2pi) * g2rad
		r.hasGauss = true
	} else {
		r.hasGauss = false
	}
	return mu + z*sigma
}

// Expovariate returns random.expovariate(lambd): -log(1 - random()) / lambd.
func (r *Random) Expovariate(lambd float64) float64 {
	return -math.Log(1.0-r.Random()) / lambd
}

// Constants of CPython's gammavariate.
var (
	log4         = math.Log(4.0)
	sgMagicConst = 1.0 + math.Log(4.5)
)

// Gammavariate returns random.gammavariate(alpha, beta) for alpha, beta > 0,
// with CPython 3.11's three algorithms: Cheng's for alpha > 1, the
// exponential for alpha == 1 and Kennedy and Gentle's GS for alpha < 1.
func (r *Random) Gammavariate(alpha, beta float64) float64 {
	switch {
	case alpha > 1.0:
		ainv := math.Sqrt(2.0*alpha - 1.0)
		bbb := alpha - log4
		ccc := alpha + ainv
		for {
			u1 := r.Random()
			if !(1e-7 < u1 && u1 < 0.9999999) {
				continue
			}
			u2 := 1.0 - r.Random()
			v := math.Log(u1/(1.0-u1)) / ainv
			x := alpha * math.Exp(v)
			z := u1 * u1 * u2
			rr := bbb + ccc*v - x
			if rr+sgMagicConst-4.5*z >= 0.0 || rr >= math.Log(z) {
				return x * beta
			}
		}
	case alpha == 1.0:
		return -math.Log(1.0-r.Random()) * beta
	default:
		var x float64
		for {
			u := r.Random()
			b := (math.E + alpha) / math.E
			p := b * u
			if p <= 1.0 {
				x = math.Pow(p, 1.0/alpha)
			} else {
				x = -math.Log((b - p) / alpha)
			}
			u1 := r.Random()
			if p > 1.0 {
				if u1 <= math.Pow(x, alpha-1.0) {
					break
				}
			} else if u1 <= math.Exp(-x) {
				break
			}
		}
		return x * beta
	}
}
