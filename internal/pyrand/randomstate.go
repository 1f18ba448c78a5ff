package pyrand

import (
	"fmt"
	"math"
	"math/bits"
)

// RandomState is numpy's legacy numpy.random.RandomState(seed): MT19937
// seeded with init_genrand, masked rejection for integers.
type RandomState struct {
	mt mt19937
}

// NewRandomState returns RandomState(seed) for a seed in [0, 2^32-1]
// (numpy rejects others; see FoldSeed).
func NewRandomState(seed uint32) *RandomState {
	s := &RandomState{}
	s.mt.initGenrand(seed)
	return s
}

// RandomSample returns RandomState.random_sample(): a float64 in [0, 1).
func (s *RandomState) RandomSample() float64 { return s.mt.double() }

// RandInt returns RandomState.randint(low, high) (int64, high exclusive)
// for low < high: low plus a masked-rejection draw in [0, high-1-low], from
// 32-bit outputs when the range fits 32 bits, else from 64-bit ones (two
// outputs, the first the high word).
func (s *RandomState) RandInt(low, high int64) int64 {
	if low >= high {
		panic(fmt.Sprintf("pyrand: RandInt(%d, %d): low >= high", low, high))
	}
	rng := uint64(high) - uint64(low) - 1
	if rng == 0 {
		return low
	}
	mask := uint64(1)<<bits.Len64(rng) - 1
	if rng <= math.MaxUint32 {
		for {
			if v := uint64(s.mt.next()) & mask; v <= rng {
				return low + int64(v)
			}
		}
	}
	for {
		v := uint64(s.mt.next())<<32 | uint64(s.mt.next())
		if v &= mask; v <= rng {
			return low + int64(v)
		}
	}
}

// FoldSeed is AIPerf's fold_seed_to_uint32: a seed of any width folded
// into the range numpy's legacy seeding accepts, unchanged below 2^32.
func FoldSeed(seed uint64) uint32 { return uint32(seed ^ seed>>32) }
