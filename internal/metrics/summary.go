package metrics

import (
	"time"

	"github.com/aiperf-go/aiperf/internal/record"
)

// Stats are a record metric's distribution over a phase, in display units:
// numpy linear-interpolation percentiles and population standard deviation.
type Stats struct {
	Avg, Min, Max, Sum                        float64
	P1, P5, P10, P25, P50, P75, P90, P95, P99 float64
	Std                                       float64
	Count                                     int
	// TimeWeighted marks the statistics of a step function over time (the
	// sweep metrics): weighted by how long each value held, with no count;
	// Sum, P1, P5, P10, P25 and P75 are NaN (AIPerf computes only p50, p90,
	// p95 and p99 of them).
	TimeWeighted bool
}

// Result is one metric's outcome for the profiling phase. Exactly one of
// Stats (record metrics) or Value (aggregate and derived metrics) is set.
// Every number is finite: metrics whose value is not finite are left out of
// the Summary entirely.
type Result struct {
	Metric *Metric
	Stats  *Stats  // record metrics
	Value  float64 // aggregate and derived metrics, in display units
}

// ErrorCount is one row of AIPerf's error_summary.
type ErrorCount struct {
	Error record.ErrorDetails
	Count int
}

// Summary is everything exporters need about a finished phase.
type Summary struct {
	// Results holds every metric that has a value, sorted by display order
	// (metrics without an order last), then by tag. Hidden metrics are kept
	// here; exporters skip them.
	Results []Result
	// ErrorAdjusted holds AIPerf's adj_* distributions when a record of
	// the phase failed (erroradjusted.go). Unlike Results, their avg, sum,
	// max and upper percentiles are +Inf by design (each failed request
	// counts as a latency without end) and their std is NaN; only the
	// exporters that write them as AIPerf does read them.
	ErrorAdjusted []Result
	// CancelledAtPhaseEnd counts the requests still in flight when the phase
	// ended that the client cancelled (record.TypePhaseEndCancelled): sent,
	// but in no result and no error, as AIPerf, which keeps no record of
	// them.
	CancelledAtPhaseEnd int
	// Errors groups failed records by (code, type, message), most frequent
	// first.
	Errors []ErrorCount
	// Start and End bound the phase in wall time (first send, last response).
	Start, End time.Time
	// SpecDecodeHistogram is AIPerf 0.14's pooled acceptance histogram:
	// element j counts the verify steps, over every valid request that
	// reported speculative decoding, that accepted exactly j drafts. Its
	// sum is total_spec_decode_steps; nil when no request reported any.
	SpecDecodeHistogram []int64
}

// Get returns the result for tag.
func (s *Summary) Get(tag string) (Result, bool) {
	for _, r := range s.Results {
		if r.Metric.Tag == tag {
			return r, true
		}
	}
	return Result{}, false
}

// Value is one per-record metric value in display units.
type Value struct {
	Metric *Metric
	Scalar float64   // when !Metric.List
	List   []float64 // when Metric.List
}

// Processed is a record after the Processor: its metric values (display
// units, in dependency order) and whether it counts as valid. A record is
// valid when it has no error, at least one content response, and Sent < End.
type Processed struct {
	Record      *record.Record
	Valid       bool
	Values      []Value
	ProcessorID string // AIPerf record_processor_id

	// StartNs and EndNs are Record.Sent and Record.End as wall-clock Unix
	// nanoseconds (AIPerf request_start_ns / request_end_ns), from the
	// Processor's clock; plain run offsets when it has none.
	StartNs, EndNs int64

	// OutputText is the generated (non-reasoning) text of a valid record,
	// when ProcessorOptions.KeepText is set (outputs.json); "" otherwise.
	OutputText string

	// firstContent and lastContent are the offsets of the first and last
	// content responses (AIPerf's generation start, and its request end
	// for latency and benchmark duration); 0 when there is none.
	firstContent, lastContent time.Duration

	// free is the Processor's free list Release hands Values back to.
	free chan []Value
}

// Release hands p.Values back to the Processor that made them, to hold a
// later record's values: a record's values are some forty words, its
// largest allocation on the record path. Call it once every consumer of p
// is done with it; afterwards p.Values is nil and nothing may keep or read
// the array it was (a List a Value held is not reused and stays valid).
// Never calling it is always safe: the array is then garbage as usual.
func (p *Processed) Release() {
	vals := p.Values
	p.Values = nil
	if p.free == nil || cap(vals) == 0 {
		return
	}
	clear(vals) // the free list keeps no metric list alive
	select {
	case p.free <- vals[:0]:
	default: // full: let it go
	}
}
