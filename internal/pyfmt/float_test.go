package pyfmt

import (
	"math"
	"math/rand/v2"
	"testing"
)

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// TestAppendFloatAllocatesNothing: formatting a float for a JSONL line
// (a few dozen per record) must not allocate; the digits live on the
// caller's stack.
func TestAppendFloatAllocatesNothing(t *testing.T) {
	dst := make([]byte, 0, 64)
	if n := testing.AllocsPerRun(100, func() { dst = AppendFloat(dst[:0], 1234.5678e-3, -4, 2) }); n != 0 {
		t.Errorf("AppendFloat: %v allocations per call, want 0", n)
	}
}

func BenchmarkAppendFloat(b *testing.B) {
	dst := make([]byte, 0, 64)
	b.ReportAllocs()
	for b.Loop() {
		dst = AppendFloat(dst[:0], 1234.5678e-3, -4, 2)
	}
}

// floatSeeds are spellings at every boundary of AppendFloat's fast
// positional path: the powers of ten around minExp and 1e16, their
// neighbours, zeros, subnormals and the extremes.
func floatSeeds() []float64 {
	seeds := []float64{0, math.Copysign(0, -1), 1, -1, 10, 0.1, 0.3, 1e16, 1e15, 9.999999999999998e15, 1e-4, 1e-5, 1e-6,
		5e-324, math.MaxFloat64, math.SmallestNonzeroFloat64, 1234567890123456.8, 0.30000000000000004, 123456.789, -2.5e-300}
	for _, p := range []float64{1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e15, 1e16, 1e17, 1 << 53, 999999999999999, 12} {
		seeds = append(seeds, p, math.Nextafter(p, 0), math.Nextafter(p, math.Inf(1)), -p)
	}
	return seeds
}

// TestAppendFloatFastPathMatchesSplit: on the boundary seeds, the fast
// positional path spells every float exactly as the digit-by-digit
// spelling does, for both of Python's styles (repr and orjson).
func TestAppendFloatFastPathMatchesSplit(t *testing.T) {
	t.Parallel()
	for _, x := range floatSeeds() {
		checkFloat(t, x)
	}
}

// checkFloat fails unless AppendFloat spells x as appendFloatSplit
// does, in both of Python's styles (repr and orjson).
func checkFloat(t *testing.T, x float64) {
	t.Helper()
	for _, style := range [][2]int{{-4, 2}, {-5, 1}} {
		got := string(AppendFloat(nil, x, style[0], style[1]))
		want := string(appendFloatSplit(nil, x, style[0], style[1]))
		if got != want {
			t.Fatalf("AppendFloat(%v, %d, %d) = %s; the split spelling is %s", x, style[0], style[1], got, want)
		}
	}
}

// FuzzAppendFloat checks the fast path against the split spelling for
// any float64 (by its bits, so NaN payloads and subnormals come up too).
func FuzzAppendFloat(f *testing.F) {
	for _, x := range floatSeeds() {
		f.Add(math.Float64bits(x))
	}
	f.Fuzz(func(t *testing.T, bits uint64) {
		x := math.Float64frombits(bits)
		if finite(x) {
			checkFloat(t, x)
		}
	})
}

// TestAppendFloatRandomMatchesSplit runs the fuzz property on a million
// random bit patterns and a million random magnitudes in the positional
// range in the default test run (about 1 s), so a difference cannot wait
// for someone to run the fuzzer.
func TestAppendFloatRandomMatchesSplit(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(19, 2))
	var got, want []byte
	for i := range 2_000_000 {
		x := math.Float64frombits(r.Uint64())
		switch i % 4 {
		case 1, 3: // magnitudes around the positional range, 1e-9 .. 1e17
			x = math.Pow(10, -9+26*r.Float64())
		case 2: // whole numbers up to 1e17 and their neighbours
			x = math.Trunc(math.Pow(10, 17*r.Float64()))
			if r.IntN(4) == 0 {
				x = math.Nextafter(x, math.Inf(1))
			}
		}
		if r.IntN(2) == 0 {
			x = -x
		}
		if !finite(x) {
			continue
		}
		style := [2]int{-4, 2}
		if i%3 == 0 {
			style = [2]int{-5, 1}
		}
		got = AppendFloat(got[:0], x, style[0], style[1])
		want = appendFloatSplit(want[:0], x, style[0], style[1])
		if string(got) != string(want) {
			t.Fatalf("AppendFloat(%v (bits %#x), %d, %d) = %s; the split spelling is %s", x, math.Float64bits(x), style[0], style[1], got, want)
		}
	}
}
