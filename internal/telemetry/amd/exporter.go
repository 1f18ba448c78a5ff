// Package amd reads AMD GPU telemetry from AMD's device-metrics exporter
// (ROCm/device-metrics-exporter, AIPerf's "AMD DME" collector): its
// Prometheus page (gpu_package_power, gpu_energy_consumed, gpu_gfx_activity,
// ... labelled by gpu_id, serial_number, card_model, hostname) becomes one
// gpu.Sample per GPU with AIPerf's amd_* field names and units: power in W,
// energy in MJ from the exporter's µJ, VRAM in GB from its MB (AIPerf
// divides by 1024), temperatures in °C, clocks in MHz.
//
// An exporter URL is given like a DCGM one (--gpu-telemetry URL); the DCGM
// source scrapes it and hands the page here when Detect recognises it, so
// both exporters share one scrape, one parser and one duplicate-page rule.
package amd

import (
	"math"
	"strconv"
	"strings"

	"github.com/aiperf-go/aiperf/internal/telemetry/gpu"
	"github.com/aiperf-go/aiperf/internal/telemetry/prom"
)

// source is one exporter metric that reports a field; when a GPU reports
// several metrics for one field, the lowest rank wins, whatever order the
// families arrive in.
type source struct {
	field string
	rank  int
}

// metrics maps the exporter's metric names to AIPerf's fields. The
// exporter serves gpu_package_power (MI3xx) and gpu_power_usage each only
// where the device reports it, so a part may show either or both; the
// junction temperature is MI3xx's and the edge one MI2xx's.
var metrics = map[string]source{
	"gpu_package_power":        {gpu.AMDPower, 0},
	"gpu_power_usage":          {gpu.AMDPower, 1},
	"gpu_energy_consumed":      {gpu.AMDEnergy, 0},
	"gpu_gfx_activity":         {"amd_gfx_activity", 0},
	"gpu_umc_activity":         {"amd_umc_activity", 0},
	"gpu_used_vram":            {"amd_memory_used", 0},
	"gpu_free_vram":            {"amd_memory_free", 0},
	"gpu_total_vram":           {"amd_memory_total", 0},
	"gpu_junction_temperature": {"amd_temperature", 0},
	"gpu_edge_temperature":     {"amd_temperature", 1},
	"gpu_memory_temperature":   {"amd_memory_temperature", 0},
	"gpu_ecc_uncorrect_total":  {"amd_ecc_uncorrectable", 0},
}

// clockMetric carries every clock of a GPU, told apart by its clock_type
// label (system, memory, data, video, soc; releases before 1.3 wrote
// GPU_CLOCK_TYPE_SYSTEM, ...) and clock_index, a position in the device's
// clock list rather than a clock domain: the lowest index of a type wins.
const clockMetric = "gpu_clock"

var clocks = map[string]string{"system": "amd_sm_clock", "memory": "amd_mem_clock"}

// scale converts the exporter's units to AIPerf's.
var scale = map[string]float64{
	gpu.AMDEnergy:      1e-12, // µJ -> MJ
	"amd_memory_used":  1.0 / 1024,
	"amd_memory_free":  1.0 / 1024,
	"amd_memory_total": 1.0 / 1024,
}

// Detect reports whether a page is the AMD exporter's: it has a series of
// one of the metrics read here labelled with a gpu_id. DCGM pages label
// their GPUs gpu and name their metrics DCGM_FI_*, so the two never mix.
func Detect(fams []prom.Family) bool {
	for _, f := range fams {
		if _, ok := metrics[metricName(f)]; !ok && f.Name != clockMetric {
			continue
		}
		for _, sr := range f.Series {
			if _, ok := label(sr.Labels, "gpu_id"); ok {
				return true
			}
		}
	}
	return false
}

