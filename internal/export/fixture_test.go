package export

import (
	"flag"
	"path/filepath"
	"testing"
	"time"

	goldenfile "github.com/aiperf-go/aiperf/internal/testenv/golden"

	"github.com/aiperf-go/aiperf/internal/metrics"
	"github.com/aiperf-go/aiperf/internal/record"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// golden compares got with testdata/name, rewriting it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), got, *update)
}

// fixedWall is a run clock that started at a fixed epoch instant.
type fixedWall int64

func (w fixedWall) WallNanos(d time.Duration) int64 { return int64(w) + int64(d) }

// testWall started at 2026-11-30T01:59:31.870762149Z.
const testWall = fixedWall(1796003971870762149)

// Metric definitions shaped like the metrics package's, built here so the
// tests do not depend on its registry.
var (
	mTTFT = &metrics.Metric{Tag: "time_to_first_token", Header: "Time to First Token", Kind: metrics.KindRecord,
		Unit: metrics.UnitNS, DisplayUnit: metrics.UnitMS, Flags: metrics.FlagStreamingTokensOnly, Order: 100}
	mTTST = &metrics.Metric{Tag: "time_to_second_token", Header: "Time to Second Token", Kind: metrics.KindRecord,
		Unit: metrics.UnitNS, DisplayUnit: metrics.UnitMS, Flags: metrics.FlagStreamingTokensOnly, Order: 200}
	mLatency = &metrics.Metric{Tag: "request_latency", Header: "Request Latency", Kind: metrics.KindRecord,
		Unit: metrics.UnitNS, DisplayUnit: metrics.UnitMS, Order: 300}
	mITL = &metrics.Metric{Tag: "inter_token_latency", Header: "Inter Token Latency", Kind: metrics.KindRecord,
		Unit: metrics.UnitNS, DisplayUnit: metrics.UnitMS, Flags: metrics.FlagStreamingTokensOnly, Order: 400}
	mOTPU = &metrics.Metric{Tag: "output_token_throughput_per_user", Header: "Output Token Throughput Per User",
		Kind: metrics.KindRecord, Unit: metrics.UnitTokensPerSecUser,
		Flags: metrics.FlagStreamingTokensOnly | metrics.FlagLargerIsBetter, Order: 500}
	mOSL = &metrics.Metric{Tag: "output_sequence_length", Header: "Output Sequence Length", Kind: metrics.KindRecord,
		Unit: metrics.UnitTokens, Flags: metrics.FlagProducesTokensOnly | metrics.FlagLargerIsBetter, Order: 600, Integer: true}
	mISL = &metrics.Metric{Tag: "input_sequence_length", Header: "Input Sequence Length", Kind: metrics.KindRecord,
		Unit: metrics.UnitTokens, Flags: metrics.FlagTokenizesInputOnly | metrics.FlagLargerIsBetter, Order: 700, Integer: true}
	mICL = &metrics.Metric{Tag: "inter_chunk_latency", Header: "Inter Chunk Latency", Kind: metrics.KindRecord,
		Unit: metrics.UnitNS, DisplayUnit: metrics.UnitMS, Flags: metrics.FlagStreamingTokensOnly, Group: metrics.GroupNone, List: true}
	mUsagePrompt = &metrics.Metric{Tag: "usage_prompt_tokens", Header: "Usage Prompt Tokens", Kind: metrics.KindRecord,
		Unit: metrics.UnitTokens, Flags: metrics.FlagTokenizesInputOnly | metrics.FlagLargerIsBetter, Order: 1000,
		Group: metrics.GroupUsage, Integer: true}
	mOSLDiff = &metrics.Metric{Tag: "osl_mismatch_diff_pct", Header: "OSL Mismatch Diff %", Kind: metrics.KindRecord,
		Unit: metrics.UnitPercent, Flags: metrics.FlagProducesTokensOnly, Group: metrics.GroupNone}
	mLag = &metrics.Metric{Tag: "schedule_lag", Header: "Schedule Lag", Kind: metrics.KindRecord,
		Unit: metrics.UnitNS, DisplayUnit: metrics.UnitMS, Group: metrics.GroupNone, EveryRecord: true}
	mErrorISL = &metrics.Metric{Tag: "error_isl", Header: "Error Input Sequence Length", Kind: metrics.KindRecord,
		Unit: metrics.UnitTokens, Flags: metrics.FlagTokenizesInputOnly | metrics.FlagLargerIsBetter | metrics.FlagErrorOnly,
		Group: metrics.GroupNone, Integer: true}
	mCreditDrop = &metrics.Metric{Tag: "credit_drop_latency", Header: "Credit Drop Latency", Kind: metrics.KindRecord,
		Unit: metrics.UnitNS, DisplayUnit: metrics.UnitMS, Flags: metrics.FlagInternal}

	mRequestCount = &metrics.Metric{Tag: "request_count", Header: "Request Count", Kind: metrics.KindAggregate,
		Unit: metrics.UnitRequests, Flags: metrics.FlagLargerIsBetter | metrics.FlagNoIndividualRecord, Order: 1100, Integer: true}
	mErrorCount = &metrics.Metric{Tag: "error_request_count", Header: "Error Request Count", Kind: metrics.KindAggregate,
		Unit: metrics.UnitRequests, Flags: metrics.FlagErrorOnly | metrics.FlagNoIndividualRecord, Integer: true}
	mOSLMismatch = &metrics.Metric{Tag: "osl_mismatch_count", Header: "OSL Mismatch Count", Kind: metrics.KindAggregate,
		Unit: metrics.UnitRequests, Flags: metrics.FlagProducesTokensOnly | metrics.FlagNoIndividualRecord, Group: metrics.GroupNone}
	mUsageDisc = &metrics.Metric{Tag: "usage_discrepancy_count", Header: "Usage Discrepancy Count", Kind: metrics.KindAggregate,
		Unit: metrics.UnitRequests, Flags: metrics.FlagUsageDiffOnly | metrics.FlagNoIndividualRecord, Group: metrics.GroupNone}
	mLate = &metrics.Metric{Tag: "late_request_count", Header: "Late Request Count", Kind: metrics.KindAggregate,
		Unit: metrics.UnitRequests, Flags: metrics.FlagNoIndividualRecord, Group: metrics.GroupNone, EveryRecord: true}
	mMinTS = &metrics.Metric{Tag: "min_request_timestamp", Header: "Minimum Request Timestamp", Kind: metrics.KindAggregate,
		Unit: metrics.UnitNS, Flags: metrics.FlagNoIndividualRecord | metrics.FlagInternal, Group: metrics.GroupNone}

	mThroughput = &metrics.Metric{Tag: "request_throughput", Header: "Request Throughput", Kind: metrics.KindDerived,
		Unit: metrics.UnitRequestsPerSec, Flags: metrics.FlagLargerIsBetter, Order: 900}
	mOutTput = &metrics.Metric{Tag: "output_token_throughput", Header: "Output Token Throughput", Kind: metrics.KindDerived,
		Unit: metrics.UnitTokensPerSec, Flags: metrics.FlagProducesTokensOnly | metrics.FlagLargerIsBetter, Order: 800}
	mDuration = &metrics.Metric{Tag: "benchmark_duration", Header: "Benchmark Duration", Kind: metrics.KindDerived,
		Unit: metrics.UnitNS, DisplayUnit: metrics.UnitSec, Group: metrics.GroupNone}
	mTotalOSL = &metrics.Metric{Tag: "total_osl", Header: "Total Output Sequence Length", Kind: metrics.KindDerived,
		Unit: metrics.UnitTokens, Flags: metrics.FlagProducesTokensOnly | metrics.FlagLargerIsBetter, Group: metrics.GroupNone}
	mTotalUsagePrompt = &metrics.Metric{Tag: "total_usage_prompt_tokens", Header: "Total Usage Prompt Tokens",
		Kind: metrics.KindDerived, Unit: metrics.UnitTokens, Order: 2000, Group: metrics.GroupUsage}
	mCompleted = &metrics.Metric{Tag: "completed_request_count", Header: "Completed Requests (Success + Error)",
		Kind: metrics.KindDerived, Unit: metrics.UnitRequests, Order: 1075}
	mErrorRate = &metrics.Metric{Tag: "request_error_rate", Header: "Request Error Rate", Kind: metrics.KindDerived,
		Unit: metrics.UnitPercent, Flags: metrics.FlagNoIndividualRecord, Order: 1080}
)

