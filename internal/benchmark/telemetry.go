package benchmark

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aiperf-go/aiperf/internal/clock"
	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/controlhook"
	"github.com/aiperf-go/aiperf/internal/environ"
	"github.com/aiperf-go/aiperf/internal/export"
	"github.com/aiperf-go/aiperf/internal/live"
	"github.com/aiperf-go/aiperf/internal/metrics"
	"github.com/aiperf-go/aiperf/internal/record"
	"github.com/aiperf-go/aiperf/internal/telemetry/dcgm"
	"github.com/aiperf-go/aiperf/internal/telemetry/energy"
	"github.com/aiperf-go/aiperf/internal/telemetry/gpu"
	"github.com/aiperf-go/aiperf/internal/telemetry/nvml"
	"github.com/aiperf-go/aiperf/internal/telemetry/servermetrics"
)

// Environment variables of the telemetry, AIPerf's names (seconds).
const (
	EnvServerMetricsInterval = "AIPERF_SERVER_METRICS_COLLECTION_INTERVAL"
	EnvServerMetricsFlush    = "AIPERF_SERVER_METRICS_COLLECTION_FLUSH_PERIOD"
	EnvServerMetricsReach    = "AIPERF_SERVER_METRICS_REACHABILITY_TIMEOUT"
	EnvGPUInterval           = "AIPERF_GPU_COLLECTION_INTERVAL"
	EnvGPUReach              = "AIPERF_GPU_REACHABILITY_TIMEOUT"
	EnvGPUDefaultDCGM        = "AIPERF_GPU_DEFAULT_DCGM_ENDPOINTS"
)

// telemetryRun is a run's telemetry: the server's metrics and the GPUs'.
// Its collectors start before the warmup and finish after profiling; the
// run itself only tells them when phases start and end.
type telemetryRun struct {
	sm       *servermetrics.Collector // nil when off or nothing answered
	gpu      *gpu.Collector           // nil when off or nothing answered
	closeGPU func() error
	log      *slog.Logger
}

// envSeconds reads a duration in seconds from the environment; unset or
// invalid (logged) gives def.
func envSeconds(env environ.Snapshot, log *slog.Logger, name string, def time.Duration) time.Duration {
	v := env.Getenv(name)
	if v == "" {
		return def
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f < 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		log.Warn("ignoring an invalid number of seconds", "variable", name, "value", v)
		return def
	}
	return time.Duration(f * float64(time.Second))
}

// defaultDCGM are the exporters tried without being asked; the variable
// set but empty means none.
func defaultDCGM(env environ.Snapshot) []string {
	v, set := env.LookupEnv(EnvGPUDefaultDCGM)
	if !set {
		return dcgm.DefaultURLs
	}
	v = strings.TrimSpace(v)
	var list []string
	if json.Unmarshal([]byte(v), &list) != nil {
		list = strings.Split(v, ",")
	}
	var out []string
	for _, u := range list {
		if u = strings.TrimSpace(u); u != "" {
			out = append(out, config.NormalizeMetricsURL(u))
		}
	}
	return out
}

// startTelemetry starts the collectors the configuration asks for. It does
// not fail the run: a source that cannot be read is logged and skipped,
// except that --gpu-telemetry pynvml on a build or machine without NVML is
// an error (the user asked for it by name).
func startTelemetry(ctx context.Context, p *Plan, clk *clock.Clock, log *slog.Logger, board *live.Board) (*telemetryRun, error) {
	t := &telemetryRun{log: log}
	if err := t.startServerMetrics(ctx, p, clk, board); err != nil {
		return nil, err
	}
	if err := t.startGPU(ctx, p, clk, board); err != nil {
		return nil, err
	}
	return t, nil
}

