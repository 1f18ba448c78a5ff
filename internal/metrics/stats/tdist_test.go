package stats

import (
	"math"
	"testing"
)

// TestTQuantile checks against scipy.stats.t.ppf (scipy 1.x), to 1e-9
// relative. The 0.975 rows are the critical values of 95 % intervals.
func TestTQuantile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		df, p, want float64
	}{
		{1, 0.9, 3.0776835371752544},
		{1, 0.975, 12.706204736174694},
		{1, 0.9995, 636.6192487687897},
		{1, 0.55, 0.15838444032453658},
		{2, 0.975, 4.302652729749462},
		{2, 0.9995, 31.599054576445365},
		{3, 0.9, 1.637744353696209},
		{3, 0.975, 3.1824463052837078},
		{3, 0.9995, 12.923978636687961},
		{3, 0.55, 0.13659819935369905},
		{4, 0.95, 2.1318467863266495},
		{4, 0.975, 2.7764451051977934}, // reference 14.2 item 17
		{4, 0.995, 4.604094871349992},
		{5, 0.975, 2.5705818356363146},
		{5, 0.9995, 6.868826625881276},
		{9, 0.975, 2.262157162798205}, // n = 10 at 95 %: 2.262
		{9, 0.995, 3.249835541592126},
		{10, 0.9, 1.372183641110336},
		{10, 0.55, 0.12889018929327395},
		{29, 0.975, 2.045229642132703},
		{30, 0.9995, 3.6459586350420627},
		{100, 0.975, 1.9839715185235518},
		{1000, 0.975, 1.9623390808264083},
		{1000, 0.9995, 3.300282648423944},
		{1000, 0.55, 0.12569326251871638},
		{1e6, 0.95, 1.6448551507220404},
		{1e6, 0.999, 3.09024045631652},
		{2.5, 0.95, 2.5582186141359355},
		{3, 1 - 1e-9, 1033.1096842432753},
		{7, 0.5000001, 2.5974602739221524e-07},
	}
	for _, tt := range tests {
		got := TQuantile(tt.p, tt.df)
		if math.Abs(got-tt.want) > 1e-9*math.Abs(tt.want) {
			t.Errorf("TQuantile(%v, %v) = %.17g, want %.17g", tt.p, tt.df, got, tt.want)
		}
		if neg := TQuantile(1-tt.p, tt.df); math.Abs(neg+tt.want) > 1e-9*math.Abs(tt.want) {
			t.Errorf("TQuantile(%v, %v) = %.17g, want %.17g", 1-tt.p, tt.df, neg, -tt.want)
		}
	}
}

func TestTQuantileEdges(t *testing.T) {
	t.Parallel()
	if got := TQuantile(0.5, 4); got != 0 {
		t.Errorf("median = %v, want 0", got)
	}
	if !math.IsInf(TQuantile(1, 4), 1) || !math.IsInf(TQuantile(0, 4), -1) {
		t.Error("p = 0 and 1 should give -Inf and +Inf")
	}
	for _, c := range [][2]float64{{-0.1, 4}, {1.1, 4}, {0.9, 0}, {0.9, -1}, {math.NaN(), 3}, {0.9, math.NaN()}} {
		if got := TQuantile(c[0], c[1]); !math.IsNaN(got) {
			t.Errorf("TQuantile(%v, %v) = %v, want NaN", c[0], c[1], got)
		}
	}
}

// TestTQuantileRoundTrip checks that the quantile inverts the tail it is
// solved against over a grid of probabilities and degrees of freedom.
func TestTQuantileRoundTrip(t *testing.T) {
	t.Parallel()
	for _, df := range []float64{1, 2, 3, 4, 6, 9, 15, 50, 300} {
		prev := 0.0
		for _, q := range []float64{0.45, 0.3, 0.1, 0.05, 0.025, 0.01, 1e-3, 1e-5, 1e-8} {
			p := 1 - q
			q := 1 - p // the tail p really asks for, after rounding
			x := TQuantile(p, df)
			if !(x > prev) {
				t.Errorf("df %v: quantiles not increasing at q=%v: %v after %v", df, q, x, prev)
			}
			prev = x
			if got := tTail(x, df); math.Abs(got-q) > 1e-12*q+1e-300 {
				t.Errorf("df %v: tail(%v) = %v, want %v", df, x, got, q)
			}
		}
	}
}

