package metrics

import (
	"cmp"
	"regexp"
	"slices"
	"time"

	"github.com/aiperf-go/aiperf/internal/metrics/stats"
	"github.com/aiperf-go/aiperf/internal/record"
)

// Accumulator folds processed records into a Summary. One goroutine owns it
// (the one reading the processors' output), so it takes no locks. Add only
// appends to per-metric columns (or feeds their t-digests once past the
// ListSketch limits) and bumps counters; the distributions, derived metrics
// and sorting happen once, in Summarize.
type Accumulator struct {
	reg      *Registry
	metrics  []*Metric // selected, in dependency order
	selected []bool    // by metric index

	cols [][]float64 // record metrics: every value, display units
	// sketches replace cols for list metrics past list's exact limit.
	sketches []*stats.TDigest
	list     ListSketch
	agg      []float64 // aggregate metrics: the fold so far, display units
	aggOK    []bool

	errs map[record.ErrorDetails]int
	// specHist pools the valid records' speculative-decoding acceptance
	// histograms (Summary.SpecDecodeHistogram).
	specHist []int64
	// cancelledAtPhaseEnd counts the records cut off by the end of the phase
	// (record.Record.CancelledAtPhaseEnd), which Add otherwise ignores.
	cancelledAtPhaseEnd int

	anyRecord           bool
	firstStart, lastEnd int64 // wall ns over every record (Summary.Start/End)

	anyValid         bool
	minSent, maxResp time.Duration // valid records: exact benchmark duration

	maxEnd time.Duration // latest End of any record, valid or failed (run offset)

	window      time.Duration // explicit observation window, 0 when unset
	windowStart time.Duration // its start (run offset)
	// phaseStart is the profiling phase's start (run offset), when known:
	// the window then runs from it to maxEnd.
	phaseStart    time.Duration
	hasPhaseStart bool
	// phase is the one phase whose records Add takes (profiling unless
	// SetPhase chose another).
	phase record.Phase

	rtt float64 // the network round trip to subtract, ns (SetNetworkRTT); 0 = none

	sweep sweepCols // the sweep metrics' columns (accumulator_sweep.go)
	// sweepSrc, when set (ShareSweeps), supplies the sweep metrics' records.
	sweepSrc *Accumulator
}

// NewAccumulator prepares columns for the selected metrics of reg. Without
// SLOs the goodput metrics are dropped, as AIPerf drops them; metrics that do
// not belong to reg are ignored.
func NewAccumulator(reg *Registry, selected []*Metric, slos map[string]float64) *Accumulator {
	n := len(reg.metrics)
	a := &Accumulator{
		reg:      reg,
		selected: make([]bool, n),
		cols:     make([][]float64, n),
		sketches: make([]*stats.TDigest, n),
		agg:      make([]float64, n),
		aggOK:    make([]bool, n),
		errs:     make(map[record.ErrorDetails]int),
	}
	for _, m := range selected {
		if !reg.owns(m) || (len(slos) == 0 && m.Flags.Has(FlagGoodput)) {
			continue
		}
		a.selected[m.idx] = true
	}
	for _, m := range reg.metrics {
		if a.selected[m.idx] {
			a.metrics = append(a.metrics, m)
			a.sweep.on = a.sweep.on || m.Kind == KindSweep
		}
	}
	return a
}

// SetWindow sets the observation window that throughput and goodput divide
// by, as run offsets, overriding SetPhaseStart. Without a window (or with
// end <= start) they divide by benchmark_duration.
func (a *Accumulator) SetWindow(start, end time.Duration) {
	a.window, a.windowStart = max(end-start, 0), start
}

// SetPhase makes Add take the records of phase instead of the profiling
// phase's, for a second accumulator that summarises the warmup
// (warmup_metrics). Call it before the first Add.
func (a *Accumulator) SetPhase(phase record.Phase) { a.phase = phase }

// SetPhaseStart records when the profiling phase started (run offset).
// Throughput and goodput then divide by the phase window, from that start
// to the end of the last request (valid or failed), as AIPerf 0.13 does:
// its observation window runs from the phase start to the last response.
// That window is longer than benchmark_duration (first request start to
// last valid response) by the wait before the first request (one interval
// in a constant-rate phase) and by failures that end last.
func (a *Accumulator) SetPhaseStart(start time.Duration) {
	a.phaseStart, a.hasPhaseStart = start, true
}

