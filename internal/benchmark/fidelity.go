package benchmark

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"time"

	"github.com/aiperf-go/aiperf/internal/clock"
	"github.com/aiperf-go/aiperf/internal/connbudget"
	"github.com/aiperf-go/aiperf/internal/telemetry/netlatency"
	"github.com/aiperf-go/aiperf/internal/transport"
)

// connBudget is the run's connections: the largest concurrency of any
// phase, or the pre-opened pool to every server when larger.
func connBudget(p *Plan) connbudget.Budget {
	need := p.Profiling.Concurrency
	for _, ph := range p.Phases {
		need = max(need, ph.Concurrency)
	}
	if n := p.Config.PreConnections(); n > 0 {
		need = max(need, n*max(len(baseURLs(p)), 1))
	}
	return connbudget.Budget{Peak: need, Workers: p.Config.Cluster.Workers}
}

// preconnect opens --pre-connect connections to every server before the
// first request. A failure is logged, not fatal: the run's own requests
// will report a server that refuses connections.
func preconnect(ctx context.Context, p *Plan, client *transport.Client, log *slog.Logger) int {
	n := p.Config.PreConnections()
	if n <= 0 {
		return 0
	}
	start := time.Now()
	opened, err := client.Preconnect(ctx, baseURLs(p), n)
	if err != nil {
		log.Warn("pre-connect: not every connection could be opened", "opened", opened, "asked", n, "error", err)
	}
	log.Info("pre-connected", "connections", opened, "per_server", n, "elapsed", time.Since(start))
	return opened
}

// baseURLs are the distinct servers of the run's request URLs.
func baseURLs(p *Plan) []string {
	var out []string
	seen := map[string]bool{}
	for _, raw := range p.URLs {
		u, err := url.Parse(raw)
		if err != nil {
			continue
		}
		base := u.Scheme + "://" + u.Host
		if !seen[base] {
			seen[base] = true
			out = append(out, base)
		}
	}
	return out
}

// netProbe runs the network round-trip probes of the profiling phases
// (--network-latency-automatic); a nil netProbe does nothing.
type netProbe struct {
	p   *netlatency.Prober
	log *slog.Logger
}

// startNetProbe starts probing when the run calibrates by probing.
func startNetProbe(ctx context.Context, p *Plan, clk *clock.Clock, log *slog.Logger) (*netProbe, error) {
	if !p.Config.NetworkLatencyProbe() {
		return nil, nil
	}
	pr, err := netlatency.Start(ctx, netlatency.Options{
		URLs:     baseURLs(p),
		Interval: time.Duration(p.Config.PingInterval() * float64(time.Second)),
		Path:     p.Paths.NetworkLatencyJSONL,
		Wall:     func() int64 { return clk.WallNanos(clk.Now()) },
	})
	if err != nil {
		return nil, err
	}
	return &netProbe{p: pr, log: log}, nil
}

// networkRTT returns the round trip, in ns, the run subtracts: the fixed
// --network-latency-mean, or the mean of the probes (stopping them); 0 for
// none. It also returns the console note that says which.
func networkRTT(ctx context.Context, p *Plan, np *netProbe) (float64, string) {
	if !p.Config.NetworkLatencyEnabled() {
		return 0, ""
	}
	if m := p.Config.Fidelity.NetworkLatencyMeanMS; m != nil {
		if *m == 0 {
			return 0, ""
		}
		return *m * 1e6, fmt.Sprintf("Network latency calibration: subtracting a fixed mean RTT of %.3f ms from latency metrics (network_adjusted_* metrics).", *m)
	}
	if np == nil {
		return 0, ""
	}
	r, err := np.p.Stop(context.WithoutCancel(ctx))
	if err != nil {
		np.log.Error("network latency probes could not be written", "error", err)
	}
	np.log.Info("network latency probes", "count", r.Count, "successful", r.SuccessCount, "failed", r.FailureCount,
		"mean_ms", r.Mean/1e6, "p99_ms", r.P99/1e6, "errors", r.Errors)
	if r.SuccessCount == 0 {
		return 0, "Network latency calibration enabled but no successful RTT probes were collected; skipping network_adjusted_* metrics."
	}
	return r.Mean, fmt.Sprintf("Network latency calibration: subtracting measured mean RTT of %.3f ms (over %d TCP-handshake probes) from latency metrics (network_adjusted_* metrics).",
		r.Mean/1e6, r.SuccessCount)
}
