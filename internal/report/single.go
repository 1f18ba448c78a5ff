package report

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/aiperf-go/aiperf/internal/metrics/stats"
)

// ErrNoData says a plot has nothing to draw for this run (no timeslices, no
// GPU telemetry, no per-request records); the plot is skipped, not failed.
var ErrNoData = errors.New("no data for this plot")

// singleChart builds a single-run preset for run.
func singleChart(name string, s Spec, run *Run) (*Chart, error) {
	c := &Chart{Name: name, Type: s.Type, Title: s.Title, Description: s.Description}
	if c.Title == "" {
		c.Title = titleCase(name)
	}
	var err error
	switch s.Type {
	case TypeTimeslice:
		err = timesliceChart(c, s, run)
	case TypeScatter, TypeScatterPct:
		err = scatterChart(c, s, run)
	case TypeArea:
		err = areaChart(c, s, run)
	case TypeDualAxis:
		err = dualAxisChart(c, s, run)
	case TypeTimeline:
		err = timelineChart(c, s, run)
	case TypeHistogram:
		err = histogramChart(c, s, run)
	case TypeBands:
		err = bandsChart(c, s, run)
	default:
		err = fmt.Errorf("plot type %s is not a single-run plot", s.Type)
	}
	if err != nil {
		return nil, err
	}
	if s.XLabel != "" {
		c.XLabel = s.XLabel
	}
	if s.YLabel != "" {
		c.YLabel = s.YLabel
	}
	if c.Points() == 0 {
		return nil, fmt.Errorf("%w: %s", ErrNoData, name)
	}
	c.dropInvisibleLegends()
	return c, nil
}

// requestRows are the successful profiling requests with the columns the
// single-run plots use, in start order, times relative to the first start.
type requestRows struct {
	t0   int64 // the first request's start (Unix ns)
	reqs []Request
}

func rowsOf(run *Run) (*requestRows, error) {
	var ok []Request
	for _, q := range run.Requests {
		if !q.Failed && q.StartNs > 0 && q.EndNs >= q.StartNs {
			ok = append(ok, q)
		}
	}
	if len(ok) == 0 {
		return nil, fmt.Errorf("%w: %s has no successful per-request records (%s)", ErrNoData, run.Dir, "profile_export.jsonl")
	}
	slices.SortStableFunc(ok, func(a, b Request) int { return cmp.Compare(a.StartNs, b.StartNs) })
	return &requestRows{t0: ok[0].StartNs, reqs: ok}, nil
}

// column returns the values of a named column for every row.
func (rr *requestRows) column(name string) []float64 {
	out := make([]float64, len(rr.reqs))
	minEnd := int64(math.MaxInt64)
	for _, q := range rr.reqs {
		minEnd = min(minEnd, q.EndNs)
	}
	for i := range rr.reqs {
		q := &rr.reqs[i]
		switch name {
		case "request_number":
			out[i] = float64(i)
		case "timestamp":
			out[i] = float64(q.EndNs-minEnd) / 1e9
		case "timestamp_s", "request_start_ns", "request_start":
			out[i] = float64(q.StartNs-rr.t0) / 1e9
		case "request_end_ns":
			out[i] = float64(q.EndNs-rr.t0) / 1e9
		default:
			out[i] = q.Metric(name)
		}
	}
	return out
}

// columnUnit is the display unit of a request column.
func (run *Run) columnUnit(name string) string {
	if u := run.Unit(name); u != "" {
		return u
	}
	for _, q := range run.Requests {
		if _, ok := q.Metrics[name]; ok {
			if m, found := builtinMetrics().Lookup(name); found {
				return string(m.DisplayUnit)
			}
			break
		}
	}
	return ""
}

