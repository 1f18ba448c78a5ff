package config

import (
	"math"
	"net/url"
	"slices"
	"strings"
)

// Telemetry is what a run observes besides its requests, and the control
// calls it makes to the server (AIPerf's "Server Metrics" and "GPU
// Telemetry" groups, and the endpoint's reset_kv_cache and server_profiler
// hooks).
type Telemetry struct {
	ServerMetrics ServerMetrics `json:"server_metrics,omitzero"`
	GPU           GPUTelemetry  `json:"gpu_telemetry,omitzero"`
	// ResetKVCache, when set, POSTs to the server's KV-cache reset path
	// once before the run (--reset-kv-cache and its -path and
	// -timeout-seconds flags).
	ResetKVCache *ResetKVCache `json:"reset_kv_cache,omitempty"`
	// ServerProfiler, when set, POSTs the profiler's start path before the
	// profiling phase and its stop path after it (--server-profiler*).
	ServerProfiler *ServerProfiler `json:"server_profiler,omitempty"`
}

// ServerMetricsFormat is a server_metrics_export format.
type ServerMetricsFormat string

// Server metrics export formats.
const (
	ServerMetricsJSON    ServerMetricsFormat = "json"
	ServerMetricsCSV     ServerMetricsFormat = "csv"
	ServerMetricsJSONL   ServerMetricsFormat = "jsonl"
	ServerMetricsParquet ServerMetricsFormat = "parquet"
)

// ServerMetricsFormats lists the valid --server-metrics-formats values.
func ServerMetricsFormats() []ServerMetricsFormat {
	return []ServerMetricsFormat{ServerMetricsJSON, ServerMetricsCSV, ServerMetricsJSONL, ServerMetricsParquet}
}

// ServerMetrics is the scraping of the inference server's Prometheus
// metrics, on by default: <url>/metrics of every --url, plus URLs.
type ServerMetrics struct {
	// Disabled is --no-server-metrics.
	Disabled bool `json:"disabled,omitempty"`
	// URLs are additional metrics endpoints (--server-metrics URL ...),
	// normalised to full URLs.
	URLs []string `json:"urls,omitempty"`
	// Formats are the export formats; nil = json and csv (AIPerf's default).
	Formats []ServerMetricsFormat `json:"formats,omitempty"`
	// FlushSeconds, when set, replaces the wait after profiling before the
	// final scrape (AIPerf's 2 s flush period, for servers that publish
	// their last requests' metrics late). The embedded mock server sets 0:
	// it counts every token before writing it.
	FlushSeconds *float64 `json:"-"`
}

// ServerMetricsExportFormats returns the formats to write.
func (c *Config) ServerMetricsExportFormats() []ServerMetricsFormat {
	if f := c.Telemetry.ServerMetrics.Formats; len(f) > 0 {
		return f
	}
	return []ServerMetricsFormat{ServerMetricsJSON, ServerMetricsCSV}
}

// GPUCollector is how GPU telemetry is read.
type GPUCollector string

// GPU telemetry collectors: DCGM exporters over HTTP (the default), the
// local NVIDIA driver (AIPerf's pynvml; "nvml" is accepted as a synonym),
// or AMD's SMI library.
const (
	GPUCollectorDCGM   GPUCollector = "dcgm"
	GPUCollectorPyNVML GPUCollector = "pynvml"
	GPUCollectorAMDSMI GPUCollector = "amdsmi"
)

// GPUTelemetry is the GPU telemetry collection, on by default: the DCGM
// exporters at localhost:9400 and :9401 are tried silently, plus URLs.
type GPUTelemetry struct {
	// Disabled is --no-gpu-telemetry.
	Disabled bool `json:"disabled,omitempty"`
	// Requested records that --gpu-telemetry was given (which
	// --no-gpu-telemetry then contradicts).
	Requested bool `json:"requested,omitempty"`
	// URLs are DCGM exporter endpoints given with --gpu-telemetry,
	// normalised to full URLs.
	URLs []string `json:"urls,omitempty"`
	// Collector is dcgm unless pynvml (nvml) or amdsmi was given.
	Collector GPUCollector `json:"collector,omitempty"`
	// Dashboard is the "dashboard" value: realtime GPU panels.
	Dashboard bool `json:"dashboard,omitempty"`
	// MetricsFile is a custom DCGM metrics CSV (a *.csv value): lines of
	// "DCGM_FI_* field, type, help" replacing the default field set.
	MetricsFile string `json:"metrics_file,omitempty"`
}

// GPUTelemetryCollector returns the collector to use.
func (c *Config) GPUTelemetryCollector() GPUCollector {
	if c.Telemetry.GPU.Collector == "" {
		return GPUCollectorDCGM
	}
	return c.Telemetry.GPU.Collector
}

// Control-hook defaults, as AIPerf's.
const (
	DefaultResetKVCachePath         = "/reset_prefix_cache"
	DefaultServerProfilerStartPath  = "/start_profile"
	DefaultServerProfilerStopPath   = "/stop_profile"
	DefaultControlHookTimeout       = 30.0 // seconds
	DefaultResetKVCacheRetrySeconds = 60.0
)

