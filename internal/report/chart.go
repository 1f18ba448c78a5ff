package report

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/aiperf-go/aiperf/internal/metrics"
	"github.com/aiperf-go/aiperf/internal/metrics/stats"
)

// Chart is one plot as data, independent of how it is drawn: the PNG and
// the HTML renderers draw the same Chart.
type Chart struct {
	Name        string // the preset's name; the PNG is <Name>.png
	Type        string // the plot type
	Title       string
	Description string
	XLabel      string
	YLabel      string
	Y2Label     string // dual-axis charts
	// Y2Max is the right axis' upper bound; 0 lets the renderer choose.
	// A dual-axis chart whose two series would be drawn on top of each
	// other sets it (see separateAxes).
	Y2Max float64
	// XCategories label the x positions 0, 1, ... of bar charts
	// (timeslices, histograms); empty for numeric x axes.
	XCategories []string
	Series      []Series
	// Notes say what the chart could not show as asked (a metric missing
	// from some runs, a per-GPU figure without GPU telemetry).
	Notes []string
}

// Points is the number of data points the chart draws.
func (c *Chart) Points() int {
	n := 0
	for _, s := range c.Series {
		n += s.Len()
	}
	return n
}

// Kind is how a series is drawn.
type Kind int

// Series kinds.
const (
	Markers  Kind = iota // one marker per point
	Line                 // points joined in order
	Step                 // a step function (value holds until the next x)
	Area                 // a line filled down to zero
	Bars                 // one bar per x category
	Polygon              // a closed, filled outline (a confidence ellipse)
	Segments             // independent segments: points (0,1), (2,3), ...
	Band                 // the area between Lo and Hi over X
)

// Series is one drawn data set.
type Series struct {
	Name   string
	Kind   Kind
	X, Y   []float64
	Lo, Hi []float64 // Band
	// Labels annotate points (Markers, Line); empty or one per point.
	Labels []string
	// OnY2 draws the series against the right-hand axis.
	OnY2 bool
	// Group ties series of one group to one colour; -1 picks by position.
	Group int
	// Faint draws it lighter (an interval from fewer than 3 runs).
	Faint bool
	// Hidden series (Markers, Line) stay out of the legend.
	NoLegend bool
}

// minVisibleSpan is the share of the x axis below which a segment draws
// as a dot at most: 3 pixels of a 1600-pixel-wide PNG.
const minVisibleSpan = 0.002

// dropInvisibleLegends takes out of the legend every Segments series none
// of whose segments is long enough to see at the chart's x scale (the
// time-to-first-token part of a timeline against a fast server): a legend
// entry whose colour appears nowhere misleads. A note says why.
func (c *Chart) dropInvisibleLegends() {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range c.Series {
		for _, x := range s.X {
			if stats.Finite(x) {
				lo, hi = min(lo, x), max(hi, x)
			}
		}
	}
	span := hi - lo
	if !(span > 0) {
		return
	}
	for i := range c.Series {
		s := &c.Series[i]
		if s.Kind != Segments || s.NoLegend || s.Len() == 0 {
			continue
		}
		longest := 0.0
		for k := 0; k+1 < len(s.X); k += 2 {
			longest = max(longest, math.Abs(s.X[k+1]-s.X[k]))
		}
		if longest < minVisibleSpan*span {
			s.NoLegend = true
			c.Notes = append(c.Notes, fmt.Sprintf("%s: every segment is shorter than %.2g%% of the x axis, too short to see at this scale, so it is not in the legend", s.Name, minVisibleSpan*100))
		}
	}
}

// The point labels' geometry on the PNG, in pixels: about the plot area
// of a PNGWidth x PNGHeight chart once the axes, title and legend have
// their room, and a 9-point label at 96 DPI (character width and line
// height, rounded up) drawn at addLabels' offset up and right of its point.
const (
	labelAreaW = 1450
	labelAreaH = 620
	labelCharW = 7
	labelH     = 13
	labelDX    = 8
	labelDY    = 5
)

// labelBox is a label's rectangle in the label geometry's pixels (y down).
type labelBox struct{ x0, y0, x1, y1 float64 }

func (a labelBox) overlaps(b labelBox) bool {
	return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1
}

