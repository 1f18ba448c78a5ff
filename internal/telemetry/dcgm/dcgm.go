// Package dcgm reads GPU telemetry from NVIDIA DCGM exporters: their
// Prometheus page (DCGM_FI_* gauges and counters labelled by gpu, UUID,
// modelName, Hostname, ...) becomes one gpu.Sample per GPU, with AIPerf
// 0.13's field names and units (power in W, energy in MJ from DCGM's mJ,
// memory in GB from MiB, SM activity in % from a ratio, throttling in µs
// from ns). A URL that serves AMD's device-metrics exporter page instead is
// read by package amd, so --gpu-telemetry URL covers both vendors.
package dcgm

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/aiperf-go/aiperf/internal/telemetry/amd"
	"github.com/aiperf-go/aiperf/internal/telemetry/gpu"
	"github.com/aiperf-go/aiperf/internal/telemetry/prom"
)

// DefaultURLs are the exporters AIPerf tries without being asked
// (AIPERF_GPU_DEFAULT_DCGM_ENDPOINTS).
var DefaultURLs = []string{"http://localhost:9400/metrics", "http://localhost:9401/metrics"}

// fieldMap maps DCGM fields to AIPerf's field names.
var fieldMap = map[string]string{
	"DCGM_FI_DEV_POWER_USAGE":              gpu.NVIDIAPower,
	"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION": gpu.NVIDIAEnergy,
	"DCGM_FI_DEV_GPU_UTIL":                 "nvidia_gpu_utilization",
	"DCGM_FI_DEV_MEM_COPY_UTIL":            "nvidia_memory_utilization",
	"DCGM_FI_DEV_FB_USED":                  "nvidia_memory_used",
	"DCGM_FI_DEV_GPU_TEMP":                 "nvidia_temperature",
	"DCGM_FI_DEV_ENC_UTIL":                 "nvidia_encoder_utilization",
	"DCGM_FI_DEV_DEC_UTIL":                 "nvidia_decoder_utilization",
	"DCGM_FI_PROF_SM_ACTIVE":               "nvidia_sm_utilization",
	"DCGM_FI_DEV_XID_ERRORS":               "nvidia_xid_errors",
	"DCGM_FI_DEV_POWER_VIOLATION":          "nvidia_power_violation",
}

// scale converts DCGM's units to AIPerf's.
var scale = map[string]float64{
	gpu.NVIDIAEnergy:         1e-9,        // mJ -> MJ
	"nvidia_memory_used":     1.048576e-3, // MiB -> GB
	"nvidia_sm_utilization":  100,         // ratio -> %
	"nvidia_power_violation": 1e-3,        // ns -> µs
}

// Source is one DCGM exporter.
type Source struct {
	scraper *prom.Scraper
	url     string
	fields  map[string]string // DCGM field -> field name
}

var _ gpu.Source = (*Source)(nil)

// New returns a Source for a DCGM exporter's metrics URL, reading the
// default fields plus extra (from a custom metrics file; nil for none).
func New(url string, extra []gpu.Field, client *http.Client) *Source {
	fields := make(map[string]string, len(fieldMap)+len(extra))
	for k, v := range fieldMap {
		fields[k] = v
	}
	for _, f := range extra {
		if f.From != "" {
			fields[f.From] = f.Name
		}
	}
	return &Source{scraper: prom.NewScraper(url, client), url: prom.RedactURL(url), fields: fields}
}

// URL implements gpu.Source.
func (s *Source) URL() string { return s.url }

// Reachable implements gpu.Source.
func (s *Source) Reachable(ctx context.Context, timeout time.Duration) bool {
	return s.scraper.Reachable(ctx, timeout)
}

// Collect implements gpu.Source: an unchanged page yields no samples, as
// AIPerf skips duplicate DCGM pages.
func (s *Source) Collect(ctx context.Context) (time.Time, []gpu.Sample, error) {
	sc, err := s.scraper.Scrape(ctx)
	if err != nil {
		return time.Time{}, nil, err
	}
	if sc.Duplicate {
		return sc.FirstByte, nil, nil
	}
	if amd.Detect(sc.Families) { // an AMD device-metrics exporter at a DCGM-style URL
		return sc.FirstByte, amd.Samples(sc.Families), nil
	}
	return sc.FirstByte, s.samples(sc.Families), nil
}

// samples turns a page into one sample per GPU (label gpu), in index order
// of first appearance.
func (s *Source) samples(fams []prom.Family) []gpu.Sample {
	byGPU := map[int]*gpu.Sample{}
	var order []int
	for _, f := range fams {
		name := strings.TrimSuffix(f.Name, "_total")
		field, known := s.fields[name]
		for _, sr := range f.Series {
			idx, ok := gpuIndex(sr.Labels)
			if !ok {
				continue
			}
			g := byGPU[idx]
			if g == nil {
				g = &gpu.Sample{Meta: meta(idx, sr.Labels), Values: map[string]float64{}}
				byGPU[idx] = g
				order = append(order, idx)
			} else {
				g.Meta = mergeMeta(g.Meta, meta(idx, sr.Labels))
			}
			if !known || f.Type == prom.Histogram || math.IsNaN(sr.Value) || math.IsInf(sr.Value, 0) {
				continue
			}
			v := sr.Value
			if k, ok := scale[field]; ok {
				v *= k
			}
			g.Values[field] = v
		}
	}
	out := make([]gpu.Sample, 0, len(order))
	for _, idx := range order {
		if g := byGPU[idx]; len(g.Values) > 0 {
			out = append(out, *g)
		}
	}
	return out
}

