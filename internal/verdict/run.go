package verdict

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/aiperf-go/aiperf/internal/sla"
)

// Metric tags the rules read, and their display units.
const (
	tagOutputPerUser  = "output_token_throughput_per_user"
	tagPrefillPerUser = "prefill_throughput_per_user"
	tagOutput         = "output_token_throughput"
	tagTotal          = "total_token_throughput"
	tagInput          = "input_token_throughput"
	tagRequests       = "request_throughput"
	tagTTFT           = "time_to_first_token"
	tagISL            = "input_sequence_length"
	tagLatency        = "request_latency"
	tagEffConcurrency = "effective_concurrency"

	unitPerUser  = "tokens/sec/user"
	unitPerNode  = "tokens/sec"
	unitRequests = "requests/sec"
	unitMS       = "ms"
)

// Run is one benchmark's results and the context the rules need.
type Run struct {
	// Metrics are the run's statistics in display units (a summary, an
	// aggregate's means, a sweep point).
	Metrics sla.Source
	// Concurrency is the configured concurrency; 0 when the run had none
	// (a request-rate run), and the effective concurrency is used.
	Concurrency float64
}

// Report is the verdicts of one run and its derived figures; the
// "verdicts" block of the summary JSON.
type Report struct {
	Verdicts []Verdict `json:"use_cases"`
	Derived  Derived   `json:"derived"`
}

// Derived are figures the exported metrics do not state directly.
type Derived struct {
	// Concurrency is the number of users the per-user rates multiply by:
	// configured, else AIPerf's effective_concurrency, else Little's law
	// (request_throughput x mean request_latency).
	Concurrency *Figure `json:"concurrency,omitempty"`
	// InputThroughput is the node's input (prefill) tokens/sec: total
	// minus output throughput, as the guide derives it.
	InputThroughput *Figure `json:"input_token_throughput,omitempty"`
	// MeasuredInputThroughput is input_token_throughput when the run
	// exported it (AIPerf 0.13 does), next to the derived one.
	MeasuredInputThroughput *Figure `json:"measured_input_token_throughput,omitempty"`
	// PrefillDemand is prefill_throughput_per_user x concurrency: the
	// prefill rate the node would need for every user to get their prompt
	// processed at the per-user rate at once. It is tokens/sec per node,
	// although it is built from a tokens/sec/user figure.
	PrefillDemand *Figure `json:"aggregate_prefill_demand,omitempty"`
}

// value reads stat of metric when it is finite.
func value(src sla.Source, metric, stat string) (float64, bool) {
	if src == nil {
		return 0, false
	}
	v, ok := src.Value(metric, stat)
	if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}

// measured is a measured figure of src, nil when src lacks it.
func measured(src sla.Source, metric, stat, unit string, scope Scope) *Figure {
	v, ok := value(src, metric, stat)
	if !ok {
		return nil
	}
	return &Figure{Metric: metric, Stat: stat, Value: v, Unit: unit, Scope: scope, Basis: "measured"}
}

// Evaluate gives the verdicts of cases for one run and its derived
// figures. Batch needs a sweep to answer; for a single run it reports the
// figures and says so.
func Evaluate(r Run, cases []UseCase) Report {
	rep := Report{Derived: derive(r)}
	for _, c := range cases {
		switch c {
		case Chat:
			rep.Verdicts = append(rep.Verdicts, chat(r))
		case Batch:
			rep.Verdicts = append(rep.Verdicts, batchSingle(r))
		case RAG:
			rep.Verdicts = append(rep.Verdicts, rag(r))
		case Capacity:
			rep.Verdicts = append(rep.Verdicts, capacitySingle(r))
		}
	}
	return rep
}

func derive(r Run) Derived {
	var d Derived
	d.Concurrency = concurrency(r)
	total, okT := value(r.Metrics, tagTotal, "avg")
	out, okO := value(r.Metrics, tagOutput, "avg")
	if okT && okO {
		d.InputThroughput = &Figure{Metric: "total_token_throughput - output_token_throughput", Stat: "avg",
			Value: total - out, Unit: unitPerNode, Scope: PerNode, Basis: "derived"}
	}
	d.MeasuredInputThroughput = measured(r.Metrics, tagInput, "avg", unitPerNode, PerNode)
	if p, ok := value(r.Metrics, tagPrefillPerUser, "avg"); ok && d.Concurrency != nil {
		d.PrefillDemand = &Figure{Metric: "prefill_throughput_per_user x concurrency", Stat: "avg",
			Value: p * d.Concurrency.Value, Unit: unitPerNode, Scope: PerNode, Basis: "derived"}
	}
	return d
}

// concurrency resolves the users the per-user rates multiply by.
func concurrency(r Run) *Figure {
	if r.Concurrency > 0 {
		return &Figure{Metric: "concurrency", Stat: "configured", Value: r.Concurrency, Unit: "users", Scope: PerNode, Basis: "configured"}
	}
	if v, ok := value(r.Metrics, tagEffConcurrency, "avg"); ok && v > 0 {
		return &Figure{Metric: tagEffConcurrency, Stat: "avg", Value: v, Unit: "users", Scope: PerNode, Basis: "measured"}
	}
	rps, ok1 := value(r.Metrics, tagRequests, "avg")
	lat, ok2 := value(r.Metrics, tagLatency, "avg")
	if ok1 && ok2 && rps > 0 && lat > 0 {
		return &Figure{Metric: "request_throughput x request_latency (Little's law)", Stat: "avg",
			Value: rps * lat / 1000, Unit: "users", Scope: PerNode, Basis: "derived"}
	}
	return nil
}

