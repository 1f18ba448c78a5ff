package agenticcode

import (
	"bytes"
	"html/template"
	"math"
	"os"
	"path/filepath"
	"sync"
)

// reportRow is one line of the report's statistics tables.
type reportRow struct {
	Name                  string
	TargetMean, TargetMed string
	Stats                 []string
	Err                   string
}

type reportPage struct {
	Sessions, Turns int
	Targets         []reportRow
	Summary         []reportRow
	Charts          []template.HTML
}

var reportTemplate = pageTemplate("Dataset Report", `<div class="meta">{{.Sessions}} sessions · {{.Turns}} turns · estimates at 20,000 prefill and 60 decode tokens/s · written by aiperf synthesize agentic-code</div>
<h2>Target vs observed</h2>
<table><tr><th>Metric</th><th>Target mean</th><th>Target median</th><th>Mean</th><th>Median</th><th>p05</th><th>p25</th><th>p75</th><th>p95</th><th>p99</th><th>% error (mean)</th></tr>
{{range .Targets}}<tr><td>{{.Name}}</td><td>{{.TargetMean}}</td><td>{{.TargetMed}}</td>{{range .Stats}}<td>{{.}}</td>{{end}}<td>{{.Err}}</td></tr>{{end}}</table>
<h2>Summary statistics</h2>
<table><tr><th>Metric</th><th>Mean</th><th>Median</th><th>p05</th><th>p25</th><th>p75</th><th>p95</th><th>p99</th></tr>
{{range .Summary}}<tr><td>{{.Name}}</td>{{range .Stats}}<td>{{.}}</td>{{end}}</tr>{{end}}</table>
<h2>Distributions</h2>
<div class="grid">{{range .Charts}}<div>{{.}}</div>{{end}}</div>`)

