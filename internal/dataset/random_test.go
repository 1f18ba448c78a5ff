package dataset

import (
	"math/rand/v2"
	"testing"
)

func TestNewStream(t *testing.T) {
	a, b := NewStream(1, "x"), NewStream(1, "x")
	for range 10 {
		if a.Uint64() != b.Uint64() {
			t.Fatal("same seed and name, different sequences")
		}
	}
	first := func(seed uint64, name string) uint64 { return NewStream(seed, name).Uint64() }
	if first(1, "x") == first(1, "y") || first(1, "x") == first(2, "x") {
		t.Error("different seeds or names gave the same first value")
	}
}

func TestPositiveNormalInt(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	tests := []struct {
		mean, stddev float64
		want         int
	}{
		{550, 0, 550},
		{0, 0, 1},    // never below 1
		{2.5, 0, 2},  // Python's round: half to even
		{3.5, -1, 4}, // non-positive stddev means fixed
		{1e12, 0, 1<<31 - 1},
	}
	for _, tc := range tests {
		if got := PositiveNormalInt(rng, tc.mean, tc.stddev); got != tc.want {
			t.Errorf("positiveNormalInt(%v, %v) = %d, want %d", tc.mean, tc.stddev, got, tc.want)
		}
	}
	// Mostly negative draws are rejected, not clamped: the accepted ones
	// are spread over [1, ...) like a half normal.
	seen := map[int]int{}
	for range 10_000 {
		n := PositiveNormalInt(rng, 1, 10)
		if n < 1 {
			t.Fatalf("draw %d < 1", n)
		}
		seen[n]++
	}
	if len(seen) < 20 || seen[1] > 2_000 {
		t.Errorf("rejection sampling looks clamped: %d distinct values, %d ones", len(seen), seen[1])
	}
}

func TestNewUUID(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	a, b := NewUUID(rng), NewUUID(rng)
	if a == b || len(a) != 36 || a[14] != '4' || a[8] != '-' {
		t.Errorf("UUIDs %q %q", a, b)
	}
}
