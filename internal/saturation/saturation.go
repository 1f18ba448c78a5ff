// Package saturation detects a server that no longer keeps up with the
// load it is offered: GuideLLM's over-saturation detection. Past the
// server's capacity the requests queue, so the count of requests in
// flight and the time to first token both rise steadily with time. The
// detector fits a least-squares line to each over a sliding window and
// calls the run over-saturated when both slopes are positive with a
// relative margin of error (the t-based confidence half-width over the
// slope) under a threshold, once the run is old enough and at least half
// of the window's TTFTs exceed a floor.
//
// The detector is a pure function of the points fed to it: times are
// seconds from the run's start, given by the caller, never read from a
// clock, so it is table-tested with fixed series.
package saturation

import (
	"fmt"
	"math"
)

// Config holds the detector's thresholds. Defaults returns GuideLLM's.
type Config struct {
	// MinSeconds is how long the run goes before it can be judged: the
	// first seconds fill the server and their slopes say nothing.
	MinSeconds float64
	// MaxWindowSeconds bounds the window: points older than this before
	// the latest time are dropped.
	MaxWindowSeconds float64
	// MaxWindowRatio bounds the window to this share of all the points
	// seen, so the window slides over a long run.
	MaxWindowRatio float64
	// MinWindowSize is the fewest points a slope is fitted on.
	MinWindowSize int
	// MOEThreshold is the largest relative margin of error of a slope
	// that still counts as a rise.
	MOEThreshold float64
	// Confidence is the two-sided confidence of the margin of error.
	Confidence float64
	// MinTTFT is the time to first token, in seconds, above which a
	// request counts as a violation; at least half the window's TTFTs must
	// be violations before the run is flagged, so a fast server whose
	// TTFT drifts up by microseconds never is.
	MinTTFT float64
}

// Defaults returns GuideLLM's defaults: 30 s before the first judgement,
// a window of at most 120 s and 75% of the points, 5 points at least, a
// margin of error under 2 at 95% confidence, and TTFT violations above
// 2.5 s.
func Defaults() Config {
	return Config{MinSeconds: 30, MaxWindowSeconds: 120, MaxWindowRatio: 0.75, MinWindowSize: 5,
		MOEThreshold: 2, Confidence: 0.95, MinTTFT: 2.5}
}

// Verdict is the detector's state at one time: the decision and the
// figures it was made from, for the results.
type Verdict struct {
	OverSaturated bool `json:"is_over_saturated"`
	// Judged is false while a gate holds the judgement back (too early,
	// too few points, too few TTFTs over the floor): the slopes were not
	// fitted at this time.
	Judged bool `json:"judged"`
	// ConcurrentSlope is the in-flight count's rise per second;
	// ConcurrentMOE its relative margin of error; ConcurrentN the points
	// in its window. NaN slopes (not fitted yet) are written as null.
	ConcurrentSlope float64 `json:"concurrent_slope"`
	ConcurrentMOE   float64 `json:"concurrent_slope_moe"`
	ConcurrentN     int     `json:"concurrent_n"`
	// TTFTSlope is the TTFT's rise in seconds per second of run.
	TTFTSlope      float64 `json:"ttft_slope"`
	TTFTMOE        float64 `json:"ttft_slope_moe"`
	TTFTN          int     `json:"ttft_n"`
	TTFTViolations int     `json:"ttft_violations"`
	// Seconds is the run time the verdict was taken at.
	Seconds float64 `json:"seconds"`
}

type point struct{ x, y float64 }

// line keeps the running sums of a window of points, so adding and
// dropping a point is O(1).
type line struct {
	pts                   []point
	sx, sy, sxy, sxx, syy float64
	slope, moe            float64
}

func (l *line) add(p point) {
	l.pts = append(l.pts, p)
	l.sx += p.x
	l.sy += p.y
	l.sxy += p.x * p.y
	l.sxx += p.x * p.x
	l.syy += p.y * p.y
}

func (l *line) dropFirst() point {
	p := l.pts[0]
	l.pts = l.pts[1:]
	l.sx -= p.x
	l.sy -= p.y
	l.sxy -= p.x * p.y
	l.sxx -= p.x * p.x
	l.syy -= p.y * p.y
	return p
}

// trim drops the points beyond ratio of total and those older than
// window seconds before now.
func (l *line) trim(total int, ratio, window, now float64, drop func(point)) {
	for len(l.pts) > int(float64(total)*ratio) || (len(l.pts) > 0 && now-l.pts[0].x > window) {
		p := l.dropFirst()
		if drop != nil {
			drop(p)
		}
	}
}