func gpuIndex(ls []prom.Label) (int, bool) {
	for _, l := range ls {
		if l.Name == "gpu" {
			n, err := strconv.Atoi(l.Value)
			return n, err == nil
		}
	}
	return 0, false
}

func meta(idx int, ls []prom.Label) gpu.Meta {
	m := gpu.Meta{Index: idx, Platform: gpu.PlatformNVIDIA}
	for _, l := range ls {
		switch l.Name {
		case "modelName":
			m.ModelName = l.Value
		case "UUID":
			m.UUID = l.Value
		case "pci_bus_id":
			m.PCIBusID = l.Value
		case "device":
			m.Device = l.Value
		case "Hostname":
			m.Hostname = l.Value
		case "namespace":
			m.Namespace = l.Value
		case "pod":
			m.Pod = l.Value
		case simulatedLabel:
			m.Simulated = l.Value == "true"
		}
	}
	return m
}

// mergeMeta fills the fields a GPU's first series lacked from a later one.
func mergeMeta(m, o gpu.Meta) gpu.Meta {
	for _, p := range []struct{ dst, src *string }{
		{&m.UUID, &o.UUID}, {&m.ModelName, &o.ModelName}, {&m.PCIBusID, &o.PCIBusID}, {&m.Device, &o.Device},
		{&m.Hostname, &o.Hostname}, {&m.Namespace, &o.Namespace}, {&m.Pod, &o.Pod},
	} {
		if *p.dst == "" {
			*p.dst = *p.src
		}
	}
	m.Simulated = m.Simulated || o.Simulated
	return m
}

// simulatedLabel marks the series of a GPU that does not exist (the mock
// server's fake exporter, mockserver.SimulatedLabel).
const simulatedLabel = "simulated"

// customPrefix marks fields read from a custom metrics file: their name
// is "nvidia_" + the DCGM field's lower-cased suffix.
const customPrefix = "nvidia_"

// LoadMetricsFile reads a custom DCGM metrics CSV (AIPerf's format: one
// "DCGM_FI_* field, gauge|counter, help text" per line; # comments and
// blank lines skipped) and returns the fields it adds to the defaults: a
// field already collected is skipped; a new one is named nvidia_<suffix>,
// displayed as its help text up to "(" in title case, with the unit of
// "(in <unit>)". Lines that are not valid are reported with their number.
func LoadMetricsFile(path string) ([]gpu.Field, []string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("GPU metrics file: %w", err)
	}
	defer f.Close()
	var fields []gpu.Field
	var warnings []string
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.SplitN(line, ",", 3)
		if len(parts) != 3 {
			warnings = append(warnings, fmt.Sprintf("%s:%d: expected 3 comma-separated values, got %d", path, n, len(parts)))
			continue
		}
		field, typ, help := strings.TrimSpace(parts[0]), strings.TrimSpace(parts[1]), strings.TrimSpace(parts[2])
		switch {
		case !strings.HasPrefix(field, "DCGM_FI_"):
			warnings = append(warnings, fmt.Sprintf("%s:%d: DCGM field %q should start with DCGM_FI_", path, n, field))
			continue
		case typ != "gauge" && typ != "counter":
			warnings = append(warnings, fmt.Sprintf("%s:%d: metric type %q should be gauge or counter", path, n, typ))
			continue
		}
		if _, builtin := fieldMap[field]; builtin || seen[field] {
			continue
		}
		seen[field] = true
		suffix := strings.TrimPrefix(strings.TrimPrefix(field, "DCGM_FI_DEV_"), "DCGM_FI_PROF_")
		name := customPrefix + strings.ToLower(suffix)
		display := strings.TrimSpace(strings.SplitN(help, "(", 2)[0])
		if display == "" {
			display = strings.ReplaceAll(name, "_", " ")
		}
		fields = append(fields, gpu.Field{Name: name, Display: titleCase(display), Unit: unitOf(help), From: field})
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("GPU metrics file %s: %w", path, err)
	}
	return fields, warnings, nil
}

var acronyms = map[string]bool{"gpu": true, "xid": true, "sm": true, "nvlink": true, "pci": true, "pcie": true, "cpu": true, "ram": true, "vram": true, "ecc": true}

func titleCase(s string) string {
	words := strings.Fields(s)
	for i, w := range words {
		if acronyms[strings.ToLower(w)] {
			words[i] = strings.ToUpper(w)
		} else if w != "" {
			words[i] = strings.ToUpper(w[:1]) + strings.ToLower(w[1:])
		}
	}
	return strings.Join(words, " ")
}

var inUnitRE = regexp.MustCompile(`(?i)\(in\s+([^\s)]+)\)`)

// unitOf maps "(in <unit>)" of a help text to AIPerf's unit ("count" when
// there is none or it is unknown).
func unitOf(help string) string {
	m := inUnitRE.FindStringSubmatch(help)
	if m == nil {
		return "count"
	}
	units := map[string]string{
		"w": "W", "%": "%", "percent": "%", "gb": "GB", "mb": "MB", "kb": "KB", "gib": "GB", "mib": "MB", "kib": "KB",
		"mhz": "MHz", "ghz": "GHz", "c": "°C", "°c": "°C", "celsius": "°C", "count": "count",
		"us": "us", "ms": "ms", "s": "sec", "mj": "MJ", "j": "J",
	}
	if u, ok := units[strings.ToLower(strings.TrimSpace(m[1]))]; ok {
		return u
	}
	return "count"
}