// observationWindow is the window throughputs divide by: the explicit one,
// else the phase window, else 0 (benchmark_duration is used).
func (a *Accumulator) observationWindow() time.Duration {
	switch {
	case a.window > 0:
		return a.window
	case a.hasPhaseStart && a.anyRecord:
		return max(a.maxEnd-a.phaseStart, 0)
	}
	return 0
}

// Add folds one processed record. Warmup records are ignored: AIPerf
// excludes them from every result.
func (a *Accumulator) Add(p *Processed) {
	rec := p.Record
	if rec == nil || rec.Phase != a.phase {
		return
	}
	if rec.CancelledAtPhaseEnd() {
		// AIPerf has no record of it: no metric, no error, not in the
		// phase's window; only counted apart.
		a.cancelledAtPhaseEnd++
		return
	}
	for i := range p.Values {
		v := &p.Values[i]
		m := v.Metric
		if !a.reg.owns(m) || !a.selected[m.idx] {
			continue
		}
		switch {
		case m.Kind == KindRecord && m.List:
			a.addList(m.idx, v.List)
		case m.Kind == KindRecord:
			a.addScalar(m.idx, v.Scalar)
		case m.Kind == KindAggregate:
			a.fold(m, v.Scalar)
		}
	}
	if rec.Error != nil {
		a.errs[*rec.Error]++
	}
	if sd := &rec.SpecDecode; p.Valid && sd.Known() {
		a.specHist = pool(a.specHist, sd.Histogram)
	}
	if a.sweep.on && a.sweepSrc == nil {
		a.addSweep(p)
	}
	if !a.anyRecord {
		a.anyRecord, a.firstStart, a.lastEnd, a.maxEnd = true, p.StartNs, p.EndNs, rec.End
	} else {
		a.firstStart, a.lastEnd = min(a.firstStart, p.StartNs), max(a.lastEnd, p.EndNs)
		a.maxEnd = max(a.maxEnd, rec.End)
	}
	if p.Valid {
		resp := p.lastContent
		if resp == 0 {
			resp = rec.End
		}
		if !a.anyValid {
			a.anyValid, a.minSent, a.maxResp = true, rec.Sent, resp
		} else {
			a.minSent, a.maxResp = min(a.minSent, rec.Sent), max(a.maxResp, resp)
		}
	}
}

func (a *Accumulator) fold(m *Metric, v float64) {
	i := m.idx
	if !a.aggOK[i] {
		a.agg[i], a.aggOK[i] = v, true
		return
	}
	switch m.Agg {
	case AggMin:
		a.agg[i] = min(a.agg[i], v)
	case AggMax:
		a.agg[i] = max(a.agg[i], v)
	default:
		a.agg[i] += v
	}
}

// Summarize computes the phase's results: a distribution for each record
// metric with values, the fold of each aggregate metric that saw a record,
// and each derived metric that can be computed, in dependency order. Metrics
// without a (finite) value are left out. It may be called more than once.
func (a *Accumulator) Summarize() Summary {
	n := len(a.reg.metrics)
	dc := &deriveContext{
		reg:         a.reg,
		vals:        make([]float64, n), // base units, as AIPerf's results dict
		has:         make([]bool, n),
		duration:    a.maxResp - a.minSent,
		hasDuration: a.anyValid,
		window:      a.observationWindow(),
		dist:        make([]*Stats, n),
	}
	var results []Result
	sweeps := a.sweepResults()
	for _, m := range a.metrics {
		r := Result{Metric: m}
		switch m.Kind {
		case KindSweep:
			if r.Stats = sweeps[m.sweep]; r.Stats == nil {
				continue
			}
		case KindRecord:
			s, ok := a.recordStats(m)
			if !ok || !s.finite() {
				continue
			}
			r.Stats = &s
			dc.vals[m.idx] = m.FromDisplay(s.Sum)
			dc.dist[m.idx] = &s
		case KindAggregate:
			if !a.aggOK[m.idx] {
				continue
			}
			r.Value = a.agg[m.idx]
			dc.vals[m.idx] = m.FromDisplay(r.Value)
		case KindDerived:
			if m.adjusts != "" || m.Tag == tagNetworkRTT {
				s, ok := a.networkResult(m)
				if !ok || !s.finite() {
					continue
				}
				r.Stats = s
				break
			}
			if !dc.hasAll(m.Requires) {
				continue
			}
			v, ok := m.derive(dc)
			if !ok || !stats.Finite(v) || !stats.Finite(m.ToDisplay(v)) {
				continue
			}
			r.Value = m.ToDisplay(v)
			dc.vals[m.idx] = v
		}
		dc.has[m.idx] = true
		results = append(results, r)
	}
	slices.SortFunc(results, func(x, y Result) int {
		ox, oy := x.Metric.Order, y.Metric.Order
		if (ox == 0) != (oy == 0) {
			return cmpBool(ox == 0, oy == 0) // unordered metrics last
		}
		return cmp.Or(cmp.Compare(ox, oy), cmp.Compare(x.Metric.Tag, y.Metric.Tag))
	})
	s := Summary{Results: results, Errors: a.errorCounts(), CancelledAtPhaseEnd: a.cancelledAtPhaseEnd,
		ErrorAdjusted: a.errorAdjustedResults(func(m *Metric) bool { return dc.dist[m.idx] != nil })}
	if a.anyRecord {
		s.Start, s.End = time.Unix(0, a.firstStart), time.Unix(0, a.lastEnd)
	}
	s.SpecDecodeHistogram = slices.Clone(a.specHist)
	return s
}

