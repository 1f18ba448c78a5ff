package metrics

import (
	"math"

	"github.com/aiperf-go/aiperf/internal/record"
)

// runMetrics are AIPerf's run-level counts, timestamps, throughputs and
// goodput. Throughputs divide by the observation window when the accumulator
// has one, else by the benchmark duration.
func runMetrics() []*Metric {
	return []*Metric{
		{
			Tag: tagRequestCount, Header: "Request Count", ShortHeader: "Requests",
			Kind: KindAggregate, Agg: AggSum, Unit: UnitRequests, Integer: true,
			Flags:  FlagLargerIsBetter | FlagNoIndividualRecord,
			Order:  1100,
			record: one,
		},
		{
			Tag: tagErrorRequestCount, Header: "Error Request Count", ShortHeader: "Error Count",
			Kind: KindAggregate, Agg: AggSum, Unit: UnitRequests, Integer: true,
			Flags:  FlagErrorOnly | FlagNoIndividualRecord,
			record: one,
		},
		{
			// Failed requests whose error says the context was too long;
			// present (possibly 0) whenever a request failed, as AIPerf's.
			Tag: tagContextOverflowCount, Header: "Context Overflow Count", ShortHeader: "Ctx Overflow",
			Kind: KindAggregate, Agg: AggSum, Unit: UnitRequests, Integer: true,
			Flags: FlagErrorOnly | FlagNoIndividualRecord,
			record: func(c *recordContext) (float64, bool) {
				if c.rec.Error != nil && record.ContextOverflow(c.rec.Error.Message) {
					return 1, true
				}
				return 0, true
			},
		},
		{
			// Wall-clock Unix ns of the earliest valid request's start.
			Tag: tagMinRequest, Header: "Minimum Request Timestamp", ShortHeader: "Min Req",
			Kind: KindAggregate, Agg: AggMin, Unit: UnitNS, Integer: true,
			Flags: FlagNoIndividualRecord | FlagInternal, Group: GroupNone,
			record: func(c *recordContext) (float64, bool) { return float64(c.startNs), true },
		},
		{
			// Wall-clock Unix ns of the latest valid final response.
			Tag: tagMaxResponse, Header: "Maximum Response Timestamp", ShortHeader: "Max Resp",
			Kind: KindAggregate, Agg: AggMax, Unit: UnitNS, Integer: true,
			Flags: FlagNoIndividualRecord | FlagInternal, Group: GroupNone,
			Requires: []string{tagRequestLatency},
			record: func(c *recordContext) (float64, bool) {
				lat, ok := c.value(tagRequestLatency)
				return float64(c.startNs) + lat, ok
			},
		},
		{
			Tag: tagBenchmarkDuration, Header: "Benchmark Duration", ShortHeader: "Duration",
			Kind: KindDerived, Unit: UnitNS, DisplayUnit: UnitSec, Integer: true,
			Group: GroupNone, Requires: []string{tagMinRequest, tagMaxResponse},
			derive: func(c *deriveContext) (float64, bool) {
				lo, ok1 := c.value(tagMinRequest)
				hi, ok2 := c.value(tagMaxResponse)
				if !ok1 || !ok2 {
					return 0, false
				}
				d := hi - lo
				if c.hasDuration {
					d = float64(c.duration) // same quantity, without float rounding of epochs
				}
				if d <= 0 {
					return 0, false
				}
				return d, true
			},
		},
		rate(tagRequestThroughput, "Request Throughput", "Req/sec", UnitRequestsPerSec,
			FlagLargerIsBetter, GroupDefault, 900, tagRequestCount),
		rate("output_token_throughput", "Output Token Throughput", "Output TPS", UnitTokensPerSec,
			FlagProducesTokensOnly|FlagLargerIsBetter, GroupDefault, 800, tagTotalOSL),
		rate("input_token_throughput", "Input Token Throughput", "Input TPS", UnitTokensPerSec,
			FlagLargerIsBetter, GroupDefault, 805, tagTotalISL),
		rate("total_token_throughput", "Total Token Throughput", "Total TPS", UnitTokensPerSec,
			FlagProducesTokensOnly|FlagLargerIsBetter, GroupNone, 0, tagTotalISL, tagTotalOSL),
		{
			// 1 when the record meets every SLO, else 0. Its real
			// dependencies are the SLO metrics, known only at run time; the
			// Processor evaluates it after every other per-record metric.
			Tag: tagGoodRequestCount, Header: "Good Request Count",
			Kind: KindAggregate, Agg: AggSum, Unit: UnitRequests, Integer: true,
			Flags: FlagGoodput, Group: GroupNone,
			record: goodRequest,
		},
		{
			Tag: "good_request_fraction", Header: "GoodRequestFraction", ShortHeader: "GoodReqFrac",
			Kind: KindDerived, Unit: UnitRatio,
			Flags: FlagGoodput | FlagLargerIsBetter, Group: GroupNone,
			Optional: []string{tagGoodRequestCount, tagRequestCount, tagErrorRequestCount},
			derive: func(c *deriveContext) (float64, bool) {
				good, _ := c.value(tagGoodRequestCount)
				attempted := countOf(c, tagRequestCount) + countOf(c, tagErrorRequestCount)
				if attempted == 0 {
					return 0, true
				}
				return good / attempted, true
			},
		},
		rate("goodput", "Goodput", "Goodput", UnitRequestsPerSec,
			FlagGoodput, GroupDefault, 1000, tagGoodRequestCount),
		{
			Tag: "completed_request_count", Header: "Completed Requests (Success + Error)",
			ShortHeader: "Completed",
			Kind:        KindDerived, Unit: UnitRequests, Integer: true,
			Flags: FlagNoIndividualRecord, Order: 1075,
			Optional: []string{tagRequestCount, tagErrorRequestCount},
			derive: func(c *deriveContext) (float64, bool) {
				n := countOf(c, tagRequestCount) + countOf(c, tagErrorRequestCount)
				return n, n > 0
			},
		},
		{
			Tag: "request_error_rate", Header: "Request Error Rate", ShortHeader: "Err %",
			Kind: KindDerived, Unit: UnitPercent,
			Flags: FlagNoIndividualRecord, Order: 1080,
			Optional: []string{tagRequestCount, tagErrorRequestCount},
			derive: func(c *deriveContext) (float64, bool) {
				errs := countOf(c, tagErrorRequestCount)
				n := countOf(c, tagRequestCount) + errs
				if n <= 0 {
					return 0, false
				}
				return 100 * errs / n, true
			},
		},
	}
}