// startServerMetrics starts scraping the servers' Prometheus metrics
// unless they are turned off.
func (t *telemetryRun) startServerMetrics(ctx context.Context, p *Plan, clk *clock.Clock, board *live.Board) error {
	cfg, log := p.Config, t.log
	sm := &cfg.Telemetry.ServerMetrics
	if sm.Disabled {
		return nil
	}
	var urls []string
	if !cfg.SageMaker() { // a SageMaker endpoint serves no /metrics
		for _, u := range cfg.Endpoint.URLs {
			urls = append(urls, config.MetricsURL(u))
		}
	}
	urls = append(urls, sm.URLs...)
	o := servermetrics.Options{
		URLs:         urls,
		Interval:     envSeconds(p.Env, log, EnvServerMetricsInterval, servermetrics.DefaultInterval),
		FlushPeriod:  envSeconds(p.Env, log, EnvServerMetricsFlush, servermetrics.DefaultFlushPeriod),
		ReachTimeout: envSeconds(p.Env, log, EnvServerMetricsReach, servermetrics.DefaultReachTimeout),
		Clock:        clk, Log: log, Board: board,
	}
	if sm.FlushSeconds != nil && p.Env.Getenv(EnvServerMetricsFlush) == "" {
		o.FlushPeriod = time.Duration(*sm.FlushSeconds * float64(time.Second))
	}
	if o.FlushPeriod == 0 {
		o.FlushPeriod = -1 // none
	}
	if slices.Contains(cfg.ServerMetricsExportFormats(), config.ServerMetricsJSONL) {
		w, err := servermetrics.CreateJSONL(p.Paths.ServerMetricsJSONL)
		if err != nil {
			return &config.ExitError{Code: config.ExitFailure, Err: err}
		}
		o.JSONL = w
	}
	t.sm = servermetrics.Start(ctx, o)
	if !t.sm.Enabled() { // no endpoint answered: leave no empty file behind
		if o.JSONL != nil {
			_ = o.JSONL.Close()
			_ = os.Remove(p.Paths.ServerMetricsJSONL)
		}
		t.sm = nil
	}
	return nil
}

// startGPU starts reading GPU telemetry (DCGM exporters or NVML) unless it
// is turned off.
func (t *telemetryRun) startGPU(ctx context.Context, p *Plan, clk *clock.Clock, board *live.Board) error {
	cfg, log := p.Config, t.log
	g := &cfg.Telemetry.GPU
	if g.Disabled {
		return nil
	}
	var extra []gpu.Field
	if g.MetricsFile != "" {
		fields, warnings, err := dcgm.LoadMetricsFile(g.MetricsFile)
		if err != nil {
			return &config.ExitError{Code: config.ExitUsage, Err: fmt.Errorf("--gpu-telemetry: %w", err)}
		}
		for _, w := range warnings {
			log.Warn("GPU metrics file: skipping a line", "problem", w)
		}
		extra = fields
	}
	o := gpu.Options{
		Interval:     envSeconds(p.Env, log, EnvGPUInterval, gpu.DefaultInterval),
		ReachTimeout: envSeconds(p.Env, log, EnvGPUReach, gpu.DefaultReachTimeout),
		Fields:       append(gpu.DefaultFields(), extra...),
		Clock:        clk, Log: log, Board: board,
	}
	switch cfg.GPUTelemetryCollector() {
	case config.GPUCollectorPyNVML:
		src, err := nvml.Open()
		if err != nil {
			return &config.ExitError{Code: config.ExitFailure, Err: fmt.Errorf("--gpu-telemetry pynvml: %w", err)}
		}
		o.Sources = []gpu.Source{src}
		t.closeGPU = src.Close
	default:
		o.Quiet = map[string]bool{}
		seen := map[string]bool{}
		for _, u := range append(slices.Clone(g.URLs), defaultDCGM(p.Env)...) {
			if seen[u] {
				continue
			}
			seen[u] = true
			if !slices.Contains(g.URLs, u) {
				o.Quiet[u] = true
			}
			o.Sources = append(o.Sources, dcgm.New(u, extra, nil))
		}
	}
	w, err := gpu.CreateJSONL(p.Paths.GPUTelemetryJSONL, o.Fields)
	if err != nil {
		return &config.ExitError{Code: config.ExitFailure, Err: err}
	}
	o.JSONL = w
	t.gpu = gpu.Start(ctx, o)
	if !t.gpu.Enabled() {
		_ = w.Close()
		_ = os.Remove(p.Paths.GPUTelemetryJSONL)
		t.gpu = nil
	}
	return nil
}

// phaseStarted tags the samples from now on with the phase.
func (t *telemetryRun) phaseStarted(spec *PhaseSpec, startNs int64) {
	if t == nil || t.sm == nil {
		return
	}
	name := "profiling"
	if spec.Phase == record.Warmup {
		name = "warmup"
	}
	t.sm.SetPhase(name, spec.Index, startNs)
}

