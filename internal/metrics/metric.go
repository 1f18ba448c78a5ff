// Package metrics turns records into AIPerf's metrics: a registry of metric
// definitions (tag, header, units, flags, display order, dependencies), a
// Processor that computes per-record metrics, an Accumulator that folds them,
// and a Summary that exporters read.
//
// Metric kinds follow AIPerf: record metrics have one value (or a list of
// values) per request and are summarised as a distribution; aggregate metrics
// fold across records (counts, min, max); derived metrics are computed from
// other results after aggregation. Values are stored in each metric's base
// unit and converted to its display unit for export.
package metrics

// Kind is how a metric is computed.
type Kind uint8

const (
	// KindRecord metrics have a value per request; the result is a distribution.
	KindRecord Kind = iota
	// KindAggregate metrics fold across records into one value.
	KindAggregate
	// KindDerived metrics are computed from other metrics' results.
	KindDerived
	// KindSweep metrics are time-weighted statistics of a step function of
	// the phase's requests (package sweep): the Accumulator computes them
	// from the records' times and token counts.
	KindSweep
)

// Flags are AIPerf's MetricFlags bits; they decide where a metric applies
// and where it is shown.
type Flags uint32

// AIPerf's MetricFlags, with the same bit values.
const (
	FlagNone               Flags = 0
	FlagStreamingOnly      Flags = 1 << 0
	FlagErrorOnly          Flags = 1 << 1
	FlagProducesTokensOnly Flags = 1 << 2
	FlagLargerIsBetter     Flags = 1 << 4
	FlagInternal           Flags = 1 << 5
	FlagSupportsAudioOnly  Flags = 1 << 6
	FlagSupportsImageOnly  Flags = 1 << 7
	FlagSupportsReasoning  Flags = 1 << 8
	FlagExperimental       Flags = 1 << 9
	FlagGoodput            Flags = 1 << 10
	FlagNoIndividualRecord Flags = 1 << 11
	FlagTokenizesInputOnly Flags = 1 << 12
	FlagSupportsVideoOnly  Flags = 1 << 13
	FlagUsageDiffOnly      Flags = 1 << 14
	FlagHTTPTraceOnly      Flags = 1 << 15
	FlagProducesVideoOnly  Flags = 1 << 16
	// FlagPercentileIncludesFailed marks metrics for which AIPerf 0.13 also
	// reports error-adjusted (adj_*) percentiles.
	FlagPercentileIncludesFailed Flags = 1 << 17
	FlagFixedScheduleOnly        Flags = 1 << 18
	FlagDisableOnAccuracy        Flags = 1 << 19

	FlagStreamingTokensOnly = FlagStreamingOnly | FlagProducesTokensOnly
)

// Has reports whether every bit of f2 is set in f.
func (f Flags) Has(f2 Flags) bool { return f&f2 == f2 }

// Group is the console table a metric is shown in (AIPerf console_group).
type Group uint8

const (
	GroupDefault Group = iota // the main table
	GroupNone                 // hidden from the console, still exported
	GroupUsage                // server usage-field token metrics
	GroupCache
	GroupReasoning
	// GroupEffective is AIPerf's "Effective" table: coordinated-omission
	// aware and time-weighted metrics (effective_latency).
	GroupEffective
	// GroupActive is AIPerf's "Active" table: time-weighted rates over the
	// time their phase was busy (active_*).
	GroupActive
	// GroupSpecDecode is AIPerf 0.14's "Spec Decode" table: speculative
	// decoding acceptance, when the server reports it.
	GroupSpecDecode
)

// Unit is an exact AIPerf unit string ("ns", "ms", "tokens/sec/user", ...).
type Unit string

// Units used by the metrics of this package.
const (
	UnitNS               Unit = "ns"
	UnitMS               Unit = "ms"
	UnitSec              Unit = "sec"
	UnitTokens           Unit = "tokens"
	UnitRequests         Unit = "requests"
	UnitRatio            Unit = "ratio"
	UnitPercent          Unit = "%"
	UnitRequestsPerSec   Unit = "requests/sec"
	UnitTokensPerSec     Unit = "tokens/sec"
	UnitTokensPerSecUser Unit = "tokens/sec/user"
	UnitBytes            Unit = "B"
	UnitKB               Unit = "KB"
	UnitCount            Unit = "count"
)

// Metric is one metric definition. Definitions are immutable after the
// registry is built and shared by every goroutine.
type Metric struct {
	Tag         string // AIPerf metric tag, the JSON key, e.g. "time_to_first_token"
	Header      string // human name, e.g. "Time to First Token"
	ShortHeader string // optional compact name for narrow tables
	Kind        Kind
	Unit        Unit // base unit values are stored in
	DisplayUnit Unit // unit values are exported in; equals Unit when no conversion
	Flags       Flags
	Order       int   // console sort key (AIPerf display_order); 0 sorts after ordered metrics
	Group       Group // console table
	List        bool  // record metric with a list of values per request (inter_chunk_latency)
	Requires    []string

	// Optional lists dependencies that order this metric after them but may
	// legitimately be absent (AIPerf optional_metrics), e.g. the error count
	// on a clean run.
	Optional []string
	// Agg is how an aggregate metric folds its per-record contributions.
	Agg Agg
	// Integer reports that AIPerf types the value as an int: per-record
	// exports print it without a fractional part when Unit == DisplayUnit.
	Integer bool
	// EveryRecord metrics are computed for failed records as well as valid
	// ones (ours: schedule_lag, late_request_count). AIPerf's metrics apply
	// to valid records only, or to failed ones only (FlagErrorOnly).
	EveryRecord bool

	// adjusts names the record metric a network_adjusted_* metric shifts
	// by the run's round trip (builtin_network.go); "" otherwise.
	adjusts string
	// inflates names the record metric an adj_* metric is the
	// error-adjusted distribution of (erroradjusted.go); "" otherwise.
	inflates string

	// Exactly one of these is set, matching Kind (and List); a KindSweep
	// metric has sweep, its index in sweep.Metrics().
	record recordFunc
	list   listFunc
	derive deriveFunc
	sweep  int

	idx int // position in the owning Registry's dependency order
}

// Agg is an aggregate metric's fold (AIPerf AggregationKind).
type Agg uint8

const (
	AggSum Agg = iota // counters
	AggMin            // min_request_timestamp
	AggMax            // max_response_timestamp
)

// ErrorAdjusted reports whether m is an adj_* metric: a latency
// distribution in which every failed request counts as +Inf, so its avg,
// sum, max and upper percentiles are +Inf by design (erroradjusted.go).
func (m *Metric) ErrorAdjusted() bool { return m.inflates != "" }

// Hidden reports whether the metric is excluded from exports and the console
// (INTERNAL and EXPERIMENTAL metrics, as AIPerf without dev mode).
func (m *Metric) Hidden() bool {
	return m.Flags&(FlagInternal|FlagExperimental) != 0
}