const tagRequestThroughput = "request_throughput"

// one is a counter's per-record contribution.
func one(*recordContext) (float64, bool) { return 1, true }

// countOf reads a counter, treating an absent one as zero (AIPerf: error
// counts are absent on clean runs, success counts on all-error runs).
func countOf(c *deriveContext, tag string) float64 {
	v, _ := c.value(tag)
	return math.Trunc(v)
}

// rate defines a derived throughput: the sum of the numerator metrics over
// the observation time in seconds. Like AIPerf, it also requires
// benchmark_duration to exist (there were valid requests).
func rate(tag, header, short string, unit Unit, flags Flags, group Group, order int, nums ...string) *Metric {
	return &Metric{
		Tag: tag, Header: header, ShortHeader: short,
		Kind: KindDerived, Unit: unit, Flags: flags, Group: group, Order: order,
		Requires: append(append([]string{}, nums...), tagBenchmarkDuration),
		derive: func(c *deriveContext) (float64, bool) {
			var total float64
			for _, n := range nums {
				v, ok := c.value(n)
				if !ok {
					return 0, false
				}
				total += v
			}
			sec, ok := c.observationSeconds()
			if !ok {
				return 0, false
			}
			return total / sec, true
		},
	}
}

// goodRequest reports 1 when the record meets every SLO (>= for
// LARGER_IS_BETTER metrics, <= otherwise; thresholds in base units). As in
// AIPerf, a record missing any SLO metric gets no value, which counts as
// not good; with no SLOs every record counts 0.
func goodRequest(c *recordContext) (float64, bool) {
	if len(c.slos) == 0 {
		return 0, true
	}
	vals := make([]float64, len(c.slos))
	for i, s := range c.slos {
		v, ok := c.value(s.metric.Tag)
		if !ok {
			return 0, false
		}
		vals[i] = v
	}
	for i, s := range c.slos {
		if !s.passes(vals[i]) {
			return 0, true
		}
	}
	return 1, true
}
