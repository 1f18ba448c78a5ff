package benchmark

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"time"

	"github.com/aiperf-go/aiperf/internal/clock"
	"github.com/aiperf-go/aiperf/internal/telemetry/netlatency"
	"github.com/aiperf-go/aiperf/internal/transport"
)

// loopbackConnsPerAddr is how many connections one loopback source
// address is given before the run dials from several: the kernel's
// ephemeral range (32768-60999 by default) holds about 28,000 ports per
// source address towards one server, minus those in TIME_WAIT.
const loopbackConnsPerAddr = 20000

// maxLoopbackSources bounds the 127.0.0.x source addresses a run uses.
const maxLoopbackSources = 32

// sourceAddrs returns the source addresses new connections are dialed
// from: several 127.0.0.x when every server is on the IPv4 loopback and
// the run may hold more connections than one address has ports, nil (the
// kernel's choice) otherwise. The whole 127.0.0.0/8 is the loopback, so
// no set-up is needed.
func sourceAddrs(p *Plan) []net.IP {
	need := peakConnections(p)
	if need <= loopbackConnsPerAddr {
		return nil
	}
	for _, raw := range p.URLs {
		u, err := url.Parse(raw)
		if err != nil {
			return nil
		}
		ip := net.ParseIP(u.Hostname())
		if ip == nil || ip.To4() == nil || !ip.IsLoopback() {
			return nil
		}
	}
	n := min((need+loopbackConnsPerAddr-1)/loopbackConnsPerAddr, maxLoopbackSources)
	addrs := make([]net.IP, n)
	for i := range addrs {
		addrs[i] = net.IPv4(127, 0, 0, byte(1+i))
	}
	return addrs
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
