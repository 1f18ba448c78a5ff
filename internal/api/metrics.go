package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/aiperf-go/aiperf/internal/live"
	"github.com/aiperf-go/aiperf/internal/results"
)

// metricResult is one metric as /api/metrics and /metrics serve it:
// AIPerf's MetricResult (header, unit and whichever statistics exist).
type metricResult struct {
	Tag, Header, Unit string
	Stats             map[string]float64
}

// statOrder is the order statistics are written in, AIPerf's field order.
var statOrder = []string{"avg", "min", "max", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "std", "count", "sum", "current"}

// quantiles maps the percentile statistics to Prometheus quantile labels.
var quantiles = map[string]string{"p1": "0.01", "p5": "0.05", "p10": "0.1", "p25": "0.25", "p50": "0.5",
	"p75": "0.75", "p90": "0.9", "p95": "0.95", "p99": "0.99"}

// gaugeStats are the statistics written as gauges, with their HELP words.
var gaugeStats = []struct{ stat, words string }{
	{"avg", "average"}, {"min", "minimum"}, {"max", "maximum"}, {"std", "standard deviation"}, {"current", "current value"},
}

// MarshalJSON writes header, unit and the statistics in statOrder.
func (m metricResult) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"header":`)
	h, _ := json.Marshal(m.Header)
	b.Write(h)
	b.WriteString(`,"unit":`)
	u, _ := json.Marshal(m.Unit)
	b.Write(u)
	for _, st := range statOrder {
		v, ok := m.Stats[st]
		if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		fmt.Fprintf(&b, `,%q:%s`, st, strconv.FormatFloat(v, 'g', -1, 64))
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// liveMetrics are the snapshot's headline metrics over its window.
func liveMetrics(s *live.Snapshot) []metricResult {
	if s == nil {
		return nil
	}
	out := make([]metricResult, 0, len(s.Metrics))
	for _, m := range s.Metrics {
		st := map[string]float64{"count": float64(m.Count)}
		if m.Kind == live.Rate {
			st["current"] = last(m.Series)
			st["avg"] = m.Avg
		} else {
			st["avg"], st["p50"], st["p99"] = m.Avg, m.P50, m.P99
		}
		out = append(out, metricResult{Tag: m.Tag, Header: m.Header, Unit: m.Unit, Stats: st})
	}
	return out
}

func last(s []float64) float64 {
	for i := len(s) - 1; i >= 0; i-- {
		if !math.IsNaN(s[i]) {
			return s[i]
		}
	}
	return math.NaN()
}

// finalMetrics are every metric of the run's summary JSON; headers come
// from header (tag -> header), the tag itself when unknown.
func finalMetrics(sum *results.Summary, header func(string) string) []metricResult {
	out := make([]metricResult, 0, len(sum.Metrics))
	for _, m := range sum.Metrics {
		h := m.Tag
		if header != nil {
			if x := header(m.Tag); x != "" {
				h = x
			}
		}
		out = append(out, metricResult{Tag: m.Tag, Header: h, Unit: m.Unit, Stats: m.Stats})
	}
	return out
}

var nonName = regexp.MustCompile(`[^a-zA-Z0-9_]`)

// promName sanitises a metric or unit name for Prometheus, AIPerf's rule.
func promName(s string) string {
	s = nonName.ReplaceAllString(strings.ToLower(s), "_")
	if s != "" && s[0] >= '0' && s[0] <= '9' {
		s = "_" + s
	}
	return s
}

// promUnit is AIPerf's unit suffix: "%" percent, "/" _per_, then sanitised.
func promUnit(u string) string {
	for _, r := range [][2]string{{"%", "percent"}, {"/", "_per_"}, {"tokens_per_sec", "tps"}, {"__", "_"}} {
		u = strings.ReplaceAll(u, r[0], r[1])
	}
	return promName(u)
}

// label is one Prometheus label.
type label struct{ name, value string }

func labelText(ls []label) string {
	if len(ls) == 0 {
		return ""
	}
	parts := make([]string, len(ls))
	for i, l := range ls {
		v := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(l.value)
		parts[i] = l.name + `="` + v + `"`
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func promValue(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// prometheusText renders metrics in the Prometheus text exposition
// format as AIPerf does: an aiperf_info gauge carrying the run's labels,
// then per metric a summary aiperf_<tag>_<unit> of its percentiles (with
// _sum and _count) and gauges aiperf_<tag>_<stat>_<unit>. Every series
// carries the info labels but version.
func prometheusText(metrics []metricResult, info []label, version string) string {
	var b strings.Builder
	help := func(name, text string) {
		text = strings.NewReplacer(`\`, `\\`, "\n", `\n`).Replace(text)
		fmt.Fprintf(&b, "# HELP %s %s\n", name, text)
	}
	if len(info) > 0 {
		help("aiperf_info", "AIPerf benchmark information")
		b.WriteString("# TYPE aiperf_info gauge\n")
		fmt.Fprintf(&b, "aiperf_info%s 1\n", labelText(append(append([]label(nil), info...), label{"version", version})))
	}
	base := labelText(info)
	for _, m := range metrics {
		name := "aiperf_" + promName(m.Tag)
		unit := ""
		if m.Unit != "" {
			unit = "_" + promUnit(m.Unit)
		}
		hasQ := false
		for st := range quantiles {
			if v, ok := m.Stats[st]; ok && !math.IsNaN(v) {
				hasQ = true
			}
		}
		if hasQ {
			sn := name + unit
			help(sn, fmt.Sprintf("%s (in %s)", m.Header, m.Unit))
			fmt.Fprintf(&b, "# TYPE %s summary\n", sn)
			for _, st := range statOrder {
				q, isQ := quantiles[st]
				v, ok := m.Stats[st]
				if !isQ || !ok || math.IsNaN(v) {
					continue
				}
				fmt.Fprintf(&b, "%s%s %s\n", sn, labelText(append(append([]label(nil), info...), label{"quantile", q})), promValue(v))
			}
			if v, ok := m.Stats["sum"]; ok {
				fmt.Fprintf(&b, "%s_sum%s %s\n", sn, base, promValue(v))
			}
			if v, ok := m.Stats["count"]; ok {
				fmt.Fprintf(&b, "%s_count%s %s\n", sn, base, promValue(v))
			}
		}
		gauge := func(stat, words string, v float64) {
			gn := name + "_" + stat + unit
			help(gn, fmt.Sprintf("%s %s (in %s)", m.Header, words, m.Unit))
			fmt.Fprintf(&b, "# TYPE %s gauge\n", gn)
			fmt.Fprintf(&b, "%s%s %s\n", gn, base, promValue(v))
		}
		for _, g := range gaugeStats {
			if v, ok := m.Stats[g.stat]; ok && !math.IsNaN(v) {
				gauge(g.stat, g.words, v)
			}
		}
		if !hasQ {
			if v, ok := m.Stats["count"]; ok {
				gauge("count", "observation count", v)
			}
			if v, ok := m.Stats["sum"]; ok {
				gauge("sum", "observation sum", v)
			}
		}
	}
	return b.String()
}
