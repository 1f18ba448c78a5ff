package export

import (
	"github.com/aiperf-go/aiperf/internal/metrics/stats"
	"github.com/aiperf-go/aiperf/internal/pyfmt"
	"strconv"
)

// appendJSONFloat writes a finite float as orjson does in AIPerf's JSON and
// JSONL artifacts ("10.0", "0.000015", "1e-7", "1e+16").
func appendJSONFloat(dst []byte, f float64) []byte { return pyfmt.AppendJSON(dst, f) }

// AppendJSONFloat appends a finite f as AIPerf's JSON artifacts spell it
// (orjson: "10.0", "0.000015", "1e-7"), for other writers of AIPerf-shaped
// JSON such as the multi-run aggregates. The caller handles NaN and Inf.
func AppendJSONFloat(dst []byte, f float64) []byte { return appendJSONFloat(dst, f) }

// pyRepr is Python's repr(float), used where AIPerf formats a float into a
// name (the artifact directory's "request_rate20.0").
func pyRepr(f float64) string { return pyfmt.Float(f) }

// fixed2 is Python's f"{v:.2f}": correctly rounded, as strconv is. A
// non-finite v is "N/A" (see finite.go).
func fixed2(v float64) string {
	if !stats.Finite(v) {
		return notAvailable
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// grouped2 is Python's f"{v:,.2f}", as AIPerf's console tables print
// values; a non-finite v is "N/A".
func grouped2(v float64) string {
	if !stats.Finite(v) {
		return notAvailable
	}
	return pyfmt.Grouped(v, 2)
}

// groupedInt is Python's f"{n:,}".
func groupedInt(n int) string { return pyfmt.GroupedInt(n) }

// PyRepr is Python's repr of a float ("20.0", "1.5e-05"), for other
// writers of AIPerf's names.
func PyRepr(f float64) string { return pyfmt.Float(f) }