// Samples turns an exporter page into one sample per GPU (label gpu_id),
// in order of first appearance. A GPU appears once one of its series maps
// to a field; non-finite values are skipped.
func Samples(fams []prom.Family) []gpu.Sample {
	type reading struct {
		sample *gpu.Sample
		rank   map[string]int
	}
	byGPU := map[int]*reading{}
	var order []int
	for _, f := range fams {
		if f.Type == prom.Histogram {
			continue
		}
		name := metricName(f)
		for _, sr := range f.Series {
			src, ok := resolve(name, sr.Labels)
			if !ok || math.IsNaN(sr.Value) || math.IsInf(sr.Value, 0) {
				continue
			}
			id, ok := label(sr.Labels, "gpu_id")
			if !ok {
				continue
			}
			idx, err := strconv.Atoi(id)
			if err != nil {
				continue
			}
			r := byGPU[idx]
			if r == nil {
				r = &reading{sample: &gpu.Sample{Meta: meta(idx, sr.Labels), Values: map[string]float64{}}, rank: map[string]int{}}
				byGPU[idx] = r
				order = append(order, idx)
			}
			if held, ok := r.rank[src.field]; ok && held <= src.rank {
				continue
			}
			v := sr.Value
			if k, ok := scale[src.field]; ok {
				v *= k
			}
			r.sample.Values[src.field], r.rank[src.field] = v, src.rank
		}
	}
	out := make([]gpu.Sample, 0, len(order))
	for _, idx := range order {
		out = append(out, *byGPU[idx].sample)
	}
	return out
}

// metricName is a family's name as the exporter wrote it: the parser
// drops a counter's _total suffix, and the exporter's ECC total is
// gpu_ecc_uncorrect_total (a gauge, but a counter-typed page would lose
// the suffix).
func metricName(f prom.Family) string {
	if f.Type == prom.Counter {
		if _, ok := metrics[f.Name+"_total"]; ok {
			return f.Name + "_total"
		}
	}
	return f.Name
}

// resolve names the field a series reports, and its rank.
func resolve(name string, ls []prom.Label) (source, bool) {
	if src, ok := metrics[name]; ok {
		return src, true
	}
	if name != clockMetric {
		return source{}, false
	}
	typ, _ := label(ls, "clock_type")
	field, ok := clocks[strings.ToLower(strings.TrimPrefix(strings.ToUpper(typ), "GPU_CLOCK_TYPE_"))]
	if !ok {
		return source{}, false
	}
	idx, _ := label(ls, "clock_index")
	rank, err := strconv.Atoi(idx)
	if err != nil {
		return source{}, false
	}
	return source{field, rank}, true
}

// label returns a label's value. The exporter's labels are lower case;
// releases before 1.1 wrote them upper case (GPU_ID, SERIAL_NUMBER), so
// the name is matched without regard to case.
func label(ls []prom.Label, name string) (string, bool) {
	for _, l := range ls {
		if strings.EqualFold(l.Name, name) {
			return l.Value, true
		}
	}
	return "", false
}

// simulatedLabel marks the series of a GPU that does not exist (the mock
// server's fake exporter, mockserver.SimulatedLabel).
const simulatedLabel = "simulated"

// meta is a GPU's identity from its first mapped series, as AIPerf takes
// it: the serial number stands for the UUID, the card model for the name.
func meta(idx int, ls []prom.Label) gpu.Meta {
	m := gpu.Meta{Index: idx, Platform: gpu.PlatformAMD, ModelName: "Unknown AMD GPU", UUID: "amd-gpu-" + strconv.Itoa(idx)}
	if v, ok := label(ls, "card_model"); ok && v != "" {
		m.ModelName = v
	}
	if v, ok := label(ls, "serial_number"); ok && v != "" {
		m.UUID = v
	}
	m.Hostname, _ = label(ls, "hostname")
	m.Namespace, _ = label(ls, "namespace")
	m.Pod, _ = label(ls, "pod")
	v, _ := label(ls, simulatedLabel)
	m.Simulated = v == "true"
	return m
}
