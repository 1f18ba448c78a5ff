package ui

import (
	"fmt"
	"math"
	"strings"
	"time"

	"charm.land/bubbles/v2/progress"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/aiperf-go/aiperf/internal/live"
)

// Pane is one of the dashboard's switchable main panes.
type Pane int

// The dashboard's panes, in tab order.
const (
	PaneMetrics Pane = iota
	PaneTelemetry
	PaneLogs
	paneCount
)

func (p Pane) String() string {
	return [...]string{"Metrics", "Telemetry", "Logs"}[p]
}

var (
	green  = lipgloss.Color("#76B900") // NVIDIA green, as AIPerf's theme
	grey   = lipgloss.Color("#8A8A8A")
	red    = lipgloss.Color("#E5484D")
	yellow = lipgloss.Color("#F5A524")

	titleStyle = lipgloss.NewStyle().Bold(true).Foreground(green)
	faint      = lipgloss.NewStyle().Foreground(grey)
	bold       = lipgloss.NewStyle().Bold(true)
	errStyle   = lipgloss.NewStyle().Foreground(red)
	warnStyle  = lipgloss.NewStyle().Foreground(yellow)
	box        = lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(grey).Padding(0, 1)
	tabOn      = lipgloss.NewStyle().Bold(true).Foreground(green).Underline(true)
)

// Frame is what the dashboard draws: a snapshot on a screen of a size,
// with a pane selected. Render is a pure function of it.
type Frame struct {
	Snap          *live.Snapshot
	Title         string // e.g. "mock-model @ http://127.0.0.1:8000"
	Width, Height int
	Pane          Pane
	Stopping      bool // the user asked to stop; the run is draining
}

// Render draws the frame: a header, the phases' progress, the selected
// pane and a key line, within Width columns.
func Render(f Frame) string {
	w := max(f.Width, 40)
	inner := w - 4 // box border and padding
	s := f.Snap
	if s == nil {
		s = &live.Snapshot{}
	}
	var parts []string
	head := titleStyle.Render("NVIDIA AIPerf") + faint.Render(" (Go) | ") + f.Title
	if f.Stopping {
		head += "  " + warnStyle.Render("stopping: draining requests in flight (Ctrl-C again cancels them)")
	}
	parts = append(parts, head)
	parts = append(parts, box.Width(w).Render(progressLines(s, inner)))
	tabs := make([]string, paneCount)
	for p := range paneCount {
		label := fmt.Sprintf("[%d] %s", p+1, p)
		if p == f.Pane {
			tabs[p] = tabOn.Render(label)
		} else {
			tabs[p] = faint.Render(label)
		}
	}
	parts = append(parts, strings.Join(tabs, "  "))
	used := lipgloss.Height(strings.Join(parts, "\n")) + 1
	room := max(f.Height-used-3, 6) // the pane's box and the key line
	var body string
	switch f.Pane {
	case PaneTelemetry:
		body = telemetryPane(s, inner, room)
	case PaneLogs:
		body = logLines(s.Logs, inner, room)
	default:
		body = metricsPane(s, inner, room)
	}
	parts = append(parts, box.Width(w).Render(body))
	parts = append(parts, faint.Render("tab/1-3 switch pane · q or Ctrl-C stop the run (twice: cancel requests in flight)"))
	return strings.Join(parts, "\n")
}

// progressLines draws one bar line per phase: the finished ones, then the
// running one.
func progressLines(s *live.Snapshot, width int) string {
	var lines []string
	for _, p := range s.Finished {
		lines = append(lines, phaseLine(p, width, true))
	}
	if s.Phase.Phase != "" {
		lines = append(lines, phaseLine(s.Phase, width, s.Final))
	} else {
		lines = append(lines, faint.Render("waiting for the first phase to start…"))
	}
	return strings.Join(lines, "\n")
}

func phaseLine(p live.Progress, width int, done bool) string {
	name := fmt.Sprintf("%-9s", title(p.Phase))
	count := fmt.Sprint(p.Done)
	if p.Total > 0 {
		count += "/" + fmt.Sprint(p.Total)
	}
	tail := fmt.Sprintf(" %6.1f req/s  in-flight %-4d errors %-4d %s", p.Rate(), p.InFlight, p.Errors, clockText(p.Elapsed))
	if eta, ok := p.ETA(); ok && !done && p.Fraction() < 1 {
		tail += " ETA " + clockText(eta)
	}
	if done {
		tail += " " + bold.Render("done")
	}
	barW := width - lipgloss.Width(name) - len(count) - lipgloss.Width(tail) - 3
	bar := ""
	if f := p.Fraction(); f >= 0 && barW >= 10 {
		m := progress.New(progress.WithColors(green), progress.WithWidth(barW))
		bar = " " + m.ViewAs(f)
	} else if barW >= 10 {
		bar = " " + faint.Render(strings.Repeat("·", barW-5))
	}
	return bold.Render(name) + " " + count + bar + tail
}

