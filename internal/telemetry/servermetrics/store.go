// Package servermetrics collects an inference server's own Prometheus
// metrics during a benchmark, the way AIPerf 0.13 does: it scrapes
// <url>/metrics (and any --server-metrics URL) every 333 ms from a baseline
// before warmup to a final scrape after profiling, keeps every sample, and
// summarises the profiling window: gauges as distributions, counters as
// their increase and rate, histograms as count, sum, rates and percentile
// estimates from the buckets. It writes AIPerf's server_metrics_export.json,
// .csv, .jsonl and .parquet, and a console panel of the metrics that
// explain a run (running and waiting requests, KV-cache use, preemptions,
// prefix-cache hits, the server's own TTFT and ITL).
package servermetrics

import (
	"github.com/aiperf-go/aiperf/internal/telemetry/prom"
)

// scalarSeries is a gauge's or counter's samples in time order.
type scalarSeries struct {
	ts   []int64 // Unix ns
	vals []float64
}

// histSeries is a histogram's snapshots in time order. The bucket schema is
// fixed by the first snapshot (AIPerf's rule): a later snapshot missing a
// bucket reads 0 there, an extra bucket is ignored.
type histSeries struct {
	ts     []int64
	les    []string  // bucket keys, sorted by bound, +Inf last
	bounds []float64 // the numeric bounds of les
	sums   []float64
	counts []float64
	cum    [][]float64 // cumulative bucket counts per snapshot, aligned with les
}

// entry is one series (a metric name and label set) of one endpoint.
type entry struct {
	name   string
	labels []prom.Label
	typ    prom.Type
	help   string
	scalar *scalarSeries // gauges, counters, untyped
	hist   *histSeries   // histograms
}

// fetch is one scrape of an endpoint, duplicates included.
type fetch struct {
	ts      int64 // Unix ns
	latency int64 // ns
	changed bool  // the body differed from the previous fetch (an update)
	// phase is the index of the phase the scrape started in, -1 for the
	// baseline before any.
	phase int
}

// endpoint is everything scraped from one metrics URL.
type endpoint struct {
	url     string
	entries map[string]*entry // by name + labels
	order   []*entry          // first-seen order
	fetches []fetch
}

// Store holds every sample of every endpoint. It has one writer (the
// collector's consumer goroutine); reads happen after collection stops.
type Store struct {
	endpoints map[string]*endpoint
	order     []string // endpoint URLs in first-seen order
}

// NewStore returns an empty Store.
func NewStore() *Store { return &Store{endpoints: map[string]*endpoint{}} }

// Sample is one scrape as the store keeps it.
type Sample struct {
	URL       string // the endpoint's display URL
	At        int64  // Unix ns of the first response byte
	SentNs    int64  // Unix ns the request was sent
	LatencyNs int64
	Duplicate bool
	Families  []prom.Family
	// Phase is the benchmark phase the scrape started in ("warmup",
	// "profiling"; "" for the baseline before any) and its index in the
	// run (warmup 0, profiling 1 after a warmup, else 0).
	Phase      string
	PhaseIndex int
}

// Add stores a scrape. Duplicates (an unchanged body) are stored too, as
// AIPerf stores them, so gauges are sampled on a regular grid; they do not
// count as updates.
func (s *Store) Add(sm Sample) {
	ep := s.endpoints[sm.URL]
	if ep == nil {
		ep = &endpoint{url: sm.URL, entries: map[string]*entry{}}
		s.endpoints[sm.URL] = ep
		s.order = append(s.order, sm.URL)
	}
	phase := sm.PhaseIndex
	if sm.Phase == "" {
		phase = -1
	}
	ep.fetches = append(ep.fetches, fetch{ts: sm.At, latency: sm.LatencyNs, changed: !sm.Duplicate, phase: phase})
	for i := range sm.Families {
		f := &sm.Families[i]
		for j := range f.Series {
			ep.add(f, &f.Series[j], sm.At)
		}
	}
}

func (ep *endpoint) add(f *prom.Family, sr *prom.Series, at int64) {
	key := f.Name + "\x00" + prom.LabelKey(sr.Labels)
	e := ep.entries[key]
	if e == nil {
		e = &entry{name: f.Name, labels: sr.Labels, typ: f.Type, help: f.Help}
		if f.Type == prom.Histogram {
			h := &histSeries{}
			for _, b := range sr.Buckets {
				h.les = append(h.les, b.LE)
				h.bounds = append(h.bounds, b.Bound)
			}
			e.hist = h
		} else {
			e.scalar = &scalarSeries{}
		}
		ep.entries[key] = e
		ep.order = append(ep.order, e)
	}
	if e.hist != nil {
		h := e.hist
		row := make([]float64, len(h.les))
		for _, b := range sr.Buckets {
			for k, le := range h.les {
				if le == b.LE || h.bounds[k] == b.Bound {
					row[k] = b.Count
					break
				}
			}
		}
		h.ts = append(h.ts, at)
		h.sums = append(h.sums, sr.Sum)
		h.counts = append(h.counts, sr.Count)
		h.cum = append(h.cum, row)
		return
	}
	e.scalar.ts = append(e.scalar.ts, at)
	e.scalar.vals = append(e.scalar.vals, sr.Value)
}

// Endpoints returns the URLs scraped at least once, in first-seen order.
func (s *Store) Endpoints() []string { return append([]string(nil), s.order...) }

// lastUpdate is the timestamp of the endpoint's last changed scrape; 0
// when it never changed.
func (ep *endpoint) lastUpdate() int64 {
	var last int64
	for _, f := range ep.fetches {
		if f.changed {
			last = max(last, f.ts)
		}
	}
	return last
}
