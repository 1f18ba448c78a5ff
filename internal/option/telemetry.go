package option

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/aiperf-go/aiperf/internal/config"
)

// resetKVCacheOptions lists the options from --reset-kv-cache on, in help order.
func resetKVCacheOptions() []Option {
	return []Option{
		{Name: "reset-kv-cache",
			Group:       GroupEndpoint,
			Default:     "false",
			Usage:       "POST the server's KV-cache reset path (vLLM's /reset_prefix_cache) once before the run, so a cache warmed by an earlier run does not flatter this one; the run does not start if it fails. Retried on 409, 423, 429 and 503 and on connection errors for up to 60 s.",
			Set:         setResetKVCache,
			NoOptDefVal: "true",
			Keys: []Key{{Path: "benchmark.endpoint.reset_kv_cache", Bind: func(c *config.Config) any { return &c.Telemetry.ResetKVCache }, Conv: ConvResetKVCache,
				Also: []string{"reset-kv-cache-timeout-seconds", "reset-kv-cache-path"},
				Doc:  "POST the server's KV-cache reset once before the run: false, true, or {path, timeout_seconds, max_retry_seconds}."}}},
		{Name: "reset-kv-cache-timeout-seconds",
			Group:   GroupEndpoint,
			Meta:    "<seconds>",
			Default: "30",
			Usage:   "Timeout of the KV-cache reset request (implies --reset-kv-cache).",
			Set: func(c *config.Config, s string) error {
				v, err := parsePositiveFloat(s)
				if err == nil {
					resetKVCache(c).TimeoutSeconds = v
				}
				return err
			},
			Type: "float"},
		{Name: "reset-kv-cache-path",
			Group:   GroupEndpoint,
			Meta:    "<path>",
			Default: config.DefaultResetKVCachePath,
			Usage:   "Path of the KV-cache reset, relative to each --url's origin (implies --reset-kv-cache).",
			Set:     func(c *config.Config, s string) error { resetKVCache(c).Path = s; return nil }},
		{Name: "server-profiler",
			Group:       GroupEndpoint,
			Default:     "false",
			Usage:       "POST the server profiler's start path before the profiling phase and its stop path after it (vLLM's /start_profile and /stop_profile with VLLM_TORCH_PROFILER_DIR set), so the trace covers exactly the measured requests. A failed start stops the run; a failed stop is a warning.",
			Set:         setServerProfiler,
			NoOptDefVal: "true",
			Keys: []Key{{Path: "benchmark.endpoint.server_profiler", Bind: func(c *config.Config) any { return &c.Telemetry.ServerProfiler }, Conv: ConvServerProfiler,
				Also: []string{"server-profiler-timeout-seconds", "server-profiler-start-path", "server-profiler-stop-path"},
				Doc:  "Start and stop the server profiler around the profiling phase: false, true, or {start_path, stop_path, timeout_seconds}."}}},
		{Name: "server-profiler-timeout-seconds",
			Group:   GroupEndpoint,
			Meta:    "<seconds>",
			Default: "30",
			Usage:   "Timeout of the profiler start and stop requests (implies --server-profiler).",
			Set: func(c *config.Config, s string) error {
				v, err := parsePositiveFloat(s)
				if err == nil {
					serverProfiler(c).TimeoutSeconds = v
				}
				return err
			},
			Type: "float"},
		{Name: "server-profiler-start-path",
			Group:   GroupEndpoint,
			Meta:    "<path>",
			Default: config.DefaultServerProfilerStartPath,
			Usage:   "Path of the profiler start, relative to each --url's origin (implies --server-profiler).",
			Set:     func(c *config.Config, s string) error { serverProfiler(c).StartPath = s; return nil }},
		{Name: "server-profiler-stop-path",
			Group:   GroupEndpoint,
			Meta:    "<path>",
			Default: config.DefaultServerProfilerStopPath,
			Usage:   "Path of the profiler stop, relative to each --url's origin (implies --server-profiler).",
			Set:     func(c *config.Config, s string) error { serverProfiler(c).StopPath = s; return nil }},
		{Name: "server-metrics", Repeatable: true,
			Redact:        SecretURL,
			Group:         GroupServerMetrics,
			Meta:          "[<url> ...]",
			Usage:         "Server metrics are collected by default from <url>/metrics of every --url (Prometheus text, every 333 ms, a baseline before warmup and a final scrape after profiling) into server_metrics_export.json and .csv; give more Prometheus endpoints here (node1:8081 means http://node1:8081/metrics). An endpoint that does not answer is skipped silently; one that answers with something other than Prometheus text is disabled with one warning.",
			Set:           setServerMetrics,
			Type:          "list",
			NoOptDefVal:   BareValue,
			Multi:         true,
			OptionalValue: true,
			Keys:          []Key{{Path: "benchmark.server_metrics.urls", Bind: func(c *config.Config) any { return &c.Telemetry.ServerMetrics.URLs }, Conv: ConvMetricsURLs, Doc: "More Prometheus endpoints; node1:8081 means http://node1:8081/metrics."}}},
		{Name: "no-server-metrics",
			Group: GroupServerMetrics,
			Usage: "Do not collect server metrics at all.",
			Bind:  func(c *config.Config) any { return &c.Telemetry.ServerMetrics.Disabled },
			Keys:  []Key{{Path: "benchmark.server_metrics.enabled", Conv: ConvEnabled, Doc: "Scrape the servers' Prometheus metrics (<url>/metrics of every endpoint URL, plus urls); on by default."}}},
		{Name: "server-metrics-formats", Repeatable: true,
			Group:   GroupServerMetrics,
			Meta:    "<format> ...",
			Default: "json csv",
			Choices: strs(config.ServerMetricsFormats()),
			Usage:   "Server metrics files to write: json (statistics per metric), csv (the same as tables), jsonl (every scrape as it arrived) and parquet (the raw time series, for DuckDB, pandas or Polars).",
			Set:     setServerMetricsFormats,
			Type:    "list",
			Multi:   true,
			Keys:    []Key{{Path: "benchmark.server_metrics.formats", Bind: func(c *config.Config) any { return &c.Telemetry.ServerMetrics.Formats }, Doc: "Server metrics files to write: json, csv, jsonl, parquet (default json and csv)."}}},
		{Name: "gpu-telemetry", Repeatable: true,
			Redact:        SecretURL,
			Group:         GroupGPUTelemetry,
			Meta:          "[<value> ...]",
			Usage:         "GPU telemetry is collected by default from DCGM exporters at localhost:9400 and localhost:9401 when they answer (power, energy, utilisation, memory, temperature into gpu_telemetry_export.jsonl and telemetry_data, and the energy-efficiency metrics). This flag also shows the GPU tables on the console and takes: more DCGM exporter URLs (node1:9400) or AMD device-metrics exporter URLs (node1:5000, optionally prefixed amd_dme:), pynvml (or nvml) to read the local NVIDIA driver instead (a build with -tags nvml on Linux), dashboard for live GPU panels, or a *.csv file of DCGM fields to collect.",
			Set:           setGPUTelemetry,
			Type:          "list",
			NoOptDefVal:   BareValue,
			Multi:         true,
			OptionalValue: true,
			Keys: []Key{{Path: "benchmark.gpu_telemetry.urls", Bind: func(c *config.Config) any { return &c.Telemetry.GPU.URLs }, Conv: ConvMetricsURLs, Doc: "DCGM or AMD device-metrics exporter URLs; node1:9400 means http://node1:9400/metrics."},
				{Path: "benchmark.gpu_telemetry.collector", Bind: func(c *config.Config) any { return &c.Telemetry.GPU.Collector }, Conv: ConvChoice, Doc: "dcgm (exporters over HTTP, the default) or pynvml (the local NVIDIA driver; a build with -tags nvml on Linux)."},
				{Path: "benchmark.gpu_telemetry.mode", Bind: func(c *config.Config) any { return &c.Telemetry.GPU.Dashboard }, Conv: ConvGPUMode, Doc: "summary (the default) or realtime_dashboard (live GPU panels)."},
				{Path: "benchmark.gpu_telemetry.metrics_file", Bind: func(c *config.Config) any { return &c.Telemetry.GPU.MetricsFile }, Doc: "CSV of DCGM fields to collect besides the defaults: lines of \"DCGM_FI_* field, gauge|counter, help (in unit)\"."}}},
		{Name: "no-gpu-telemetry",
			Group: GroupGPUTelemetry,
			Usage: "Do not collect GPU telemetry at all.",
			Bind:  func(c *config.Config) any { return &c.Telemetry.GPU.Disabled },
			Keys:  []Key{{Path: "benchmark.gpu_telemetry.enabled", Conv: ConvEnabled, Doc: "Collect GPU telemetry (DCGM exporters at localhost:9400 and :9401 when they answer, plus urls); on by default."}}},
	}
}

