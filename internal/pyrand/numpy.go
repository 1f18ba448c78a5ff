package pyrand

import (
	"fmt"
	"math"
	"math/bits"
)

// Numpy is numpy.random.default_rng(seed): a Generator over PCG64 seeded
// through SeedSequence.
type Numpy struct {
	bg *pcg64
}

// NewNumpy returns numpy.random.default_rng(seed) for a non-negative int
// seed.
func NewNumpy(seed uint64) *Numpy { return &Numpy{bg: newPCG64(seed)} }

// Random returns Generator.random(): a float64 in [0, 1).
func (g *Numpy) Random() float64 { return g.bg.nextDouble() }

// Integers returns Generator.integers(low, high) (int64, high exclusive)
// for low < high: low plus a draw in [0, high-1-low] by Lemire's method,
// from a 32-bit draw when the range fits 32 bits.
func (g *Numpy) Integers(low, high int64) int64 {
	if low >= high {
		panic(fmt.Sprintf("pyrand: Integers(%d, %d): low >= high", low, high))
	}
	rng := uint64(high) - uint64(low) - 1
	return low + int64(g.bounded(rng))
}

// bounded returns a uniform integer in [0, rng] as numpy's
// random_bounded_uint64_fill does without masking.
func (g *Numpy) bounded(rng uint64) uint64 {
	switch {
	case rng == 0:
		return 0
	case rng == math.MaxUint32:
		return uint64(g.bg.next32())
	case rng < math.MaxUint32:
		excl := uint32(rng) + 1
		m := uint64(g.bg.next32()) * uint64(excl)
		if leftover := uint32(m); leftover < excl {
			threshold := (math.MaxUint32 - uint32(rng)) % excl
			for leftover < threshold {
				m = uint64(g.bg.next32()) * uint64(excl)
				leftover = uint32(m)
			}
		}
		return m >> 32
	case rng == math.MaxUint64:
		return g.bg.next64()
	default:
		excl := rng + 1
		hi, lo := bits.Mul64(g.bg.next64(), excl)
		if lo < excl {
			threshold := (math.MaxUint64 - rng) % excl
			for lo < threshold {
				hi, lo = bits.Mul64(g.bg.next64(), excl)
			}
		}
		return hi
	}
}

// interval returns numpy's random_interval(max): a uniform integer in
// [0, max] by masked rejection, from 32-bit draws when max fits.
func (g *Numpy) interval(max uint64) uint64 {
	if max == 0 {
		return 0
	}
	mask := uint64(1)<<bits.Len64(max) - 1
	if max <= math.MaxUint32 {
		for {
			if v := uint64(g.bg.next32()) & mask; v <= max {
				return v
			}
		}
	}
	for {
		if v := g.bg.next64() & mask; v <= max {
			return v
		}
	}
}

// Shuffle is Generator.shuffle of a sequence (a list or a 1-d array) of n
// elements: for i from n-1 down to 1, swap(i, random_interval(i)).
func (g *Numpy) Shuffle(n int, swap func(i, j int)) {
	for i := n - 1; i > 0; i-- {
		swap(i, int(g.interval(uint64(i))))
	}
}
