package benchmark

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/aiperf-go/aiperf/internal/clock"
	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/endpoint"
	"github.com/aiperf-go/aiperf/internal/metrics"
	"github.com/aiperf-go/aiperf/internal/record"
	"github.com/aiperf-go/aiperf/internal/timing"
	"github.com/aiperf-go/aiperf/internal/transport"
	"github.com/aiperf-go/aiperf/internal/worker"
)

// ProbePrompt is the text of every probe request: a word, so the probe's
// own prefill costs the server next to nothing.
const ProbePrompt = "Hi"

// prober implements --probe-request-rate, vLLM's probe requests (`vllm
// bench serve --probe-request-rate`): light requests (a one-word prompt,
// one output token) sent at a constant rate beside the workload and
// outside its concurrency cap, whose time to first token and latency
// measure directly what the workload makes an unrelated request wait.
// They are built by the run's own endpoint with its headers and sent by
// a transport client like the run's (engine, HTTP version, TLS, proxy),
// so the server sees ordinary requests, but with a connection pool of
// their own: the run's is capped at its concurrency, and a probe waiting
// there for a connection would measure the client, not the server. Their
// records go to a processor and an accumulator of their own: no probe is
// ever in the main metrics, the record files, the request counts, the
// over-saturation detector or the client's health figures.
//
// Probes run from the start of the first profiling phase until stop;
// those still in flight then get the run's grace period to finish and
// are cancelled after it (counted as cancelled, not in the statistics).
type prober struct {
	rate   float64
	pool   *worker.Pool
	client *transport.Client
	clk    *clock.Clock
	grace  time.Duration

	quit chan struct{}
	done chan struct{}

	mu        sync.Mutex // guards the processor, the accumulator and the counts
	proc      *metrics.Processor
	acc       *metrics.Accumulator
	sent      int
	failed    int
	cancelled int
}

// probeResult is the summary JSON's probe_requests member and the
// console's probe block.
type probeResult struct {
	// RequestRate is --probe-request-rate. Sent counts the probes sent;
	// Failed those that ended in an error, Cancelled those still in flight
	// after the grace period. Only the others are in the statistics.
	RequestRate float64 `json:"request_rate"`
	Sent        int     `json:"sent"`
	Failed      int     `json:"failed"`
	Cancelled   int     `json:"cancelled"`
	// TTFT and Latency are the probes' own time to first token (streaming
	// runs) and request latency, in AIPerf's shape and units.
	TTFT    *probeStats `json:"time_to_first_token,omitempty"`
	Latency *probeStats `json:"request_latency,omitempty"`
}

// probeStats is one probe metric's distribution, in its display unit.
type probeStats struct {
	Unit  string  `json:"unit"`
	Avg   float64 `json:"avg"`
	Min   float64 `json:"min"`
	Max   float64 `json:"max"`
	P50   float64 `json:"p50"`
	P90   float64 `json:"p90"`
	P95   float64 `json:"p95"`
	P99   float64 `json:"p99"`
	Std   float64 `json:"std"`
	Count int     `json:"count"`
}

// probeTurn is the one turn every probe sends: the probe prompt, one
// output token, the run's first model.
func probeTurn(p *Plan) dataset.Turn {
	t := dataset.Turn{Texts: []string{ProbePrompt}, MaxTokens: 1, InputTokens: -1}
	if len(p.Models) > 0 {
		t.Model = p.Models[0]
	}
	return t
}

