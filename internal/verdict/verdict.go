// Package verdict reads a benchmark's numbers the way its user means them:
// per use case (chat, batch, RAG, capacity planning) it picks the primary
// and secondary metric and checks the warning threshold of the token-metric
// guide this project started from (seeds/001), and it derives the figures
// that guide says are never exported: the node's input throughput and the
// aggregate prefill demand, with units that keep "per user" and "per node"
// apart.
//
// Everything here is a pure function of metric values (an sla.Source) and
// a little context (the run's concurrency and input length), so each rule
// is table-tested on values just below and just above its threshold.
package verdict

import "github.com/aiperf-go/aiperf/internal/sla"

// UseCase is one way of reading the results (--use-case).
type UseCase string

// The use cases of the guide.
const (
	Chat     UseCase = "chat"     // real-time chat UI: what one user sees
	Batch    UseCase = "batch"    // API burst / batch: what the node delivers
	RAG      UseCase = "rag"      // long contexts: prefill dominates
	Capacity UseCase = "capacity" // capacity planning: total tokens under load
)

// UseCases lists them in the guide's order.
func UseCases() []UseCase { return []UseCase{Chat, Batch, RAG, Capacity} }

// Status is a verdict's outcome.
type Status string

// Statuses.
const (
	// OK: the primary figure is on the good side of the warning threshold.
	OK Status = "ok"
	// Warn: the warning threshold is crossed.
	Warn Status = "warn"
	// Unknown: the run cannot answer (a metric is missing, or the rule
	// needs a concurrency sweep).
	Unknown Status = "unknown"
)

// Scope says whose rate a figure is.
type Scope string

// Scopes. Per-user rates describe one session; per-node rates the whole
// server. Confusing the two is the guide's first trap.
const (
	PerUser    Scope = "per_user"
	PerNode    Scope = "per_node"
	PerRequest Scope = "per_request"
)

// Figure is one number with what it is.
type Figure struct {
	Metric string  `json:"metric"`
	Stat   string  `json:"stat"`
	Value  float64 `json:"value"`
	Unit   string  `json:"unit"`
	Scope  Scope   `json:"scope"`
	// Basis says where the number comes from: "measured", "derived" or
	// "extrapolated".
	Basis string `json:"basis"`
}

// Threshold is a verdict's warning threshold.
type Threshold struct {
	Description string  `json:"description"`
	Op          sla.Op  `json:"op"` // the warning fires when value Op Value
	Value       float64 `json:"value"`
	Unit        string  `json:"unit"`
}

// Verdict is one use case's reading of the results.
type Verdict struct {
	UseCase   UseCase   `json:"use_case"`
	Status    Status    `json:"status"`
	Primary   *Figure   `json:"primary"`
	Secondary *Figure   `json:"secondary"`
	Threshold Threshold `json:"threshold"`
	// Checked is the figure the threshold was checked on when it is not
	// the primary one (RAG's TTFT at 4K input, capacity's degradation).
	Checked *Figure `json:"checked,omitempty"`
	Message string  `json:"message"`
}

// The guide's warning thresholds.
const (
	// ChatMinOutputPerUser: below 20 output tokens/s per user a chat UI
	// feels slow.
	ChatMinOutputPerUser = 20.0
	// RAGContextTokens and RAGMaxTTFTSeconds: more than 10 s to the first
	// token for a 4K-token context.
	RAGContextTokens  = 4096.0
	RAGMaxTTFTSeconds = 10.0
	// CapacityMaxDegradation: latency more than 2x its unloaded value.
	CapacityMaxDegradation = 2.0
	// BatchMinGain: a concurrency step that raises output throughput by
	// less than 5 % no longer pays (throughput "stops rising").
	BatchMinGain = 0.05
	// RAGMeasuredTolerance: a run whose mean input length is within 10 %
	// of 4K tokens answers the RAG question directly; otherwise TTFT is
	// extrapolated from the per-user prefill rate.
	RAGMeasuredTolerance = 0.10
)
