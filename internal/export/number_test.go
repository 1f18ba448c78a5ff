package export

import (
	"github.com/aiperf-go/aiperf/internal/metrics/stats"
	"math"
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
