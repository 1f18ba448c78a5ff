package gpu

import (
	"context"
	"log/slog"
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/aiperf-go/aiperf/internal/clock"
	"github.com/aiperf-go/aiperf/internal/live"
	"github.com/aiperf-go/aiperf/internal/telemetry"
)

// AIPerf 0.13's defaults (AIPERF_GPU_*).
const (
	DefaultInterval     = 333 * time.Millisecond
	DefaultReachTimeout = 5 * time.Second
	// FinalScrapeGrace widens the profiling window's end for the GPU
	// statistics (not the energy, which is integrated over exactly the
	// window), so the scrape that closes the phase (often a few hundred
	// ms after the last response) counts.
	FinalScrapeGrace = 666 * time.Millisecond
	collectTimeout   = 30 * time.Second
)

// Source reads the current telemetry of some GPUs: a DCGM exporter, the
// local NVIDIA driver.
type Source interface {
	// URL names the source in the exports ("http://host:9400/metrics",
	// "pynvml://localhost").
	URL() string
	// Reachable reports whether the source answers at all.
	Reachable(ctx context.Context, timeout time.Duration) bool
	// Collect reads every GPU once. at is when the reading was taken; nil
	// samples with a nil error mean "nothing new" (an unchanged page).
	Collect(ctx context.Context) (at time.Time, samples []Sample, err error)
}

// Options configure a Collector.
type Options struct {
	Sources []Source
	// Quiet names sources that are tried without being asked for (the
	// default DCGM ports): their absence is not worth a warning.
	Quiet        map[string]bool
	Interval     time.Duration // AIPERF_GPU_COLLECTION_INTERVAL; 0 = 333 ms
	ReachTimeout time.Duration
	Fields       []Field // nil: DefaultFields
	Clock        *clock.Clock
	Log          *slog.Logger
	JSONL        *JSONLWriter
	Board        telemetry.PanelSink
}

// Collector polls GPU telemetry sources for one run: a baseline when it
// starts, every Interval, and a final reading at Finish.
type Collector struct {
	opts    Options
	sources telemetry.Sources[Source]
	tried   []string

	mu       sync.Mutex
	store    *Store
	history  *telemetry.History
	writeErr error
	warned   map[string]bool
}

// Start probes the sources, takes the baseline and polls the reachable
// ones until Finish.
func Start(ctx context.Context, o Options) *Collector {
	if o.Interval <= 0 {
		o.Interval = DefaultInterval
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
	c := &Collector{opts: o, store: NewStore(o.Fields), history: telemetry.NewHistory(60), warned: map[string]bool{}}
	reach := telemetry.Reachable(ctx, o.Sources, func(ctx context.Context, s Source) bool { return s.Reachable(ctx, o.ReachTimeout) })
	for i, s := range o.Sources {
		switch {
		case reach[i]:
			c.sources.List = append(c.sources.List, s)
			c.tried = append(c.tried, s.URL())
		case o.Quiet[s.URL()]:
			o.Log.Debug("GPU telemetry source not reachable", "url", s.URL())
		default:
			c.tried = append(c.tried, s.URL())
			o.Log.Warn("GPU telemetry: " + s.URL() + " is not reachable")
		}
	}
	if !c.Enabled() {
		return c
	}
	o.Log.Info("GPU telemetry: collecting", "sources", len(c.sources.List), "interval", o.Interval)
	c.sources.Read = c.collect
	c.CollectAll(ctx)
	c.sources.Start(ctx, o.Interval)
	return c
}

// Enabled reports whether any source is being collected.
func (c *Collector) Enabled() bool { return len(c.sources.List) > 0 }

// Tried lists the sources that count as configured in the exports: the
// reachable ones and those asked for by name.
func (c *Collector) Tried() []string { return append([]string(nil), c.tried...) }

// CollectAll reads every source now, concurrently.
func (c *Collector) CollectAll(ctx context.Context) { c.sources.ReadAll(ctx) }

// Finish stops polling after a final reading and closes the JSONL file; it
// returns the first JSONL write error.
func (c *Collector) Finish(ctx context.Context) error {
	if c.Enabled() {
		c.sources.Stop()
		c.CollectAll(context.WithoutCancel(ctx))
	}
	var err error
	if c.opts.JSONL != nil {
		err = c.opts.JSONL.Close()
	}
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

func (c *Collector) collect(ctx context.Context, s Source) {
	ctx, cancel := context.WithTimeout(ctx, collectTimeout)
	defer cancel()
	at, samples, err := s.Collect(ctx)
	if err != nil {
		c.mu.Lock()
		first := !c.warned[s.URL()]
		c.warned[s.URL()] = true
		c.mu.Unlock()
		if first && ctx.Err() == nil {
			c.opts.Log.Warn("GPU telemetry collection failed (further failures are logged at debug level)", "url", s.URL(), "error", err)
		} else {
			c.opts.Log.Debug("GPU telemetry collection failed", "url", s.URL(), "error", err)
		}
		return
	}
	if len(samples) == 0 {
		return
	}
	clk := c.opts.Clock
	ns := clk.WallNanos(at.Sub(clk.Start()))
	var panels []live.Panel
	c.mu.Lock()
	for i := range samples {
		sm := &samples[i]
		sm.At, sm.Source = ns, s.URL()
		c.store.Add(*sm)
		if c.opts.JSONL != nil {
			if err := c.opts.JSONL.Write(sm); err != nil && c.writeErr == nil {
				c.writeErr = err
			}
		}
		if c.opts.Board != nil {
			panels = append(panels, c.livePanel(sm, at.Sub(clk.Start())))
		}
	}
	c.mu.Unlock()
	for _, p := range panels {
		c.opts.Board.PutPanel(p)
	}
}

// liveFields are the gauges of a GPU's live panel.
var liveFields = []string{NVIDIAPower, "nvidia_gpu_utilization", "nvidia_memory_used", "nvidia_temperature",
	"nvidia_sm_utilization", AMDPower, "amd_gfx_activity", "amd_memory_used", "amd_temperature"}

// livePanel is one GPU's latest reading for the dashboard. The caller
// holds c.mu.
func (c *Collector) livePanel(sm *Sample, at time.Duration) live.Panel {
	p := live.Panel{
		Source: "gpu_telemetry",
		Title:  "gpu_" + strconv.Itoa(sm.Meta.Index) + " " + sm.Meta.DisplayName() + " @ " + sm.Source,
		At:     at,
	}
	units := map[string]string{}
	for _, f := range c.store.fields {
		units[f.Name] = f.Unit
	}
	for _, name := range liveFields {
		v, ok := sm.Values[name]
		if !ok || math.IsNaN(v) {
			continue
		}
		g := c.history.Gauge(p.Title+"\x00"+name, units[name], v)
		g.Name = name
		p.Gauges = append(p.Gauges, g)
	}
	return p
}
