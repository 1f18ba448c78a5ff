package report

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"image/color"
	"math"
	"sync"
	"time"

	"github.com/aiperf-go/aiperf/internal/metrics/stats"
	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// echartsJS is Apache ECharts 5.6.0 (npm echarts, dist/echarts.min.js,
// Apache-2.0; its LICENSE and NOTICE are beside it in assets/), inlined in
// every report so it renders with no network.
//
//go:embed assets/echarts.min.js
var echartsJS string

// Page is what the HTML report shows besides the charts.
type Page struct {
	Title     string
	Generated time.Time
	Mode      string // "single-run" or "multi-run"
	Runs      []*Run
	Charts    []*Chart
	Skipped   []string // presets not drawn, with why
	Theme     Theme
}

// RenderHTML writes the report: every chart as an interactive ECharts
// chart (SVG renderer, so the drawn points are in the DOM), the summary
// tables and each run's configuration, in one file that needs no network.
// After rendering, each chart's element carries data-points (the data
// points ECharts holds) and data-rendered, and <body> data-charts-ready
// counts the charts drawn, for a browser test to read.
func RenderHTML(p *Page) ([]byte, error) {
	var sections []htmlChart
	for i, c := range p.Charts {
		snip, err := echartOf(c, fmt.Sprintf("chart_%d", i), p.Theme)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.Name, err)
		}
		sections = append(sections, htmlChart{Chart: c, Element: template.HTML(snip.Element), Script: template.HTML(snip.Script)})
	}
	data := htmlData{
		Page: p, Charts: sections, ECharts: template.JS(echartsJS),
		Tables: summaryTables(p), Configs: configBlocks(p.Runs),
		Dark: p.Theme.Name == "dark",
	}
	var buf bytes.Buffer
	if err := pageTemplate().Execute(&buf, data); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

type htmlChart struct {
	Chart   *Chart
	Element template.HTML
	Script  template.HTML
}

type htmlData struct {
	Page    *Page
	Charts  []htmlChart
	ECharts template.JS
	Tables  []table
	Configs []configBlock
	Dark    bool
}

// snippet is a chart's element and script.
type snippet struct{ Element, Script string }

func hexOf(c color.Color) string {
	r, g, b, _ := c.RGBA()
	return fmt.Sprintf("#%02X%02X%02X", r>>8, g>>8, b>>8)
}

// echartOf turns a Chart into go-echarts' element and script.
func echartOf(c *Chart, id string, t Theme) (snippet, error) {
	init := opts.Initialization{ChartID: id, Renderer: "svg", Width: "100%", Height: "460px", BackgroundColor: hexOf(t.Background)}
	if t.Name == "dark" {
		init.Theme = "dark"
	}
	fg := hexOf(t.Foreground)
	var legend []string
	for _, s := range c.Series {
		if !s.NoLegend && s.Name != "" {
			legend = append(legend, s.Name)
		}
	}
	global := []charts.GlobalOpts{
		charts.WithInitializationOpts(init),
		charts.WithTitleOpts(opts.Title{Title: c.Title, Subtitle: c.Description, TitleStyle: &opts.TextStyle{Color: fg}}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Type: "scroll", Top: "bottom", Data: legend, TextStyle: &opts.TextStyle{Color: fg}}),
		charts.WithGridOpts(opts.Grid{Top: "90", Bottom: "90", Left: "70", Right: "70", ContainLabel: opts.Bool(true)}),
		charts.WithToolboxOpts(opts.Toolbox{Show: opts.Bool(true), Feature: &opts.ToolBoxFeature{
			SaveAsImage: &opts.ToolBoxFeatureSaveAsImage{Show: opts.Bool(true), Type: "png", Name: c.Name},
			DataZoom:    &opts.ToolBoxFeatureDataZoom{Show: opts.Bool(true)},
			Restore:     &opts.ToolBoxFeatureRestore{Show: opts.Bool(true)},
		}}),
	}
	categorical := len(c.XCategories) > 0
	xAxis := opts.XAxis{Name: c.XLabel, NameLocation: "middle", NameGap: 32, Type: "value", Scale: opts.Bool(true)}
	if categorical {
		xAxis.Type, xAxis.Data, xAxis.Scale = "category", c.XCategories, nil
	}
	global = append(global,
		charts.WithXAxisOpts(xAxis),
		charts.WithYAxisOpts(opts.YAxis{Name: c.YLabel, NameLocation: "middle", NameGap: 56, Type: "value", Scale: opts.Bool(c.Type != TypeHistogram && c.Type != TypeTimeslice && c.Type != TypeArea)}),
	)
	if categorical {
		bar := charts.NewBar()
		bar.SetGlobalOptions(global...)
		bar.SetXAxis(c.XCategories)
		for _, s := range c.Series {
			data := make([]opts.BarData, len(s.Y))
			for i, v := range s.Y {
				data[i] = opts.BarData{Value: jsonNum(v)}
			}
			bar.AddSeries(s.Name, data, charts.WithItemStyleOpts(opts.ItemStyle{Color: hexOf(t.color(s.Group))}))
		}
		sn := bar.RenderSnippet()
		return snippet{sn.Element, sn.Script}, nil
	}
	line := charts.NewLine()
	line.SetGlobalOptions(global...)
	if c.Type == TypeDualAxis {
		y2 := opts.YAxis{Name: c.Y2Label, NameLocation: "middle", NameGap: 56, Type: "value", Position: "right"}
		if c.Y2Max > 0 {
			y2.Min, y2.Max = 0, c.Y2Max
		}
		line.ExtendYAxis(y2)
	}
	for _, s := range c.Series {
		addEChartSeries(line, &s, t)
	}
	sn := line.RenderSnippet()
	return snippet{sn.Element, sn.Script}, nil
}

