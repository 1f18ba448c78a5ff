package dataset

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func mustSampler(t *testing.T, strategy string, n int, seed uint64) Sampler {
	t.Helper()
	s, err := NewSampler(strategy, n, seed)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func draw(s Sampler, k int) []int {
	out := make([]int, k)
	for i := range out {
		out[i] = s.Next()
	}
	return out
}

func TestSequentialSampler(t *testing.T) {
	got := draw(mustSampler(t, SamplingSequential, 3, 9), 7)
	if diff := cmp.Diff([]int{0, 1, 2, 0, 1, 2, 0}, got); diff != "" {
		t.Errorf("sequence mismatch (-want +got):\n%s", diff)
	}
}

func TestShuffleSampler(t *testing.T) {
	const n, passes = 10, 50
	seq := draw(mustSampler(t, SamplingShuffle, n, 1), n*passes)
	identity := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	orders := map[string]bool{}
	for p := range passes {
		pass := slices.Clone(seq[p*n : (p+1)*n])
		orders[fmt.Sprint(pass)] = true
		slices.Sort(pass)
		if !slices.Equal(pass, identity) {
			t.Fatalf("pass %d is not a permutation: %v", p, seq[p*n:(p+1)*n])
		}
	}
	// 50 passes over 10! orders: a repeat would mean no reshuffling.
	if len(orders) < passes {
		t.Errorf("only %d distinct orders in %d passes", len(orders), passes)
	}
	if slices.Equal(seq[:n], identity) {
		t.Error("first pass is not shuffled")
	}
	if again := draw(mustSampler(t, SamplingShuffle, n, 1), n*passes); !slices.Equal(seq, again) {
		t.Error("same seed, different shuffle sequence")
	}
	if other := draw(mustSampler(t, SamplingShuffle, n, 2), n*passes); slices.Equal(seq, other) {
		t.Error("seeds 1 and 2 gave the same shuffle sequence")
	}
}

func TestRandomSampler(t *testing.T) {
	const n, draws = 8, 80_000
	seq := draw(mustSampler(t, SamplingRandom, n, 3), draws)
	counts := make([]int, n)
	for _, i := range seq {
		if i < 0 || i >= n {
			t.Fatalf("index %d out of range", i)
		}
		counts[i]++
	}
	// Chi-square with 7 degrees of freedom; 24.3 is the 0.999 quantile.
	// The seed is fixed, so this is deterministic.
	chi2 := 0.0
	for _, c := range counts {
		d := float64(c) - draws/n
		chi2 += d * d / (draws / n)
	}
	if chi2 > 24.3 {
		t.Errorf("counts %v are not uniform (chi-square %.1f)", counts, chi2)
	}
	// With replacement: few blocks of n draws are permutations (8!/8^8,
	// about 0.24%, for uniform draws; all of them for a shuffle).
	perms := 0
	for b := 0; b+n <= draws; b += n {
		block := slices.Clone(seq[b : b+n])
		slices.Sort(block)
		if len(slices.Compact(block)) == n {
			perms++
		}
	}
	if perms > draws/n/100 {
		t.Errorf("%d of %d blocks are permutations: not sampling with replacement", perms, draws/n)
	}
	if again := draw(mustSampler(t, SamplingRandom, n, 3), draws); !slices.Equal(seq, again) {
		t.Error("same seed, different random sequence")
	}
}

func TestNewSamplerErrors(t *testing.T) {
	_, err := NewSampler("round-robin", 0, 1)
	if err == nil {
		t.Fatal("NewSampler accepted a bad strategy and size")
	}
	for _, want := range []string{`unknown dataset sampling strategy "round-robin"`, "at least 1 conversation, got 0"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	if s, err := NewSampler(SamplingShuffle, 1, 1); err != nil || s.Next() != 0 || s.Next() != 0 {
		t.Errorf("one-conversation shuffle sampler: %v", err)
	}
}