// startProber starts sending probes at --probe-request-rate; nil when the
// option is off.
func (r *phaseRunner) startProber() (*prober, error) {
	rate := r.plan.Config.Fidelity.ProbeRequestRate
	if rate == nil || !(*rate > 0) {
		return nil, nil
	}
	turn := probeTurn(r.plan)
	body, err := r.plan.Endpoint.AppendPayload(nil, &turn, endpoint.WithTurnExtra(&r.plan.EOptions, &turn))
	if err != nil {
		return nil, fmt.Errorf("--probe-request-rate: building the probe request: %w", err)
	}
	proc, err := newProcessor(r.plan, r.clk, r.log, "probe_processor")
	if err != nil {
		return nil, err
	}
	client, err := buildTransportClient(r.plan, 0, 0)
	if err != nil {
		return nil, fmt.Errorf("--probe-request-rate: %w", err)
	}
	pr := &prober{
		rate: *rate, client: client, clk: r.clk, grace: grace(r.plan.Config.GracePeriod()),
		quit: make(chan struct{}), done: make(chan struct{}),
		proc: proc, acc: metrics.NewAccumulator(r.plan.Registry, r.plan.Metrics, nil),
	}
	wo := r.plan.poolOptions(client, r.clk, false)
	wo.Sender = client // never cancelled by --request-cancellation-rate
	wo.Dataset = &dataset.Dataset{Conversations: []dataset.Conversation{{ID: "probe", Turns: []dataset.Turn{turn}}}}
	wo.Payloads = [][][]byte{{body}}
	wo.Endpoint, wo.EOptions = nil, nil // one turn: no history
	wo.Pick = func() int { return 0 }
	wo.Done = func(timing.Credit) {}
	wo.Emit = pr.observe
	wo.PhaseName = "probe"
	if pr.pool, err = worker.NewPool(r.requestContext(), wo); err != nil {
		client.Close()
		return nil, fmt.Errorf("--probe-request-rate: %w", err)
	}
	go pr.send()
	return pr, nil
}

// send dispatches a probe every 1/rate seconds of the run clock until
// quit.
func (pr *prober) send() {
	defer close(pr.done)
	gap := time.Duration(float64(time.Second) / pr.rate)
	start := pr.clk.Now()
	for i := uint64(0); ; i++ {
		due := start + time.Duration(i)*gap
		t := time.NewTimer(pr.clk.Until(due))
		select {
		case <-pr.quit:
			t.Stop()
			return
		case <-t.C:
		}
		pr.pool.Dispatch(timing.Credit{Seq: i, Phase: record.Profiling, Due: due})
	}
}

// observe folds one finished probe (on the goroutine that sent it).
func (pr *prober) observe(rec *record.Record) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	pr.sent++
	switch {
	case rec.Cancelled:
		pr.cancelled++
		return
	case rec.Error != nil:
		pr.failed++
	}
	p := pr.proc.Process(rec)
	pr.acc.Add(&p)
}

// stop ends the probes: no more are sent; those in flight get the grace
// period, then are cancelled. It returns their result.
func (pr *prober) stop() *probeResult {
	close(pr.quit)
	<-pr.done
	closed := make(chan struct{})
	go func() { pr.pool.Close(); close(closed) }()
	if pr.grace >= 0 { // < 0: an infinite grace period
		t := time.NewTimer(pr.grace)
		select {
		case <-closed:
		case <-t.C:
			pr.pool.Cancel()
		}
		t.Stop()
	}
	<-closed
	pr.client.Close()
	pr.mu.Lock()
	defer pr.mu.Unlock()
	s := pr.acc.Summarize()
	res := &probeResult{RequestRate: pr.rate, Sent: pr.sent, Failed: pr.failed, Cancelled: pr.cancelled}
	res.TTFT = probeStatsOf(&s, "time_to_first_token")
	res.Latency = probeStatsOf(&s, "request_latency")
	return res
}

// probeStatsOf is metric tag's statistics in s; nil when s has none.
func probeStatsOf(s *metrics.Summary, tag string) *probeStats {
	r, ok := s.Get(tag)
	if !ok || r.Stats == nil || r.Stats.Count == 0 {
		return nil
	}
	st := r.Stats
	unit := r.Metric.DisplayUnit
	if unit == "" {
		unit = r.Metric.Unit
	}
	return &probeStats{Unit: string(unit), Avg: st.Avg, Min: st.Min, Max: st.Max,
		P50: st.P50, P90: st.P90, P95: st.P95, P99: st.P99, Std: st.Std, Count: st.Count}
}

// console is the probes' console block.
func (r *probeResult) console() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Probe requests (--probe-request-rate %g: one output token each, outside the concurrency cap, not in the metrics above): %d sent, %d failed, %d cancelled at the end\n",
		r.RequestRate, r.Sent, r.Failed, r.Cancelled)
	for _, m := range []struct {
		name string
		s    *probeStats
	}{{"probe time_to_first_token", r.TTFT}, {"probe request_latency", r.Latency}} {
		if m.s == nil {
			continue
		}
		fmt.Fprintf(&b, "  %-26s (%s) avg %.2f  p50 %.2f  p90 %.2f  p99 %.2f  max %.2f\n", m.name, m.s.Unit, m.s.Avg, m.s.P50, m.s.P90, m.s.P99, m.s.Max)
	}
	return b.String()
}
