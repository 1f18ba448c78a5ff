package metricview

import (
	"fmt"
	"strconv"
	"strings"
)

// ms prints a latency with two decimals.
func ms(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }

// Panel renders views for the console: one row per tool and metric, in
// ms, then the definitions and notes.
func Panel(views []View, requests int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\nMetric views: the same names as each tool defines them, from %d request records (ms):\n", requests)
	fmt.Fprintf(&b, "  %-22s %-6s %10s %10s %10s %10s %10s %12s\n", "tool", "metric", "mean", "median", "p90", "p99", "std", "count")
	for _, v := range views {
		for _, m := range v.Metrics {
			s := m.Stats
			approx := ""
			if !s.Exact {
				approx = " ~"
			}
			fmt.Fprintf(&b, "  %-22s %-6s %10s %10s %10s %10s %10s %12s%s\n", v.Title, m.Name, ms(s.Mean), ms(s.Median), ms(s.P90), ms(s.P99), ms(s.Std),
				strconv.FormatFloat(s.Count, 'f', 0, 64), approx)
		}
		if len(v.Metrics) == 0 {
			fmt.Fprintf(&b, "  %-22s (no streaming latencies in the records)\n", v.Title)
		}
	}
	b.WriteString("  Definitions:\n")
	seen := map[string]bool{}
	for _, v := range views {
		for _, m := range v.Metrics {
			k := v.Title + " " + m.Name
			if !seen[k] {
				seen[k] = true
				fmt.Fprintf(&b, "    %s %s: %s\n", v.Title, m.Name, m.Definition)
			}
		}
	}
	return b.String()
}
