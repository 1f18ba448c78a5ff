package compare

import (
	"cmp"
	"math"
	"slices"

	"github.com/aiperf-go/aiperf/internal/metrics/stats"
)

// Metric tags of the rankings.
const (
	tagTotal          = "total_token_throughput"
	tagOutput         = "output_token_throughput"
	tagInput          = "input_token_throughput"
	tagOutputPerUser  = "output_token_throughput_per_user"
	tagPrefillPerUser = "prefill_throughput_per_user"
)

// CapacityRow is one line of the capacity ranking: what the node
// processes per second, all users together (tokens/sec).
type CapacityRow struct {
	Rank  int    `json:"rank"`
	Label string `json:"label"`
	// Input is total - output: the guide's derivation, exact when the
	// totals are, and available for files that do not export input
	// throughput. MeasuredInput is input_token_throughput when exported.
	Input         float64  `json:"input_tokens_per_sec"`
	MeasuredInput *float64 `json:"measured_input_tokens_per_sec,omitempty"`
	Output        float64  `json:"output_tokens_per_sec"`
	Total         float64  `json:"total_tokens_per_sec"`
}

// ExperienceRow is one line of the experience ranking: what one user sees
// (tokens/sec/user).
type ExperienceRow struct {
	Rank           int     `json:"rank"`
	Label          string  `json:"label"`
	PrefillPerUser float64 `json:"prefill_tokens_per_sec_per_user"`
	OutputPerUser  float64 `json:"output_tokens_per_sec_per_user"`
}

func avg(e *Entry, tag string) (float64, bool) {
	v, ok := e.Value(tag, "avg")
	return v, ok && !math.IsNaN(v) && !math.IsInf(v, 0)
}

// CapacityRanking orders the entries that have total and output
// throughput by total tokens/s, highest first (ties keep argument order).
func CapacityRanking(es []Entry) []CapacityRow {
	var rows []CapacityRow
	for i := range es {
		total, ok1 := avg(&es[i], tagTotal)
		out, ok2 := avg(&es[i], tagOutput)
		if !ok1 || !ok2 {
			continue
		}
		r := CapacityRow{Label: es[i].Label, Input: total - out, Output: out, Total: total}
		if in, ok := avg(&es[i], tagInput); ok {
			r.MeasuredInput = &in
		}
		rows = append(rows, r)
	}
	slices.SortStableFunc(rows, func(a, b CapacityRow) int { return cmp.Compare(b.Total, a.Total) })
	for i := range rows {
		rows[i].Rank = i + 1
	}
	return rows
}

// ExperienceRanking orders the entries that have per-user output
// throughput by it, highest first.
func ExperienceRanking(es []Entry) []ExperienceRow {
	var rows []ExperienceRow
	for i := range es {
		out, ok := avg(&es[i], tagOutputPerUser)
		if !ok {
			continue
		}
		pre, _ := avg(&es[i], tagPrefillPerUser)
		rows = append(rows, ExperienceRow{Label: es[i].Label, PrefillPerUser: pre, OutputPerUser: out})
	}
	slices.SortStableFunc(rows, func(a, b ExperienceRow) int { return cmp.Compare(b.OutputPerUser, a.OutputPerUser) })
	for i := range rows {
		rows[i].Rank = i + 1
	}
	return rows
}

// Compared are the figures whose change against the baseline is
// reported: metric, statistic, and whether higher is better.
var Compared = []struct {
	Metric, Stat string
	Higher       bool
}{
	{tagTotal, "avg", true},
	{tagOutput, "avg", true},
	{tagOutputPerUser, "avg", true},
	{tagPrefillPerUser, "avg", true},
	{"request_throughput", "avg", true},
	{"time_to_first_token", "p99", false},
	{"inter_token_latency", "avg", false},
	{"request_latency", "p99", false},
}

// Delta is one figure of one entry against the baseline.
type Delta struct {
	Label    string  `json:"label"`
	Metric   string  `json:"metric"`
	Stat     string  `json:"stat"`
	Baseline float64 `json:"baseline"`
	Value    float64 `json:"value"`
	// Change is (value - baseline) / |baseline|; nil for a zero baseline.
	Change *float64 `json:"change"`
	// Better says whether the change is an improvement (by the metric's
	// direction).
	Better bool `json:"better"`
	// P is Welch's two-sided p-value when both sides have repeated runs
	// (n >= 2 and a standard deviation); nil otherwise. Significant is
	// P < alpha, nil without a test.
	P           *float64 `json:"p_value,omitempty"`
	Significant *bool    `json:"significant,omitempty"`
}

// Deltas compares every entry but the baseline with it, figure by figure
// (Compared), testing significance at alpha (e.g. 0.05) where both sides
// have repeated runs.
func Deltas(es []Entry, baseline int, alpha float64) []Delta {
	if baseline < 0 || baseline >= len(es) {
		return nil
	}
	base := &es[baseline]
	var out []Delta
	for i := range es {
		if i == baseline {
			continue
		}
		e := &es[i]
		for _, c := range Compared {
			b, ok1 := base.Value(c.Metric, c.Stat)
			v, ok2 := e.Value(c.Metric, c.Stat)
			if !ok1 || !ok2 {
				continue
			}
			d := Delta{Label: e.Label, Metric: c.Metric, Stat: c.Stat, Baseline: b, Value: v}
			if b != 0 {
				ch := (v - b) / math.Abs(b)
				d.Change = &ch
			}
			d.Better = (v > b) == c.Higher && v != b
			if p, ok := welchP(base, e, c.Metric, c.Stat); ok {
				d.P = &p
				sig := p < alpha
				d.Significant = &sig
			}
			out = append(out, d)
		}
	}
	return out
}

// welchP tests two multi-run entries' means of stat of metric.
func welchP(a, b *Entry, metric, stat string) (float64, bool) {
	if a.agg == nil || b.agg == nil {
		return 0, false
	}
	ia, ok1 := a.agg.Interval(metric, stat)
	ib, ok2 := b.agg.Interval(metric, stat)
	if !ok1 || !ok2 {
		return 0, false
	}
	_, _, p := stats.Welch(ia.Mean, ia.Std, a.Runs, ib.Mean, ib.Std, b.Runs)
	return p, !math.IsNaN(p)
}
