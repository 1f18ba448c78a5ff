package experiment

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// aggregateHeadline are the metrics the console summary of a multi-run
// experiment shows, each with the first of aggregateHeadlineStats it has.
var (
	aggregateHeadline      = []string{"request_throughput", "time_to_first_token", "inter_token_latency", "request_latency"}
	aggregateHeadlineStats = []string{"avg", "p99", "max", "p50"}
)

// printAggregateSummary writes the console summary of a confidence
// aggregate: run counts, then mean, spread and interval of the headline
// metrics.
func printAggregateSummary(w io.Writer, a *confidenceAggregate, level float64) {
	rule := strings.Repeat("=", 80)
	var b strings.Builder
	fmt.Fprintf(&b, "\n%s\nAGGREGATE STATISTICS SUMMARY\n%s\n", rule, rule)
	fmt.Fprintf(&b, "Aggregation Type: confidence\nTotal Runs: %d\nSuccessful Runs: %d\n", a.NumRuns, a.numSuccessful())
	if len(a.Failed) > 0 {
		fmt.Fprintf(&b, "Failed Runs (%d):\n", len(a.Failed))
		for _, r := range a.Failed {
			fmt.Fprintf(&b, "  - %s: %v\n", r.Label, r.Err)
		}
	}
	pct := percent0(level)
	fmt.Fprintf(&b, "Confidence Level: %s\n\nKey Metrics:\n%s\n", pct, strings.Repeat("-", 80))
	for _, tag := range aggregateHeadline {
		for _, stat := range aggregateHeadlineStats {
			m, ok := a.metric(tag + "_" + stat)
			if !ok {
				continue
			}
			c := m.C
			fmt.Fprintf(&b, "\n%s (%s):\n", pyTitle(tag), statTitle(stat))
			fmt.Fprintf(&b, "  Mean:    %12s %s\n", fixedOrNA(c.Mean, 4), m.Unit)
			fmt.Fprintf(&b, "  Std Dev: %12s %s\n", fixedOrNA(c.Std, 4), m.Unit)
			fmt.Fprintf(&b, "  Min:     %12s %s\n", fixedOrNA(c.Min, 4), m.Unit)
			fmt.Fprintf(&b, "  Max:     %12s %s\n", fixedOrNA(c.Max, 4), m.Unit)
			cv := "N/A"
			if !math.IsNaN(c.CV) && !math.IsInf(c.CV, 0) {
				cv = fixed(c.CV*100, 2) + "%"
			}
			fmt.Fprintf(&b, "  CV:      %12s\n", cv)
			fmt.Fprintf(&b, "  %s CI: [%s, %s] %s\n", pct, fixedOrNA(c.CILow, 4), fixedOrNA(c.CIHigh, 4), m.Unit)
			break
		}
	}
	fmt.Fprintf(&b, "%s\n", rule)
	io.WriteString(w, b.String())
}

// printSweepSummary writes the best configurations and the Pareto front
// of a sweep.
func printSweepSummary(w io.Writer, s *sweepAggregate) {
	var b strings.Builder
	if len(s.Best.keys) > 0 {
		b.WriteString("\nBest Configurations:\n")
		for _, kv := range s.Best.keys {
			o := kv.v.(*jobj)
			params, _ := o.get("parameters")
			metric, _ := o.get("metric")
			unit, _ := o.get("unit")
			var parts []string
			for _, p := range params.(*jobj).keys {
				parts = append(parts, p.k+"="+pyStr(p.v))
			}
			name := "Best throughput"
			if kv.k == "best_latency_p99" {
				name = "Best latency (p99)"
			}
			fmt.Fprintf(&b, "  %s: %s (%s %s)\n", name, strings.Join(parts, ", "), fixedOrNA(metric.(float64), 2), unit)
		}
	}
	if len(s.Pareto) > 0 {
		var pts []string
		for _, p := range s.Pareto {
			var parts []string
			for _, q := range p {
				parts = append(parts, q.Name+"="+pyStr(q.Value))
			}
			pts = append(pts, "{"+strings.Join(parts, ", ")+"}")
		}
		fmt.Fprintf(&b, "  Pareto optimal points: %s\n", strings.Join(pts, " "))
	}
	io.WriteString(w, b.String())
}

func statTitle(stat string) string {
	if stat == "avg" {
		return "Avg"
	}
	return strings.ToUpper(stat[:1]) + stat[1:]
}

func fixedOrNA(f float64, decimals int) string {
	if s := fixed(f, decimals); s != "" {
		return s
	}
	return "N/A"
}

// percent0 is Python's f"{level:.0%}": 0.95 -> "95%".
func percent0(level float64) string { return fixed(level*100, 0) + "%" }