// jsonNum is v for ECharts, "-" (its missing value) when not finite.
func jsonNum(v float64) any {
	if !stats.Finite(v) {
		return "-"
	}
	return v
}

func addEChartSeries(line *charts.Line, s *Series, t Theme) {
	col := hexOf(t.color(s.Group))
	pair := func(x, y float64) opts.LineData { return opts.LineData{Value: []any{jsonNum(x), jsonNum(y)}} }
	var data []opts.LineData
	seriesOpts := []charts.SeriesOpts{charts.WithItemStyleOpts(opts.ItemStyle{Color: col})}
	lc := opts.LineChart{ShowSymbol: opts.Bool(false)}
	if s.OnY2 {
		lc.YAxisIndex = 1
	}
	switch s.Kind {
	case Markers, Line:
		for i := range s.X {
			d := pair(s.X[i], s.Y[i])
			if i < len(s.Labels) {
				d.Name = s.Labels[i]
			}
			data = append(data, d)
		}
		if len(s.Labels) == len(s.X) && len(s.X) > 0 {
			// The chart's labels were thinned for the PNG's size; the
			// report's charts are smaller, so ECharts hides what still
			// overlaps there.
			seriesOpts = append(seriesOpts, charts.WithLabelOpts(opts.Label{Show: opts.Bool(true), Formatter: "{b}", Position: "right", Color: hexOf(t.Foreground)}),
				charts.WithLabelLayoutOpts(opts.LabelLayout{HideOverlap: opts.Bool(true)}))
		}
		if s.Kind == Markers {
			lc.ShowSymbol = opts.Bool(true)
			lc.SymbolSize = 8
			if len(s.X) > 200 {
				lc.SymbolSize = 4
			}
			seriesOpts = append(seriesOpts, charts.WithLineStyleOpts(opts.LineStyle{Width: 0, Opacity: opts.Float(0)}))
		} else {
			lc.ShowSymbol = opts.Bool(len(s.X) <= 60)
			seriesOpts = append(seriesOpts, charts.WithLineStyleOpts(opts.LineStyle{Width: 2}))
		}
	case Step, Area:
		for i := range s.X {
			data = append(data, pair(s.X[i], s.Y[i]))
		}
		lc.Step = "end"
		if s.Kind == Area {
			seriesOpts = append(seriesOpts, charts.WithAreaStyleOpts(opts.AreaStyle{Color: col, Opacity: opts.Float(0.3)}))
		}
	case Polygon:
		for i := range s.X {
			data = append(data, pair(s.X[i], s.Y[i]))
		}
		style := opts.LineStyle{Width: 1.5}
		if s.Faint {
			style.Type = "dashed"
		}
		seriesOpts = append(seriesOpts, charts.WithLineStyleOpts(style))
	case Segments:
		for i := 0; i+1 < len(s.X); i += 2 {
			data = append(data, pair(s.X[i], s.Y[i]), pair(s.X[i+1], s.Y[i+1]), opts.LineData{Value: []any{"-", "-"}})
		}
		seriesOpts = append(seriesOpts, charts.WithLineStyleOpts(opts.LineStyle{Width: 2}))
	case Band:
		// A stacked pair: the lower edge, invisible, and the band's height
		// on top of it, filled.
		stack := "band_" + s.Name
		lower, height := []opts.LineData{}, []opts.LineData{}
		for i := range s.X {
			lower = append(lower, pair(s.X[i], s.Lo[i]))
			height = append(height, pair(s.X[i], s.Hi[i]-s.Lo[i]))
		}
		line.AddSeries(s.Name+" (lower)", lower, charts.WithLineChartOpts(opts.LineChart{Stack: stack, ShowSymbol: opts.Bool(false)}),
			charts.WithLineStyleOpts(opts.LineStyle{Opacity: opts.Float(0)}), charts.WithItemStyleOpts(opts.ItemStyle{Color: col}))
		alpha := float32(0.35)
		if s.Faint {
			alpha = 0.18
		}
		line.AddSeries(s.Name, height, charts.WithLineChartOpts(opts.LineChart{Stack: stack, ShowSymbol: opts.Bool(false)}),
			charts.WithLineStyleOpts(opts.LineStyle{Opacity: opts.Float(0)}),
			charts.WithAreaStyleOpts(opts.AreaStyle{Color: col, Opacity: opts.Float(alpha)}),
			charts.WithItemStyleOpts(opts.ItemStyle{Color: col}))
		return
	}
	seriesOpts = append(seriesOpts, charts.WithLineChartOpts(lc))
	line.AddSeries(s.Name, data, seriesOpts...)
}

