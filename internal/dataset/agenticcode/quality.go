package agenticcode

import (
	"github.com/aiperf-go/aiperf/internal/metrics/stats"
	"math"
	"slices"
)

// Stats is AIPerf's PercentileStats: a distribution's count, mean,
// population standard deviation, median and percentiles, computed as
// numpy computes them (pairwise sums, linear-interpolation percentiles).
type Stats struct {
	Count                   int
	Mean, Std, Median       float64
	P05, P25, P75, P95, P99 float64
}

// statsOf summarizes values; digits >= 0 rounds every value as Python's
// round does (AIPerf's quality report: 2), -1 keeps them. No values give
// zeros.
func statsOf(values []float64, digits int) Stats {
	n := len(values)
	if n == 0 {
		return Stats{}
	}
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	mean := pairwiseSum(values) / float64(n)
	dev := make([]float64, n)
	for i, v := range values {
		d := v - mean
		dev[i] = d * d
	}
	s := Stats{
		Count: n, Mean: mean, Std: math.Sqrt(pairwiseSum(dev) / float64(n)), Median: median(sorted),
		P05: stats.Percentile(sorted, 5), P25: stats.Percentile(sorted, 25), P75: stats.Percentile(sorted, 75),
		P95: stats.Percentile(sorted, 95), P99: stats.Percentile(sorted, 99),
	}
	if digits >= 0 {
		for _, p := range []*float64{&s.Mean, &s.Std, &s.Median, &s.P05, &s.P25, &s.P75, &s.P95, &s.P99} {
			*p = pyRound(*p, digits)
		}
	}
	return s
}

// median is numpy's: the middle value, or the mean of the middle two.
func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

func (s Stats) json() obj {
	return obj{{"count", s.Count}, {"mean", s.Mean}, {"std", s.Std}, {"median", s.Median},
		{"p05", s.P05}, {"p25", s.P25}, {"p75", s.P75}, {"p95", s.P95}, {"p99", s.P99}}
}

// pctError is |observed - target| / target in percent (0 for a zero
// target).
func pctError(target, observed float64) float64 {
	if target == 0 {
		return 0
	}
	return math.Abs(observed-target) / target * 100
}

// metric is AIPerf's QualityMetric: observed against target.
func metric(values []float64, targetMean, targetMedian *float64) obj {
	o := statsOf(values, 2)
	var em, ed any
	if targetMean != nil {
		em = pyRound(pctError(*targetMean, o.Mean), 2)
	}
	if targetMedian != nil {
		ed = pyRound(pctError(*targetMedian, o.Median), 2)
	}
	return obj{{"target_mean", targetMean}, {"target_median", targetMedian}, {"observed", o.json()},
		{"pct_error_mean", em}, {"pct_error_median", ed}}
}

// configSummary flattens the configuration's main parameters, as
// quality.json's config_summary.
func configSummary(c *Config) obj {
	l1, l15 := c.Cache.Layer1Tokens, c.Cache.Layer15Tokens
	turns := 0
	if c.Turns != nil {
		turns = 1
	}
	s := obj{
		{"initial_context_mean", float64(l1+l15) + c.Cache.Layer2.Mean},
		{"initial_context_median", float64(l1+l15) + c.Cache.Layer2.Median},
		{"layer1_tokens", l1}, {"layer1_5_tokens", l15},
		{"layer2_mean", c.Cache.Layer2.Mean}, {"layer2_median", c.Cache.Layer2.Median},
		{"num_groups", c.Cache.Groups.NumGroups}, {"zipf_alpha", c.Cache.Groups.ZipfAlpha},
		{"new_tokens_per_turn_mean", c.NewTokensPerTurn.Mean}, {"new_tokens_per_turn_median", c.NewTokensPerTurn.Median},
		{"generation_length_mean", c.GenerationLength.Mean}, {"generation_length_median", c.GenerationLength.Median},
		{"max_prompt_tokens", c.MaxPromptTokens}, {"block_size", c.BlockSize},
		{"inter_turn_delay_agentic_fraction", c.InterTurnDelay.AgenticFraction},
		{"inter_turn_delay_agentic_mean_ms", c.InterTurnDelay.Agentic.Mean},
		{"inter_turn_delay_human_mean_ms", c.InterTurnDelay.Human.Mean},
		{"turn_mode_enabled", turns},
	}
	if r := c.Reset; r != nil {
		s = append(s, kv{"reset_base_probability", r.BaseProbability}, kv{"reset_context_scaling", r.ContextScaling})
	}
	if t := c.Turns; t != nil {
		trunc := 0
		if t.AllowTruncation {
			trunc = 1
		}
		s = append(s, kv{"turns_mean", t.Mean}, kv{"turns_median", t.Median}, kv{"turns_min", t.Min}, kv{"turns_max", t.Max},
			kv{"turns_allow_truncation", trunc})
		if t.MaxSessionAttempts != nil {
			s = append(s, kv{"turns_max_session_attempts", *t.MaxSessionAttempts})
		}
	}
	return s
}