// BareValue is what an OptionalValue flag is set to when given without a
// value; it only switches the feature on.
const BareValue = "\x00on"

// resetKVCache returns the KV-cache reset hook, switching it on: any of
// its detail flags implies --reset-kv-cache.
func resetKVCache(c *config.Config) *config.ResetKVCache {
	if c.Telemetry.ResetKVCache == nil {
		c.Telemetry.ResetKVCache = &config.ResetKVCache{}
	}
	return c.Telemetry.ResetKVCache
}

// serverProfiler returns the profiler hook, switching it on.
func serverProfiler(c *config.Config) *config.ServerProfiler {
	if c.Telemetry.ServerProfiler == nil {
		c.Telemetry.ServerProfiler = &config.ServerProfiler{}
	}
	return c.Telemetry.ServerProfiler
}

func setResetKVCache(c *config.Config, s string) error {
	on, err := parseBool(s)
	if err == nil {
		if on {
			resetKVCache(c)
		} else {
			c.Telemetry.ResetKVCache = nil
		}
	}
	return err
}

func setServerProfiler(c *config.Config, s string) error {
	on, err := parseBool(s)
	if err == nil {
		if on {
			serverProfiler(c)
		} else {
			c.Telemetry.ServerProfiler = nil
		}
	}
	return err
}

