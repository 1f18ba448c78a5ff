package export

import (
	"sort"
	"strings"

	"github.com/aiperf-go/aiperf/internal/metrics"
)

// csvStatHeader is the header of the request-metric section, in AIPerf's
// column order (count is not a CSV column).
const csvStatHeader = "Metric,avg,min,max,sum,p1,p5,p10,p25,p50,p75,p90,p95,p99,std"

// SummaryCSV renders profile_export_aiperf.csv as AIPerf 0.13 does: the
// record metrics (those with percentiles) under csvStatHeader, a blank line,
// then the single-value metrics under "Metric,Value". Both sections are
// sorted by tag. Lines end in CRLF (Python's csv module), values are "%.2f",
// and a non-finite value is an empty cell, but for an error-adjusted +Inf,
// which is "inf" (finite.go).
func SummaryCSV(s *metrics.Summary) []byte {
	var records, values []metrics.Result
	for _, r := range visibleResults(s) {
		if r.Stats != nil {
			records = append(records, r)
		} else {
			values = append(values, r)
		}
	}
	byTag := func(rs []metrics.Result) {
		sort.SliceStable(rs, func(i, j int) bool { return rs[i].Metric.Tag < rs[j].Metric.Tag })
	}
	byTag(records)
	byTag(values)

	var b strings.Builder
	row := func(cells ...string) {
		for i, c := range cells {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(csvField(c))
		}
		b.WriteString("\r\n")
	}
	num := csvNumber
	if len(records) > 0 {
		b.WriteString(csvStatHeader + "\r\n")
		for _, r := range records {
			st := r.Stats
			num := func(v float64) string { return unboundedCell(r.Metric, v, csvNumber) }
			row(csvName(r.Metric), num(st.Avg), num(st.Min), num(st.Max), num(st.Sum),
				num(st.P1), num(st.P5), num(st.P10), num(st.P25), num(st.P50),
				num(st.P75), num(st.P90), num(st.P95), num(st.P99), num(st.Std))
		}
		if len(values) > 0 {
			b.WriteString("\r\n")
		}
	}
	if len(values) > 0 {
		b.WriteString("Metric,Value\r\n")
		for _, r := range values {
			row(csvName(r.Metric), num(r.Value))
		}
	}
	return []byte(b.String())
}

// WriteSummaryCSV writes SummaryCSV to path atomically.
//
// A summary with nothing to write (no profiling record) writes no file,
// rather than an empty one; Written reports which was the case.
func WriteSummaryCSV(path string, s *metrics.Summary) (written bool, err error) {
	b := SummaryCSV(s)
	if len(b) == 0 {
		return false, nil
	}
	return true, writeFileAtomic(path, b)
}

// csvName is "<header> (<unit>)", without the unit for counts and
// requests, as AIPerf names CSV rows.
func csvName(m *metrics.Metric) string {
	u := unitOf(m)
	switch strings.ToLower(u) {
	case "", "count", "requests":
		return m.Header
	}
	if m.Header == "" {
		return "(" + u + ")"
	}
	return m.Header + " (" + u + ")"
}

// csvField quotes a cell the way Python's csv.writer does by default
// (QUOTE_MINIMAL): only when it holds a comma, a quote or a line break,
// doubling embedded quotes.
func csvField(s string) string {
	if !strings.ContainsAny(s, ",\"\r\n") {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}