// rising fits the window's line and reports whether its slope is positive
// with a relative margin of error under threshold. n is the effective
// count of independent points (points within one second are correlated,
// so the caller caps it at the run's seconds); fewer than 3 never rise.
func (l *line) rising(n, threshold, confidence float64) bool {
	const eps = 1e-12
	if n < 3 || len(l.pts) == 0 {
		return false
	}
	k := float64(len(l.pts))
	cxx := l.sxx - l.sx*l.sx/k
	cxy := l.sxy - l.sx*l.sy/k
	cyy := l.syy - l.sy*l.sy/k
	cxx = math.Max(cxx, eps)
	slope := cxy / cxx
	rss := math.Max(cyy-cxy*cxy/cxx, 0)
	dof := n - 2
	se := math.Sqrt(rss / dof / cxx)
	l.slope = slope
	l.moe = TQuantile(1-(1-confidence)/2, dof) * se / math.Max(slope, eps)
	return slope > 0 && l.moe < threshold
}

// Detector accumulates the run's points. Not safe for concurrent use: one
// goroutine feeds and checks it.
type Detector struct {
	c                 Config
	conc, ttft        line
	started, finished int
	violations        int
}

// New returns a detector with c's thresholds.
func New(c Config) *Detector {
	nan := math.NaN()
	d := &Detector{c: c}
	d.conc.slope, d.conc.moe, d.ttft.slope, d.ttft.moe = nan, nan, nan, nan
	return d
}

// Started records a request sent at seconds into the run, with inFlight
// requests outstanding once it is.
func (d *Detector) Started(seconds float64, inFlight int) {
	d.started++
	d.conc.add(point{seconds, float64(inFlight)})
}

// Finished records a request answered at seconds into the run whose time
// to first token was ttft seconds. Requests without a first token (failed
// ones) are not fed.
func (d *Detector) Finished(seconds, ttft float64) {
	d.finished++
	if ttft > d.c.MinTTFT {
		d.violations++
	}
	d.ttft.add(point{seconds, ttft})
}

// Check slides the windows to now (seconds into the run) and returns the
// verdict.
func (d *Detector) Check(now float64) Verdict {
	c := d.c
	d.ttft.trim(d.finished, c.MaxWindowRatio, c.MaxWindowSeconds, now, func(p point) {
		if p.y > c.MinTTFT {
			d.violations--
		}
	})
	d.conc.trim(d.started, c.MaxWindowRatio, c.MaxWindowSeconds, now, nil)
	v := Verdict{Seconds: now, ConcurrentN: len(d.conc.pts), TTFTN: len(d.ttft.pts), TTFTViolations: d.violations}
	v.OverSaturated, v.Judged = d.judge(now)
	v.ConcurrentSlope, v.ConcurrentMOE = d.conc.slope, d.conc.moe
	v.TTFTSlope, v.TTFTMOE = d.ttft.slope, d.ttft.moe
	return v
}

// judge returns the decision and whether the slopes were fitted for it.
func (d *Detector) judge(now float64) (bool, bool) {
	c := d.c
	concN := math.Min(now, float64(len(d.conc.pts)))
	ttftN := math.Min(now, float64(len(d.ttft.pts)))
	if now < c.MinSeconds || now < c.MinTTFT || len(d.ttft.pts) > 2*d.violations || concN < float64(c.MinWindowSize) {
		return false, false
	}
	conc := d.conc.rising(concN, c.MOEThreshold, c.Confidence)
	if ttftN < float64(c.MinWindowSize) {
		return conc, true
	}
	ttft := d.ttft.rising(ttftN, c.MOEThreshold, c.Confidence)
	return conc && ttft, true
}

// TQuantile approximates the p quantile of Student's t distribution with
// dof degrees of freedom: the normal quantile by Abramowitz and Stegun
// 26.2.23, corrected by the first two terms of the Cornish-Fisher
// expansion in 1/dof. At the usual confidences it is within 4% of the
// exact value from 3 degrees of freedom and within 0.5% from 10, which
// the margin-of-error threshold absorbs. NaN for dof <= 0.
func TQuantile(p, dof float64) float64 {
	if dof <= 0 {
		return math.NaN()
	}
	q := p
	if p >= 0.5 {
		q = 1 - p
	}
	t := math.Sqrt(-2 * math.Log(q))
	z := t - ((0.010328*t+0.802853)*t+2.515517)/(((0.001308*t+0.189269)*t+1.432788)*t+1)
	if p < 0.5 {
		z = -z
	}
	z2 := z * z
	g1 := (z2*z + z) / 4
	g2 := (5*z2*z2*z + 16*z2*z + 3*z) / 96
	return z + g1/dof + g2/(dof*dof)
}

// String states the verdict's figures in one line.
func (v Verdict) String() string {
	if !v.Judged {
		return fmt.Sprintf("not judged at %.1f s (%d in-flight points, %d TTFTs, %d over the floor)", v.Seconds, v.ConcurrentN, v.TTFTN, v.TTFTViolations)
	}
	return fmt.Sprintf("at %.1f s, in-flight slope %.3g/s (margin of error %.3g, %d points), TTFT slope %.3g s/s (margin of error %.3g, %d points, %d over the floor)",
		v.Seconds, v.ConcurrentSlope, v.ConcurrentMOE, v.ConcurrentN, v.TTFTSlope, v.TTFTMOE, v.TTFTN, v.TTFTViolations)
}
