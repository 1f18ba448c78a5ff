package export

import (
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

// csvNumber is a CSV cell: "%.2f", or empty when f is not finite.
func csvNumber(f float64) string {
	if !stats.Finite(f) {
		return ""
	}
	return fixed2(f)
}
