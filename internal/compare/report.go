package compare

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/jedib0t/go-pretty/v6/table"
	"github.com/jedib0t/go-pretty/v6/text"
)

// Report is a whole comparison.
type Report struct {
	Entries    []Entry         `json:"entries"`
	Capacity   []CapacityRow   `json:"capacity_ranking"`
	Experience []ExperienceRow `json:"experience_ranking"`
	// Baseline is the label the deltas are against; empty with one entry.
	Baseline string  `json:"baseline,omitempty"`
	Alpha    float64 `json:"alpha"`
	Deltas   []Delta `json:"deltas,omitempty"`
	// Views are the peer metric views of the entries with records (see
	// AddViews); nil unless asked for.
	Views []ViewRow `json:"metric_views,omitempty"`
}

// Options shape a comparison.
type Options struct {
	// Baseline is the index of the entry the deltas compare against.
	Baseline int
	// Alpha is the significance level of the Welch tests (default 0.05).
	Alpha float64
}

// Build ranks the entries and computes the deltas.
func Build(es []Entry, o Options) *Report {
	if o.Alpha <= 0 || o.Alpha >= 1 {
		o.Alpha = 0.05
	}
	r := &Report{Entries: es, Capacity: CapacityRanking(es), Experience: ExperienceRanking(es), Alpha: o.Alpha}
	if len(es) > 1 && o.Baseline >= 0 && o.Baseline < len(es) {
		r.Baseline = es[o.Baseline].Label
		r.Deltas = Deltas(es, o.Baseline, o.Alpha)
	}
	return r
}

// rate prints a rate as the guide's tables do: whole numbers from 100 up,
// one decimal below (6385, 17.9).
func rate(v float64) string {
	if math.Abs(v) >= 100 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// modelHeader is the first column's title: "Model @ conc=N" when every
// entry ran at the same concurrency N (as the guide's tables), else
// "Model".
func (r *Report) modelHeader() string {
	c := 0.0
	for i, e := range r.Entries {
		if e.Concurrency <= 0 || (i > 0 && e.Concurrency != c) {
			return "Model"
		}
		c = e.Concurrency
	}
	if len(r.Entries) == 0 {
		return "Model"
	}
	return "Model @ conc=" + rate(c)
}

// tables builds the rendered tables in order, each with its title.
func (r *Report) tables() []struct {
	title string
	t     table.Writer
} {
	type tt = struct {
		title string
		t     table.Writer
	}
	var out []tt
	newTable := func(header table.Row, rightFrom int) table.Writer {
		t := table.NewWriter()
		t.AppendHeader(header)
		var cfgs []table.ColumnConfig
		for i := rightFrom; i <= len(header); i++ {
			cfgs = append(cfgs, table.ColumnConfig{Number: i, Align: text.AlignRight, AlignHeader: text.AlignRight})
		}
		t.SetColumnConfigs(cfgs)
		return t
	}
	if len(r.Capacity) > 0 {
		t := newTable(table.Row{r.modelHeader(), "Input t/s", "Output t/s", "Total t/s"}, 2)
		for _, c := range r.Capacity {
			t.AppendRow(table.Row{c.Label, "~" + rate(c.Input), rate(c.Output), rate(c.Total)})
		}
		out = append(out, tt{"Capacity ranking (tokens/sec for the whole node, all users together; input = total - output)", t})
	}
	if len(r.Experience) > 0 {
		t := newTable(table.Row{r.modelHeader(), "Prefill/User", "Output/User"}, 2)
		for _, e := range r.Experience {
			t.AppendRow(table.Row{e.Label, rate(e.PrefillPerUser), rate(e.OutputPerUser)})
		}
		out = append(out, tt{"Experience ranking (tokens/sec per user: what one session sees)", t})
	}
	if len(r.Deltas) > 0 {
		t := newTable(table.Row{"Run", "Metric", "Baseline", "Value", "Change", "Significant"}, 3)
		for _, d := range r.Deltas {
			change := "n/a"
			if d.Change != nil {
				change = fmt.Sprintf("%+.1f%%", *d.Change*100)
				if d.Better {
					change += " better"
				} else if *d.Change != 0 {
					change += " worse"
				}
			}
			sig := "no repeated runs"
			if d.Significant != nil {
				sig = fmt.Sprintf("no (p=%.3f)", *d.P)
				if *d.Significant {
					sig = fmt.Sprintf("yes (p=%.3f)", *d.P)
				}
			}
			name := d.Metric
			if d.Stat != "avg" {
				name += " " + d.Stat
			}
			t.AppendRow(table.Row{d.Label, name, trimNum(d.Baseline), trimNum(d.Value), change, sig})
		}
		out = append(out, tt{fmt.Sprintf("Change against %s (Welch's t-test at alpha %.2f where both have repeated runs)", r.Baseline, r.Alpha), t})
	}
	if len(r.Views) > 0 {
		out = append(out, tt{"Metric views (ITL/TPOT as each tool defines them, from the per-request records; ms)", viewTable(r.Views, newTable)})
	}
	return out
}

// ms prints a latency with two decimals.
func ms(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}

// trimNum prints a value with six significant digits.
func trimNum(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }

// WriteText writes the tables for a terminal.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	for i, t := range r.tables() {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(t.title + "\n")
		t.t.SetStyle(table.StyleLight)
		t.t.Style().Format.Header = text.FormatDefault // keep the metric names' case
		b.WriteString(t.t.Render() + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteMarkdown writes the tables as GitHub Markdown, each under a
// heading.
func (r *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	for i, t := range r.tables() {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString("### " + t.title + "\n\n")
		b.WriteString(t.t.RenderMarkdown() + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON writes the whole report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