// labelBoxes returns the box of every labelled point, by series and point
// index, over the chart's data bounds padded as buildPlot pads them.
func (c *Chart) labelBoxes() map[[2]int]labelBox {
	xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, s := range c.Series {
		for i := range s.X {
			for _, y := range []float64{at(s.Y, i), at(s.Lo, i), at(s.Hi, i)} {
				if stats.Finite(s.X[i]) && stats.Finite(y) {
					xlo, xhi, ylo, yhi = min(xlo, s.X[i]), max(xhi, s.X[i]), min(ylo, y), max(yhi, y)
				}
			}
		}
	}
	dx, dy := max(xhi-xlo, 1e-12), max(yhi-ylo, 1e-12)
	xlo, xhi, ylo, yhi = xlo-0.04*dx, xhi+0.04*dx, ylo-0.04*dy, yhi+0.12*dy
	out := map[[2]int]labelBox{}
	for si, s := range c.Series {
		if len(s.Labels) != len(s.X) {
			continue
		}
		for i, l := range s.Labels {
			if l == "" || !stats.Finite(s.X[i]) || !stats.Finite(at(s.Y, i)) {
				continue
			}
			px := (s.X[i] - xlo) / (xhi - xlo) * labelAreaW
			py := (1 - (s.Y[i]-ylo)/(yhi-ylo)) * labelAreaH
			x0, y1 := px+labelDX, py-labelDY
			out[[2]int{si, i}] = labelBox{x0, y1 - labelH, x0 + float64(labelCharW*len([]rune(l))), y1}
		}
	}
	return out
}

func at(v []float64, i int) float64 {
	if i < len(v) {
		return v[i]
	}
	return math.NaN()
}

// declutterLabels blanks every point label that would overlap one kept
// before it (series in order, points in order), so that no two labels
// print over each other; the points stay, and their colour and the
// neighbouring labels still say which configuration each is.
func (c *Chart) declutterLabels() {
	boxes := c.labelBoxes()
	var kept []labelBox
	for si := range c.Series {
		s := &c.Series[si]
		s.Labels = slices.Clone(s.Labels) // the caller's slice stays as it was
		for i := range s.Labels {
			b, ok := boxes[[2]int{si, i}]
			if !ok {
				continue
			}
			if slices.ContainsFunc(kept, b.overlaps) {
				s.Labels[i] = ""
				continue
			}
			kept = append(kept, b)
		}
	}
}

// Len is the number of data points of the series.
func (s *Series) Len() int {
	if s.Kind == Segments {
		return len(s.X) / 2
	}
	return len(s.X)
}

// builtinMetrics names and orients metrics.
var builtinMetrics = sync.OnceValue(metrics.Builtin)

// metricName is a metric's display name: the registry's header, with
// AIPerf's derived suffixes; unknown tags are title-cased.
func metricName(tag string) string {
	for _, suf := range []struct{ tag, name string }{{"_per_gpu", " Per GPU"}, {"_per_user", " Per User"}} {
		if base, ok := strings.CutSuffix(tag, suf.tag); ok {
			if m, found := builtinMetrics().Lookup(tag); found {
				return m.Header
			}
			return metricName(base) + suf.name
		}
	}
	if m, ok := builtinMetrics().Lookup(tag); ok && m.Header != "" {
		return m.Header
	}
	switch tag {
	case "request_number":
		return "Request Number"
	case "timestamp", "timestamp_s":
		return "Time (s)"
	case "request_start_ns":
		return "Request Start (s)"
	case "throughput_tokens_per_sec":
		return "Output Token Throughput (tokens/sec)"
	case "active_requests":
		return "Requests in Flight"
	}
	return titleCase(tag)
}

// axisLabel is "<name> (<unit>)", or the name alone when the unit is
// unknown or already in it.
func axisLabel(tag, stat, unit string) string {
	name := metricName(tag)
	if stat != "" && stat != "avg" {
		name += " " + stat
	}
	if unit == "" || strings.Contains(name, "("+unit) {
		return name
	}
	return name + " (" + unit + ")"
}

func titleCase(tag string) string {
	words := strings.FieldsFunc(tag, func(r rune) bool { return r == '_' || r == ':' || r == '.' })
	for i, w := range words {
		r := []rune(w)
		r[0] = unicode.ToUpper(r[0])
		words[i] = string(r)
	}
	return strings.Join(words, " ")
}

// largerIsBetter orients a metric for the Pareto front: throughputs up,
// latencies down. Derived per-GPU and per-user metrics follow their base.
func largerIsBetter(tag string) bool {
	if m, ok := builtinMetrics().Lookup(tag); ok {
		return m.Flags.Has(metrics.FlagLargerIsBetter)
	}
	for _, suf := range []string{"_per_gpu", "_per_user"} {
		if base, ok := strings.CutSuffix(tag, suf); ok {
			return largerIsBetter(base)
		}
	}
	return strings.Contains(tag, "throughput") || strings.Contains(tag, "goodput")
}
