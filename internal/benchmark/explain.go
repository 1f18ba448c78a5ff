package benchmark

import (
	"fmt"
	"log/slog"
	"math"
	"strings"
	"time"

	"github.com/aiperf-go/aiperf/internal/clienthealth"
	"github.com/aiperf-go/aiperf/internal/cluster"
	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/fdlimit"
	"github.com/aiperf-go/aiperf/internal/metrics"
	"github.com/aiperf-go/aiperf/internal/record"
	"github.com/aiperf-go/aiperf/internal/servertrace"
	"github.com/aiperf-go/aiperf/internal/validity"
)

// startTraceReceiver starts the OTLP trace receiver of
// --otlp-traces-receiver; nil when not asked for.
func startTraceReceiver(plan *Plan, log *slog.Logger) (*servertrace.Receiver, error) {
	addr := plan.Config.Fidelity.OTLPTracesReceiver
	if addr == "" {
		return nil, nil
	}
	r, err := servertrace.Start(addr, log)
	if err != nil {
		return nil, &config.ExitError{Code: config.ExitFailure, Err: fmt.Errorf("--otlp-traces-receiver %s: %w", addr, err)}
	}
	log.Info("receiving the server's trace spans over OTLP (gRPC and HTTP/protobuf)", "address", r.Addr())
	return r, nil
}

// serverSources counts the profiling records by the source of their
// server timing; the consumer is its only writer.
type serverSources [record.VLLMSpan + 1]int

func (s *serverSources) observe(p *metrics.Processed) { s[p.Record.Server.Source]++ }

// decompComponent is one part of the time decomposition in the summary
// JSON (time_decomposition.components), in ms over the records that have it.
type decompComponent struct {
	Name   string  `json:"name"`
	Metric string  `json:"metric"`
	Avg    float64 `json:"avg_ms"`
	P50    float64 `json:"p50_ms"`
	P99    float64 `json:"p99_ms"`
	Count  int     `json:"count"`
	// SharePct is the component's mean as a share of the sum of the
	// latency's parts' means (connect, send, the server's, unexplained).
	SharePct *float64 `json:"share_of_latency_pct,omitempty"`
}

// timeDecomposition is the summary JSON's time_decomposition: where the
// requests' time went, the server's own account joined with the client's.
type timeDecomposition struct {
	Sources          map[string]int    `json:"sources"`
	Requests         int               `json:"requests"`
	Explained        int               `json:"requests_with_server_timing"`
	Components       []decompComponent `json:"components"`
	UnexplainedShare float64           `json:"unexplained_share_pct"`
	QueueReported    bool              `json:"server_reports_queue"`
	Note             string            `json:"note"`
}

// decompParts are the components in the order a request meets them; in
// marks the parts of the latency (End - Sent), dispatch lying before it.
var decompParts = []struct {
	name, tag string
	in        bool
}{
	{"dispatch delay (schedule lag)", "schedule_lag", false},
	{"connect (pool, DNS, TCP, TLS)", "http_req_connection_overhead", true},
	{"send", "http_req_sending", true},
	{"server queue", metrics.TagServerQueue, true},
	{"server validation", metrics.TagServerValidation, true},
	{"server prefill", metrics.TagServerPrefill, true},
	{"server decode", metrics.TagServerDecode, true},
	{"unexplained (network + client)", metrics.TagUnexplained, true},
}

// decompose builds the time decomposition from the summary; nil when no
// record carried server timing.
func decompose(s *metrics.Summary, src *serverSources) *timeDecomposition {
	d := &timeDecomposition{Sources: map[string]int{}, Components: []decompComponent{}}
	for i, n := range src {
		d.Requests += n
		if record.ServerSource(i) != record.NoServerTiming && n > 0 {
			d.Sources[record.ServerSource(i).String()] = n
			d.Explained += n
		}
	}
	if d.Explained == 0 {
		return nil
	}
	_, hasPrefill := s.Get(metrics.TagServerPrefill)
	parts := decompParts
	if !hasPrefill { // the server reports only prefill + decode (TGI)
		parts = append(parts[:5:5], struct {
			name, tag string
			in        bool
		}{"server inference (prefill + decode)", metrics.TagServerInference, true}, parts[7])
	}
	var total float64
	for _, p := range parts {
		r, ok := s.Get(p.tag)
		if !ok || r.Stats == nil {
			continue
		}
		c := decompComponent{Name: p.name, Metric: p.tag, Avg: r.Stats.Avg, P50: r.Stats.P50, P99: r.Stats.P99, Count: r.Stats.Count}
		if p.in {
			total += c.Avg
		}
		d.Components = append(d.Components, c)
		if p.tag == metrics.TagServerQueue {
			d.QueueReported = true
		}
	}
	for i := range d.Components {
		if c := &d.Components[i]; c.Metric != "schedule_lag" && total > 0 {
			share := 100 * c.Avg / total
			c.SharePct = &share
			if c.Metric == metrics.TagUnexplained {
				d.UnexplainedShare = share
			}
		}
	}
	d.Note = "The parts of each request's latency (End - Sent) add up to it: the client's connect and send, the server's own account, and the unexplained rest (the network both ways, the server's HTTP layer, the client's reading)."
	if !d.QueueReported {
		d.Note += " This server does not report its queue time, so a wait in its queue is in the unexplained rest."
	}
	return d
}

