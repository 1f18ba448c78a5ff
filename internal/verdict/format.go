package verdict

import (
	"fmt"
	"strings"
)

// statusMark is a verdict's status for the console.
func statusMark(s Status) string {
	switch s {
	case OK:
		return "OK"
	case Warn:
		return "WARN"
	}
	return "?"
}

// figure prints a figure with its unit and, for rates, whose rate it is.
func figure(f *Figure) string {
	if f == nil {
		return "n/a"
	}
	s := num(f.Value) + " " + f.Unit
	switch f.Scope {
	case PerNode:
		if strings.HasPrefix(f.Unit, "tokens/") || strings.HasPrefix(f.Unit, "requests/") {
			s += " (node)"
		}
	}
	if f.Basis == "extrapolated" {
		s += " (extrapolated)"
	}
	return s
}

// label names a figure's metric and statistic.
func label(f *Figure) string {
	if f == nil {
		return ""
	}
	if f.Stat == "avg" || f.Stat == "" {
		return f.Metric
	}
	return f.Metric + " " + f.Stat
}

// Panel renders the verdicts and derived figures of one run for the
// console, after the metric tables.
func Panel(r Report) string {
	var b strings.Builder
	b.WriteString("\nUse-case verdicts (primary and secondary metric, warning threshold):\n")
	writeVerdicts(&b, r.Verdicts, "  ")
	writeDerived(&b, r.Derived, "  ")
	return b.String()
}

// SweepPanel renders the verdicts of a sweep.
func SweepPanel(r SweepReport) string {
	var b strings.Builder
	b.WriteString("\nUse-case verdicts across the sweep:\n")
	writeVerdicts(&b, r.Verdicts, "  ")
	for _, p := range r.Points {
		if len(p.Verdicts) == 0 {
			continue
		}
		fmt.Fprintf(&b, "  at %s:\n", p.Label)
		writeVerdicts(&b, p.Verdicts, "    ")
	}
	return b.String()
}

func writeVerdicts(b *strings.Builder, vs []Verdict, indent string) {
	for _, v := range vs {
		fmt.Fprintf(b, "%s%-9s %-4s %s\n", indent, v.UseCase, statusMark(v.Status), v.Message)
		pad := indent + strings.Repeat(" ", 15)
		if v.Primary != nil {
			fmt.Fprintf(b, "%sprimary   %s = %s\n", pad, label(v.Primary), figure(v.Primary))
		}
		if v.Secondary != nil {
			fmt.Fprintf(b, "%ssecondary %s = %s\n", pad, label(v.Secondary), figure(v.Secondary))
		}
		fmt.Fprintf(b, "%swarns at  %s\n", pad, v.Threshold.Description)
	}
}

func writeDerived(b *strings.Builder, d Derived, indent string) {
	rows := []struct {
		name string
		f    *Figure
	}{
		{"concurrency (users)", d.Concurrency},
		{"input throughput = total - output", d.InputThroughput},
		{"input_token_throughput (measured)", d.MeasuredInputThroughput},
		{"aggregate prefill demand = prefill/user x users", d.PrefillDemand},
	}
	any := false
	for _, r := range rows {
		if r.f != nil {
			any = true
		}
	}
	if !any {
		return
	}
	fmt.Fprintf(b, "%sDerived (per-user rates are per session; per-node rates are the whole server):\n", indent)
	for _, r := range rows {
		if r.f == nil {
			continue
		}
		fmt.Fprintf(b, "%s  %-48s %s\n", indent, r.name, figure(r.f))
	}
}