func setServerMetrics(c *config.Config, s string) error {
	sm := &c.Telemetry.ServerMetrics
	for _, u := range SplitValues(s) {
		if u != BareValue { // the bare flag: collection is on anyway
			sm.URLs = append(sm.URLs, config.NormalizeMetricsURL(u))
		}
	}
	return nil
}

func setServerMetricsFormats(c *config.Config, s string) error {
	sm := &c.Telemetry.ServerMetrics
	var bad []string
	for _, v := range SplitValues(s) {
		f := config.ServerMetricsFormat(strings.ToLower(v))
		if !slices.Contains(config.ServerMetricsFormats(), f) {
			bad = append(bad, v)
			continue
		}
		sm.Formats = append(sm.Formats, f)
	}
	if len(bad) > 0 {
		return errors.New("invalid choice " + strings.Join(bad, ", ") + " (choose from json, csv, jsonl, parquet)")
	}
	return nil
}

func setGPUTelemetry(c *config.Config, s string) error {
	g := &c.Telemetry.GPU
	g.Requested = true
	for _, v := range SplitValues(s) {
		switch lv := strings.ToLower(v); {
		case v == BareValue:
		case lv == "dashboard":
			g.Dashboard = true
		case lv == "pynvml" || lv == "nvml":
			g.Collector = config.GPUCollectorPyNVML
		case lv == "amdsmi":
			g.Collector = config.GPUCollectorAMDSMI
		case lv == "dcgm":
			g.Collector = config.GPUCollectorDCGM
		case strings.HasSuffix(lv, ".csv"):
			g.MetricsFile = v
		case strings.HasPrefix(lv, "amd_dme:"):
			// AIPerf's explicit AMD-exporter prefix (a host name has no
			// underscore); the page itself tells AMD's exporter from DCGM.
			_, url, _ := strings.Cut(v, ":")
			g.URLs = append(g.URLs, config.NormalizeMetricsURL(url))
		default:
			g.URLs = append(g.URLs, config.NormalizeMetricsURL(v))
		}
	}
	return nil
}

// SplitValues splits a comma-separated flag value; the bare marker stays.
func SplitValues(s string) []string {
	if s == BareValue {
		return []string{s}
	}
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func parseBool(s string) (bool, error) {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return false, fmt.Errorf("invalid boolean %q (use true or false)", s)
	}
	return b, nil
}

func parsePositiveFloat(s string) (float64, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || !(f > 0) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("must be a number of seconds > 0, got %q", s)
	}
	return f, nil
}