// table is one summary table of the report.
type table struct {
	Title  string
	Header []string
	Rows   [][]string
}

// headline are the metrics of the multi-run table: (tag, stat).
var headline = [][2]string{
	{"request_throughput", "avg"}, {"output_token_throughput", "avg"},
	{"time_to_first_token", "avg"}, {"time_to_first_token", "p99"},
	{"inter_token_latency", "avg"}, {"inter_token_latency", "p99"},
	{"request_latency", "avg"}, {"request_latency", "p99"},
}

// summaryTables: a single run's metric table (its record metrics with
// their statistics, then its single values); several runs' headline
// metrics side by side, with confidence intervals where known.
func summaryTables(p *Page) []table {
	if len(p.Runs) == 1 && p.Runs[0].Summary != nil {
		s := p.Runs[0].Summary
		stats := table{Title: "Metrics: " + p.Runs[0].Label, Header: []string{"Metric", "avg", "min", "max", "p99", "p90", "p50", "std"}}
		values := table{Title: "Totals and rates", Header: []string{"Metric", "Value"}}
		for _, m := range s.Metrics {
			name := axisLabel(m.Tag, "", m.Unit)
			if _, isDist := m.Stats["p50"]; isDist {
				row := []string{name}
				for _, k := range stats.Header[1:] {
					row = append(row, fmtNum(m.Stats[k], m.Stats != nil))
				}
				stats.Rows = append(stats.Rows, row)
				continue
			}
			if v, ok := m.Stats["avg"]; ok {
				values.Rows = append(values.Rows, []string{name, fmtNum(v, true)})
			}
		}
		return []table{stats, values}
	}
	t := table{Title: "Runs", Header: []string{"Run", "Model", "Concurrency"}}
	for _, h := range headline {
		t.Header = append(t.Header, metricName(h[0])+" "+h[1])
	}
	for _, r := range p.Runs {
		row := []string{r.Label, r.Model, r.Field("concurrency")}
		for _, h := range headline {
			v, ok := r.Value(h[0], h[1])
			cell := fmtNum(v, ok)
			if lo, hi, n, ok2 := r.Interval(h[0], h[1], 0.95); ok && ok2 {
				cell += fmt.Sprintf(" [%s, %s] n=%d", fmtNum(lo, true), fmtNum(hi, true), n)
			}
			row = append(row, cell)
		}
		t.Rows = append(t.Rows, row)
	}
	return []table{t}
}