func scatterChart(c *Chart, s Spec, run *Run) error {
	rr, err := rowsOf(run)
	if err != nil {
		return err
	}
	xs, ys := rr.column(s.X.Metric), rr.column(s.Y.Metric)
	var px, py []float64
	for i := range xs {
		if stats.Finite(xs[i]) && stats.Finite(ys[i]) {
			px, py = append(px, xs[i]), append(py, ys[i])
		}
	}
	if len(px) == 0 {
		return fmt.Errorf("%w: no request has %s", ErrNoData, s.Y.Metric)
	}
	c.XLabel, c.YLabel = axisLabel(s.X.Metric, "", ""), axisLabel(s.Y.Metric, "", run.columnUnit(s.Y.Metric))
	c.Series = append(c.Series, Series{Name: metricName(s.Y.Metric), Kind: Markers, X: px, Y: py, Group: 0})
	if s.Type == TypeScatterPct {
		order := make([]int, len(px))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(px[a], px[b]) })
		sx, sy := make([]float64, len(order)), make([]float64, len(order))
		for k, i := range order {
			sx[k], sy[k] = px[i], py[i]
		}
		pct := rollingPercentiles(sy, min(10, len(sy)), 50, 95, 99)
		for k, name := range []string{"p50", "p95", "p99"} {
			c.Series = append(c.Series, Series{Name: "rolling " + name, Kind: Line, X: sx, Y: pct[k], Group: k + 1})
		}
	}
	return nil
}

// throughputEvents disperses each request's output tokens evenly over its
// generation (first token to end), as AIPerf's throughput events: the
// cumulative token rate and the requests generating, as step functions
// over time since the first request.
func throughputEvents(rr *requestRows) (t, rate, active []float64) {
	type event struct {
		at     int64
		dRate  float64
		dCount float64
	}
	var evs []event
	for _, q := range rr.reqs {
		ttft := q.Metric("time_to_first_token")
		gen := q.StartNs
		if stats.Finite(ttft) && ttft > 0 {
			gen += int64(ttft * 1e6)
		}
		osl := q.Metric("output_sequence_length")
		if d := q.EndNs - gen; d > 0 && stats.Finite(osl) && osl > 0 {
			r := osl / (float64(d) / 1e9)
			evs = append(evs, event{gen, r, 1}, event{q.EndNs, -r, -1})
		}
	}
	slices.SortStableFunc(evs, func(a, b event) int { return cmp.Compare(a.at, b.at) })
	cr, ca := 0.0, 0.0
	for _, e := range evs {
		cr, ca = cr+e.dRate, ca+e.dCount
		t = append(t, float64(e.at-rr.t0)/1e9)
		rate = append(rate, max(cr, 0))
		active = append(active, ca)
	}
	return t, rate, active
}

func areaChart(c *Chart, s Spec, run *Run) error {
	rr, err := rowsOf(run)
	if err != nil {
		return err
	}
	t, rate, active := throughputEvents(rr)
	ys := rate
	if s.Y.Metric == "active_requests" {
		ys = active
	}
	c.XLabel, c.YLabel = "Time (s)", metricName(s.Y.Metric)
	c.Series = []Series{{Name: metricName(s.Y.Metric), Kind: Area, X: t, Y: ys}}
	return nil
}

func dualAxisChart(c *Chart, s Spec, run *Run) error {
	rr, err := rowsOf(run)
	if err != nil {
		return err
	}
	t, rate, active := throughputEvents(rr)
	primary := Series{Name: metricName(s.Y.Metric), Kind: Step, X: t, Y: rate}
	if s.Y.Metric == "active_requests" {
		primary.Y = active
	}
	c.XLabel, c.YLabel = "Time (s)", metricName(s.Y.Metric)
	var second Series
	switch s.Y2.Metric {
	case "active_requests":
		second = Series{Name: metricName("active_requests"), Kind: Step, X: t, Y: active, OnY2: true, Group: 1}
		c.Y2Label = metricName("active_requests")
	case "throughput_tokens_per_sec":
		second = Series{Name: metricName(s.Y2.Metric), Kind: Step, X: t, Y: rate, OnY2: true, Group: 1}
		c.Y2Label = metricName(s.Y2.Metric)
	default:
		x, y := gpuSeries(run, s.Y2.Metric, rr.t0)
		if len(x) == 0 {
			return fmt.Errorf("%w: no GPU telemetry with %s in %s", ErrNoData, s.Y2.Metric, run.Dir)
		}
		second = Series{Name: metricName(s.Y2.Metric), Kind: Area, X: x, Y: y, OnY2: true, Group: 1}
		c.Y2Label = metricName(s.Y2.Metric)
		if run.simulatedGPUs() {
			c.Title += simulatedTitle
		}
	}
	c.Series = []Series{primary, second}
	separateAxes(c, primary, second)
	return nil
}

