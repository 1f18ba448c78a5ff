package export

import (
	"math"

	"github.com/aiperf-go/aiperf/internal/metrics"
	"github.com/aiperf-go/aiperf/internal/metrics/stats"
)

// This file is the export boundary for non-finite numbers: NaN, +Inf and
// -Inf never reach an artifact. The metrics package already leaves
// non-finite values out of its results, but the artifacts must not depend
// on that, so every number is checked again here, where it is written.
// AIPerf's policy, kept everywhere:
//
//   - a summary metric whose value (or avg) is not finite is left out of
//     every export (visibleResults);
//   - any other non-finite statistic is omitted key by key in the JSON
//     summary and is an empty cell in the CSV;
//   - a per-record value that is not finite is left out of the JSONL, and
//     a list keeps only its finite elements;
//   - the console shows "N/A".
//
// The one exception is an error-adjusted (adj_*) result: each failed request
// counts in it as a latency without end, so +Inf is its value, not a missing
// one. AIPerf writes that +Inf as null in the JSON files (the key is
// kept), "inf" in the CSV files and on the console; so do we (unboundedCell,
// appendStatJSON). Its std, undefined over +Inf, is left out as AIPerf
// leaves it out.
//
// The writers below are the only way a float reaches a JSON, CSV or text
// artifact. Callers omit non-finite values first, as the policy says; the
// writers are the backstop and never spell NaN or Inf: JSON gets null (a
// valid document), CSV an empty cell, text "N/A".

// notAvailable is what the console shows for a value it does not have.
const notAvailable = "N/A"

// appendJSONNumber writes f as AIPerf's orjson does ("10.0"), or null when
// f is not finite.
func appendJSONNumber(dst []byte, f float64) []byte {
	if !stats.Finite(f) {
		return append(dst, "null"...)
	}
	return appendJSONFloat(dst, f)
}

// unbounded reports whether v is an error-adjusted metric's +Inf, a value
// to write (see above) rather than one to omit.
func unbounded(m *metrics.Metric, v float64) bool {
	return m != nil && m.ErrorAdjusted() && math.IsInf(v, 1)
}

// unboundedCell is a CSV or console cell for m's value v: "inf" for an
// error-adjusted +Inf (Python's f"{inf:.2f}", as AIPerf prints it), else
// cell(v).
func unboundedCell(m *metrics.Metric, v float64, cell func(float64) string) string {
	if unbounded(m, v) {
		return "inf"
	}
	return cell(v)
}

// csvNumber is a CSV cell: "%.2f", or empty when f is not finite.
func csvNumber(f float64) string {
	if !stats.Finite(f) {
		return ""
	}
	return fixed2(f)
}
