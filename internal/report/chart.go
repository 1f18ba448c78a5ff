package report

import (
	"math"
	"strings"
	"sync"
	"unicode"

	"github.com/aiperf-go/aiperf/internal/metrics"
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

// finite reports whether v is a number to draw.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
