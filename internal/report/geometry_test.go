package report

import (
	"math"
	"slices"
	"testing"
)

func TestParetoFront(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		x, y     []float64
		xUp, yUp bool
		want     []int
	}{
		// latency (lower better) vs throughput (higher better)
		{"latency vs throughput", []float64{10, 20, 15, 30, 25}, []float64{100, 300, 90, 350, 200}, false, true, []int{0, 1, 3}},
		// interactivity and throughput both higher-better
		{"both up", []float64{1, 2, 3, 4}, []float64{10, 8, 9, 1}, true, true, []int{0, 2, 3}},
		{"equal points are all on the front", []float64{1, 1}, []float64{5, 5}, false, true, []int{0, 1}},
		{"a tie in x keeps the better y", []float64{1, 1, 2}, []float64{5, 3, 9}, false, true, []int{0, 2}},
		{"non-finite points are left out", []float64{1, math.NaN(), 2}, []float64{1, 9, 2}, false, true, []int{0, 2}},
		{"one point", []float64{3}, []float64{4}, false, false, []int{0}},
	}
	for _, tt := range tests {
		got := paretoFront(tt.x, tt.y, tt.xUp, tt.yUp)
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: paretoFront(%v, %v, %v, %v) = %v; want %v", tt.name, tt.x, tt.y, tt.xUp, tt.yUp, got, tt.want)
		}
	}
}

func TestEllipse(t *testing.T) {
	t.Parallel()
	// Axis-aligned: the extremes are the centre plus and minus the radii.
	xs, ys := ellipse(10, 100, 2, 5, 0, 64)
	if len(xs) != 65 || xs[0] != xs[64] || ys[0] != ys[64] {
		t.Fatalf("not a closed 64-gon: %d points", len(xs))
	}
	if lo, hi := slices.Min(xs), slices.Max(xs); math.Abs(lo-8) > 1e-9 || math.Abs(hi-12) > 1e-9 {
		t.Errorf("x extent [%v, %v]; want [8, 12]", lo, hi)
	}
	if lo, hi := slices.Min(ys), slices.Max(ys); math.Abs(lo-95) > 1e-2 || math.Abs(hi-105) > 1e-2 {
		t.Errorf("y extent [%v, %v]; want [95, 105]", lo, hi)
	}
	// Correlated: the ellipse's x and y extents still equal the interval
	// half-widths (the marginals), and the points lean along the diagonal.
	xs, ys = ellipse(0, 0, 1, 1, 0.9, 720)
	if hi := slices.Max(xs); math.Abs(hi-1) > 1e-3 {
		t.Errorf("correlated x extent %v; want 1", hi)
	}
	if r := correlation(xs, ys); r < 0.5 {
		t.Errorf("rho 0.9 ellipse has vertex correlation %v; want it tilted up", r)
	}
	if xs, ys := ellipse(0, 0, 1, 1, -0.9, 720); correlation(xs, ys) > 0 {
		t.Error("rho -0.9 tilts the wrong way")
	}
}

func TestRollingPercentilesAndBins(t *testing.T) {
	t.Parallel()
	got := rollingPercentiles([]float64{1, 2, 3, 4, 5}, 3, 50, 100)
	if want := []float64{1, 1.5, 2, 3, 4}; !slices.Equal(got[0], want) {
		t.Errorf("rolling p50 = %v; want %v", got[0], want)
	}
	if want := []float64{1, 2, 3, 4, 5}; !slices.Equal(got[1], want) {
		t.Errorf("rolling max = %v; want %v", got[1], want)
	}
	lo, width, counts := histogramBins([]float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, math.NaN()})
	if len(lo) != 5 || width != 1.8 || counts[0] != 2 || counts[4] != 2 || sum(counts) != 10 {
		t.Errorf("bins lo %v width %v counts %v", lo, width, counts)
	}
	if _, _, c := histogramBins([]float64{3, 3}); len(c) != 1 || c[0] != 2 {
		t.Errorf("constant values: counts %v", c)
	}
	if got := sampleStep([]float64{1, 3}, []float64{10, 20}, []float64{0, 1, 2, 3, 4}); !slices.Equal(got, []float64{0, 10, 10, 20, 20}) {
		t.Errorf("sampleStep = %v", got)
	}
}

func sum(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s
}