// pageShell is the HTML around each page this package writes: the page's
// title as <title> and <h1>, the charts' CSS, then the page's body
// template over its data.
const pageShell = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>{{.Title}}</title><style>{{.CSS}}</style></head><body>
<h1>{{.Title}}</h1>
{{template "body" .Page}}
</body></html>
`

// page is what pageShell renders.
type page struct {
	Title string
	CSS   template.CSS
	Page  any
}

// pageTemplate parses, once, the page titled title with body inside
// pageShell; the title travels with the template.
func pageTemplate(title, body string) func() (*template.Template, string) {
	t := sync.OnceValue(func() *template.Template {
		return template.Must(template.Must(template.New(title).Parse(pageShell)).New("body").Parse(body))
	})
	return func() (*template.Template, string) { return t(), title }
}

// writePage renders a page template over data to path.
func writePage(path string, tmpl func() (*template.Template, string), data any) error {
	t, title := tmpl()
	var b bytes.Buffer
	if err := t.ExecuteTemplate(&b, title, page{Title: title, CSS: template.CSS(chartCSS), Page: data}); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// writeReport writes report.html: the target-vs-observed and summary
// tables of AIPerf's text report and a chart of every distribution.
func writeReport(dir string, sessions []Session, c *Config, m *Metrics) error {
	p := reportPage{Sessions: len(m.TurnsPerSession), Turns: len(m.TotalISL)}
	statCells := func(s Stats, compact bool) []string {
		f := func(v float64) string { return fixed(v, 1, true) }
		if compact {
			f = func(v float64) string { return fixed(v, 4, false) }
		}
		return []string{f(s.Mean), f(s.Median), f(s.P05), f(s.P25), f(s.P75), f(s.P95), f(s.P99)}
	}
	prefix := float64(c.Cache.Layer1Tokens + c.Cache.Layer15Tokens)
	for _, t := range []struct {
		name         string
		values       []float64
		mean, median float64
	}{
		{"Initial Context (tokens)", m.InitialContext, prefix + c.Cache.Layer2.Mean, prefix + c.Cache.Layer2.Median},
		{"New Tokens/Turn", m.NewTokensPerTurn, c.NewTokensPerTurn.Mean, c.NewTokensPerTurn.Median},
		{"Generation Length (tokens)", m.GenerationLength, c.GenerationLength.Mean, c.GenerationLength.Median},
		{"Inter-Turn Delay (s)", m.InterTurnDelayS, math.NaN(), math.NaN()},
		{"Turns/Session", m.TurnsPerSession, turnsTarget(c, true), turnsTarget(c, false)},
	} {
		if len(t.values) == 0 {
			continue
		}
		s := statsOf(t.values, -1)
		row := reportRow{Name: t.name, TargetMean: "-", TargetMed: "-", Err: "-"}
		if !math.IsNaN(t.mean) {
			row.TargetMean, row.TargetMed = fixed(t.mean, 0, true), fixed(t.median, 0, true)
			row.Err = fixed(pyRound(pctError(t.mean, s.Mean), 2), 1, false) + "%"
		}
		row.Stats = statCells(s, false)
		p.Targets = append(p.Targets, row)
	}
	for _, t := range []struct {
		name   string
		values []float64
	}{
		{"Hash ID Blocks/Turn", m.HashIDBlocks}, {"Request Latency (s)", m.RequestLatencyS}, {"Session Duration (min)", m.SessionDurationMin},
		{"Prefix Length", m.PrefixLength}, {"Unique Prompt Length", m.UniquePromptLength}, {"Prefix Ratio", m.PrefixRatio},
		{"Sequential Cache Hit Rate", m.SequentialHitRate}, {"Per-Session Cache Hit Rate", m.PerSessionHitRate},
	} {
		s := statsOf(t.values, -1)
		p.Summary = append(p.Summary, reportRow{Name: t.name, Stats: statCells(s, s.Mean <= 1)})
	}
	for _, h := range []struct {
		title, x string
		values   []float64
	}{
		{"ISL Distribution (row input)", "tokens", m.TotalISL}, {"OSL Distribution", "tokens", m.TotalOSL},
		{"Initial Context (turn 0 input)", "tokens", m.InitialContext}, {"New Tokens Per Turn", "tokens", m.NewTokensPerTurn},
		{"Generation Length", "tokens", m.GenerationLength}, {"Inter-Turn Delay", "s", m.InterTurnDelayS},
		{"Turns Per Session", "turns", m.TurnsPerSession}, {"Hash ID Blocks Per Turn", "blocks", m.HashIDBlocks},
		{"Estimated Request Latency", "s", m.RequestLatencyS}, {"Estimated Session Duration", "min", m.SessionDurationMin},
		{"Prefix Length", "tokens", m.PrefixLength}, {"Unique Prompt Length", "tokens", m.UniquePromptLength},
		{"Prefix Ratio", "fraction of the row's input", m.PrefixRatio}, {"Sequential Cache Hit Rate", "fraction of blocks", m.SequentialHitRate},
	} {
		if len(h.values) > 0 {
			p.Charts = append(p.Charts, histogramSVG(h.title, h.x, h.values))
		}
	}
	var growth, hits []line
	for i, s := range sessions {
		if i >= 10 {
			break
		}
		g, r := line{Name: s.ID}, line{Name: s.ID}
		seen := map[int]bool{}
		for _, t := range s.Turns {
			g.X, g.Y = append(g.X, float64(t.Index)), append(g.Y, float64(t.Input))
			r.X, r.Y = append(r.X, float64(t.Index)), append(r.Y, hitRate(t.HashIDs, seen))
			for _, id := range t.HashIDs {
				seen[id] = true
			}
		}
		growth, hits = append(growth, g), append(hits, r)
	}
	p.Charts = append(p.Charts,
		linesSVG("Context Growth (first 10 sessions)", "turn", "context (tokens)", growth, math.NaN(), ""),
		linesSVG("Per-Session Cache Hit Rate (first 10 sessions)", "turn", "hit rate", hits, math.NaN(), ""),
		scatterSVG("Cache Hit Rate vs Row Input", "row input (tokens)", "sequential hit rate", m.TotalISL, m.SequentialHitRate))
	return writePage(filepath.Join(dir, "report.html"), reportTemplate, p)
}

func turnsTarget(c *Config, mean bool) float64 {
	if c.Turns == nil {
		return math.NaN()
	}
	if mean {
		return float64(c.Turns.Mean)
	}
	return float64(c.Turns.Median)
}
