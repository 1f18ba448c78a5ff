package compare

import (
	"path/filepath"

	"github.com/jedib0t/go-pretty/v6/table"

	"github.com/aiperf-go/aiperf/internal/metricview"
	"github.com/aiperf-go/aiperf/internal/results"
)

// ViewRow is one entry's latency in one peer's definition.
type ViewRow struct {
	Label  string `json:"label"`
	Tool   string `json:"tool"`
	Metric string `json:"metric"`
	metricview.Stats
}

// AddViews computes the peer metric views of every entry that has its own
// per-request records (runs; a multi-run or sweep point has several).
// Entries without records are skipped and listed in missing.
func (r *Report) AddViews(tools []metricview.Tool) (missing []string, err error) {
	for i := range r.Entries {
		e := &r.Entries[i]
		path := filepath.Join(e.RecordsDir(), results.RecordsName)
		if e.RecordsDir() == "" || !fileExists(path) {
			missing = append(missing, e.Label)
			continue
		}
		vs, _, err := metricview.FromRecords(path, tools)
		if err != nil {
			return missing, err
		}
		for _, v := range vs {
			for _, m := range v.Metrics {
				r.Views = append(r.Views, ViewRow{Label: e.Label, Tool: v.Title, Metric: m.Name, Stats: m.Stats})
			}
		}
	}
	return missing, nil
}

func viewTable(rows []ViewRow, newTable func(table.Row, int) table.Writer) table.Writer {
	t := newTable(table.Row{"Run", "Tool", "Metric", "Mean", "Median", "P90", "P99"}, 4)
	for _, v := range rows {
		t.AppendRow(table.Row{v.Label, v.Tool, v.Metric, ms(v.Mean), ms(v.Median), ms(v.P90), ms(v.P99)})
	}
	return t
}
