package export

import (
	"github.com/aiperf-go/aiperf/internal/metrics/stats"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

func TestAppendJSONFloat(t *testing.T) {
	t.Parallel()
	// Expected spellings are orjson 3.11's, as AIPerf writes them.
	cases := []struct {
		in   float64
		want string
	}{
		{10, "10.0"},
		{0, "0.0"},
		{math.Copysign(0, -1), "-0.0"},
		{1e16, "1e+16"},
		{1e15, "1000000000000000.0"},
		{1.2345678901234568e+17, "1.2345678901234568e+17"},
		{1.5e-5, "0.000015"},
		{0.0001, "0.0001"},
		{1e-5, "0.00001"},
		{1e-7, "1e-7"},
		{1.5e-6, "1.5e-6"},
		{1.23456e-8, "1.23456e-8"},
		{1e22, "1e+22"},
		{5e-324, "5e-324"},
		{math.MaxFloat64, "1.7976931348623157e+308"},
		{0.30000000000000004, "0.30000000000000004"},
		{0.0025, "0.0025"},
		{12345678.9, "12345678.9"},
		{9.99e15, "9990000000000000.0"},
		{1.5e16, "1.5e+16"},
		{-66.4552775, "-66.4552775"},
		{1234567890123456.8, "1234567890123456.8"},
	}
	for _, c := range cases {
		if got := string(appendJSONFloat(nil, c.in)); got != c.want {
			t.Errorf("appendJSONFloat(%v) = %s; want %s", c.in, got, c.want)
		}
	}
}

func TestPyRepr(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   float64
		want string
	}{
		{20, "20.0"},
		{2.5, "2.5"},
		{0.0001, "0.0001"},
		{1e-5, "1e-05"},
		{1.5e-7, "1.5e-07"},
		{1e16, "1e+16"},
		{1e15, "1000000000000000.0"},
		{123.456, "123.456"},
	}
	for _, c := range cases {
		if got := pyRepr(c.in); got != c.want {
			t.Errorf("pyRepr(%v) = %s; want %s", c.in, got, c.want)
		}
	}
}

func TestGrouped(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   float64
		want string
	}{
		{0, "0.00"},
		{999.994, "999.99"},
		{999.996, "1,000.00"},
		{1360.957, "1,360.96"},
		{1234567.891, "1,234,567.89"},
		{-1234.5, "-1,234.50"},
		{-0.001, "-0.00"},
		{100000, "100,000.00"},
	}
	for _, c := range cases {
		if got := grouped2(c.in); got != c.want {
			t.Errorf("grouped2(%v) = %s; want %s", c.in, got, c.want)
		}
	}
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -4200: "-4,200"} {
		if got := groupedInt(n); got != want {
			t.Errorf("groupedInt(%d) = %s; want %s", n, got, want)
		}
	}
}

// FuzzAppendJSONFloat checks that every finite float is written as a JSON
// number that parses back to the same value, with Python's ".0" on whole
// numbers in positional form.
func FuzzAppendJSONFloat(f *testing.F) {
	for _, x := range []float64{0, 1, 10, 1e16, 1e-7, 0.3, 123456.789, -2.5e-300} {
		f.Add(x)
	}
	f.Fuzz(func(t *testing.T, x float64) {
		if !stats.Finite(x) {
			return
		}
		s := string(appendJSONFloat(nil, x))
		back, err := strconv.ParseFloat(s, 64)
		if err != nil || back != x {
			t.Fatalf("appendJSONFloat(%v) = %q; parses to %v, %v", x, s, back, err)
		}
		hasDotOrExp := false
		for _, c := range s {
			if c == '.' || c == 'e' {
				hasDotOrExp = true
			}
		}
		if !hasDotOrExp {
			t.Fatalf("appendJSONFloat(%v) = %q; want a float spelling", x, s)
		}
	})
}

// TestAppendPyFloatAllocatesNothing: formatting a float for a JSONL line
// (a few dozen per record) must not allocate; the digits live on the
// caller's stack.
func TestAppendPyFloatAllocatesNothing(t *testing.T) {
	dst := make([]byte, 0, 64)
	if n := testing.AllocsPerRun(100, func() { dst = appendPyFloat(dst[:0], 1234.5678e-3, -4, 2) }); n != 0 {
		t.Errorf("appendPyFloat: %v allocations per call, want 0", n)
	}
}