// TestConfidenceOf checks reference 14.2 items 17 and 18 and further
// rows against numpy/scipy (np.std ddof=1, t.ppf).
func TestConfidenceOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		values []float64
		level  float64
		want   Confidence
	}{
		{"reference 17", []float64{100, 110, 105, 95, 108}, 0.95, Confidence{
			Mean: 103.6, Std: 6.107372593840988, Min: 95, Max: 110, CV: 0.058951472913523054,
			SE: 2.7313000567495322, CILow: 96.0166953266113, CIHigh: 111.18330467338869,
			TCritical: 2.7764451051977934, N: 5}},
		{"reference 17 doc example", []float64{150, 152, 148, 155, 151}, 0.95, Confidence{
			Mean: 151.2, Std: 2.588435821108957, Min: 148, Max: 155, CV: 0.017119284531143895,
			SE: 1.1575836902790224, CILow: 147.986032429268, CIHigh: 154.41396757073198,
			TCritical: 2.7764451051977934, N: 5}},
		{"reference 18 cv", []float64{100, 102, 98, 101, 99}, 0.95, Confidence{
			Mean: 100, Std: 1.5811388300841898, Min: 98, Max: 102, CV: 0.0158113883008419,
			SE: 0.7071067811865476, CILow: 98.03675683852244, CIHigh: 101.96324316147756,
			TCritical: 2.7764451051977934, N: 5}},
		{"two runs at 90 %", []float64{1.5, 2.5}, 0.9, Confidence{
			Mean: 2, Std: 0.7071067811865476, Min: 1.5, Max: 2.5, CV: 0.3535533905932738,
			SE: 0.5, CILow: -1.1568757573375184, CIHigh: 5.156875757337518,
			TCritical: 6.313751514675037, N: 2}},
		{"ten runs at 99 %", []float64{3.25, 3.5, 3.125, 3.75, 3.0, 3.2, 3.3, 3.4, 3.6, 3.1}, 0.99, Confidence{
			Mean: 3.3225, Std: 0.23817885436508984, Min: 3, Max: 3.75, CV: 0.07168663788264555,
			SE: 0.07531876702832214, CILow: 3.077726393962462, CIHigh: 3.5672736060375385,
			TCritical: 3.249835541592126, N: 10}},
		{"non-finite skipped", []float64{math.NaN(), 1.5, math.Inf(1), 2.5}, 0.9, Confidence{
			Mean: 2, Std: 0.7071067811865476, Min: 1.5, Max: 2.5, CV: 0.3535533905932738,
			SE: 0.5, CILow: -1.1568757573375184, CIHigh: 5.156875757337518,
			TCritical: 6.313751514675037, N: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ConfidenceOf(tt.values, tt.level)
			check := func(field string, g, w float64) {
				if !near(g, w) {
					t.Errorf("%s = %.17g, want %.17g", field, g, w)
				}
			}
			check("mean", got.Mean, tt.want.Mean)
			check("std", got.Std, tt.want.Std)
			check("min", got.Min, tt.want.Min)
			check("max", got.Max, tt.want.Max)
			check("cv", got.CV, tt.want.CV)
			check("se", got.SE, tt.want.SE)
			check("ci_low", got.CILow, tt.want.CILow)
			check("ci_high", got.CIHigh, tt.want.CIHigh)
			check("t_critical", got.TCritical, tt.want.TCritical)
			if got.N != tt.want.N {
				t.Errorf("n = %d, want %d", got.N, tt.want.N)
			}
		})
	}
}