// separateAxes lifts the right axis' top when the two series of a
// dual-axis chart would coincide: each axis scales its own series to the
// chart's height, so two series of the same shape (the token rate of
// requests generating at one rate each, and the requests generating) are
// drawn exactly on top of each other and the one underneath disappears.
// When they coincide (within a tenth of the height) over more than half
// the time, the right axis goes up to twice its series' peak, so that
// series runs in the lower half, under the other.
func separateAxes(c *Chart, left, right Series) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range []Series{left, right} {
		for _, x := range s.X {
			if stats.Finite(x) {
				lo, hi = min(lo, x), max(hi, x)
			}
		}
	}
	if !(hi > lo) {
		return
	}
	const n = 200
	grid := make([]float64, n)
	for i := range grid {
		grid[i] = lo + (hi-lo)*float64(i)/float64(n-1)
	}
	a, b := sampleStep(left.X, left.Y, grid), sampleStep(right.X, right.Y, grid)
	maxA, maxB := slices.Max(a), slices.Max(b)
	if !(maxA > 0) || !(maxB > 0) {
		return
	}
	same := 0
	for i := range grid {
		if math.Abs(a[i]/maxA-b[i]/maxB) < 0.1 { // within a tenth of the height
			same++
		}
	}
	if same*2 > n { // coincide over more than half the time
		c.Y2Max = niceCeil(2 * maxB)
	}
}

// niceCeil rounds v > 0 up to 1, 2, 2.5 or 5 times a power of ten.
func niceCeil(v float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= v*(1-1e-12) {
			return m * p
		}
	}
	return 10 * p
}

// gpuSeries averages a GPU metric across GPUs per sample time, seconds
// since t0.
func gpuSeries(run *Run, metric string, t0 int64) (xs, ys []float64) {
	type acc struct{ sum, n float64 }
	byTime := map[int64]*acc{}
	var times []int64
	for _, g := range run.GPU {
		v, ok := g.Metrics[metric]
		if !ok || !stats.Finite(v) {
			continue
		}
		a := byTime[g.TimestampNs]
		if a == nil {
			a = &acc{}
			byTime[g.TimestampNs] = a
			times = append(times, g.TimestampNs)
		}
		a.sum, a.n = a.sum+v, a.n+1
	}
	slices.Sort(times)
	for _, ts := range times {
		a := byTime[ts]
		xs, ys = append(xs, float64(ts-t0)/1e9), append(ys, a.sum/a.n)
	}
	return xs, ys
}

func timelineChart(c *Chart, s Spec, run *Run) error {
	rr, err := rowsOf(run)
	if err != nil {
		return err
	}
	ttftS := Series{Name: "Time to first token", Kind: Segments, Group: 1}
	genS := Series{Name: "Generation", Kind: Segments, Group: 0}
	for _, q := range rr.reqs {
		y, ttft := q.Metric(s.Y.Metric), q.Metric("time_to_first_token")
		if !stats.Finite(y) || !stats.Finite(ttft) {
			continue
		}
		start, end := float64(q.StartNs-rr.t0)/1e9, float64(q.EndNs-rr.t0)/1e9
		first := start + ttft/1000
		if first > end {
			continue // TTFT past the end: a malformed record, as AIPerf filters
		}
		ttftS.X, ttftS.Y = append(ttftS.X, start, first), append(ttftS.Y, y, y)
		genS.X, genS.Y = append(genS.X, first, end), append(genS.Y, y, y)
	}
	c.XLabel, c.YLabel = "Time (s)", axisLabel(s.Y.Metric, "", run.columnUnit(s.Y.Metric))
	c.Series = []Series{ttftS, genS}
	return nil
}

func histogramChart(c *Chart, s Spec, run *Run) error {
	metric := cmp.Or(s.X.Metric, s.Y.Metric)
	rr, err := rowsOf(run)
	if err != nil {
		return err
	}
	lo, width, counts := histogramBins(rr.column(metric))
	if len(counts) == 0 {
		return fmt.Errorf("%w: no request has %s", ErrNoData, metric)
	}
	unit := run.columnUnit(metric)
	xs := make([]float64, len(lo))
	for i, l := range lo {
		c.XCategories = append(c.XCategories, fmt.Sprintf("%.4g–%.4g", l, l+width))
		xs[i] = float64(i)
	}
	c.XLabel, c.YLabel = axisLabel(metric, "", unit), "Requests"
	c.Series = []Series{{Name: metricName(metric), Kind: Bars, X: xs, Y: counts}}
	return nil
}

