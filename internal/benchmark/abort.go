package benchmark

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/record"
)

// errFailedRequestThreshold is the cancellation cause of a run stopped by
// --failed-request-threshold.
var errFailedRequestThreshold = errors.New("--failed-request-threshold exceeded")

// minAbortRecords is AIPerf's lower bound on the records needed before the
// failed-request check is armed, so that one early failure cannot end a
// run.
const minAbortRecords = 10

// failureGuard implements --failed-request-threshold: once at least
// max(concurrency, 10) profiling records are in, a failed fraction above
// the threshold aborts the run. Aborting stops issuing (the scheduler's
// context) and cancels every request in flight at once (the requests'
// context): a server that fails this often is not worth draining. The
// artifacts are still written, covering the records finished so far, and
// the process exits with config.ExitFailedRequestThreshold.
//
// Request-rate mode without a concurrency cap has no concurrency; the
// floor is then 10, as in AIPerf (which takes 1 for a missing concurrency).
//
// A nil *failureGuard is a disabled one: every method is a no-op. observe
// is called only from the pipeline's consumer goroutine; Tripped and
// Reason may be called from any goroutine.
type failureGuard struct {
	threshold float64
	floor     int
	// hasThreshold is false when only the unreachable rule is armed (no
	// --failed-request-threshold).
	hasThreshold bool
	// unreachable is the reachability rule (see observeRecord); url names
	// the server in its message. Off with --keep-going-when-unreachable.
	unreachable bool
	url         string
	code        int // the exit code of the rule that tripped
	log         *slog.Logger
	stop        context.CancelCauseFunc // the scheduler's context
	requests    context.CancelCauseFunc // the parent of every request

	total, failed int // consumer goroutine only

	mu     sync.Mutex
	reason string // non-empty once tripped
}

// newFailureGuard returns the context the scheduler stops on (parent, or a
// child of it that the guard cancels), the context every request runs
// under (cancelled only by the guard), and the guard itself, nil when
// --failed-request-threshold is not set.
func newFailureGuard(parent context.Context, p *Plan, log *slog.Logger) (stop, requests context.Context, g *failureGuard) {
	t := p.Config.Load.FailedRequestThreshold
	unreachable := !p.Config.Reliability.KeepGoingUnreachable
	if t == nil && !unreachable {
		return parent, context.Background(), nil
	}
	g = &failureGuard{floor: max(p.Profiling.Concurrency, minAbortRecords), log: log, unreachable: unreachable}
	if t != nil {
		g.threshold, g.hasThreshold = *t, true
	}
	if len(p.Config.Endpoint.URLs) > 0 {
		g.url = config.RedactURL(config.NormalizeURL(p.Config.Endpoint.URLs[0]))
	}
	stop, g.stop = context.WithCancelCause(parent)
	requests, g.requests = context.WithCancelCause(context.Background())
	return stop, requests, g
}

// observe counts one finished profiling record and trips the guard when
// the failed fraction exceeds the threshold with enough records in. It
// trips once; later records are only counted.
func (g *failureGuard) observe(failed bool) {
	if g == nil {
		return
	}
	g.total++
	if failed {
		g.failed++
	}
	if !g.hasThreshold || g.total < g.floor || g.Tripped() {
		return
	}
	rate := float64(g.failed) / float64(g.total)
	if rate <= g.threshold {
		return
	}
	reason := fmt.Sprintf("the run was aborted: %d of %d requests failed (%.1f%%), above --failed-request-threshold %g (checked once %d requests had finished)",
		g.failed, g.total, 100*rate, g.threshold, g.floor)
	g.mu.Lock()
	g.reason = reason
	g.mu.Unlock()
	g.log.Warn("failed-request threshold exceeded: stopping the run and cancelling requests in flight",
		"failed", g.failed, "total", g.total, "rate", rate, "threshold", g.threshold, "floor", g.floor)
	g.code = config.ExitFailedRequestThreshold
	g.stop(errFailedRequestThreshold)
	g.requests(errFailedRequestThreshold)
}

// unreachableAfter is how many of the run's first requests must all have
// been refused before it stops: enough that one refused connection while
// a server restarts does not end a run.
const unreachableAfter = 5

// errUnreachable is the cancellation cause of a run stopped because
// nothing listens at its URL.
var errUnreachable = errors.New("nothing is listening")

// observeRecord applies both rules to a finished profiling record: the
// failed fraction (observe), and reachability: when the run's first
// unreachableAfter requests were all refused (no listener: connection
// refused), the run stops with one message instead of recording thousands
// of identical errors a second. A request that got any answer disarms it.
func (g *failureGuard) observeRecord(rec *record.Record) {
	if g == nil || rec.CancelledAtPhaseEnd() { // no failure: AIPerf counts it nowhere
		return
	}
	if g.unreachable && !g.Tripped() {
		switch {
		case rec.Error != nil && rec.Status == 0 && isRefused(rec.Error):
			if g.total+1 >= unreachableAfter && g.failed+1 == g.total+1 {
				reason := fmt.Sprintf("nothing is listening at %s: the first %d requests were refused (%s); start the server or check --url (--keep-going-when-unreachable keeps sending)",
					g.url, g.total+1, rec.Error.Message)
				g.mu.Lock()
				g.reason = reason
				g.mu.Unlock()
				g.log.Error("stopping: nothing is listening", "url", g.url, "refused", g.total+1)
				g.code = config.ExitFailure
				g.stop(errUnreachable)
				g.requests(errUnreachable)
			}
		default:
			g.unreachable = false // the server answered, or failed otherwise
		}
	}
	g.observe(rec.Error != nil)
}

// isRefused reports a connection refused at dial time (no listener).
func isRefused(e *record.ErrorDetails) bool {
	return e.Type == record.TypeConnect && strings.Contains(e.Message, "connection refused")
}

// ExitCode is the exit code of the rule that stopped the run.
func (g *failureGuard) ExitCode() int {
	if g == nil {
		return 0
	}
	return g.code
}

// Tripped reports whether the guard aborted the run.
func (g *failureGuard) Tripped() bool { return g.Reason() != "" }

// Reason says why the run was aborted, for the console and the summary's
// incomplete reason; empty when it was not.
func (g *failureGuard) Reason() string {
	if g == nil {
		return ""
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.reason
}

// release frees the guard's contexts once the run is over.
func (g *failureGuard) release() {
	if g == nil {
		return
	}
	g.stop(nil)
	g.requests(nil)
}
