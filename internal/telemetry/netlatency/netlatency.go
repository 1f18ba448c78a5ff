// Package netlatency measures the network round trip to the servers
// during a run, as AIPerf 0.13's network latency calibration does
// (--network-latency-automatic): every ping interval it opens a fresh TCP
// connection to each server and times the handshake, writes every probe to
// profile_export_network_latency.jsonl, and reports the mean of the
// successful ones, which the run subtracts from its request-start-anchored
// latencies (the network_adjusted_* metrics).
//
// A pooled HTTP request would time nothing on a reused connection, so
// each probe is a bare connect, closed at once; for https it is the TCP
// handshake alone, so the figure is one network round trip whatever the
// scheme. The host is resolved once, at Start, so probes time the connect,
// not DNS. A failed probe is a failed sample, never an error of the run.
//
// The probes run on their own goroutine, off the request path. What they
// time includes the client's own scheduling delay: on a saturated client
// core the round trip reads high, like every other latency.
package netlatency

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/aiperf-go/aiperf/internal/export"
	"github.com/aiperf-go/aiperf/internal/metrics/stats"
	"github.com/aiperf-go/aiperf/internal/telemetry"
)

// Defaults of AIPerf's AIPERF_NETWORK_LATENCY_* settings.
const (
	// MinSamples is the least number of successful probes a run ends
	// with: a run shorter than that many intervals probes back to back at
	// its end.
	MinSamples = 5
	// ConnectTimeout bounds one probe's handshake.
	ConnectTimeout = 5 * time.Second
	// TopUpTimeout bounds the probes at the end of the run.
	TopUpTimeout = 10 * time.Second
)

// Sample is one probe, AIPerf's NetworkLatencySample.
type Sample struct {
	TimestampNs int64 // wall clock when the probe was issued
	Target      *Target
	RTT         time.Duration // the handshake; valid when Success
	Success     bool
	ErrType     string // on failure: the error's kind and message
	ErrMessage  string
}

// Target is one server probed: the host and port of a base URL, resolved
// once.
type Target struct {
	URL  string // the base URL without credentials
	Host string
	Port int
	addr string // resolved "ip:port" the probes dial
}

// Options configure a Prober.
type Options struct {
	URLs     []string      // the servers' base URLs; one target per host:port
	Interval time.Duration // between probes; 0 = 1 s
	// Path is the JSONL file every probe is written to; "" writes none.
	Path string
	// Wall gives the wall clock in Unix ns for the samples' timestamps;
	// nil uses time.Now.
	Wall func() int64
	// Dial opens one probe connection; nil uses a net.Dialer with
	// ConnectTimeout.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
}

// Prober probes every target on an interval until Stop.
type Prober struct {
	o       Options
	targets []*Target
	file    *export.LineFile
	cancel  context.CancelFunc
	done    chan struct{}

	mu      sync.Mutex
	rtts    []float64 // successful round trips, ns
	count   int
	failed  int
	errs    map[string]int
	fileErr error
}

// Start resolves the targets, takes a first probe of each and keeps
// probing every interval until Stop. A target that cannot be resolved is
// probed by name (resolving each time); a URL that cannot be parsed is an
// error, as is a JSONL file that cannot be created.
func Start(ctx context.Context, o Options) (*Prober, error) {
	if o.Interval <= 0 {
		o.Interval = time.Second
	}
	if o.Wall == nil {
		o.Wall = func() int64 { return time.Now().UnixNano() }
	}
	if o.Dial == nil {
		d := &net.Dialer{Timeout: ConnectTimeout}
		o.Dial = d.DialContext
	}
	targets, err := targetsOf(ctx, o.URLs)
	if err != nil {
		return nil, err
	}
	p := &Prober{o: o, targets: targets, done: make(chan struct{}), errs: map[string]int{}}
	if o.Path != "" {
		if p.file, err = export.CreateLineFile(o.Path); err != nil {
			return nil, fmt.Errorf("network latency: %w", err)
		}
	}
	ctx, p.cancel = context.WithCancel(ctx)
	go func() {
		defer close(p.done)
		p.probeAll(ctx)
		telemetry.Poll(ctx, o.Interval, p.probeAll)
	}()
	return p, nil
}

// targetsOf derives one target per distinct host:port of urls.
func targetsOf(ctx context.Context, urls []string) ([]*Target, error) {
	var out []*Target
	seen := map[string]bool{}
	for _, raw := range urls {
		u, err := url.Parse(raw)
		if err != nil || u.Hostname() == "" {
			return nil, fmt.Errorf("network latency: cannot probe %q: not a URL with a host", raw)
		}
		port := 80
		if u.Scheme == "https" {
			port = 443
		}
		if ps := u.Port(); ps != "" {
			if port, err = strconv.Atoi(ps); err != nil {
				return nil, fmt.Errorf("network latency: %q: bad port", raw)
			}
		}
		key := net.JoinHostPort(u.Hostname(), strconv.Itoa(port))
		if seen[key] {
			continue
		}
		seen[key] = true
		u.User = nil
		t := &Target{URL: u.String(), Host: u.Hostname(), Port: port, addr: key}
		rctx, cancel := context.WithTimeout(ctx, ConnectTimeout)
		if ips, err := net.DefaultResolver.LookupIPAddr(rctx, u.Hostname()); err == nil && len(ips) > 0 {
			t.addr = net.JoinHostPort(ips[0].IP.String(), strconv.Itoa(port))
		}
		cancel()
		out = append(out, t)
	}
	return out, nil
}

