package agenticcode

import (
	"fmt"
	"html/template"
	"math"
	"slices"
	"strconv"
	"strings"
)

// The HTML views draw their charts as inline SVG, computed here, so each
// file is self-contained and needs no network or script library.

const (
	chartW, chartH = 560, 300
	padL, padR     = 64, 16
	padT, padB     = 34, 44
	green          = "#76b900"
)

// palette colours the lines of multi-series charts.
var palette = []string{"#76b900", "#1f77b4", "#ff7f0e", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"}

// line is one series of a line chart; Step draws it as a step function.
type line struct {
	Name  string
	X, Y  []float64
	Step  bool
	Color string
	Dash  bool
}

// niceTicks returns about n round tick values covering [lo, hi].
func niceTicks(lo, hi float64, n int) []float64 {
	if !(hi > lo) {
		hi = lo + 1
	}
	raw := (hi - lo) / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	var out []float64
	for v := math.Ceil(lo/step) * step; v <= hi+step*1e-9; v += step {
		out = append(out, v)
	}
	return out
}

// tick formats an axis value compactly (12k, 1.5M, 0.25).
func tick(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e9:
		return strconv.FormatFloat(v/1e9, 'g', 3, 64) + "G"
	case a >= 1e6:
		return strconv.FormatFloat(v/1e6, 'g', 3, 64) + "M"
	case a >= 1e4:
		return strconv.FormatFloat(v/1e3, 'g', 3, 64) + "k"
	default:
		return strconv.FormatFloat(v, 'g', 4, 64)
	}
}

