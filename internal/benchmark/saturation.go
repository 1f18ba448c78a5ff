package benchmark

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/metrics"
	"github.com/aiperf-go/aiperf/internal/saturation"
)

// errOverSaturated is the cancellation cause of a phase stopped by
// --over-saturation enforce.
var errOverSaturated = errors.New("--over-saturation enforce: the server is over-saturated")

// saturationGuard implements --over-saturation: a record sink that feeds
// GuideLLM's detector one in-flight point and one TTFT point per finished
// profiling record and checks it after each. GuideLLM samples the
// in-flight count as each request starts; here it is sampled as each
// finishes (requests sent minus requests done), which follows the same
// queue. Times are the record's End, from the run clock, so the detector
// sees the run's own time line. Once flagged, the first verdict is kept
// for the results; in enforce mode the phase stops (no request more is
// sent, those in flight are cancelled) and the run still writes its
// artifacts and exits 0: the stop is the condition the user asked for.
//
// A nil *saturationGuard is off. observe runs on the pipeline's consumer
// goroutine only; summary may be called after the pipeline drained.
type saturationGuard struct {
	mode    string
	det     *saturation.Detector
	counts  *counters
	start   time.Duration // the first profiling record's Sent
	started bool
	log     *slog.Logger

	stop, requests context.CancelCauseFunc

	mu      sync.Mutex
	flagged *saturation.Verdict
	last    saturation.Verdict
}

// saturationResult is the summary JSON's over_saturation member.
type saturationResult struct {
	Mode string `json:"mode"`
	// Stopped is true when enforce mode stopped the phase.
	Stopped bool `json:"stopped"`
	// Verdict is the first over-saturated verdict, or the last one taken
	// when the run was never flagged.
	saturation.Verdict
}

// newSaturationGuard wraps the scheduler's and the requests' contexts
// with its own stops; g is nil when --over-saturation is off. The
// pipeline sets its counts.
func newSaturationGuard(stopCtx, requestsCtx context.Context, p *Plan, log *slog.Logger) (context.Context, context.Context, *saturationGuard) {
	f := &p.Config.Fidelity
	if f.OverSaturation == "" {
		return stopCtx, requestsCtx, nil
	}
	c := saturation.Defaults()
	if v := f.OverSaturationMinSeconds; v != nil {
		c.MinSeconds = *v
	}
	if v := f.OverSaturationMinTTFT; v != nil {
		c.MinTTFT = *v
	}
	g := &saturationGuard{mode: f.OverSaturation, det: saturation.New(c), log: log}
	if g.mode == config.OverSaturationEnforce {
		stopCtx, g.stop = context.WithCancelCause(stopCtx)
		requestsCtx, g.requests = context.WithCancelCause(requestsCtx)
	}
	return stopCtx, requestsCtx, g
}

// observe feeds one processed profiling record.
func (g *saturationGuard) observe(p *metrics.Processed) {
	rec := p.Record
	if !g.started {
		g.start, g.started = rec.Sent, true
	}
	now := (rec.End - g.start).Seconds()
	g.det.Started(now, int(g.counts.sent.Load()-g.counts.done.Load()))
	if ttft, ok := ttftSeconds(p); ok {
		g.det.Finished(now, ttft)
	}
	v := g.det.Check(now)
	g.mu.Lock()
	g.last = v
	first := v.OverSaturated && g.flagged == nil
	if first {
		g.flagged = &v
	}
	g.mu.Unlock()
	if !first {
		return
	}
	g.log.Warn("over-saturated: "+v.String(), "mode", g.mode)
	if g.stop != nil {
		g.stop(errOverSaturated)
		g.requests(errOverSaturated)
	}
}

// ttftSeconds is the record's time to first token in seconds, if it has
// one.
func ttftSeconds(p *metrics.Processed) (float64, bool) {
	if !p.Valid {
		return 0, false
	}
	for _, v := range p.Values {
		if v.Metric.Tag != "time_to_first_token" {
			continue
		}
		switch v.Metric.DisplayUnit {
		case metrics.UnitNS:
			return v.Scalar / 1e9, true
		case "ms":
			return v.Scalar / 1e3, true
		}
	}
	return 0, false
}

// summary returns the run's over-saturation result; nil when off.
func (g *saturationGuard) summary() *saturationResult {
	if g == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	r := &saturationResult{Mode: g.mode, Verdict: g.last}
	if g.flagged != nil {
		r.Verdict, r.Stopped = *g.flagged, g.stop != nil
	}
	r.Verdict = finiteVerdict(r.Verdict)
	return r
}

// finiteVerdict zeroes the slopes not fitted yet (NaN), which JSON
// cannot carry; their n says how many points there were.
func finiteVerdict(v saturation.Verdict) saturation.Verdict {
	for _, f := range []*float64{&v.ConcurrentSlope, &v.ConcurrentMOE, &v.TTFTSlope, &v.TTFTMOE} {
		if math.IsNaN(*f) || math.IsInf(*f, 0) {
			*f = 0
		}
	}
	return v
}

// console is the result's console line.
func (r *saturationResult) console() string {
	var b strings.Builder
	switch {
	case r.Stopped:
		b.WriteString("Over-saturation: the server fell behind; the phase was stopped (--over-saturation enforce): ")
	case r.OverSaturated:
		b.WriteString("Over-saturation: the server fell behind (--over-saturation monitor): ")
	default:
		b.WriteString("Over-saturation: not detected: ")
	}
	b.WriteString(r.Verdict.String())
	b.WriteString("\n")
	return b.String()
}
