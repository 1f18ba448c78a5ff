package cli

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/aiperf-go/aiperf/internal/config"
)

// Help groups of the telemetry flags (AIPerf's panel titles).
const (
	groupServerMetrics = "Server Metrics"
	groupGPUTelemetry  = "GPU Telemetry"
)

// optionalValueFlags take zero or more values after the flag name
// (`--gpu-telemetry`, `--gpu-telemetry dashboard node1:9400`); they are
// also multi-value flags.
func optionalValueFlags() map[string]bool {
	return map[string]bool{"gpu-telemetry": true, "server-metrics": true}
}

// bareValue is what an optional-value flag is set to when given without a
// value; it only switches the feature on.
const bareValue = "\x00on"

// addTelemetryFlags registers the Server Metrics and GPU Telemetry groups
// and the endpoint control hooks (--reset-kv-cache*, --server-profiler*),
// bound to cfg.Telemetry. It sets b.group itself.
func (b *flagBuilder) addTelemetryFlags(cfg *config.Config) {
	t := &cfg.Telemetry
	b.addEndpointHookFlags(t)
	b.addServerMetricsFlags(&t.ServerMetrics)
	b.addGPUTelemetryFlags(&t.GPU)
}

// addEndpointHookFlags registers --reset-kv-cache* and --server-profiler*;
// any of the detail flags switches its hook on.
func (b *flagBuilder) addEndpointHookFlags(t *config.Telemetry) {
	b.group = groupEndpoint
	reset := func() *config.ResetKVCache {
		if t.ResetKVCache == nil {
			t.ResetKVCache = &config.ResetKVCache{}
		}
		return t.ResetKVCache
	}
	profiler := func() *config.ServerProfiler {
		if t.ServerProfiler == nil {
			t.ServerProfiler = &config.ServerProfiler{}
		}
		return t.ServerProfiler
	}
	f := b.add(&funcValue{recorder: b.rec("reset-kv-cache"), set: func(s string) error {
		on, err := parseBool(s)
		if err == nil {
			if on {
				reset()
			} else {
				t.ResetKVCache = nil
			}
		}
		return err
	}}, spec{
		name: "reset-kv-cache", def: "false",
		usage: "POST the server's KV-cache reset path (vLLM's /reset_prefix_cache) once before the run, so a cache warmed by an earlier run does not flatter this one; the run does not start if it fails. Retried on 409, 423, 429 and 503 and on connection errors for up to 60 s.",
	})
	f.NoOptDefVal = "true"
	b.add(&funcValue{recorder: b.rec("reset-kv-cache-timeout-seconds"), kind: "float", set: func(s string) error {
		v, err := parsePositiveFloat(s)
		if err == nil {
			reset().TimeoutSeconds = v
		}
		return err
	}}, spec{
		name: "reset-kv-cache-timeout-seconds", meta: "<seconds>", def: "30",
		usage: "Timeout of the KV-cache reset request (implies --reset-kv-cache).",
	})
	b.add(&funcValue{recorder: b.rec("reset-kv-cache-path"), set: func(s string) error { reset().Path = s; return nil }}, spec{
		name: "reset-kv-cache-path", meta: "<path>", def: config.DefaultResetKVCachePath,
		usage: "Path of the KV-cache reset, relative to each --url's origin (implies --reset-kv-cache).",
	})
	f = b.add(&funcValue{recorder: b.rec("server-profiler"), set: func(s string) error {
		on, err := parseBool(s)
		if err == nil {
			if on {
				profiler()
			} else {
				t.ServerProfiler = nil
			}
		}
		return err
	}}, spec{
		name: "server-profiler", def: "false",
		usage: "POST the server profiler's start path before the profiling phase and its stop path after it (vLLM's /start_profile and /stop_profile with VLLM_TORCH_PROFILER_DIR set), so the trace covers exactly the measured requests. A failed start stops the run; a failed stop is a warning.",
	})
	f.NoOptDefVal = "true"
	b.add(&funcValue{recorder: b.rec("server-profiler-timeout-seconds"), kind: "float", set: func(s string) error {
		v, err := parsePositiveFloat(s)
		if err == nil {
			profiler().TimeoutSeconds = v
		}
		return err
	}}, spec{
		name: "server-profiler-timeout-seconds", meta: "<seconds>", def: "30",
		usage: "Timeout of the profiler start and stop requests (implies --server-profiler).",
	})
	b.add(&funcValue{recorder: b.rec("server-profiler-start-path"), set: func(s string) error { profiler().StartPath = s; return nil }}, spec{
		name: "server-profiler-start-path", meta: "<path>", def: config.DefaultServerProfilerStartPath,
		usage: "Path of the profiler start, relative to each --url's origin (implies --server-profiler).",
	})
	b.add(&funcValue{recorder: b.rec("server-profiler-stop-path"), set: func(s string) error { profiler().StopPath = s; return nil }}, spec{
		name: "server-profiler-stop-path", meta: "<path>", def: config.DefaultServerProfilerStopPath,
		usage: "Path of the profiler stop, relative to each --url's origin (implies --server-profiler).",
	})
}