func BenchmarkAppendPyFloat(b *testing.B) {
	dst := make([]byte, 0, 64)
	b.ReportAllocs()
	for b.Loop() {
		dst = appendPyFloat(dst[:0], 1234.5678e-3, -4, 2)
	}
}

// pyFloatSeeds are spellings at every boundary of appendPyFloat's fast
// positional path: the powers of ten around minExp and 1e16, their
// neighbours, zeros, subnormals and the extremes.
func pyFloatSeeds() []float64 {
	seeds := []float64{0, math.Copysign(0, -1), 1, -1, 10, 0.1, 0.3, 1e16, 1e15, 9.999999999999998e15, 1e-4, 1e-5, 1e-6,
		5e-324, math.MaxFloat64, math.SmallestNonzeroFloat64, 1234567890123456.8, 0.30000000000000004, 123456.789, -2.5e-300}
	for _, p := range []float64{1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e15, 1e16, 1e17, 1 << 53, 999999999999999, 12} {
		seeds = append(seeds, p, math.Nextafter(p, 0), math.Nextafter(p, math.Inf(1)), -p)
	}
	return seeds
}

// TestAppendPyFloatFastPathMatchesSplit: on the boundary seeds, the fast
// positional path spells every float exactly as the digit-by-digit
// spelling does, for both of Python's styles (repr and orjson).
func TestAppendPyFloatFastPathMatchesSplit(t *testing.T) {
	t.Parallel()
	for _, x := range pyFloatSeeds() {
		checkPyFloat(t, x)
	}
}

// checkPyFloat fails unless appendPyFloat spells x as appendPyFloatSplit
// does, in both of Python's styles (repr and orjson).
func checkPyFloat(t *testing.T, x float64) {
	t.Helper()
	for _, style := range [][2]int{{-4, 2}, {-5, 1}} {
		got := string(appendPyFloat(nil, x, style[0], style[1]))
		want := string(appendPyFloatSplit(nil, x, style[0], style[1]))
		if got != want {
			t.Fatalf("appendPyFloat(%v, %d, %d) = %s; the split spelling is %s", x, style[0], style[1], got, want)
		}
	}
}

// FuzzAppendPyFloat checks the fast path against the split spelling for
// any float64 (by its bits, so NaN payloads and subnormals come up too).
func FuzzAppendPyFloat(f *testing.F) {
	for _, x := range pyFloatSeeds() {
		f.Add(math.Float64bits(x))
	}
	f.Fuzz(func(t *testing.T, bits uint64) {
		x := math.Float64frombits(bits)
		if stats.Finite(x) {
			checkPyFloat(t, x)
		}
	})
}

// TestAppendPyFloatRandomMatchesSplit runs the fuzz property on a million
// random bit patterns and a million random magnitudes in the positional
// range in the default test run (about 1 s), so a difference cannot wait
// for someone to run the fuzzer.
func TestAppendPyFloatRandomMatchesSplit(t *testing.T) {
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
		if !stats.Finite(x) {
			continue
		}
		style := [2]int{-4, 2}
		if i%3 == 0 {
			style = [2]int{-5, 1}
		}
		got = appendPyFloat(got[:0], x, style[0], style[1])
		want = appendPyFloatSplit(want[:0], x, style[0], style[1])
		if string(got) != string(want) {
			t.Fatalf("appendPyFloat(%v (bits %#x), %d, %d) = %s; the split spelling is %s", x, math.Float64bits(x), style[0], style[1], got, want)
		}
	}
}

func BenchmarkAppendJSONFloat(b *testing.B) {
	// Typical record values: ms latencies, throughputs, percentages, zero.
	xs := []float64{1.2345678, 9166.666666666666, 81.25, 0, 0.087125, 1234.5, 0.2978515625, 12.0}
	dst := make([]byte, 0, 64)
	b.ReportAllocs()
	for b.Loop() {
		for _, x := range xs {
			dst = appendJSONFloat(dst[:0], x)
		}
	}
}