// frame draws the axes, ticks and labels of a chart over [x0,x1]x[y0,y1]
// and returns the coordinate mapping.
func frame(b *strings.Builder, title, xlabel, ylabel string, x0, x1, y0, y1 float64) (func(float64) float64, func(float64) float64) {
	if !(x1 > x0) {
		x1 = x0 + 1
	}
	if !(y1 > y0) {
		y1 = y0 + 1
	}
	px := func(x float64) float64 { return padL + (x-x0)/(x1-x0)*(chartW-padL-padR) }
	py := func(y float64) float64 { return chartH - padB - (y-y0)/(y1-y0)*(chartH-padT-padB) }
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" class="chart" role="img"><title>%s</title>`, chartW, chartH, template.HTMLEscapeString(title))
	fmt.Fprintf(b, `<text x="%d" y="20" class="t">%s</text>`, padL, template.HTMLEscapeString(title))
	for _, v := range niceTicks(y0, y1, 5) {
		y := py(v)
		fmt.Fprintf(b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" class="g"/><text x="%d" y="%.1f" class="yl">%s</text>`, padL, chartW-padR, y, y, padL-6, y+4, tick(v))
	}
	for _, v := range niceTicks(x0, x1, 6) {
		x := px(v)
		fmt.Fprintf(b, `<text x="%.1f" y="%d" class="xl">%s</text>`, x, chartH-padB+16, tick(v))
	}
	fmt.Fprintf(b, `<line x1="%d" x2="%d" y1="%d" y2="%d" class="a"/>`, padL, chartW-padR, chartH-padB, chartH-padB)
	fmt.Fprintf(b, `<text x="%d" y="%d" class="xn">%s</text>`, (padL+chartW-padR)/2, chartH-6, template.HTMLEscapeString(xlabel))
	fmt.Fprintf(b, `<text transform="translate(14 %d) rotate(-90)" class="xn">%s</text>`, (padT+chartH-padB)/2, template.HTMLEscapeString(ylabel))
	return px, py
}

// histogramSVG draws values in about 40 equal bins.
func histogramSVG(title, xlabel string, values []float64) template.HTML {
	var b strings.Builder
	if len(values) == 0 {
		return ""
	}
	lo, hi := slices.Min(values), slices.Max(values)
	bins := 40
	if hi == lo {
		bins, hi = 1, lo+1
	}
	width := (hi - lo) / float64(bins)
	counts := make([]float64, bins)
	for _, v := range values {
		i := min(int((v-lo)/width), bins-1)
		counts[i]++
	}
	px, py := frame(&b, title, xlabel, "Count", lo, hi, 0, slices.Max(counts))
	for i, c := range counts {
		if c == 0 {
			continue
		}
		x0, x1 := px(lo+float64(i)*width), px(lo+float64(i+1)*width)
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s – %s: %d</title></rect>`,
			x0, py(c), math.Max(x1-x0-0.5, 0.5), py(0)-py(c), green, tick(lo+float64(i)*width), tick(lo+float64(i+1)*width), int(c))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// maxPoints bounds the vertices one series draws; longer series are
// thinned to the extremes of each stretch, so peaks stay visible.
const maxPoints = 1500

func thin(x, y []float64) ([]float64, []float64) {
	if len(x) <= maxPoints {
		return x, y
	}
	per := (len(x) + maxPoints/2 - 1) / (maxPoints / 2)
	var ox, oy []float64
	for i := 0; i < len(x); i += per {
		j := min(i+per, len(x))
		lo, hi := i, i
		for k := i; k < j; k++ {
			if y[k] < y[lo] {
				lo = k
			}
			if y[k] > y[hi] {
				hi = k
			}
		}
		a, c := min(lo, hi), max(lo, hi)
		ox, oy = append(ox, x[a]), append(oy, y[a])
		if c != a {
			ox, oy = append(ox, x[c]), append(oy, y[c])
		}
	}
	return ox, oy
}

// linesSVG draws series as lines (or steps), with a legend when several
// are named; hline, when not NaN, is a dashed limit line.
func linesSVG(title, xlabel, ylabel string, series []line, hline float64, hlabel string) template.HTML {
	x0, x1, y0, y1 := math.Inf(1), math.Inf(-1), 0.0, math.Inf(-1)
	for _, s := range series {
		for i := range s.X {
			x0, x1 = math.Min(x0, s.X[i]), math.Max(x1, s.X[i])
			y0, y1 = math.Min(y0, s.Y[i]), math.Max(y1, s.Y[i])
		}
	}
	if math.IsInf(x0, 0) {
		return ""
	}
	if !math.IsNaN(hline) {
		y1 = math.Max(y1, hline*1.05)
	}
	var b strings.Builder
	px, py := frame(&b, title, xlabel, ylabel, x0, x1, y0, y1)
	for k, s := range series {
		col := s.Color
		if col == "" {
			col = palette[k%len(palette)]
		}
		xs, ys := thin(s.X, s.Y)
		var d strings.Builder
		for i := range xs {
			switch {
			case i == 0:
				fmt.Fprintf(&d, "M%.1f %.1f", px(xs[i]), py(ys[i]))
			case s.Step:
				fmt.Fprintf(&d, "H%.1fV%.1f", px(xs[i]), py(ys[i]))
			default:
				fmt.Fprintf(&d, "L%.1f %.1f", px(xs[i]), py(ys[i]))
			}
		}
		dash := ""
		if s.Dash {
			dash = ` stroke-dasharray="5 3"`
		}
		fmt.Fprintf(&b, `<path d="%s" fill="none" stroke="%s" stroke-width="1.5"%s><title>%s</title></path>`, d.String(), col, dash, template.HTMLEscapeString(s.Name))
	}
	if !math.IsNaN(hline) {
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#d62728" stroke-dasharray="6 4"/><text x="%d" y="%.1f" class="lim">%s</text>`,
			padL, chartW-padR, py(hline), py(hline), chartW-padR-4, py(hline)-4, template.HTMLEscapeString(hlabel))
	}
	if len(series) > 1 {
		for k, s := range series {
			col := s.Color
			if col == "" {
				col = palette[k%len(palette)]
			}
			y := padT + 4 + 13*k
			fmt.Fprintf(&b, `<rect x="%d" y="%d" width="10" height="3" fill="%s"/><text x="%d" y="%d" class="lg">%s</text>`, padL+8, y, col, padL+22, y+4, template.HTMLEscapeString(s.Name))
		}
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// scatterSVG draws points.
func scatterSVG(title, xlabel, ylabel string, x, y []float64) template.HTML {
	if len(x) == 0 {
		return ""
	}
	var b strings.Builder
	px, py := frame(&b, title, xlabel, ylabel, math.Min(0, slices.Min(x)), slices.Max(x), 0, math.Max(slices.Max(y), 1e-9))
	step := max(1, len(x)/4000)
	for i := 0; i < len(x); i += step {
		fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="1.6" fill="%s" fill-opacity="0.5"/>`, px(x[i]), py(y[i]), green)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// chartCSS styles the charts of every view.
const chartCSS = `svg.chart{width:100%;height:auto;background:#fff;border-radius:8px;box-shadow:0 1px 3px rgba(0,0,0,.12)}
svg.chart text{font:11px -apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;fill:#444}
svg.chart .t{font-size:13px;font-weight:600;fill:#222}
svg.chart .yl{text-anchor:end}svg.chart .xl,svg.chart .xn{text-anchor:middle}
svg.chart .lim{text-anchor:end;fill:#d62728}
svg.chart .g{stroke:#eee}svg.chart .a{stroke:#999}
body{font-family:-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;background:#f5f5f5;margin:0;padding:20px;color:#222}
h1{color:#333;margin:0 0 6px}h2{color:#333;font-size:16px;margin:24px 0 8px}.meta{color:#666;font-size:13px;margin-bottom:16px}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(520px,1fr));gap:16px}
table{border-collapse:collapse;font-size:13px;background:#fff;margin-bottom:12px}th,td{border:1px solid #ddd;padding:4px 8px;text-align:right}
th:first-child,td:first-child{text-align:left}th{background:#f0f0f0}`
