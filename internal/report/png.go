package report

import (
	"bytes"
	"fmt"
	"image/color"
	"image/png"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/aiperf-go/aiperf/internal/metrics/stats"
	"github.com/go-analyze/charts"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// PNG size, AIPerf's plot size (1600 x 800).
const (
	PNGWidth  = 1600
	PNGHeight = 800
	pngDPI    = 96
)

// Theme is the colour scheme of the PNGs and the HTML report.
type Theme struct {
	Name       string // "light" or "dark"
	Background color.Color
	Foreground color.Color
	Grid       color.Color
	Series     []color.Color
}

// nvidiaPalette starts with NVIDIA green, as AIPerf's plots.
var nvidiaPalette = []string{"#76B900", "#1F77B4", "#FF7F0E", "#9467BD", "#D62728", "#17BECF", "#8C564B", "#E377C2", "#7F7F7F", "#BCBD22"}

// Themes by name.
var (
	LightTheme = Theme{Name: "light", Background: color.White, Foreground: color.Gray{Y: 0x20}, Grid: color.Gray{Y: 0xE0}, Series: hexColors(nvidiaPalette)}
	DarkTheme  = Theme{Name: "dark", Background: color.RGBA{0x1A, 0x1A, 0x1A, 0xFF}, Foreground: color.Gray{Y: 0xE0}, Grid: color.Gray{Y: 0x40}, Series: hexColors(nvidiaPalette)}
)

// ThemeNamed returns the theme for --theme.
func ThemeNamed(name string) (Theme, error) {
	switch strings.ToLower(name) {
	case "", "light":
		return LightTheme, nil
	case "dark":
		return DarkTheme, nil
	}
	return Theme{}, fmt.Errorf("--theme %q: choose light or dark", name)
}

func hexColors(hex []string) []color.Color {
	out := make([]color.Color, len(hex))
	for i, h := range hex {
		var r, g, b uint8
		fmt.Sscanf(h, "#%02x%02x%02x", &r, &g, &b)
		out[i] = color.RGBA{r, g, b, 0xFF}
	}
	return out
}

func (t Theme) color(group int) color.Color {
	return t.Series[((group%len(t.Series))+len(t.Series))%len(t.Series)]
}

// withAlpha returns c at opacity a (0-255), premultiplied as image/color
// expects.
func withAlpha(c color.Color, a uint8) color.Color {
	r, g, b, _ := c.RGBA()
	f := float64(a) / 255
	return color.RGBA64{uint16(float64(r) * f), uint16(float64(g) * f), uint16(float64(b) * f), uint16(a) * 0x101}
}

var fontOnce sync.Once

// lineChunk is the most vertices drawn in one stroke.
const lineChunk = 200

// RenderPNG draws the chart as a PNGWidth x PNGHeight PNG: dual-axis
// charts with go-analyze/charts (which has a second value axis), every
// other type with gonum/plot (numeric axes, polygons, segments, bands).
func RenderPNG(c *Chart, t Theme) ([]byte, error) {
	if c.Type == TypeDualAxis {
		return dualAxisPNG(c, t)
	}
	p, err := buildPlot(c, t)
	if err != nil {
		return nil, err
	}
	return encodePNG(PNGWidth, PNGHeight, func(dc draw.Canvas) { p.Draw(dc) })
}

// encodePNG draws onto a w x h pixel canvas and encodes it.
func encodePNG(w, h int, paint func(draw.Canvas)) ([]byte, error) {
	img := vgimg.NewWith(vgimg.UseWH(vg.Length(w)*vg.Inch/pngDPI, vg.Length(h)*vg.Inch/pngDPI), vgimg.UseDPI(pngDPI))
	paint(draw.New(img))
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed} // charts compress well anyway
	if err := enc.Encode(&buf, img.Image()); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// buildPlot lays a chart out as a gonum plot.
func buildPlot(c *Chart, t Theme) (*plot.Plot, error) {
	fontOnce.Do(func() { plot.DefaultFont.Variant, plotter.DefaultFont.Variant = "Sans", "Sans" })
	p := plot.New()
	p.BackgroundColor = t.Background
	p.Title.Padding = vg.Points(10)
	p.Title.Text = c.Title
	p.Title.TextStyle.Color = t.Foreground
	p.Title.TextStyle.Font.Size = vg.Points(16)
	for _, ax := range []*plot.Axis{&p.X, &p.Y} {
		ax.Color = t.Foreground
		ax.Label.TextStyle.Color = t.Foreground
		ax.Tick.Color = t.Foreground
		ax.Tick.Label.Color = t.Foreground
		ax.Label.TextStyle.Font.Size = vg.Points(12)
		ax.Tick.Label.Font.Size = vg.Points(10)
	}
	p.X.Label.Text, p.Y.Label.Text = c.XLabel, c.YLabel
	p.Legend.TextStyle.Color = t.Foreground
	p.Legend.Top = true
	grid := plotter.NewGrid()
	grid.Vertical.Color, grid.Horizontal.Color = t.Grid, t.Grid
	p.Add(grid)

	nBars := 0
	for _, s := range c.Series {
		if s.Kind == Bars {
			nBars++
		}
	}
	bar := 0
	legends := 0
	for i := range c.Series {
		s := &c.Series[i]
		if !s.NoLegend && s.Name != "" {
			legends++
		}
	}
	for i := range c.Series {
		s := &c.Series[i]
		if legends < 2 {
			s = &Series{}
			*s = c.Series[i]
			s.NoLegend = true // one series: the title says what it is
		}
		if err := addSeries(p, s, t, nBars, &bar); err != nil {
			return nil, fmt.Errorf("%s: series %q: %w", c.Name, s.Name, err)
		}
	}
	switch {
	case nBars > 0 || c.Type == TypeArea:
		// Bars and areas stand on zero, with headroom above the highest.
		p.Y.Min = 0
		p.Y.Max *= 1.08
	default:
		// Keep points off the frame, and the top clear for the legend.
		dx, dy := p.X.Max-p.X.Min, p.Y.Max-p.Y.Min
		p.X.Min, p.X.Max = p.X.Min-0.04*dx, p.X.Max+0.04*dx
		p.Y.Min, p.Y.Max = p.Y.Min-0.04*dy, p.Y.Max+0.12*dy
	}
	if len(c.XCategories) > 0 {
		p.NominalX(thinLabels(c.XCategories, 24)...)
		p.X.Tick.Label.Rotation = math.Pi / 6
		p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XRight, draw.YCenter
	}
	if len(c.Notes) > 0 {
		p.X.Label.Text += "\n" + strings.Join(c.Notes, "\n")
	}
	return p, nil
}

func xys(x, y []float64) plotter.XYs {
	out := make(plotter.XYs, 0, len(x))
	for i := range x {
		if stats.Finite(x[i]) && stats.Finite(y[i]) {
			out = append(out, plotter.XY{X: x[i], Y: y[i]})
		}
	}
	return out
}

// addSeries draws s in its kind's form, in its group's colour, with a legend
// entry unless it has no name or NoLegend.
func addSeries(p *plot.Plot, s *Series, t Theme, nBars int, bar *int) error {
	col := t.color(s.Group)
	legend := func(th plot.Thumbnailer) {
		if !s.NoLegend && s.Name != "" {
			p.Legend.Add(s.Name, th)
		}
	}
	switch s.Kind {
	case Markers:
		return addMarkers(p, s, t, col, legend)
	case Line, Step, Area:
		return addLine(p, s, t, col, legend)
	case Bars:
		return addBars(p, s, col, legend, nBars, bar)
	case Polygon:
		return addPolygon(p, s, col, legend)
	case Segments:
		return addSegments(p, s, col, legend)
	case Band:
		return addBand(p, s, col, legend)
	}
	return nil
}

// addMarkers draws s as a scatter of circles, larger when there are few.
func addMarkers(p *plot.Plot, s *Series, t Theme, col color.Color, legend func(plot.Thumbnailer)) error {
	pts := xys(s.X, s.Y)
	if len(pts) == 0 {
		return nil
	}
	sc, err := plotter.NewScatter(pts)
	if err != nil {
		return err
	}
	sc.GlyphStyle.Color, sc.GlyphStyle.Radius, sc.GlyphStyle.Shape = col, vg.Points(2.5), draw.CircleGlyph{}
	if len(pts) <= 60 {
		sc.GlyphStyle.Radius = vg.Points(5)
	}
	p.Add(sc)
	legend(sc)
	return addLabels(p, s, t)
}

// addLine draws s as a line (stepped for Step, filled below for Area).
func addLine(p *plot.Plot, s *Series, t Theme, col color.Color, legend func(plot.Thumbnailer)) error {
	pts := xys(s.X, s.Y)
	if len(pts) == 0 {
		return nil
	}
	// One stroke of many thousand vertices is quadratic in freetype's
	// rasterizer (seconds for 10,000 points); strokes of lineChunk
	// points that share their ends draw the same line in milliseconds.
	for i := 0; i < len(pts); i += lineChunk - 1 {
		l, err := plotter.NewLine(pts[i:min(i+lineChunk, len(pts))])
		if err != nil {
			return err
		}
		l.Color, l.Width = col, vg.Points(2)
		if s.Kind == Step {
			l.StepStyle = plotter.PostStep
		}
		if s.Kind == Area {
			l.StepStyle = plotter.PostStep
			l.FillColor = withAlpha(col, 0x50)
		}
		p.Add(l)
		if i == 0 {
			legend(l)
		}
		if i+lineChunk >= len(pts) {
			break
		}
	}
	return addLabels(p, s, t)
}

// addBars draws s as bars, offset beside the plot's other bar series
// (bar is this one's index among nBars).
func addBars(p *plot.Plot, s *Series, col color.Color, legend func(plot.Thumbnailer), nBars int, bar *int) error {
	vals := make(plotter.Values, len(s.Y))
	for i, v := range s.Y {
		if stats.Finite(v) {
			vals[i] = v
		}
	}
	w := vg.Points(max(2, 900/float64(max(len(vals), 1)*max(nBars, 1))))
	b, err := plotter.NewBarChart(vals, w)
	if err != nil {
		return err
	}
	b.Color, b.LineStyle.Color = col, col
	if nBars > 1 {
		b.Offset = w * vg.Length(*bar-nBars/2)
	}
	*bar++
	p.Add(b)
	legend(b)
	return nil
}

// addPolygon draws s as a filled polygon, fainter and dashed when Faint.
func addPolygon(p *plot.Plot, s *Series, col color.Color, legend func(plot.Thumbnailer)) error {
	pts := xys(s.X, s.Y)
	if len(pts) < 3 {
		return nil
	}
	pg, err := plotter.NewPolygon(pts)
	if err != nil {
		return err
	}
	alpha := uint8(0x40)
	pg.LineStyle.Color, pg.LineStyle.Width = col, vg.Points(1.5)
	if s.Faint {
		alpha = 0x18
		pg.LineStyle.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	}
	pg.Color = withAlpha(col, alpha)
	p.Add(pg)
	legend(pg)
	return nil
}

// addSegments draws s as separate segments, one per pair of points.
func addSegments(p *plot.Plot, s *Series, col color.Color, legend func(plot.Thumbnailer)) error {
	first := true
	for i := 0; i+1 < len(s.X); i += 2 {
		l, err := plotter.NewLine(plotter.XYs{{X: s.X[i], Y: s.Y[i]}, {X: s.X[i+1], Y: s.Y[i+1]}})
		if err != nil {
			return err
		}
		l.Color, l.Width = col, vg.Points(2)
		p.Add(l)
		if first {
			legend(l)
			first = false
		}
	}
	return nil
}

// addBand fills the band between s.Lo and s.Hi where both are finite.
func addBand(p *plot.Plot, s *Series, col color.Color, legend func(plot.Thumbnailer)) error {
	var ring plotter.XYs
	for i := range s.X {
		if stats.Finite(s.Lo[i]) && stats.Finite(s.Hi[i]) {
			ring = append(ring, plotter.XY{X: s.X[i], Y: s.Hi[i]})
		}
	}
	for i := len(s.X) - 1; i >= 0; i-- {
		if stats.Finite(s.Lo[i]) && stats.Finite(s.Hi[i]) {
			ring = append(ring, plotter.XY{X: s.X[i], Y: s.Lo[i]})
		}
	}
	if len(ring) < 3 {
		return nil
	}
	pg, err := plotter.NewPolygon(ring)
	if err != nil {
		return err
	}
	alpha := uint8(0x60)
	if s.Faint {
		alpha = 0x30
	}
	pg.Color, pg.LineStyle.Width = withAlpha(col, alpha), 0
	p.Add(pg)
	legend(pg)
	return nil
}

// addLabels writes each point's label beside it.
func addLabels(p *plot.Plot, s *Series, t Theme) error {
	if len(s.Labels) != len(s.X) {
		return nil
	}
	var d plotter.XYLabels
	for i := range s.X {
		if stats.Finite(s.X[i]) && stats.Finite(s.Y[i]) && s.Labels[i] != "" {
			d.XYs = append(d.XYs, plotter.XY{X: s.X[i], Y: s.Y[i]})
			d.Labels = append(d.Labels, s.Labels[i])
		}
	}
	if len(d.XYs) == 0 {
		return nil
	}
	l, err := plotter.NewLabels(d)
	if err != nil {
		return err
	}
	for i := range l.TextStyle {
		l.TextStyle[i].Color = t.Foreground
		l.TextStyle[i].Font.Size = vg.Points(9)
	}
	l.Offset = vg.Point{X: vg.Points(6), Y: vg.Points(4)}
	p.Add(l)
	return nil
}

// thinLabels keeps at most n evenly spaced category labels readable,
// blanking the rest.
func thinLabels(labels []string, n int) []string {
	if len(labels) <= n {
		return labels
	}
	step := int(math.Ceil(float64(len(labels)) / float64(n)))
	out := slices.Clone(labels)
	for i := range out {
		if i%step != 0 {
			out[i] = ""
		}
	}
	return out
}

// dualAxisPNG draws a two-axis time chart with go-analyze/charts, whose x
// axis is a category axis: both series are sampled on one grid of times
// (a step function holds its value between samples) laid out by timeGrid
// so that the axis labels fall on round times.
func dualAxisPNG(c *Chart, t Theme) ([]byte, error) {
	grid, labels, count := dualAxisGrid(c)
	values := make([][]float64, len(c.Series))
	names := make([]string, len(c.Series))
	for k, s := range c.Series {
		values[k] = sampleStep(s.X, s.Y, grid)
		names[k] = s.Name
	}
	opt := charts.NewLineChartOptionWithData(values)
	theme := charts.GetTheme(charts.ThemeLight)
	if t.Name == "dark" {
		theme = charts.GetTheme(charts.ThemeDark)
	}
	colors := make([]charts.Color, len(c.Series))
	for k, s := range c.Series {
		r, g, b, _ := t.color(s.Group).RGBA()
		colors[k] = charts.Color{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 0xFF}
	}
	theme = theme.WithSeriesColors(colors)
	opt.Theme = theme
	opt.Title.Text = c.Title
	opt.XAxis = charts.XAxisOption{Labels: labels, LabelCount: count, Title: c.XLabel}
	opt.Legend = charts.LegendOption{SeriesNames: names}
	opt.Symbol = charts.Symbol{Shape: charts.SymbolNone}
	opt.YAxis = []charts.YAxisOption{{Title: c.YLabel}, {Title: c.Y2Label}}
	if c.Y2Max > 0 {
		opt.YAxis[1].Min, opt.YAxis[1].Max = charts.Ptr(0.0), charts.Ptr(c.Y2Max)
	}
	for k, s := range c.Series {
		if s.OnY2 {
			opt.SeriesList[k].YAxisIndex = 1
		}
	}
	opt.YAxis[0].Theme = theme.WithYAxisSeriesColor(0)
	opt.YAxis[1].Theme = theme.WithYAxisSeriesColor(1)
	p := charts.NewPainter(charts.PainterOptions{OutputFormat: charts.ChartOutputPNG, Width: PNGWidth, Height: PNGHeight})
	if err := p.LineChart(opt); err != nil {
		return nil, fmt.Errorf("%s: %w", c.Name, err)
	}
	return p.Bytes()
}

// dualAxisGrid is the time grid of a dual-axis chart: its series' x span,
// from 0 when it starts before (a GPU sample before the first request
// sets the value at 0).
func dualAxisGrid(c *Chart) (grid []float64, labels []string, count int) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range c.Series {
		for _, x := range s.X {
			if stats.Finite(x) {
				lo, hi = min(lo, x), max(hi, x)
			}
		}
	}
	if math.IsInf(lo, 0) {
		lo, hi = 0, 1
	}
	if lo < 0 && hi > 0 {
		lo = 0
	}
	return timeGrid(lo, hi)
}

