package export

import (
	"fmt"
	"strconv"
	"strings"
)

// writeSpecDecodeHistogram writes AIPerf 0.14's
// "pooled_spec_decode_acceptance_histogram": accepted-draft count j (as
// a JSON key) to the verify steps that accepted exactly j, zero buckets
// left out, keys ascending.
func writeSpecDecodeHistogram(w *jsonw, h []int64) {
	w.key("pooled_spec_decode_acceptance_histogram")
	w.open('{')
	for j, c := range h {
		if c != 0 {
			w.key(strconv.Itoa(j))
			w.int(c)
		}
	}
	w.close('}')
}

// specHistogramCap is how many accepted-draft buckets the console line
// shows one by one; the rest fold into a trailing ">=cap" bucket, so the
// line stays one line whatever the draft length (AIPerf's cap, 8).
const specHistogramCap = 8

// acceptanceHistogramLine is AIPerf's one-line console rendering of the
// pooled histogram, printed under the Spec Decode table: each bucket's
// share of the verify steps, "" when there are none.
func acceptanceHistogramLine(h []int64) string {
	var total int64
	top := -1
	for j, c := range h {
		total += c
		if c > 0 {
			top = j
		}
	}
	if total <= 0 {
		return ""
	}
	overflow := top >= specHistogramCap
	if overflow {
		top = specHistogramCap - 1
	}
	pct := func(n int64) string { return fmt.Sprintf("%.0f%%", float64(n)/float64(total)*100) }
	var parts []string
	for j := 0; j <= top; j++ {
		var c int64
		if j < len(h) {
			c = h[j]
		}
		parts = append(parts, strconv.Itoa(j)+": "+pct(c))
	}
	if overflow {
		var folded int64
		for _, c := range h[specHistogramCap:] {
			folded += c
		}
		parts = append(parts, ">="+strconv.Itoa(specHistogramCap)+": "+pct(folded))
	}
	return "Accepted-draft histogram (% steps):  " + strings.Join(parts, "   ")
}