// bandsChart draws p50 with p90 and p99 bands per time window: the
// timeslices' percentiles when the run has slices, else windows of the
// requests by start time (about 20 of them).
func bandsChart(c *Chart, s Spec, run *Run) error {
	metric := s.Y.Metric
	c.XLabel = "Time (s)"
	if ts := run.Slices; ts != nil {
		header := metricName(metric)
		if vals := ts.Values[header]; vals["p50"] != nil && vals["p99"] != nil {
			xs := make([]float64, len(ts.Starts))
			for i := range xs {
				xs[i] = float64(ts.Starts[i]+ts.Ends[i]-2*ts.Starts[0]) / 2e9
			}
			c.YLabel = axisLabel(metric, "", ts.Units[header])
			c.Series = bands(xs, vals["p50"], vals["p90"], vals["p99"])
			return nil
		}
	}
	rr, err := rowsOf(run)
	if err != nil {
		return err
	}
	starts, ys := rr.column("timestamp_s"), rr.column(metric)
	span := slices.Max(starts)
	n := 20
	width := max(span/float64(n), 1e-3)
	var xs, p50, p90, p99 []float64
	for w := 0; float64(w)*width <= span; w++ {
		var vals []float64
		for i, t := range starts {
			if int(t/width) == w && stats.Finite(ys[i]) {
				vals = append(vals, ys[i])
			}
		}
		if len(vals) == 0 {
			continue
		}
		slices.Sort(vals)
		xs = append(xs, (float64(w)+0.5)*width)
		p50 = append(p50, stats.Percentile(vals, 50))
		p90 = append(p90, stats.Percentile(vals, 90))
		p99 = append(p99, stats.Percentile(vals, 99))
	}
	if len(xs) == 0 {
		return fmt.Errorf("%w: no request has %s", ErrNoData, metric)
	}
	c.YLabel = axisLabel(metric, "", run.columnUnit(metric))
	c.Series = bands(xs, p50, p90, p99)
	return nil
}

func bands(xs, p50, p90, p99 []float64) []Series {
	out := []Series{}
	if p90 != nil {
		out = append(out, Series{Name: "p50–p90", Kind: Band, X: xs, Lo: p50, Hi: p90, Group: 0})
		out = append(out, Series{Name: "p90–p99", Kind: Band, X: xs, Lo: p90, Hi: p99, Group: 1, Faint: true})
	} else {
		out = append(out, Series{Name: "p50–p99", Kind: Band, X: xs, Lo: p50, Hi: p99, Group: 1, Faint: true})
	}
	return append(out, Series{Name: "p50", Kind: Line, X: xs, Y: p50, Group: 0})
}

// timesliceChart draws one bar per slice of a timeslice metric statistic.
func timesliceChart(c *Chart, s Spec, run *Run) error {
	ts := run.Slices
	if ts == nil {
		return fmt.Errorf("%w: %s has no timeslices (run with --slice-duration)", ErrNoData, run.Dir)
	}
	header := s.Y.Metric
	stat := cmp.Or(s.Stat, "avg")
	vals := ts.Values[header][stat]
	if vals == nil {
		// Accept a metric tag for the header, too.
		header = metricName(s.Y.Metric)
		vals = ts.Values[header][stat]
	}
	if vals == nil {
		return fmt.Errorf("%w: the timeslices have no %s %s", ErrNoData, s.Y.Metric, stat)
	}
	xs := make([]float64, len(vals))
	d := ts.Duration()
	for i := range vals {
		xs[i] = float64(i)
		if s.UseSliceDuration && d > 0 {
			c.XCategories = append(c.XCategories, fmt.Sprintf("%.4g–%.4g s", float64(i)*d, float64(i+1)*d))
		} else {
			c.XCategories = append(c.XCategories, fmt.Sprint(i))
		}
	}
	c.XLabel = "Timeslice"
	if s.UseSliceDuration && d > 0 {
		c.XLabel = fmt.Sprintf("Timeslice (%.4g s each)", d)
	}
	c.YLabel = header
	if u := ts.Units[header]; u != "" {
		c.YLabel += " (" + u + ")"
	}
	if stat != "avg" {
		c.YLabel = strings.Replace(c.YLabel, header, header+" "+stat, 1)
	}
	c.Series = []Series{{Name: header + " " + stat, Kind: Bars, X: xs, Y: vals}}
	return nil
}