// probeAll probes every target once, concurrently, so a slow target does
// not delay the others' samples. A probe cut short by Stop is no sample.
func (p *Prober) probeAll(ctx context.Context) {
	var wg sync.WaitGroup
	for _, t := range p.targets {
		wg.Go(func() {
			if s := p.probe(ctx, t); s.Success || ctx.Err() == nil {
				p.record(s)
			}
		})
	}
	wg.Wait()
}

// probe times one TCP handshake to t.
func (p *Prober) probe(ctx context.Context, t *Target) Sample {
	s := Sample{TimestampNs: p.o.Wall(), Target: t}
	cctx, cancel := context.WithTimeout(ctx, ConnectTimeout)
	defer cancel()
	start := time.Now()
	conn, err := p.o.Dial(cctx, "tcp", t.addr)
	if err != nil {
		s.ErrType, s.ErrMessage = errorKind(err), err.Error()
		return s
	}
	s.RTT, s.Success = time.Since(start), true
	_ = conn.Close()
	return s
}

// errorKind names a probe failure as AIPerf's ErrorDetails type does (the
// Python exception class a refused or timed-out connect raises).
func errorKind(err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "ConnectionRefusedError"
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded),
		errors.As(err, &ne) && ne.Timeout():
		return "TimeoutError"
	}
	return "OSError"
}

// record counts a sample and writes its line.
func (p *Prober) record(s Sample) {
	p.mu.Lock()
	p.count++
	if s.Success {
		p.rtts = append(p.rtts, float64(s.RTT))
	} else {
		p.failed++
		p.errs[s.ErrType+": "+s.ErrMessage]++
	}
	p.mu.Unlock()
	if p.file != nil {
		if err := p.file.Add(func(dst []byte) []byte { return appendSample(dst, &s) }); err != nil {
			p.mu.Lock()
			if p.fileErr == nil {
				p.fileErr = err
			}
			p.mu.Unlock()
		}
	}
}

// appendSample writes AIPerf's NetworkLatencySample line.
func appendSample(dst []byte, s *Sample) []byte {
	var w export.JSON
	w.Open('{')
	w.Key("timestamp_ns")
	w.Int(s.TimestampNs)
	w.Key("target_url")
	w.Str(s.Target.URL)
	w.Key("target_host")
	w.Str(s.Target.Host)
	w.Key("target_port")
	w.Int(int64(s.Target.Port))
	w.Key("probe_type")
	w.Str("tcp_connect")
	w.Key("rtt_ns")
	if s.Success {
		w.Int(int64(s.RTT))
	} else {
		w.Null()
	}
	w.Key("success")
	w.Bool(s.Success)
	w.Key("error")
	if s.Success {
		w.Null()
	} else {
		w.Open('{')
		w.Key("code")
		w.Null()
		w.Key("type")
		w.Str(s.ErrType)
		w.Key("message")
		w.Str(s.ErrMessage)
		w.Close('}')
	}
	w.Close('}')
	return append(dst, w.Bytes()...)
}

// Results are the round trips of a run, over every target: AIPerf's
// NetworkLatencyResults, times in ns.
type Results struct {
	Count, SuccessCount, FailureCount int
	// Mean is what the run subtracts; the others describe the spread. All
	// are 0 without a successful probe.
	Mean, Min, Median, P90, P99, Std float64
	// Errors counts the failed probes by "type: message".
	Errors map[string]int
}

// Stop ends the probing, tops the successful samples up to MinSamples with
// probes back to back (within TopUpTimeout), closes the JSONL file and
// returns the results; the error is the file's.
func (p *Prober) Stop(ctx context.Context) (Results, error) {
	p.cancel()
	<-p.done
	deadline := time.Now().Add(TopUpTimeout)
	for tries := 0; p.successes() < MinSamples && tries < 2*MinSamples && time.Now().Before(deadline) && ctx.Err() == nil; tries++ {
		p.probeAll(ctx)
	}
	var err error
	if p.file != nil {
		err = p.file.Close()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	r := Results{Count: p.count, SuccessCount: len(p.rtts), FailureCount: p.failed, Errors: p.errs}
	if len(p.rtts) > 0 {
		s := stats.Summarize(append([]float64(nil), p.rtts...))
		r.Mean, r.Min, r.Median, r.P90, r.P99, r.Std = s.Avg, s.Min, s.P50, s.P90, s.P99, s.Std
	}
	return r, errors.Join(p.fileErr, err)
}

func (p *Prober) successes() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.rtts)
}