// addServerMetricsFlags registers the Server Metrics group.
func (b *flagBuilder) addServerMetricsFlags(sm *config.ServerMetrics) {
	b.group = groupServerMetrics
	f := b.add(&funcValue{recorder: b.rec("server-metrics"), kind: "list", set: func(s string) error {
		for _, u := range splitValues(s) {
			if u != bareValue { // the bare flag: collection is on anyway
				sm.URLs = append(sm.URLs, config.NormalizeMetricsURL(u))
			}
		}
		return nil
	}}, spec{
		name: "server-metrics", meta: "[<url> ...]",
		usage: "Server metrics are collected by default from <url>/metrics of every --url (Prometheus text, every 333 ms, a baseline before warmup and a final scrape after profiling) into server_metrics_export.json and .csv; give more Prometheus endpoints here (node1:8081 means http://node1:8081/metrics). An endpoint that does not answer is skipped silently; one that answers with something other than Prometheus text is disabled with one warning.",
	})
	f.NoOptDefVal = bareValue
	b.add(&boolValue{recorder: b.rec("no-server-metrics"), p: &sm.Disabled}, spec{
		name:  "no-server-metrics",
		usage: "Do not collect server metrics at all.",
	})
	b.add(&funcValue{recorder: b.rec("server-metrics-formats"), kind: "list", set: func(s string) error {
		var bad []string
		for _, v := range splitValues(s) {
			f := config.ServerMetricsFormat(strings.ToLower(v))
			if !containsFormat(config.ServerMetricsFormats(), f) {
				bad = append(bad, v)
				continue
			}
			sm.Formats = append(sm.Formats, f)
		}
		if len(bad) > 0 {
			return errors.New("invalid choice " + strings.Join(bad, ", ") + " (choose from json, csv, jsonl, parquet)")
		}
		return nil
	}}, spec{
		name: "server-metrics-formats", meta: "<format> ...", def: "json csv",
		choices: strs(config.ServerMetricsFormats()),
		usage:   "Server metrics files to write: json (statistics per metric), csv (the same as tables), jsonl (every scrape as it arrived) and parquet (the raw time series, for DuckDB, pandas or Polars).",
	})
}

// addGPUTelemetryFlags registers the GPU Telemetry group.
func (b *flagBuilder) addGPUTelemetryFlags(g *config.GPUTelemetry) {
	b.group = groupGPUTelemetry
	f := b.add(&funcValue{recorder: b.rec("gpu-telemetry"), kind: "list", set: func(s string) error {
		g.Requested = true
		for _, v := range splitValues(s) {
			switch lv := strings.ToLower(v); {
			case v == bareValue:
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
			default:
				g.URLs = append(g.URLs, config.NormalizeMetricsURL(v))
			}
		}
		return nil
	}}, spec{
		name: "gpu-telemetry", meta: "[<value> ...]",
		usage: "GPU telemetry is collected by default from DCGM exporters at localhost:9400 and localhost:9401 when they answer (power, energy, utilisation, memory, temperature into gpu_telemetry_export.jsonl and telemetry_data, and the energy-efficiency metrics). This flag also shows the GPU tables on the console and takes: more DCGM exporter URLs (node1:9400), pynvml (or nvml) to read the local NVIDIA driver instead (a build with -tags nvml on Linux), dashboard for live GPU panels, or a *.csv file of DCGM fields to collect.",
	})
	f.NoOptDefVal = bareValue
	b.add(&boolValue{recorder: b.rec("no-gpu-telemetry"), p: &g.Disabled}, spec{
		name:  "no-gpu-telemetry",
		usage: "Do not collect GPU telemetry at all.",
	})
}

// funcValue is a flag whose value is applied by set; a set error is
// recorded as a problem of the flag.
type funcValue struct {
	recorder
	kind string // Type(); "string" when empty
	set  func(string) error
	val  string
}

func (v *funcValue) Set(s string) error {
	if err := v.set(s); err != nil {
		v.fail(err)
		return nil
	}
	v.val = s
	return nil
}
func (v *funcValue) String() string { return strings.TrimPrefix(v.val, bareValue) }
func (v *funcValue) Type() string {
	if v.kind == "" {
		return "string"
	}
	return v.kind
}

// splitValues splits a comma-separated flag value; the bare marker stays.
func splitValues(s string) []string {
	if s == bareValue {
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

func containsFormat(list []config.ServerMetricsFormat, f config.ServerMetricsFormat) bool {
	for _, x := range list {
		if x == f {
			return true
		}
	}
	return false
}