// console is the decomposition's console block.
func (d *timeDecomposition) console() string {
	var b strings.Builder
	var src []string
	for name, n := range d.Sources {
		src = append(src, fmt.Sprintf("%s on %d", name, n))
	}
	fmt.Fprintf(&b, "Time decomposition (%d of %d requests carry the server's own timings: %s), ms:\n", d.Explained, d.Requests, strings.Join(src, ", "))
	fmt.Fprintf(&b, "  %-36s %10s %10s %10s %8s\n", "", "avg", "p50", "p99", "share")
	for _, c := range d.Components {
		share := ""
		if c.SharePct != nil {
			share = fmt.Sprintf("%.1f%%", *c.SharePct)
		}
		fmt.Fprintf(&b, "  %-36s %10.3f %10.3f %10.3f %8s\n", c.Name, c.Avg, c.P50, c.P99, share)
	}
	if !d.QueueReported {
		b.WriteString("  (the server reports no queue time: a queue wait is in the unexplained rest)\n")
	}
	return b.String()
}

// judgeValidity gathers the run's fidelity figures (sent: the profiling
// requests sent) and judges them.
func judgeValidity(plan *Plan, h *clienthealth.Report, d *timeDecomposition, workers []cluster.WorkerInfo, sent int) validity.Verdict {
	f := validity.Figures{
		HeldBy:         h.HeldBy,
		Sent:           uint64(sent),
		Unsent:         h.UnsentRequests,
		Backlogged:     h.BackloggedRequests,
		ConnLimitWaits: h.ConnectionLimitWaits,
		Governor:       validity.Governor(),
		PortRange:      validity.EphemeralPorts(),

		ConnectionsOpened: h.ConnectionsOpened,
	}
	msDur := func(ms float64) time.Duration { return time.Duration(math.Round(ms * float64(time.Millisecond))) }
	if p := h.ScheduleLagP99Ms; p != nil {
		f.LagKnown, f.LagP99, f.LagLimit = true, msDur(*p), msDur(h.Thresholds.ScheduleLagP99Ms)
	}
	if s, a := h.ScheduledRequestRate, h.AchievedRequestRate; s != nil && a != nil {
		f.RateKnown, f.Scheduled, f.Achieved = true, *s, *a
	}
	if c := h.CPUUtilizationPct; c != nil {
		f.CPUKnown, f.CPU = true, *c/100
	}
	if w := h.CPUWaitPerWakeUs; w != nil && len(workers) == 0 {
		// With load workers this process only gathers the records: their
		// times were stamped on the workers, so its own wait for a CPU
		// is in none of them.
		f.CPUWaitKnown, f.CPUWait = true, time.Duration(*w*float64(time.Microsecond))
	}
	if n := plan.Profiling.Concurrency; n > 0 {
		if l, ok := fdlimit.Current(); ok && l.Soft > 0 && l.Soft < math.MaxInt32 {
			// Each connection is a descriptor; the process keeps a few of its
			// own (its log, the record files, the terminal).
			f.FDLimit, f.FDNeeded = int(l.Soft), n*len(plan.URLs)+32
		}
	}
	for _, w := range workers {
		f.Workers++
		if w.State == "lost" || w.State == "failed" {
			f.LostWorkers++
		}
		u := time.Duration(w.ClockRTTNs/2 + abs(w.ClockDriftNs))
		f.ClockKnown, f.ClockUncertainty = true, max(f.ClockUncertainty, u)
	}
	if d != nil {
		f.UnexplainedKnown, f.UnexplainedShare, f.QueueReported = true, d.UnexplainedShare/100, d.QueueReported
	}
	return validity.Judge(f)
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// invalidReasons joins the messages of the verdict's INVALID reasons.
func invalidReasons(v *validity.Verdict) string {
	var msgs []string
	for _, r := range v.Reasons {
		if r.Level == validity.Invalid {
			msgs = append(msgs, r.Message)
		}
	}
	return strings.Join(msgs, "; ")
}