func fmtNum(v float64, ok bool) string {
	if !ok || !stats.Finite(v) {
		return "–"
	}
	if math.Abs(v) >= 1e5 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

// configBlock is one run's input_config, indented.
type configBlock struct {
	Run  string
	JSON string
}

func configBlocks(runs []*Run) []configBlock {
	var out []configBlock
	for _, r := range runs {
		if len(r.InputConfig) == 0 {
			continue
		}
		var buf bytes.Buffer
		if json.Indent(&buf, r.InputConfig, "", "  ") != nil {
			continue
		}
		out = append(out, configBlock{Run: r.Label + " (" + r.Dir + ")", JSON: buf.String()})
	}
	return out
}

var pageTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Page.Title}}</title>
<style>
body { font-family: -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; margin: 0 auto; max-width: 1400px; padding: 16px 24px;
  background: {{if .Dark}}#1a1a1a{{else}}#ffffff{{end}}; color: {{if .Dark}}#e0e0e0{{else}}#202020{{end}}; }
h1 { color: #76B900; margin-bottom: 4px; }
h2 { border-bottom: 2px solid #76B900; padding-bottom: 4px; margin-top: 32px; }
.meta { color: #888; font-size: 0.9em; }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(620px, 1fr)); gap: 16px; margin-top: 16px; }
.grid section { border: 1px solid {{if .Dark}}#333{{else}}#e3e3e3{{end}}; border-radius: 6px; padding: 6px 4px 0; }
.container { margin: 0; }
table { border-collapse: collapse; font-size: 0.85em; margin: 8px 0 20px; }
th, td { border: 1px solid {{if .Dark}}#444{{else}}#ddd{{end}}; padding: 4px 8px; text-align: right; }
th:first-child, td:first-child { text-align: left; }
th { background: {{if .Dark}}#2a2a2a{{else}}#f3f3f3{{end}}; }
pre { background: {{if .Dark}}#111{{else}}#f7f7f7{{end}}; padding: 8px; overflow-x: auto; font-size: 0.8em; }
.skipped { color: #888; font-size: 0.85em; }
.note { color: #b07000; font-size: 0.8em; margin: 0 8px 6px; }
nav a { margin-right: 12px; color: #76B900; }
</style>
<script>{{.ECharts}}</script>
</head>
<body>
<h1>{{.Page.Title}}</h1>
<div class="meta">{{.Page.Mode}} · {{len .Page.Runs}} run(s) · {{len .Charts}} chart(s) · generated {{.Page.Generated.Format "2006-01-02 15:04:05 MST"}} by aiperf plot</div>
<nav>{{range .Charts}}<a href="#{{.Chart.Name}}">{{.Chart.Title}}</a>{{end}}<a href="#summary">Summary</a><a href="#configuration">Configuration</a></nav>
<div class="grid">
{{range .Charts}}<section id="{{.Chart.Name}}">
{{.Element}}
{{.Script}}
{{range .Chart.Notes}}<p class="note">{{.}}</p>{{end}}
</section>
{{end}}</div>
{{if .Page.Skipped}}<h2>Not drawn</h2><ul class="skipped">{{range .Page.Skipped}}<li>{{.}}</li>{{end}}</ul>{{end}}
<h2 id="summary">Summary</h2>
{{range .Tables}}
<h3>{{.Title}}</h3>
<table><thead><tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>{{end}}</tbody></table>
{{end}}
<h2 id="configuration">Configuration</h2>
{{range .Configs}}<details><summary>{{.Run}}</summary><pre>{{.JSON}}</pre></details>{{else}}<p class="meta">No input_config in the runs' summaries.</p>{{end}}
<script>
(function () {
  var drawn = 0;
  document.querySelectorAll(".item").forEach(function (el) {
    var chart = echarts.getInstanceByDom(el);
    if (!chart) { return; }
    var points = 0;
    (chart.getOption().series || []).forEach(function (s) {
      (s.data || []).forEach(function (d) {
        var v = (d !== null && typeof d === "object" && !Array.isArray(d)) ? d.value : d;
        var vals = Array.isArray(v) ? v : [v];
        if (vals.length && vals.every(function (x) { return typeof x === "number" && isFinite(x); })) { points++; }
      });
    });
    el.setAttribute("data-points", String(points));
    el.setAttribute("data-rendered", el.querySelector("svg") ? "svg" : "none");
    if (points > 0 && el.querySelector("svg")) { drawn++; }
  });
  document.body.setAttribute("data-charts-ready", String(drawn));
  window.addEventListener("resize", function () {
    document.querySelectorAll(".item").forEach(function (el) { var c = echarts.getInstanceByDom(el); if (c) { c.resize(); } });
  });
})();
</script>
</body>
</html>
`))
})
