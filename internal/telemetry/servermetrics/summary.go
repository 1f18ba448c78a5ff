package servermetrics

import (
	"slices"
	"sort"
	"strings"

	"github.com/aiperf-go/aiperf/internal/pyfmt"
	"github.com/aiperf-go/aiperf/internal/telemetry/prom"
)

// Summary is every endpoint's statistics over one phase window.
type Summary struct {
	// Metrics are sorted by name; each holds the series of every endpoint
	// that served it, sorted by endpoint URL, then labels.
	Metrics []Metric
	// Endpoints are the collection statistics of each endpoint that had a
	// sample in the window, sorted by URL.
	Endpoints []EndpointInfo
}

// Metric is one metric name across endpoints.
type Metric struct {
	Name, Help string
	Type       prom.Type
	Unit       string // "" when it cannot be inferred
	Series     []SeriesStats
}

// SeriesStats is one series' statistics. Exactly one of Gauge (gauges and
// untyped), Counter or Histogram is set.
type SeriesStats struct {
	Endpoint  string
	Labels    []prom.Label
	Gauge     *GaugeStats
	Counter   *CounterStats
	Histogram *HistogramStats
	// Buckets are a histogram's per-window increases, cumulative, in bucket
	// order (nil after a reset, or for other types).
	Buckets []BucketCount
}

// BucketCount is one histogram bucket's increase over the window.
type BucketCount struct {
	LE    string
	Count int64
}

// EndpointInfo is how an endpoint was collected: every fetch (duplicates
// included), the scrapes whose page changed, and their spacing.
type EndpointInfo struct {
	URL                    string
	TotalFetches           int
	FirstFetchNs           int64
	LastFetchNs            int64
	AvgFetchLatencyMs      float64
	UniqueUpdates          int
	FirstUpdateNs          int64
	LastUpdateNs           int64
	DurationSeconds        float64
	AvgUpdateIntervalMs    float64
	MedianUpdateIntervalMs *float64 // nil with fewer than two updates
}

// Summarize computes the statistics of window w. With includeFinal (the
// profiling phase), each endpoint's window is extended to its last update,
// so the final scrape after the run counts, and its collection statistics
// cover every fetch; without it (warmup) both stay within w. Endpoints
// whose window is empty are left out.
func (s *Store) Summarize(w Window, includeFinal bool) *Summary {
	out := &Summary{}
	byName := map[string]*Metric{}
	for _, url := range s.order {
		ep := s.endpoints[url]
		ew := w
		if includeFinal {
			ew.End = max(ew.End, ep.lastUpdate())
		}
		if ew.Start >= ew.End {
			continue
		}
		for _, e := range ep.order {
			st, ok := e.stats(ew)
			if !ok {
				continue
			}
			st.Endpoint = url
			m := byName[e.name]
			if m == nil {
				m = &Metric{Name: e.name, Help: e.help, Type: e.typ, Unit: InferUnit(e.name, e.help)}
				byName[e.name] = m
			}
			m.Series = append(m.Series, st)
		}
		info := ep.info(func(fetch) bool { return true })
		if !includeFinal {
			info = ep.info(func(f fetch) bool { return f.ts >= ew.Start && f.ts <= ew.End })
		}
		out.Endpoints = append(out.Endpoints, info)
	}
	for _, m := range byName {
		slices.SortStableFunc(m.Series, func(a, b SeriesStats) int {
			if c := strings.Compare(a.Endpoint, b.Endpoint); c != 0 {
				return c
			}
			return strings.Compare(pyLabels(a.Labels), pyLabels(b.Labels))
		})
		out.Metrics = append(out.Metrics, *m)
	}
	slices.SortFunc(out.Metrics, func(a, b Metric) int { return strings.Compare(a.Name, b.Name) })
	slices.SortFunc(out.Endpoints, func(a, b EndpointInfo) int { return strings.Compare(a.URL, b.URL) })
	return out
}

// stats computes one entry's statistics over w.
func (e *entry) stats(w Window) (SeriesStats, bool) {
	st := SeriesStats{Labels: e.labels}
	switch {
	case e.hist != nil:
		hs, buckets, ok := histStats(e.hist, w)
		if !ok {
			return st, false
		}
		st.Histogram = &hs
		if buckets != nil {
			st.Buckets = make([]BucketCount, len(buckets))
			for k, c := range buckets {
				st.Buckets[k] = BucketCount{e.hist.les[k], int64(c)}
			}
		}
		return st, true
	case e.typ == prom.Counter:
		cs, ok := counterStats(e.scalar, w)
		st.Counter = &cs
		return st, ok
	default:
		gs, ok := gaugeStats(e.scalar, w)
		st.Gauge = &gs
		return st, ok
	}
}

// info computes the endpoint's collection statistics over the fetches
// keep selects (every fetch, those in a window, those of a phase).
func (ep *endpoint) info(keep func(fetch) bool) EndpointInfo {
	info := EndpointInfo{URL: ep.url}
	var latSum float64
	var latN int
	var ups []int64
	for _, f := range ep.fetches {
		if !keep(f) {
			continue
		}
		if f.changed {
			ups = append(ups, f.ts)
		}
		if info.TotalFetches == 0 || f.ts < info.FirstFetchNs {
			info.FirstFetchNs = f.ts
		}
		info.LastFetchNs = max(info.LastFetchNs, f.ts)
		info.TotalFetches++
		latSum += float64(f.latency)
		latN++
	}
	if latN > 0 {
		info.AvgFetchLatencyMs = latSum / float64(latN) / 1e6
	}
	sort.Slice(ups, func(i, j int) bool { return ups[i] < ups[j] })
	info.UniqueUpdates = len(ups)
	if n := len(ups); n > 0 {
		info.FirstUpdateNs, info.LastUpdateNs = ups[0], ups[n-1]
		info.DurationSeconds = float64(ups[n-1]-ups[0]) / 1e9
		if n > 1 {
			info.AvgUpdateIntervalMs = info.DurationSeconds * 1000 / float64(n-1)
			gaps := make([]float64, n-1)
			for i := 1; i < n; i++ {
				gaps[i-1] = float64(ups[i] - ups[i-1])
			}
			slices.Sort(gaps)
			med := gaps[len(gaps)/2]
			if len(gaps)%2 == 0 {
				med = (gaps[len(gaps)/2-1] + gaps[len(gaps)/2]) / 2
			}
			med /= 1e6
			info.MedianUpdateIntervalMs = &med
		}
	}
	return info
}

// pyLabels renders labels as Python's str() of a dict does, the sort key
// AIPerf orders series by ({'engine': '0', 'model_name': 'm'}; "" for no
// labels).
func pyLabels(ls []prom.Label) string {
	if len(ls) == 0 {
		return ""
	}
	d := make(pyfmt.Dict, len(ls))
	for i, l := range ls {
		d[i] = pyfmt.Item{Key: l.Name, Value: l.Value}
	}
	return pyfmt.Repr(d)
}