// statsOf builds a distribution whose percentiles step evenly from lo to hi.
func statsOf(lo, hi float64, n int) *metrics.Stats {
	at := func(q float64) float64 { return lo + (hi-lo)*q }
	avg := at(0.45)
	return &metrics.Stats{
		Avg: avg, Min: lo, Max: hi, Sum: avg * float64(n),
		P1: at(0.01), P5: at(0.05), P10: at(0.10), P25: at(0.25), P50: at(0.5),
		P75: at(0.75), P90: at(0.9), P95: at(0.95), P99: at(0.99),
		Std: (hi - lo) / 4, Count: n,
	}
}

// fixtureSummary is a 10-request streaming chat run with two failures,
// covering record, aggregate and derived metrics, hidden and grouped ones.
func fixtureSummary() *metrics.Summary {
	r := func(m *metrics.Metric, st *metrics.Stats) metrics.Result { return metrics.Result{Metric: m, Stats: st} }
	v := func(m *metrics.Metric, x float64) metrics.Result { return metrics.Result{Metric: m, Value: x} }
	return &metrics.Summary{
		Results: []metrics.Result{
			r(mTTFT, statsOf(20.792098, 50.801236, 8)),
			r(mTTST, statsOf(4.317183, 5.45131, 8)),
			r(mLatency, statsOf(59.423409, 89.071005, 8)),
			r(mITL, statsOf(5.124481714285714, 5.89963, 8)),
			r(mOTPU, statsOf(169.5021552199036, 1195.14168568740553, 8)),
			r(mOSL, statsOf(8, 8, 8)),
			r(mISL, statsOf(50, 50, 8)),
			v(mOutTput, 217.75315624693994),
			v(mThroughput, 27.219144530867492),
			r(mUsagePrompt, statsOf(100, 100, 8)),
			v(mCompleted, 10),
			v(mErrorRate, 20),
			v(mRequestCount, 8),
			v(mTotalUsagePrompt, 800),
			r(mCreditDrop, statsOf(0.1, 0.2, 10)),
			r(mErrorISL, statsOf(50, 50, 2)),
			r(mICL, statsOf(1.462029, 8.058532, 56)),
			r(mLag, statsOf(0.012, 1.6, 10)),
			r(mOSLDiff, statsOf(-25, 0, 8)),
			v(mDuration, 0.35881523200000004),
			v(mErrorCount, 2),
			v(mLate, 1),
			v(mMinTS, 1.796003971870762e18),
			v(mOSLMismatch, 2),
			v(mTotalOSL, 64),
			v(mUsageDisc, 8),
		},
		Errors: []metrics.ErrorCount{
			{Error: record.ErrorDetails{Code: 500, Type: "Internal Server Error", Message: `{"error":"boom, again"}`}, Count: 1},
			{Error: record.ErrorDetails{Type: record.TypeConnect, Message: "dial tcp 127.0.0.1:8000: connect: connection refused"}, Count: 1},
		},
		Start: time.Unix(0, 1796003971870762149).UTC(),
		End:   time.Unix(0, 1796003972238150624).UTC(),
	}
}