func TestConfidenceOfDegenerate(t *testing.T) {
	t.Parallel()
	one := ConfidenceOf([]float64{7}, 0.95)
	if one.Mean != 7 || one.Min != 7 || one.Max != 7 || one.N != 1 || !math.IsNaN(one.Std) || !math.IsNaN(one.TCritical) {
		t.Errorf("one value: %+v", one)
	}
	none := ConfidenceOf([]float64{math.NaN()}, 0.95)
	if none.N != 0 || !math.IsNaN(none.Mean) {
		t.Errorf("no finite value: %+v", none)
	}
	zero := ConfidenceOf([]float64{0, 0, 0}, 0.95)
	if zero.Std != 0 || !math.IsInf(zero.CV, 1) || zero.CILow != 0 || zero.CIHigh != 0 {
		t.Errorf("zero mean: %+v", zero)
	}
	p := PointConfidence(3)
	if p.Mean != 3 || p.Std != 0 || p.CV != 0 || p.SE != 0 || p.CILow != 3 || p.CIHigh != 3 || !math.IsNaN(p.TCritical) {
		t.Errorf("point: %+v", p)
	}
}

func FuzzTQuantile(f *testing.F) {
	f.Add(0.975, 4.0)
	f.Add(1e-12, 1.5)
	f.Add(0.5, 1000.0)
	f.Fuzz(func(t *testing.T, p, df float64) {
		got := TQuantile(p, df)
		if math.IsNaN(p) || math.IsNaN(df) || df <= 0 || p < 0 || p > 1 {
			if !math.IsNaN(got) {
				t.Fatalf("TQuantile(%v, %v) = %v, want NaN", p, df, got)
			}
			return
		}
		if math.IsNaN(got) {
			t.Fatalf("TQuantile(%v, %v) = NaN", p, df)
		}
		if p > 0.5 && got < 0 || p < 0.5 && got > 0 {
			t.Fatalf("TQuantile(%v, %v) = %v has the wrong sign", p, df, got)
		}
	})
}

// TestWelch checks against scipy.stats.ttest_ind_from_stats(equal_var=False):
//
//	ttest_ind_from_stats(10, 1, 5, 12, 2, 5, equal_var=False)
//	  -> statistic -2.0, pvalue 0.09337888947464686 (df 5.882352941176471)
//	ttest_ind_from_stats(100, 3, 3, 101, 3, 3, equal_var=False)
//	  -> statistic -0.4082482904638631, pvalue 0.7040000000000001
func TestWelch(t *testing.T) {
	t.Parallel()
	tt, df, p := Welch(10, 1, 5, 12, 2, 5)
	if math.Abs(tt+2) > 1e-12 || math.Abs(df-5.882352941176471) > 1e-9 || math.Abs(p-0.09337888947464686) > 1e-12 {
		t.Errorf("Welch(10,1,5, 12,2,5) = %v, %v, %v", tt, df, p)
	}
	tt, _, p = Welch(100, 3, 3, 101, 3, 3)
	if math.Abs(tt+0.408248290463863) > 1e-12 || math.Abs(p-0.7040000000000001) > 1e-12 {
		t.Errorf("Welch(100,3,3, 101,3,3) = %v, %v", tt, p)
	}
	if _, _, p := Welch(1, 0, 3, 2, 0, 3); p != 0 {
		t.Errorf("zero spread, different means: p = %v; want 0", p)
	}
	for _, c := range [][6]float64{{1, 0, 3, 1, 0, 3}, {1, 1, 1, 2, 1, 3}, {1, math.NaN(), 3, 2, 1, 3}} {
		if _, _, p := Welch(c[0], c[1], int(c[2]), c[3], c[4], int(c[5])); !math.IsNaN(p) {
			t.Errorf("Welch%v p = %v; want NaN", c, p)
		}
	}
}
