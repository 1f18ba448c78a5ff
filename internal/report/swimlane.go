package report

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg/draw"

	"github.com/aiperf-go/aiperf/internal/metrics/stats"
	"github.com/aiperf-go/aiperf/internal/results"
)

// SwimLaneOptions configure SwimLane.
type SwimLaneOptions struct {
	// Concurrency draws a reference line at the target concurrency; 0
	// draws none.
	Concurrency int
	// Ramp draws a marker at the end of a ramp, in seconds from the first
	// request; 0 draws none.
	Ramp float64
	// Out is the PNG path; empty means <run>/swim_lane.png.
	Out string
	// HTML also writes the interactive view (the PNG path with .html).
	HTML  bool
	Theme Theme
}

// maxLanes is the most sessions drawn one per lane; with more, sessions
// share lanes greedily (a session goes to the first lane free when it
// starts), so the view stays readable and every request is still drawn.
const maxLanes = 300

// SwimLane draws `aiperf analyze swim-lane`: one lane per session
// (conversation), each request a bar from its start to its end (the part
// before the first token in a second colour, failures in their own series),
// and underneath the number of requests in flight over time. It returns
// the files written.
func SwimLane(runDir string, o SwimLaneOptions) ([]string, error) {
	path := filepath.Join(runDir, results.RecordsName)
	if !fileExists(path) {
		return nil, fmt.Errorf("%s has no %s (per-request records; the run's --export-level must be records or raw)", runDir, results.RecordsName)
	}
	reqs, err := readRequests(path)
	if err != nil {
		return nil, err
	}
	lanes, inflight, err := swimLaneCharts(reqs, o)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", runDir, err)
	}
	t := o.Theme
	if t.Name == "" {
		t = LightTheme
	}
	out := o.Out
	if out == "" {
		out = filepath.Join(runDir, "swim_lane.png")
	}
	top, err := buildPlot(lanes, t)
	if err != nil {
		return nil, err
	}
	bottom, err := buildPlot(inflight, t)
	if err != nil {
		return nil, err
	}
	bottom.Title.Text = ""
	b, err := encodePNG(PNGWidth, 1100, func(dc draw.Canvas) {
		// Aligned, so both panels share the time axis.
		canvases := plot.Align([][]*plot.Plot{{top}, {bottom}}, draw.Tiles{Rows: 2, Cols: 1, PadY: 8}, dc)
		top.Draw(canvases[0][0])
		bottom.Draw(canvases[1][0])
	})
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(out, b, 0o644); err != nil {
		return nil, err
	}
	files := []string{out}
	if o.HTML {
		html := out[:len(out)-len(filepath.Ext(out))] + ".html"
		page := &Page{Title: "Swim lanes: " + filepath.Base(runDir), Generated: time.Now(), Mode: "swim-lane", Charts: []*Chart{lanes, inflight}, Theme: t}
		hb, err := RenderHTML(page)
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(html, hb, 0o644); err != nil {
			return nil, err
		}
		files = append(files, html)
	}
	return files, nil
}

