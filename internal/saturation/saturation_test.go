package saturation

import (
	"math"
	"testing"
)

func TestTQuantile(t *testing.T) {
	for _, c := range []struct {
		p, dof, want, tol float64
	}{
		{0.975, 3, 3.182, 0.04},
		{0.975, 10, 2.228, 0.005},
		{0.975, 30, 2.042, 0.005},
		{0.975, 1e9, 1.960, 0.001},
		{0.95, 20, 1.725, 0.005},
		{0.025, 10, -2.228, 0.005},
	} {
		got := TQuantile(c.p, c.dof)
		if math.Abs(got-c.want) > c.tol*math.Abs(c.want) {
			t.Errorf("TQuantile(%v, %v) = %.4f, want %.3f within %.1f%%", c.p, c.dof, got, c.want, 100*c.tol)
		}
	}
	if !math.IsNaN(TQuantile(0.975, 0)) {
		t.Error("TQuantile with no degrees of freedom is not NaN")
	}
}

// series feeds d one started and one finished request every step seconds
// up to end, with in-flight and TTFT given as functions of time, and
// returns the verdict at end and the first time it was over-saturated (-1
// if never).
func series(d *Detector, step, end float64, inFlight func(float64) int, ttft func(float64) float64) (Verdict, float64) {
	first := -1.0
	var v Verdict
	for x := step; x <= end+1e-9; x += step {
		d.Started(x, inFlight(x))
		d.Finished(x, ttft(x))
		v = d.Check(x)
		if v.OverSaturated && first < 0 {
			first = x
		}
	}
	return v, first
}

func TestDetector(t *testing.T) {
	// wobble is a deterministic noise in [-1, 1].
	wobble := func(x float64) float64 { return math.Sin(x * 7.3) }
	queue := func(x float64) int { return 8 + int(4*x) }                  // a queue growing by 4 requests/s
	queueTTFT := func(x float64) float64 { return 0.5*x + 0.2*wobble(x) } // TTFT growing 0.5 s/s
	flat := func(x float64) int { return 8 + int(2*wobble(x)) }
	flatTTFT := func(x float64) float64 { return 3 + 0.3*wobble(x) } // slow but steady: above MinTTFT
	fast := func(x float64) float64 { return 0.01 + 0.001*x }        // rising but far under MinTTFT
	for _, c := range []struct {
		name      string
		cfg       func(*Config)
		end       float64
		conc      func(float64) int
		ttft      func(float64) float64
		want      bool
		notBefore float64
		unjudged  bool
	}{
		{name: "growing queue", end: 120, conc: queue, ttft: queueTTFT, want: true, notBefore: 30},
		{name: "growing queue before min seconds", end: 29, conc: queue, ttft: queueTTFT, unjudged: true},
		{name: "steady slow server", end: 200, conc: flat, ttft: flatTTFT},
		{name: "queue grows but TTFT fast", end: 200, conc: queue, ttft: fast},
		{name: "queue steady, TTFT grows", end: 200, conc: flat, ttft: queueTTFT},
		{name: "lower min seconds", cfg: func(c *Config) { c.MinSeconds = 10 }, end: 40, conc: queue, ttft: queueTTFT, want: true, notBefore: 10},
		{name: "TTFT floor raised", cfg: func(c *Config) { c.MinTTFT = 1000 }, end: 120, conc: queue, ttft: queueTTFT},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := Defaults()
			if c.cfg != nil {
				c.cfg(&cfg)
			}
			v, first := series(New(cfg), 0.25, c.end, c.conc, c.ttft)
			if v.OverSaturated != c.want {
				t.Fatalf("over-saturated at %v s = %v, want %v (%+v)", c.end, v.OverSaturated, c.want, v)
			}
			if v.OverSaturated && !v.Judged {
				t.Errorf("flagged without being judged: %+v", v)
			}
			if c.unjudged && v.Judged {
				t.Errorf("judged before its gates opened: %+v", v)
			}
			if c.want && first < c.notBefore {
				t.Errorf("flagged at %v s, before %v s", first, c.notBefore)
			}
			if c.want && !(v.ConcurrentSlope > 3 && v.ConcurrentSlope < 5 && v.TTFTSlope > 0.4 && v.TTFTSlope < 0.6) {
				t.Errorf("slopes %+v, want about 4 requests/s and 0.5 s/s", v)
			}
		})
	}
}

// The window keeps at most MaxWindowRatio of the points and none older
// than MaxWindowSeconds, and the violation count follows what it drops.
func TestDetectorWindow(t *testing.T) {
	cfg := Defaults()
	d := New(cfg)
	for i := 1; i <= 1000; i++ {
		x := float64(i) * 0.5
		d.Started(x, 1)
		ttft := 0.1
		if i <= 100 {
			ttft = 10
		}
		d.Finished(x, ttft)
	}
	v := d.Check(500)
	if v.ConcurrentN != 241 || v.TTFTN != 241 {
		t.Errorf("windows hold %d and %d points, want 241 (380 s to 500 s at 2/s)", v.ConcurrentN, v.TTFTN)
	}
	if v.TTFTViolations != 0 {
		t.Errorf("%d violations left after their points were dropped", v.TTFTViolations)
	}
	d = New(cfg)
	for i := 1; i <= 8; i++ {
		d.Started(float64(i), i)
	}
	if v := d.Check(8); v.ConcurrentN != 6 {
		t.Errorf("window holds %d of 8 points, want 6 (75%%)", v.ConcurrentN)
	}
}