// Quality is quality.json: the observed distributions against the
// configuration's targets, and how the sessions ended.
func Quality(sessions []Session, c *Config) obj {
	var initial, fresh, outputs, delays, turns, finalUse []float64
	ends := map[EndReason]int{}
	for _, s := range sessions {
		turns = append(turns, float64(len(s.Turns)))
		ends[s.End]++
		finalUse = append(finalUse, float64(s.Turns[len(s.Turns)-1].Input)/float64(c.MaxPromptTokens))
		for _, t := range s.Turns {
			if t.Index == 0 {
				initial = append(initial, float64(t.Input))
			} else {
				fresh = append(fresh, float64(t.NewTokens))
				delays = append(delays, t.DelayMs)
			}
			outputs = append(outputs, float64(t.Output))
		}
	}
	f := func(v float64) *float64 { return &v }
	prefix := float64(c.Cache.Layer1Tokens + c.Cache.Layer15Tokens)
	var vs obj
	if len(initial) > 0 {
		vs = append(vs, kv{"initial_context", metric(initial, f(prefix+c.Cache.Layer2.Mean), f(prefix+c.Cache.Layer2.Median))})
	}
	if len(outputs) > 0 {
		vs = append(vs, kv{"generation_length", metric(outputs, f(c.GenerationLength.Mean), f(c.GenerationLength.Median))})
	}
	if len(fresh) > 0 {
		vs = append(vs, kv{"new_tokens_per_turn", metric(fresh, f(c.NewTokensPerTurn.Mean), f(c.NewTokensPerTurn.Median))})
	}
	if len(delays) > 0 {
		vs = append(vs, kv{"inter_turn_delay_ms", metric(delays, nil, nil)})
	}
	if len(turns) > 0 {
		var tm, td *float64
		if t := c.Turns; t != nil {
			tm, td = f(float64(t.Mean)), f(float64(t.Median))
		}
		vs = append(vs, kv{"turns_per_session", metric(turns, tm, td)})
	}
	if len(turns) == 0 {
		turns, finalUse = []float64{0}, []float64{0}
	}
	total := len(sessions)
	frac := func(n int) float64 { return pyRound(float64(n)/float64(max(total, 1)), 4) }
	return obj{
		{"config_summary", configSummary(c)},
		{"observed_vs_target", vs},
		{"session_stats", statsOf(turns, 2).json()},
		{"session_end_stats", obj{
			{"total_sessions", total},
			{"forced_retires", ends[ForcedRetire]}, {"probabilistic_resets", ends[ProbabilisticReset]},
			{"target_turn_completions", ends[TargetTurnCount]}, {"restart_splits", ends[RestartSplit]},
			{"retire_fraction", frac(ends[ForcedRetire])}, {"reset_fraction", frac(ends[ProbabilisticReset])},
			{"target_turn_fraction", frac(ends[TargetTurnCount])}, {"restart_split_fraction", frac(ends[RestartSplit])},
			{"final_context_utilization", statsOf(finalUse, 2).json()},
		}},
	}
}
