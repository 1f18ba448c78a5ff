package live

import "time"

// RecordObserver watches the run's requests one by one, for integrations
// that export per-request values as they happen (OTel histograms, MLflow
// live metrics): a Snapshot's windowed statistics cannot give them.
//
// The run's record consumer (one goroutine) calls ObserveRecord once per
// finished request, warmup and profiling alike, in completion order,
// after the record is scrubbed of the run's credentials. It must return
// at once (hand r to a goroutine of its own when exporting is slow: the
// consumer also feeds the results), must not modify r, and may keep it.
// Observers that also implement Observer get the run's snapshots too; the
// Final snapshot follows the last record.
type RecordObserver interface {
	ObserveRecord(r *Record)
}

// Record is one finished request as plain values.
type Record struct {
	Phase          string // "warmup" or "profiling"
	ConversationID string
	TurnIndex      int
	XRequestID     string
	WorkerID       string
	ProcessorID    string // the record processor that computed Metrics
	Model          string
	// Valid is AIPerf's "valid record": no error, content received.
	Valid     bool
	Cancelled bool
	// Error is the failure, nil on success.
	Error *RecordError
	// Start and End are when the request was sent and finished (wall
	// clock).
	Start, End time.Time
	// Metrics are the record metrics computed for it, in display units,
	// in the pipeline's dependency order.
	Metrics []RecordMetric
	// Output is the generated text (reasoning excluded) of a valid
	// record, when the run keeps text (outputs.json, accuracy mode); ""
	// otherwise.
	Output string
}

// RecordError is why a request failed.
type RecordError struct {
	Code    int // HTTP status, 499 for a cancellation; 0 when none
	Type    string
	Message string
}

// RecordMetric is one metric of one request.
type RecordMetric struct {
	Tag  string // AIPerf's metric tag
	Unit string // the unit Value is in: "ms", "tokens", ...
	// Value is the metric's value; List holds it instead for a metric
	// with several values per request (inter_chunk_latency).
	Value float64
	List  []float64
}

// Metric returns the record's metric tag, if it has it.
func (r *Record) Metric(tag string) (RecordMetric, bool) {
	for _, m := range r.Metrics {
		if m.Tag == tag {
			return m, true
		}
	}
	return RecordMetric{}, false
}