func chat(r Run) Verdict {
	v := Verdict{
		UseCase:   Chat,
		Primary:   measured(r.Metrics, tagOutputPerUser, "avg", unitPerUser, PerUser),
		Secondary: measured(r.Metrics, tagTTFT, "p99", unitMS, PerRequest),
		Threshold: Threshold{Description: "output tokens/s per user below 20", Op: sla.LT, Value: ChatMinOutputPerUser, Unit: unitPerUser},
	}
	if v.Primary == nil {
		v.Status, v.Message = Unknown, "no output_token_throughput_per_user in the results (it needs a streaming run)"
		return v
	}
	rate := v.Primary.Value
	if rate < ChatMinOutputPerUser {
		v.Status = Warn
		v.Message = fmt.Sprintf("each user sees %s tokens/s, below the 20 tokens/s per user a chat UI needs", num(rate))
	} else {
		v.Status = OK
		v.Message = fmt.Sprintf("each user sees %s tokens/s (at least 20 tokens/s per user)", num(rate))
	}
	return v
}

func batchSingle(r Run) Verdict {
	return Verdict{
		UseCase:   Batch,
		Status:    Unknown,
		Primary:   measured(r.Metrics, tagOutput, "avg", unitPerNode, PerNode),
		Secondary: measured(r.Metrics, tagRequests, "avg", unitRequests, PerNode),
		Threshold: batchThreshold,
		Message:   "whether output throughput still rises with concurrency needs a concurrency sweep (e.g. --concurrency 1,4,16,64)",
	}
}

var batchThreshold = Threshold{Description: "output throughput no longer rising with concurrency (a step gains less than 5%)", Op: sla.LT, Value: BatchMinGain * 100, Unit: "%"}

func rag(r Run) Verdict {
	v := Verdict{
		UseCase:   RAG,
		Primary:   measured(r.Metrics, tagPrefillPerUser, "avg", unitPerUser, PerUser),
		Secondary: measured(r.Metrics, tagTTFT, "p99", unitMS, PerRequest),
		Threshold: Threshold{Description: "more than 10 s to the first token for a 4K-token input", Op: sla.GT, Value: RAGMaxTTFTSeconds, Unit: "s"},
	}
	isl, hasISL := value(r.Metrics, tagISL, "avg")
	ttft, hasTTFT := value(r.Metrics, tagTTFT, "avg")
	switch {
	case hasISL && hasTTFT && math.Abs(isl-RAGContextTokens) <= RAGMeasuredTolerance*RAGContextTokens:
		v.Checked = &Figure{Metric: tagTTFT, Stat: "avg", Value: ttft / 1000, Unit: "s", Scope: PerRequest, Basis: "measured"}
		v.Message = fmt.Sprintf("measured at %s input tokens: %s s to the first token", num(isl), num(ttft/1000))
	case v.Primary != nil && v.Primary.Value > 0:
		secs := RAGContextTokens / v.Primary.Value
		v.Checked = &Figure{Metric: "4096 / prefill_throughput_per_user", Stat: "avg", Value: secs, Unit: "s", Scope: PerRequest, Basis: "extrapolated"}
		at := "inputs of unknown length"
		if hasISL {
			at = num(isl) + "-token inputs"
		}
		v.Message = fmt.Sprintf("extrapolated, not measured: at %s tokens/s per user a 4K-token prompt takes about %s s to the first token (linear in the input length; the run used %s)", num(v.Primary.Value), num(secs), at)
	default:
		v.Status, v.Message = Unknown, "no prefill_throughput_per_user or TTFT in the results (they need a streaming run)"
		return v
	}
	if v.Checked.Value > RAGMaxTTFTSeconds {
		v.Status = Warn
		v.Message += "; over the 10 s limit for long-context use"
	} else {
		v.Status = OK
	}
	return v
}

func capacitySingle(r Run) Verdict {
	v := Verdict{
		UseCase:   Capacity,
		Primary:   measured(r.Metrics, tagTotal, "avg", unitPerNode, PerNode),
		Secondary: measured(r.Metrics, tagTTFT, "p99", unitMS, PerRequest),
		Threshold: capacityThreshold,
	}
	p99, ok1 := value(r.Metrics, tagTTFT, "p99")
	p50, ok2 := value(r.Metrics, tagTTFT, "p50")
	if !ok1 || !ok2 || p50 <= 0 {
		v.Status, v.Message = Unknown, "degradation needs TTFT percentiles (a streaming run) or a concurrency sweep"
		return v
	}
	ratio := p99 / p50
	v.Checked = &Figure{Metric: "time_to_first_token p99 / p50", Stat: "ratio", Value: ratio, Unit: "x", Scope: PerRequest, Basis: "derived"}
	v.Message = fmt.Sprintf("within this run TTFT p99 is %sx its median; load degradation needs a concurrency sweep", num(ratio))
	if ratio > CapacityMaxDegradation {
		v.Status = Warn
	} else {
		v.Status = OK
	}
	return v
}

var capacityThreshold = Threshold{Description: "TTFT p99 degraded more than 2x", Op: sla.GT, Value: CapacityMaxDegradation, Unit: "x"}

// num prints a figure for messages: whole numbers from 100 up, else one
// decimal from 10 up, else two, without trailing zeros (64, 19.9, 2.01).
func num(v float64) string {
	d := 2
	switch a := math.Abs(v); {
	case a >= 100:
		d = 0
	case a >= 10:
		d = 1
	}
	s := strconv.FormatFloat(v, 'f', d, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}