func (c *deriveContext) hasAll(tags []string) bool {
	for _, t := range tags {
		if _, ok := c.value(t); !ok {
			return false
		}
	}
	return true
}

// errorCounts groups failed records by code, type and message shape,
// most frequent first; ties sort by code, type and message so output is
// deterministic. The shape is the message with its numbers taken out:
// "Request was cancelled after 1.485 seconds" and "... after 1.502
// seconds" are one row, not one row per request. A group whose messages
// all agree shows that message; one whose numbers varied shows the shape,
// each number written N.
func (a *Accumulator) errorCounts() []ErrorCount {
	type group struct {
		row    ErrorCount
		varied bool
	}
	byShape := map[record.ErrorDetails]*group{}
	var order []*group
	for e, n := range a.errs {
		key := e
		key.Message = messageShape(e.Message)
		g, ok := byShape[key]
		if !ok {
			g = &group{row: ErrorCount{Error: e}}
			byShape[key] = g
			order = append(order, g)
		} else if g.row.Error.Message != e.Message {
			g.varied = true
		}
		g.row.Count += n
	}
	out := make([]ErrorCount, 0, len(order))
	for _, g := range order {
		if g.varied {
			g.row.Error.Message = messageShape(g.row.Error.Message)
		}
		out = append(out, g.row)
	}
	slices.SortFunc(out, func(x, y ErrorCount) int {
		return cmp.Or(cmp.Compare(y.Count, x.Count), cmp.Compare(x.Error.Code, y.Error.Code),
			cmp.Compare(x.Error.Type, y.Error.Type), cmp.Compare(x.Error.Message, y.Error.Message))
	})
	return out
}

// numberRun matches a number in an error message: digits, optionally with
// a decimal part.
var numberRun = regexp.MustCompile(`[0-9]+(\.[0-9]+)?`)

// messageShape is msg with every number written N.
func messageShape(msg string) string { return numberRun.ReplaceAllString(msg, "N") }

func toStats(s stats.Summary) Stats {
	return Stats{
		Avg: s.Avg, Min: s.Min, Max: s.Max, Sum: s.Sum,
		P1: s.P1, P5: s.P5, P10: s.P10, P25: s.P25, P50: s.P50, P75: s.P75, P90: s.P90, P95: s.P95, P99: s.P99,
		Std: s.Std, Count: s.Count,
	}
}

func (s *Stats) finite() bool {
	vs := []float64{s.Avg, s.Min, s.Max, s.Sum, s.P1, s.P5, s.P10, s.P25, s.P50, s.P75, s.P90, s.P95, s.P99, s.Std}
	if s.TimeWeighted { // the fields a step function's statistics have
		vs = []float64{s.Avg, s.Min, s.Max, s.P50, s.P90, s.P95, s.P99, s.Std}
	}
	for _, v := range vs {
		if !stats.Finite(v) {
			return false
		}
	}
	return true
}
