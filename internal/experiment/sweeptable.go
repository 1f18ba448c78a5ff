package experiment

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/aiperf-go/aiperf/internal/config"
)

// sweepHeadline are the columns of the live sweep table, as AIPerf's:
// (metric, statistic).
var sweepHeadline = [][2]string{
	{"output_token_throughput", "avg"},
	{"time_to_first_token", "p99"},
	{"inter_token_latency", "p99"},
	{"request_latency", "p95"},
}

// sweepTable is the live table of a sweep: one row per finished
// variation, re-printed whole after each (the latest block is the truth).
type sweepTable struct {
	params []string // dot paths, sorted
	level  float64
	rows   [][]string
}

func newSweepTable(vars []config.Variation, level float64) *sweepTable {
	var params []string
	for i := range vars {
		for _, p := range vars[i].Params {
			if !slices.Contains(params, p.Path) {
				params = append(params, p.Path)
			}
		}
	}
	slices.Sort(params)
	return &sweepTable{params: params, level: level}
}

// add appends the row of a variation whose runs are all done: its
// parameter values, the mean across its runs of each headline statistic,
// and its number of runs.
func (t *sweepTable) add(v *config.Variation, results []runResult) {
	row := make([]string, 0, len(t.params)+len(sweepHeadline)+1)
	for _, name := range t.params {
		cell := ""
		for _, p := range v.Params {
			if p.Path == name {
				cell = pyStr(p.Value)
			}
		}
		row = append(row, cell)
	}
	a, ok := aggregateConfidence(results, t.level)
	for _, h := range sweepHeadline {
		cell := ""
		if ok {
			if m, found := a.metric(h[0] + "_" + h[1]); found {
				cell = fixed(m.C.Mean, 2)
			}
		}
		row = append(row, cell)
	}
	t.rows = append(t.rows, append(row, fmt.Sprint(len(results))))
}

// render writes the table, columns right-aligned.
func (t *sweepTable) render(w io.Writer) {
	header := slices.Clone(t.params)
	for _, h := range sweepHeadline {
		header = append(header, h[0]+" "+h[1])
	}
	header = append(header, "trials")
	widths := make([]int, len(header))
	for i, h := range header {
		widths[i] = len(h)
	}
	for _, r := range t.rows {
		for i, c := range r {
			widths[i] = max(widths[i], len(c))
		}
	}
	var b strings.Builder
	line := func(cells []string) {
		for i, c := range cells {
			if i > 0 {
				b.WriteString("  ")
			}
			fmt.Fprintf(&b, "%*s", widths[i], c)
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
	line(header)
	total := len(widths)*2 - 2
	for _, wd := range widths {
		total += wd
	}
	b.WriteString(strings.Repeat("-", total) + "\n")
	for _, r := range t.rows {
		line(r)
	}
	b.WriteString("\n")
	io.WriteString(w, b.String())
}
