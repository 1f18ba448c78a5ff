package servermetrics

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/aiperf-go/aiperf/internal/clock"
	"github.com/aiperf-go/aiperf/internal/live"
	"github.com/aiperf-go/aiperf/internal/telemetry"
	"github.com/aiperf-go/aiperf/internal/telemetry/prom"
)

// AIPerf 0.13's defaults (AIPERF_SERVER_METRICS_*).
const (
	DefaultInterval     = 333 * time.Millisecond
	DefaultFlushPeriod  = 2 * time.Second
	DefaultReachTimeout = 10 * time.Second
	// scrapeTimeout bounds one scrape, so a stalled endpoint cannot hold
	// up the end of the run (AIPERF_SERVER_METRICS_SCRAPE_TIMEOUT).
	scrapeTimeout = 30 * time.Second
)

// Options configure a Collector.
type Options struct {
	// URLs are the metrics endpoints to try; unreachable ones are left out
	// silently, as AIPerf leaves out the default <url>/metrics of a
	// server without one.
	URLs []string
	// Interval, FlushPeriod and ReachTimeout default to AIPerf's values
	// when zero; a negative FlushPeriod means none.
	Interval, FlushPeriod, ReachTimeout time.Duration
	// Clock stamps samples: every timestamp is a wall-clock reading derived
	// from the run's monotonic clock, like the records' timestamps.
	Clock *clock.Clock
	Log   *slog.Logger
	// JSONL, when set, receives every changed scrape as it arrives.
	JSONL *JSONLWriter
	// Board, when set, receives a live panel per endpoint after each
	// scrape.
	Board telemetry.PanelSink
	// Client fetches the pages; nil = a dedicated client.
	Client *http.Client
}

// Collector scrapes the server metrics endpoints of one run: a baseline
// when it starts, every Interval in the background, and a final scrape
// after profiling. Safe for concurrent use.
type Collector struct {
	opts     Options
	scrapers telemetry.Sources[*prom.Scraper]

	mu         sync.Mutex // guards everything below
	store      *Store
	phase      string
	phaseIndex int
	phaseStart int64 // Unix ns of the profiling start, for live rates; 0 before
	warned     map[string]bool
	history    *telemetry.History
	writeErr   error
}

// Start probes the endpoints (concurrently), takes the baseline scrape of
// the reachable ones and starts scraping them every Interval until Finish.
// With no reachable endpoint the collector is idle (Enabled is false).
func Start(ctx context.Context, o Options) *Collector {
	if o.Interval <= 0 {
		o.Interval = DefaultInterval
	}
	if o.FlushPeriod == 0 {
		o.FlushPeriod = DefaultFlushPeriod
	}
	if o.ReachTimeout <= 0 {
		o.ReachTimeout = DefaultReachTimeout
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Clock == nil {
		o.Clock = clock.New()
	}
	c := &Collector{opts: o, store: NewStore(), warned: map[string]bool{}, history: telemetry.NewHistory(60)}
	urls := slices.Compact(slices.Clone(o.URLs))
	scrapers := make([]*prom.Scraper, len(urls))
	for i, u := range urls {
		scrapers[i] = prom.NewScraper(u, o.Client)
	}
	reach := telemetry.Reachable(ctx, scrapers, func(ctx context.Context, s *prom.Scraper) bool { return s.Reachable(ctx, o.ReachTimeout) })
	for i, s := range scrapers {
		if reach[i] {
			c.scrapers.List = append(c.scrapers.List, s)
		} else {
			o.Log.Debug("server metrics endpoint not reachable; not collected", "url", s.URL())
		}
	}
	if !c.Enabled() {
		return c
	}
	o.Log.Info("server metrics: collecting", "endpoints", len(c.scrapers.List), "interval", o.Interval)
	c.scrapers.Read = c.scrape
	c.ScrapeAll(ctx) // the baseline
	c.scrapers.Start(ctx, o.Interval)
	return c
}

// Enabled reports whether any endpoint is being collected.
func (c *Collector) Enabled() bool { return len(c.scrapers.List) > 0 }

// SetPhase tags the scrapes that start from now on with a phase ("warmup",
// "profiling") and its index in the run; startNs is the phase's start
// (Unix ns), from which the live panel's rates are measured.
func (c *Collector) SetPhase(phase string, index int, startNs int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.phase, c.phaseIndex = phase, index
	if phase == "profiling" {
		c.phaseStart = startNs
	}
}

// ScrapeAll scrapes every endpoint now, concurrently, and returns when all
// have answered (the baseline, the end of warmup, the final scrape).
func (c *Collector) ScrapeAll(ctx context.Context) { c.scrapers.ReadAll(ctx) }

// Finish ends collection: it keeps scraping for the flush period (servers
// may publish their last requests' metrics late), unless ctx ends first,
// takes the final scrape, stops the background scrapes and closes the
// JSONL file. It returns the first JSONL write error.
func (c *Collector) Finish(ctx context.Context) error {
	if !c.Enabled() {
		return c.closeJSONL()
	}
	if c.opts.FlushPeriod > 0 {
		t := time.NewTimer(c.opts.FlushPeriod)
		select {
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
	}
	c.scrapers.Stop()
	c.ScrapeAll(context.WithoutCancel(ctx))
	return c.closeJSONL()
}

func (c *Collector) closeJSONL() error {
	if c.opts.JSONL == nil {
		return nil
	}
	err := c.opts.JSONL.Close()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.writeErr != nil {
		return c.writeErr
	}
	return err
}

// Store returns the collected samples; read it after Finish.
func (c *Collector) Store() *Store {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.store
}

// scrape fetches one endpoint once and stores the result. A failure is
// logged: an incompatible endpoint (not Prometheus text) once, with a
// warning, as it is disabled for the rest of the run; a transient one at
// debug level.
func (c *Collector) scrape(ctx context.Context, s *prom.Scraper) {
	ctx, cancel := context.WithTimeout(ctx, scrapeTimeout)
	defer cancel()
	sc, err := s.Scrape(ctx)
	if err != nil {
		if errors.Is(err, prom.ErrIncompatible) {
			c.mu.Lock()
			first := !c.warned[s.URL()]
			c.warned[s.URL()] = true
			c.mu.Unlock()
			if first {
				c.opts.Log.Warn("disabling server metrics collection for "+s.URL()+": "+err.Error()+". To suppress this warning, pass --no-server-metrics.", "url", s.URL())
			}
			return
		}
		if ctx.Err() == nil {
			c.opts.Log.Debug("server metrics scrape failed", "url", s.URL(), "error", err)
		}
		return
	}
	clk := c.opts.Clock
	ns := func(t time.Time) int64 { return clk.WallNanos(t.Sub(clk.Start())) }
	c.mu.Lock()
	sm := Sample{
		URL: sc.URL, At: ns(sc.FirstByte), SentNs: ns(sc.Sent), LatencyNs: int64(sc.Latency()),
		Duplicate: sc.Duplicate, Families: sc.Families, Phase: c.phase, PhaseIndex: c.phaseIndex,
	}
	c.store.Add(sm)
	if c.opts.JSONL != nil {
		if err := c.opts.JSONL.Write(&sm); err != nil && c.writeErr == nil {
			c.writeErr = err
		}
	}
	var p *live.Panel
	if c.opts.Board != nil {
		p = c.livePanel(sm.URL, sc.FirstByte.Sub(clk.Start()))
	}
	c.mu.Unlock()
	if p != nil {
		c.opts.Board.PutPanel(*p)
	}
}
