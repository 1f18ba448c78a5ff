package energy

import (
	"slices"
	"strings"

	"github.com/aiperf-go/aiperf/internal/export"
	"github.com/aiperf-go/aiperf/internal/metrics"
)

// Tables renders AIPerf's "GPU Power Efficiency (<vendor>)" tables, one per
// platform present in results, rows in display order with their mean:
// "Energy Delay Product (J*s)", "Average GPU Power (W)", ... A title
// ends in titleSuffix (" (simulated GPUs)" when the GPUs are invented).
func Tables(results []metrics.Result, titleSuffix string, width int) string {
	var b strings.Builder
	for _, platform := range []string{"amd", "nvidia"} {
		v := vendors[platform]
		var rows []metrics.Result
		for _, r := range results {
			if strings.HasPrefix(r.Metric.Tag, v.prefix) {
				rows = append(rows, r)
			}
		}
		if len(rows) == 0 {
			continue
		}
		slices.SortStableFunc(rows, func(a, c metrics.Result) int { return a.Metric.Order - c.Metric.Order })
		cells := make([][]string, len(rows))
		for i, r := range rows {
			label := r.Metric.Header + " (" + string(r.Metric.DisplayUnit) + ")"
			if len(r.Metric.Header) > 30 {
				label = r.Metric.Header + "\n(" + string(r.Metric.DisplayUnit) + ")"
			}
			cells[i] = []string{label, export.Grouped2(r.Value)}
		}
		b.WriteString("\n")
		b.WriteString(export.MetricTable(v.title+titleSuffix, []string{"Metric", "avg"}, cells, width))
	}
	return b.String()
}