// swimLaneCharts builds the lanes and the in-flight charts.
func swimLaneCharts(reqs []Request, o SwimLaneOptions) (lanes, inflight *Chart, err error) {
	var rs []Request
	for _, q := range reqs {
		if q.StartNs > 0 && q.EndNs >= q.StartNs {
			rs = append(rs, q)
		}
	}
	if len(rs) == 0 {
		return nil, nil, fmt.Errorf("%w: no request with start and end times", ErrNoData)
	}
	slices.SortStableFunc(rs, func(a, b Request) int { return cmp.Compare(a.StartNs, b.StartNs) })
	t0 := rs[0].StartNs
	sec := func(ns int64) float64 { return float64(ns-t0) / 1e9 }

	// Sessions in order of their first request; each gets a lane, or the
	// first free lane past maxLanes sessions.
	type span struct{ first, last int64 }
	spans := map[string]*span{}
	var order []string
	for _, q := range rs {
		key := q.Session
		if key == "" {
			key = fmt.Sprintf("request %d", len(order))
		}
		s := spans[key]
		if s == nil {
			s = &span{first: q.StartNs, last: q.EndNs}
			spans[key] = s
			order = append(order, key)
		}
		s.last = max(s.last, q.EndNs)
	}
	lane := map[string]int{}
	if len(order) <= maxLanes {
		for i, k := range order {
			lane[k] = i
		}
	} else {
		var free []int64 // per lane: when it is free again
		for _, k := range order {
			s := spans[k]
			i := slices.IndexFunc(free, func(at int64) bool { return at <= s.first })
			if i < 0 {
				free, i = append(free, 0), len(free)
			}
			free[i], lane[k] = s.last, i
		}
	}
	prefill := Series{Name: "before the first token", Kind: Segments, Group: 1}
	gen := Series{Name: "generating", Kind: Segments, Group: 0}
	failed := Series{Name: "failed", Kind: Segments, Group: 4}
	for i, q := range rs {
		key := q.Session
		if key == "" {
			key = fmt.Sprintf("request %d", i)
		}
		y := float64(lane[key])
		start, end := sec(q.StartNs), sec(q.EndNs)
		if q.Failed {
			failed.X, failed.Y = append(failed.X, start, end), append(failed.Y, y, y)
			continue
		}
		first := start
		if ttft := q.Metric("time_to_first_token"); stats.Finite(ttft) {
			first = min(start+ttft/1000, end)
		}
		if first > start {
			prefill.X, prefill.Y = append(prefill.X, start, first), append(prefill.Y, y, y)
		}
		gen.X, gen.Y = append(gen.X, first, end), append(gen.Y, y, y)
	}
	laneLabel := "Session"
	if len(order) > maxLanes {
		laneLabel = fmt.Sprintf("Lane (%d sessions packed into lanes)", len(order))
	}
	lanes = &Chart{Name: "swim_lane", Type: TypeTimeline, Title: fmt.Sprintf("Swim lanes: %d requests in %d sessions", len(rs), len(order)),
		XLabel: "Time (s)", YLabel: laneLabel}
	for _, s := range []Series{prefill, gen, failed} {
		if len(s.X) > 0 {
			lanes.Series = append(lanes.Series, s)
		}
	}

	// Requests in flight: +1 at each start, -1 at each end.
	type ev struct {
		at int64
		d  float64
	}
	evs := make([]ev, 0, 2*len(rs))
	for _, q := range rs {
		evs = append(evs, ev{q.StartNs, 1}, ev{q.EndNs, -1})
	}
	slices.SortStableFunc(evs, func(a, b ev) int { return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.d, b.d)) })
	cur := 0.0
	conc := Series{Name: "requests in flight", Kind: Step, Group: 0}
	for _, e := range evs {
		cur += e.d
		conc.X, conc.Y = append(conc.X, sec(e.at)), append(conc.Y, cur)
	}
	inflight = &Chart{Name: "concurrency", Type: TypeArea, Title: "Requests in flight", XLabel: "Time (s)", YLabel: "Requests in flight",
		Series: []Series{conc}}
	end := conc.X[len(conc.X)-1]
	if o.Concurrency > 0 {
		inflight.Series = append(inflight.Series, Series{Name: fmt.Sprintf("target concurrency %d", o.Concurrency), Kind: Line,
			X: []float64{0, end}, Y: []float64{float64(o.Concurrency), float64(o.Concurrency)}, Group: 2})
	}
	if o.Ramp > 0 {
		inflight.Series = append(inflight.Series, Series{Name: fmt.Sprintf("ramp done (%.4g s)", o.Ramp), Kind: Line,
			X: []float64{o.Ramp, o.Ramp}, Y: []float64{0, slices.Max(conc.Y)}, Group: 3})
	}
	return lanes, inflight, nil
}
