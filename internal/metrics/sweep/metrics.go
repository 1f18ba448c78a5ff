package sweep

import "math"

// Metric is one sweep metric as AIPerf names it: its tag, header and unit,
// whether it is an "active" variant (console table "Active" rather than
// "Effective"), and the factor from the curve's per-ns unit to the unit.
type Metric struct {
	Tag, Header, Unit string
	Active            bool
	Scale             float64
}

// Metrics lists the sweep metrics in AIPerf's order: the nine effective
// ones, then the five active ones.
func Metrics() []Metric {
	const perSec = 1e9
	return []Metric{
		{"effective_concurrency", "Effective Concurrency", "requests", false, 1},
		{"effective_decode_throughput", "Effective Decode Throughput", "tokens/sec", false, perSec},
		{"effective_prefill_throughput", "Effective Prefill Throughput", "tokens/sec", false, perSec},
		{"effective_decode_concurrency", "Effective Decode Concurrency", "requests", false, 1},
		{"effective_prefill_concurrency", "Effective Prefill Concurrency", "requests", false, 1},
		{"effective_total_throughput", "Effective Total Throughput", "tokens/sec", false, perSec},
		{"effective_decode_throughput_per_user", "Effective Decode Throughput Per User", "tokens/sec/user", false, perSec},
		{"effective_prefill_throughput_per_user", "Effective Prefill Throughput Per User", "tokens/sec/user", false, perSec},
		{"tokens_in_flight", "Tokens In Flight", "tokens", false, 1},
		{"active_decode_throughput", "Active Decode Throughput", "tokens/sec", true, perSec},
		{"active_prefill_throughput", "Active Prefill Throughput", "tokens/sec", true, perSec},
		{"active_decode_throughput_per_user", "Active Decode Throughput Per User", "tokens/sec/user", true, perSec},
		{"active_prefill_throughput_per_user", "Active Prefill Throughput Per User", "tokens/sec/user", true, perSec},
		{"active_total_throughput", "Active Total Throughput", "tokens/sec", true, perSec},
	}
}

// Curves are the sweep-line step functions of a set of records (AIPerf's
// SweepLineCurves).
type Curves struct {
	Concurrency, Decode, Prefill, DecodeConcurrency, PrefillConcurrency Step
	Total, DecodePerUser, PrefillPerUser, TokensInFlight                Step
}

// Build computes the curves of recs, ICL-aware (AIPerf's default ragged
// store) when icl is true and at least one record kept its chunk gaps.
func Build(recs []Record, icl bool) Curves {
	n := len(recs)
	start, gen, end := make([]float64, n), make([]float64, n), make([]float64, n)
	isl, osl := make([]float64, n), make([]float64, n)
	hasICL := false
	for i, r := range recs {
		start[i], gen[i], end[i], isl[i], osl[i] = r.Start, r.Gen, r.End, r.ISL, r.OSL
		hasICL = hasICL || len(r.ICL) > 0
	}
	icl = icl && hasICL
	var c Curves
	c.Concurrency = Concurrency(start, end)
	c.DecodeConcurrency = Concurrency(gen, end)
	c.PrefillConcurrency = Concurrency(start, gen)
	if icl {
		c.Decode = ThroughputICL(recs)
		c.TokensInFlight = TokensInFlightICL(recs)
	} else {
		c.Decode = Throughput(gen, end, osl)
		c.TokensInFlight = TokensInFlight(recs)
	}
	c.Prefill = Prefill(start, gen, isl)
	c.Total = Total(start, gen, end, isl, osl)
	c.DecodePerUser = Divide(c.Decode, c.DecodeConcurrency)
	c.PrefillPerUser = Divide(c.Prefill, c.PrefillConcurrency)
	return c
}

// Compute returns the statistics of every metric of Metrics, in that
// order and already scaled to its unit, over the window [w0, w1] (AIPerf's
// SweepLineCurves.compute_metrics). Non-finite statistics become NaN.
func (c Curves) Compute(w0, w1 float64) []Stats {
	curves := []Step{c.Concurrency, c.Decode, c.Prefill, c.DecodeConcurrency, c.PrefillConcurrency,
		c.Total, c.DecodePerUser, c.PrefillPerUser, c.TokensInFlight}
	out := make([]Stats, 0, 14)
	specs := Metrics()
	for i, s := range curves {
		out = append(out, scaled(TimeWeighted(s, w0, w1), specs[i].Scale))
	}
	for i, p := range [][2]Step{
		{c.Decode, c.DecodeConcurrency},
		{c.Prefill, c.PrefillConcurrency},
		{c.DecodePerUser, c.DecodeConcurrency},
		{c.PrefillPerUser, c.PrefillConcurrency},
		{c.Total, c.Concurrency},
	} {
		out = append(out, scaled(ActiveWeighted(p[0], p[1], w0, w1), specs[9+i].Scale))
	}
	return out
}

func scaled(s Stats, k float64) Stats {
	f := func(x float64) float64 {
		v := x * k
		if math.IsInf(v, 0) {
			return math.NaN()
		}
		return v
	}
	return Stats{Avg: f(s.Avg), Min: f(s.Min), Max: f(s.Max), P50: f(s.P50), P90: f(s.P90), P95: f(s.P95), P99: f(s.P99), Std: f(s.Std)}
}