// ResetKVCache is the once-per-run KV-cache reset. Zero fields take the
// defaults.
type ResetKVCache struct {
	Path           string  `json:"path,omitempty"`
	TimeoutSeconds float64 `json:"timeout_seconds,omitempty"`
	// MaxRetrySeconds bounds the retries of a retryable failure (a
	// connection error, 409, 423, 429, 503); nil = 60 s, 0 = no retry.
	// Config file only (endpoint.reset_kv_cache.max_retry_seconds).
	MaxRetrySeconds *float64 `json:"max_retry_seconds,omitempty"`
}

// ServerProfiler is the server profiler started around profiling. Zero
// fields take the defaults.
type ServerProfiler struct {
	StartPath      string  `json:"start_path,omitempty"`
	StopPath       string  `json:"stop_path,omitempty"`
	TimeoutSeconds float64 `json:"timeout_seconds,omitempty"`
}

// validateTelemetry checks the telemetry options.
func (c *Config) validateTelemetry(p *problems) {
	t := &c.Telemetry
	for _, f := range t.ServerMetrics.Formats {
		if !slices.Contains(ServerMetricsFormats(), f) {
			p.add("--server-metrics-formats", "invalid choice %q (choose from json, csv, jsonl, parquet)", f)
		}
	}
	if t.ServerMetrics.Disabled && len(t.ServerMetrics.URLs) > 0 {
		p.add("--no-server-metrics", "cannot be combined with --server-metrics URLs")
	}
	for _, u := range t.ServerMetrics.URLs {
		if err := checkURL(u); err != nil {
			p.add("--server-metrics", "%v", err)
		}
	}
	g := &t.GPU
	if g.Disabled && (g.Requested || len(g.URLs) > 0) {
		p.add("--no-gpu-telemetry", "cannot be combined with --gpu-telemetry")
	}
	switch g.Collector {
	case "", GPUCollectorDCGM, GPUCollectorPyNVML:
	case GPUCollectorAMDSMI:
		p.add("--gpu-telemetry", "amdsmi is not supported: this pure-Go build does not load AMD's SMI C library; give the URL of AMD's device-metrics exporter instead (e.g. --gpu-telemetry http://gpu-node:5000/metrics), which yields the same amd_* fields")
	default:
		p.add("--gpu-telemetry", "invalid collector %q", g.Collector)
	}
	if g.Collector == GPUCollectorPyNVML && len(g.URLs) > 0 {
		p.add("--gpu-telemetry", "cannot use pynvml with DCGM URLs: use either pynvml for local GPU monitoring or URLs for DCGM endpoints, not both")
	}
	for _, u := range g.URLs {
		if err := checkURL(u); err != nil {
			p.add("--gpu-telemetry", "%v", err)
		}
	}
	if f := g.MetricsFile; f != "" && !strings.HasSuffix(strings.ToLower(f), ".csv") {
		p.add("--gpu-telemetry", "a custom metrics file must be a .csv file, got %q", f)
	}
	if r := t.ResetKVCache; r != nil {
		checkHookPath(p, "--reset-kv-cache-path", r.Path)
		checkHookTimeout(p, "--reset-kv-cache-timeout-seconds", r.TimeoutSeconds)
		if m := r.MaxRetrySeconds; m != nil && (*m < 0 || math.IsNaN(*m) || math.IsInf(*m, 0)) {
			p.add("endpoint.reset_kv_cache.max_retry_seconds", "must be a finite number of seconds >= 0, got %v", *m)
		}
	}
	if s := t.ServerProfiler; s != nil {
		checkHookPath(p, "--server-profiler-start-path", s.StartPath)
		checkHookPath(p, "--server-profiler-stop-path", s.StopPath)
		checkHookTimeout(p, "--server-profiler-timeout-seconds", s.TimeoutSeconds)
	}
}

// checkHookPath: control paths are relative to the endpoint's origin, so
// control traffic never goes anywhere else (AIPerf's rule).
func checkHookPath(p *problems, flag, path string) {
	if path != "" && (strings.Contains(path, "://") || !strings.HasPrefix(path, "/")) {
		p.add(flag, "must be a relative path starting with '/', got %q", path)
	}
}

func checkHookTimeout(p *problems, flag string, v float64) {
	if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		p.add(flag, "must be a finite number of seconds > 0, got %v", v)
	}
}

// NormalizeMetricsURL turns a metrics endpoint as users write it into a
// URL: http:// is added when there is no scheme, and /metrics when there is
// no path ("node1:8081" is http://node1:8081/metrics), as AIPerf accepts.
func NormalizeMetricsURL(raw string) string {
	s := strings.TrimSpace(raw)
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return s // Validate reports it
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/metrics"
	}
	return u.String()
}

// MetricsURL is the Prometheus endpoint of an inference server's base URL:
// <url>/metrics (with any path the URL has, like AIPerf).
func MetricsURL(base string) string {
	return strings.TrimRight(base, "/") + "/metrics"
}