// warmupDone takes AIPerf's end-of-warmup scrape.
func (t *telemetryRun) warmupDone(ctx context.Context) {
	if t != nil && t.sm != nil {
		t.sm.ScrapeAll(ctx)
	}
}

// finish takes the final scrapes and stops the collectors; it returns the
// first JSONL write error.
func (t *telemetryRun) finish(ctx context.Context) error {
	if t == nil {
		return nil
	}
	var errs []error
	if t.sm != nil {
		errs = append(errs, t.sm.Finish(ctx))
	}
	if t.gpu != nil {
		errs = append(errs, t.gpu.Finish(ctx))
	}
	if t.closeGPU != nil {
		errs = append(errs, t.closeGPU())
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// telemetryResults are what the telemetry contributes to the artifacts.
type telemetryResults struct {
	sm       *servermetrics.Store
	smWindow servermetrics.Window
	smWarmup *servermetrics.Window
	gpu      *gpu.Results
	gpuStore *gpu.Store
	gpuTried []string
}

// results summarises the telemetry over the profiling window (start to
// last response, wall-clock Unix ns) and adds the energy metrics to s.
func (t *telemetryRun) results(s *metrics.Summary, prof, warm *phaseResult, clk *clock.Clock, p *Plan) *telemetryResults {
	if t == nil || (t.sm == nil && t.gpu == nil) {
		return nil
	}
	start, end := clk.WallNanos(prof.Start), clk.WallNanos(prof.End)
	r := &telemetryResults{}
	if t.sm != nil {
		r.sm = t.sm.Store()
		r.smWindow = servermetrics.Window{Start: start, End: end}
		if warm != nil && warm.End > warm.Start {
			r.smWarmup = &servermetrics.Window{Start: clk.WallNanos(warm.Start), End: clk.WallNanos(warm.End)}
		}
	}
	if t.gpu != nil {
		r.gpuStore = t.gpu.Store()
		r.gpuTried = t.gpu.Tried()
		r.gpu = r.gpuStore.Summarize(gpu.Bounded(start, end+int64(gpu.FinalScrapeGrace)))
		s.Results = append(s.Results, energy.Compute(r.gpuStore, energy.Window{Start: start, End: end},
			energy.Inputs{Summary: s, Concurrency: p.Profiling.Concurrency})...)
	}
	return r
}

// writeTelemetry writes the telemetry artifacts, adds telemetry_data to
// info and the telemetry tables to the console options. Every file is
// attempted.
func writeTelemetry(p *Plan, r *telemetryResults, s *metrics.Summary, info *export.RunInfo, opts *export.ConsoleOptions) []error {
	if r == nil {
		return nil
	}
	var errs []error
	var console strings.Builder
	if r.gpu != nil && len(r.gpu.Sources) > 0 {
		info.TelemetryData = r.gpu.TelemetryData()
		console.WriteString("\n\n")
		console.WriteString(r.gpu.PlatformPanel(opts.Width))
		suffix := ""
		if r.gpu.Simulated() {
			suffix = gpu.SimulatedTitle
		}
		console.WriteString(energy.Tables(s.Results, suffix, opts.Width))
	}
	if r.sm != nil && len(r.sm.Endpoints()) > 0 {
		x := &servermetrics.Export{
			Version: info.Version, BenchmarkID: info.BenchmarkID, Endpoints: r.sm.Endpoints(),
			Profiling: r.smWindow, Warmup: r.smWarmup,
			ProfilingSummary: r.sm.Summarize(r.smWindow, true),
			InputConfig:      info.InputConfig,
		}
		if r.smWarmup != nil {
			x.WarmupSummary = r.sm.Summarize(*r.smWarmup, false)
		}
		for _, f := range p.Config.ServerMetricsExportFormats() {
			var err error
			switch f {
			case config.ServerMetricsJSON:
				var b []byte
				if b, err = x.JSON(); err == nil {
					if err = export.WriteFile(p.Paths.ServerMetricsJSON, b); err == nil {
						opts.Exports = append(opts.Exports, export.Export{Label: "Server Metrics JSON Export", Path: p.Paths.ServerMetricsJSON})
					}
				}
			case config.ServerMetricsCSV:
				if err = export.WriteFile(p.Paths.ServerMetricsCSV, x.CSV()); err == nil {
					opts.Exports = append(opts.Exports, export.Export{Label: "Server Metrics CSV Export", Path: p.Paths.ServerMetricsCSV})
				}
			case config.ServerMetricsParquet:
				err = x.WriteParquet(p.Paths.ServerMetricsParquet, r.sm, parquetMeta(p))
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("server metrics %s: %w", f, err))
			}
		}
		console.WriteString(x.ProfilingSummary.Panels(clientView(s), opts.Width))
	}
	if r.gpu != nil && len(r.gpu.Sources) > 0 {
		console.WriteString("\n\n")
		console.WriteString(r.gpu.ConsoleTables(r.gpuTried, opts.Width))
	}
	opts.Telemetry = console.String()
	return errs
}

// parquetMeta is the run context of the server-metrics parquet file.
func parquetMeta(p *Plan) servermetrics.ParquetMeta {
	m := servermetrics.ParquetMeta{Models: p.Models, Concurrency: "None"}
	if c := p.Profiling.Concurrency; c > 0 {
		m.Concurrency = strconv.Itoa(c)
	}
	if r := p.Profiling.Rate; r > 0 {
		m.RequestRate = export.PyRepr(r)
	}
	return m
}

// clientView is the client's side of the server-metrics panel.
func clientView(s *metrics.Summary) servermetrics.Client {
	var c servermetrics.Client
	if r, ok := s.Get("total_osl"); ok && r.Stats == nil {
		c.TotalOSL, c.HasOSL = r.Value, true
	}
	stat := func(tag string) (float64, float64, bool) {
		if r, ok := s.Get(tag); ok && r.Stats != nil {
			return r.Stats.P50, r.Stats.P99, true
		}
		return 0, 0, false
	}
	c.TTFTp50, c.TTFTp99, c.HasTTFT = stat("time_to_first_token")
	c.ITLp50, c.ITLp99, c.HasITL = stat("inter_token_latency")
	c.LatencyP50, c.LatencyP99, c.HasLat = stat("request_latency")
	return c
}

// controlHooks prepares the run's control calls; nil when none is on.
func controlHooks(p *Plan) *controlhook.Hooks {
	t := &p.Config.Telemetry
	if t.ResetKVCache == nil && t.ServerProfiler == nil {
		return nil
	}
	o := controlhook.Options{URLs: p.Config.Endpoint.URLs, Header: authHeader(p)}
	if s, err := p.requestSigner(); s != nil && err == nil {
		// Each call and each retry is signed anew (a retry minutes
		// later would carry a stale date).
		o.Client = &http.Client{Transport: s.RoundTripper(&http.Transport{Proxy: nil})}
	}
	if r := t.ResetKVCache; r != nil {
		o.Reset, o.ResetPath = true, r.Path
		o.ResetTimeout = time.Duration(r.TimeoutSeconds * float64(time.Second))
		if m := r.MaxRetrySeconds; m != nil {
			o.ResetRetry = -1
			if *m > 0 {
				o.ResetRetry = time.Duration(*m * float64(time.Second))
			}
		}
	}
	if s := t.ServerProfiler; s != nil {
		o.Profiler, o.StartPath, o.StopPath = true, s.StartPath, s.StopPath
		o.ProfilerTimeout = time.Duration(s.TimeoutSeconds * float64(time.Second))
	}
	return controlhook.New(o)
}

// authHeader is the part of the request headers the control calls carry:
// the endpoint's authorisation.
func authHeader(p *Plan) map[string][]string {
	h := map[string][]string{}
	if v := p.Header.Values("Authorization"); len(v) > 0 {
		h["Authorization"] = v
	}
	return h
}

// writeSummaryCSV writes profile_export_aiperf.csv, with AIPerf's GPU
// telemetry section after two blank lines when GPUs were read.
func writeSummaryCSV(p *Plan, r *telemetryResults, s *metrics.Summary) (written bool, err error) {
	b := export.SummaryCSV(s)
	if r == nil || r.gpu == nil || len(r.gpu.Sources) == 0 || len(b) == 0 {
		return export.WriteSummaryCSV(p.Paths.CSV, s)
	}
	b = append(b, "\r\n\r\n"...)
	return true, export.WriteFile(p.Paths.CSV, append(b, r.gpu.CSV()...))
}