func fixtureRunInfo() RunInfo {
	seed := uint64(7)
	return RunInfo{
		Version:     "0.13.0",
		BenchmarkID: "b3223d808ac2",
		InputConfig: map[string]any{
			"endpoint": map[string]any{"type": "chat", "streaming": true, "urls": []string{"http://localhost:8000"}},
			"models":   []string{"mock-model"},
		},
		RandomSeed: &seed,
		CLICommand: "aiperf profile -m mock-model --streaming --concurrency 2 --request-count 10",
		IsComplete: true,
	}
}

// fixtureRecords are a streamed success, a failed request and a cancelled
// one, with their processed values.
func fixtureRecords() []*metrics.Processed {
	ok := &record.Record{
		Seq: 1, ConversationID: "session_000001", XRequestID: "db8a20c0-ec7b-4b5d-8213-4ce86aca374c",
		XCorrelationID: "002b40cd-bb9b-4098-b672-7480ba7aaa0a", WorkerID: "worker_680cfc7b", Model: "mock-model",
		Due: 4245396, Sent: 13876080, Ack: 37734395, End: 94316885, Status: 200, Streaming: true,
		Chunks: []record.Chunk{
			{At: 57953123, Data: []byte(`{"choices":[{"delta":{"content":"Hello"}}]}`)},
			{At: 63049481, Data: []byte(`{"choices":[{"delta":{"content":" world"}}]}`)},
			{At: 94316885, Data: []byte(`[DONE]`)},
		},
		InputTokens: 50, RequestedOSL: 8,
	}
	fail := &record.Record{
		Seq: 2, ConversationID: "session_000002", XRequestID: "2d837aed-c5c3-4357-93e4-1129cc56c94c",
		XCorrelationID: "3c722ecd-fe27-442d-b391-69f4d011088b", WorkerID: "worker_680cfc7b",
		Due: 5000000, Sent: 5100000, End: 6100000,
		Error: &record.ErrorDetails{Type: record.TypeConnect, Message: "dial tcp 127.0.0.1:8000: connect: connection refused"},
	}
	cancelled := &record.Record{
		Seq: 3, ConversationID: "session_000003", XRequestID: "5b84211d-6c23-49b9-8267-70cd0ac20cc8",
		XCorrelationID: "189b872d-ae04-449f-a52e-e0e766fd7af6", WorkerID: "worker_332f72b7",
		Due: 7000000, Sent: 7000500, Ack: 9000000, End: 1007000500, Status: 200, Streaming: true,
		Chunks:    []record.Chunk{{At: 300000000, Event: "message", Data: []byte(`{"choices":[{"delta":{"content":"Hi"}}]}`)}},
		Cancelled: true, CancelledAt: 1007000500,
		Error: record.CancelledError(1000 * time.Millisecond),
	}
	return []*metrics.Processed{
		{Record: ok, Valid: true, ProcessorID: "record_processor_35a09e74", Values: []metrics.Value{
			{Metric: mTTFT, Scalar: 44.077042999999996},
			{Metric: mUsagePrompt, Scalar: 100},
			{Metric: mOSL, Scalar: 8},
			{Metric: mLatency, Scalar: 80.157105},
			{Metric: mTTST, Scalar: 5.0963579999999995},
			{Metric: mISL, Scalar: 50},
			{Metric: mICL, List: []float64{5.096358, 31.267404}},
			{Metric: mOSLDiff, Scalar: 0},
			{Metric: mCreditDrop, Scalar: 0.2}, // INTERNAL: left out
			{Metric: mRequestCount, Scalar: 1}, // NO_INDIVIDUAL_RECORDS: left out
			{Metric: mOTPU, Scalar: 194.0129703768247},
			{Metric: mLag, Scalar: 9.630684},
		}},
		{Record: fail, ProcessorID: "record_processor_35a09e74", Values: []metrics.Value{
			{Metric: mErrorISL, Scalar: 50},
			{Metric: mLag, Scalar: 0.1},
		}},
		{Record: cancelled, ProcessorID: "record_processor_b329331e", Values: []metrics.Value{
			{Metric: mErrorISL, Scalar: 50},
			{Metric: mLag, Scalar: 0.0005},
		}},
	}
}