// timeGrid lays [lo, hi] out as the sample times of a category x axis
// whose labels are round: count labels (4 to 8) at t0, t0+step, ...,
// step 1, 2, 2.5 or 5 times a power of ten, t0 a multiple of step at or
// below lo, each label on the grid index charts labels (every k-th of
// count*k samples: the library puts label i at index round(i*n/count)),
// the other labels empty. The grid ends past hi.
func timeGrid(lo, hi float64) (grid []float64, labels []string, count int) {
	if !(hi > lo) {
		hi = lo + 1
	}
	step := niceCeil((hi - lo) / 6)
	t0 := math.Floor(lo/step) * step
	const samples = 120
	for {
		count = int(math.Ceil((hi-t0)/step + 1e-9))
		k := (samples + count - 1) / count
		if end := t0 + float64(count*k-1)*step/float64(k); end < hi {
			count++
		}
		if count <= 8 {
			break
		}
		step = niceCeil(step * 1.01)
	}
	count = max(count, 4)
	k := (samples + count - 1) / count
	n := count * k
	grid = make([]float64, n)
	labels = make([]string, n)
	for j := range grid {
		grid[j] = t0 + float64(j)*step/float64(k)
	}
	for i := range count {
		labels[i*k] = tickLabel(t0+float64(i)*step, step)
	}
	return grid, labels, count
}

// tickLabel formats a multiple of step with as many decimals as step
// needs, and never as "-0".
func tickLabel(v, step float64) string {
	dec := 0
	for s := step; s < 1-1e-9 && dec < 12; s *= 10 {
		dec++
	}
	if math.Abs(step*math.Pow10(dec)-math.Round(step*math.Pow10(dec))) > 1e-6 {
		dec++ // 2.5 x 10^-k
	}
	out := strconv.FormatFloat(v, 'f', dec, 64)
	if strings.Trim(out, "-0.") == "" {
		out = strings.TrimPrefix(out, "-")
	}
	return out
}

// sampleStep evaluates the step function (x, y) — each y holding until
// the next x — at the sorted times grid; 0 before the first x.
func sampleStep(x, y, grid []float64) []float64 {
	out := make([]float64, len(grid))
	j, cur := 0, 0.0
	for i, g := range grid {
		for j < len(x) && x[j] <= g {
			if stats.Finite(y[j]) {
				cur = y[j]
			}
			j++
		}
		out[i] = cur
	}
	return out
}
