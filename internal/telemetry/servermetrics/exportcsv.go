package servermetrics

import (
	"slices"
	"strconv"
	"strings"

	"github.com/aiperf-go/aiperf/internal/export"
	"github.com/aiperf-go/aiperf/internal/telemetry/prom"
)

// csvStatKeys are each section's statistic columns, in AIPerf's order.
var csvStatKeys = map[prom.Type][]string{
	prom.Gauge:     {"avg", "min", "max", "std", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99"},
	prom.Unknown:   {"avg", "min", "max", "std", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99"},
	prom.Counter:   {"total", "rate", "rate_avg", "rate_min", "rate_max", "rate_std"},
	prom.Histogram: {"count", "count_rate", "sum", "sum_rate", "avg", "p1_estimate", "p5_estimate", "p10_estimate", "p25_estimate", "p50_estimate", "p75_estimate", "p90_estimate", "p95_estimate", "p99_estimate"},
}

// csvRow is one series of the CSV.
type csvRow struct {
	endpoint, name, unit, help string
	series                     *SeriesStats
}

func (r *csvRow) info() bool { return strings.HasSuffix(r.name, "_info") }

// CSV renders server_metrics_export.csv as AIPerf 0.13 does: comment lines
// naming the version and benchmark, then one section per metric type
// (gauge, counter, histogram, untyped) separated by a blank row, each with
// its statistic columns, one column per label and the description;
// histograms add their buckets as "le=count;...". Gauges named *_info
// (configuration carried in labels) get a last section of one row per
// label instead. Values are "%.4f", counts whole numbers; comment lines
// end in LF and rows in CRLF, as Python's csv module writes them.
func (x *Export) CSV() []byte {
	var b strings.Builder
	b.WriteString("# AIPerf Server Metrics Export (CSV)\n")
	b.WriteString("# aiperf_version: " + x.Version + "\n")
	b.WriteString("# schema_version: 1.0\n")
	b.WriteString("# benchmark_id: " + x.BenchmarkID + "\n")
	b.WriteString("# Note: Same benchmark_id and version appear in JSON and Parquet exports\n")
	b.WriteString("#\n")
	if x.ProfilingSummary == nil {
		return []byte(b.String())
	}
	byType := map[prom.Type][]csvRow{}
	var infos []csvRow
	for i := range x.ProfilingSummary.Metrics {
		m := &x.ProfilingSummary.Metrics[i]
		for j := range m.Series {
			r := csvRow{prom.EndpointDisplay(m.Series[j].Endpoint), m.Name, m.Unit, m.Help, &m.Series[j]}
			if m.Type == prom.Gauge && r.info() {
				infos = append(infos, r)
				continue
			}
			byType[m.Type] = append(byType[m.Type], r)
		}
	}
	firstSection := true
	for _, t := range []prom.Type{prom.Gauge, prom.Counter, prom.Histogram, prom.Unknown} {
		rows := byType[t]
		if len(rows) == 0 {
			continue
		}
		if !firstSection {
			b.WriteString("\r\n")
		}
		firstSection = false
		writeSection(&b, t, rows)
	}
	if len(infos) > 0 {
		if !firstSection {
			b.WriteString("\r\n")
		}
		b.WriteString(export.CSVRow("Endpoint", "Metric", "Key", "Value", "Description"))
		slices.SortStableFunc(infos, func(a, c csvRow) int {
			if d := strings.Compare(a.name, c.name); d != 0 {
				return d
			}
			return strings.Compare(a.endpoint, c.endpoint)
		})
		for _, r := range infos {
			for _, l := range r.series.Labels { // sorted by name
				b.WriteString(export.CSVRow(r.endpoint, r.name, l.Name, l.Value, r.help))
			}
		}
	}
	return []byte(b.String())
}

func writeSection(b *strings.Builder, t prom.Type, rows []csvRow) {
	keys := csvStatKeys[t]
	order := labelOrder(rows)
	header := append([]string{"Endpoint", "Type", "Metric", "Unit"}, keys...)
	header = append(header, order...)
	header = append(header, "Description")
	if t == prom.Histogram {
		header = append(header, "buckets")
	}
	b.WriteString(export.CSVRow(header...))
	type sorted struct {
		pattern, name, endpoint, labels string
		row                             csvRow
	}
	list := make([]sorted, len(rows))
	for i, r := range rows {
		var p strings.Builder
		for _, col := range order {
			if hasLabel(r.series.Labels, col) {
				p.WriteByte('1')
			} else {
				p.WriteByte('0')
			}
		}
		list[i] = sorted{p.String(), r.name, r.endpoint, pyLabels(r.series.Labels), r}
	}
	slices.SortStableFunc(list, func(a, c sorted) int {
		for _, d := range [...]int{
			strings.Compare(a.pattern, c.pattern), strings.Compare(a.name, c.name),
			strings.Compare(a.endpoint, c.endpoint), strings.Compare(a.labels, c.labels),
		} {
			if d != 0 {
				return d
			}
		}
		return 0
	})
	for _, s := range list {
		r := s.row
		cells := []string{r.endpoint, t.String(), r.name, r.unit}
		vals := map[string]stat{}
		for _, st := range statValues(r.series) {
			vals[st.key] = st
		}
		for _, k := range keys {
			st, ok := vals[k]
			switch {
			case !ok:
				cells = append(cells, "")
			case st.integer:
				cells = append(cells, strconv.FormatInt(int64(st.v), 10))
			default:
				cells = append(cells, strconv.FormatFloat(st.v, 'f', 4, 64))
			}
		}
		for _, col := range order {
			if r.info() { // its labels are configuration, not dimensions
				cells = append(cells, "")
			} else {
				cells = append(cells, labelValue(r.series.Labels, col))
			}
		}
		cells = append(cells, r.help)
		if t == prom.Histogram {
			parts := make([]string, len(r.series.Buckets))
			for i, bc := range r.series.Buckets {
				parts[i] = bc.LE + "=" + strconv.FormatInt(bc.Count, 10)
			}
			cells = append(cells, strings.Join(parts, ";"))
		}
		b.WriteString(export.CSVRow(cells...))
	}
}

func hasLabel(ls []prom.Label, name string) bool {
	for _, l := range ls {
		if l.Name == name {
			return true
		}
	}
	return false
}

func labelValue(ls []prom.Label, name string) string {
	for _, l := range ls {
		if l.Name == name {
			return l.Value
		}
	}
	return ""
}

// labelOrder orders a section's label columns as AIPerf does to keep the
// table dense: labels that appear together form families (union-find over
// each series' sorted labels); families in order of their smallest label,
// and within a family the labels of a single series before those shared by
// several ("bridges"), each group sorted.
func labelOrder(rows []csvRow) []string {
	var sets [][]string
	all := map[string]bool{}
	for _, r := range rows {
		if len(r.series.Labels) == 0 || r.info() {
			continue
		}
		set := make([]string, len(r.series.Labels))
		for i, l := range r.series.Labels {
			set[i] = l.Name
			all[l.Name] = true
		}
		sets = append(sets, set)
	}
	if len(all) == 0 {
		return nil
	}
	parent := map[string]string{}
	var find func(string) string
	find = func(x string) string {
		p, ok := parent[x]
		if !ok {
			parent[x] = x
			return x
		}
		if p == x {
			return x
		}
		return find(p)
	}
	for _, set := range sets {
		for i := 1; i < len(set); i++ {
			parent[find(set[i])] = find(set[i-1])
		}
	}
	families := map[string][]string{}
	for l := range all {
		root := find(l)
		families[root] = append(families[root], l)
	}
	uses := map[string]int{}
	for _, set := range sets {
		for _, l := range set {
			uses[l]++
		}
	}
	fams := make([][]string, 0, len(families))
	for _, f := range families {
		slices.Sort(f)
		fams = append(fams, f)
	}
	slices.SortFunc(fams, func(a, b []string) int { return strings.Compare(a[0], b[0]) })
	var out []string
	for _, f := range fams {
		for _, l := range f {
			if uses[l] <= 1 {
				out = append(out, l)
			}
		}
		for _, l := range f {
			if uses[l] > 1 {
				out = append(out, l)
			}
		}
	}
	return out
}