// metricsPane draws the live metrics table with sparklines, client health
// and errors, then the latest log lines in the room left.
func metricsPane(s *live.Snapshot, width, height int) string {
	var lines []string
	window := s.Window.Round(time.Second)
	trendW := max(10, min(60, width-62))
	lines = append(lines, bold.Render(fmt.Sprintf("%-32s %10s %10s %10s  %s", "Metric (last "+window.String()+")", "p50", "p99", "avg", "trend")))
	if len(s.Metrics) == 0 {
		lines = append(lines, faint.Render("no request has finished yet"))
	}
	for _, m := range s.Metrics {
		if m.Tag == "schedule_lag" {
			continue // shown under client health
		}
		name := fmt.Sprintf("%s (%s)", m.Header, shortUnit(m.Unit))
		lines = append(lines, fmt.Sprintf("%-32s %10s %10s %10s  %s", clip(name, 32), num(m.P50), num(m.P99), num(m.Avg), green2(sparkline(m.Series, trendW))))
	}
	lines = append(lines, "")
	h := s.Health
	health := fmt.Sprintf("Client: CPU %s of %.4g cores · schedule lag p99 %.2f ms · late sends %d · goroutines %d",
		pct(h.CPUPct), h.Cores, float64(h.LagP99)/1e6, s.Phase.Late, h.Goroutines)
	if h.CPUPct > 85 {
		health = warnStyle.Render(health + " (client busy: results may measure the client)")
	}
	lines = append(lines, health)
	if len(s.Errors) == 0 {
		lines = append(lines, "Errors: none")
	} else {
		var es []string
		for _, e := range s.Errors {
			es = append(es, fmt.Sprintf("%s ×%d", e.Type, e.Count))
		}
		lines = append(lines, errStyle.Render("Errors: "+strings.Join(es, " · ")))
	}
	if len(s.Telemetry) > 0 {
		lines = append(lines, faint.Render(fmt.Sprintf("Telemetry: %d panel(s), press 2", len(s.Telemetry))))
	}
	if rest := height - len(lines) - 1; rest > 0 && len(s.Logs) > 0 {
		lines = append(lines, faint.Render("─ log ─"))
		lines = append(lines, strings.Split(logLines(s.Logs, width, rest), "\n")...)
	}
	return fit(lines, width, height)
}

// telemetryPane draws each telemetry panel's gauges with their trends.
func telemetryPane(s *live.Snapshot, width, height int) string {
	if len(s.Telemetry) == 0 {
		return faint.Render("No telemetry: --server-metrics and --gpu-telemetry sources post their gauges here.")
	}
	trendW := max(10, min(40, width-56))
	var lines []string
	for _, p := range s.Telemetry {
		lines = append(lines, bold.Render(p.Title)+faint.Render(fmt.Sprintf(" (%s, at %s)", p.Source, clockText(p.At))))
		for _, g := range p.Gauges {
			lines = append(lines, fmt.Sprintf("  %-36s %12s %-8s %s", clip(g.Name, 36), num(g.Value), clip(g.Unit, 8), green2(sparkline(g.Series, trendW))))
		}
	}
	return fit(lines, width, height)
}

// logLines draws the latest log lines that fit, warnings and errors in
// colour.
func logLines(logs []live.LogLine, width, height int) string {
	if len(logs) == 0 {
		return faint.Render("no log lines yet")
	}
	logs = logs[max(0, len(logs)-height):]
	lines := make([]string, len(logs))
	for i, l := range logs {
		text := clip(fmt.Sprintf("%s %-5s %s", l.Time.Format("15:04:05"), l.Level, l.Message), width)
		switch {
		case strings.HasPrefix(l.Level, "ERROR"):
			text = errStyle.Render(text)
		case strings.HasPrefix(l.Level, "WARN"):
			text = warnStyle.Render(text)
		}
		lines[i] = text
	}
	return strings.Join(lines, "\n")
}

// fit keeps the first height lines, each cut to width.
func fit(lines []string, width, height int) string {
	lines = lines[:min(len(lines), max(height, 1))]
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, width, "…")
	}
	return strings.Join(lines, "\n")
}

// sparkBlocks are the eight heights of a sparkline cell.
var sparkBlocks = []rune("▁▂▃▄▅▆▇█")

// sparkline draws the last width values of series as block characters
// scaled from the series' minimum to its maximum; NaN is a blank.
func sparkline(series []float64, width int) string {
	series = series[max(0, len(series)-width):]
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range series {
		if !math.IsNaN(v) {
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	var b strings.Builder
	for _, v := range series {
		switch {
		case math.IsNaN(v):
			b.WriteByte(' ')
		case hi == lo:
			b.WriteRune(sparkBlocks[len(sparkBlocks)/2])
		default:
			i := int((v - lo) / (hi - lo) * float64(len(sparkBlocks)-1))
			b.WriteRune(sparkBlocks[i])
		}
	}
	return b.String()
}

// shortUnit abbreviates the throughput units for the narrow table.
func shortUnit(u string) string {
	return strings.NewReplacer("requests/sec", "req/s", "tokens/sec", "tok/s").Replace(u)
}

func green2(s string) string { return lipgloss.NewStyle().Foreground(green).Render(s) }

// num formats a statistic with up to 4 significant figures before the
// point and 2 after; NaN is "-".
func num(v float64) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "-"
	case math.Abs(v) >= 1e6:
		return fmt.Sprintf("%.3g", v)
	}
	return fmt.Sprintf("%.2f", v)
}

func pct(v float64) string {
	if math.IsNaN(v) {
		return "n/a"
	}
	return fmt.Sprintf("%.0f%%", v)
}

// clip cuts s to width display columns (ANSI-unaware: for plain text).
func clip(s string, width int) string {
	if lipgloss.Width(s) <= width {
		return s
	}
	r := []rune(s)
	for len(r) > 0 && lipgloss.Width(string(r)) > width-1 {
		r = r[:len(r)-1]
	}
	return string(r) + "…"
}
