package benchmark

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/mockserver"
	"github.com/aiperf-go/aiperf/internal/telemetry/gpu"
)

// TestAMDTelemetryAgainstTheMock runs the reference workload against the
// mock serving AMD's device-metrics exporter page (2 MI300X) at the same
// --gpu-telemetry URL a DCGM exporter takes: every artifact carries the
// GPUs' amd_* fields with AIPerf's tags and units, and the AMD energy is
// the integral of the exporter's power over the profiling window.
func TestAMDTelemetryAgainstTheMock(t *testing.T) {
	t.Parallel()
	mcfg := mockConfig(t, func(c *mockserver.Config) {
		c.Fast, c.TTFT, c.ITL = false, 30*time.Millisecond, 4*time.Millisecond
		c.DCGM.Enabled, c.DCGM.GPUName = true, "mi300x"
	})
	srv, err := mockserver.Start(mcfg, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Error(err)
		}
	})
	cfg := telemetryConfig(t, srv)
	out, err := run(t, context.Background(), cfg)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	dir := cfg.Output.ArtifactDir
	prof := readJSON(t, filepath.Join(dir, "profile_export_aiperf.json"))

	energyJ := num(t, at(t, prof, "amd_total_gpu_energy", "avg"))
	start := isoNanos(t, at(t, prof, "telemetry_data", "summary", "start_time").(string))
	end := isoNanos(t, at(t, prof, "telemetry_data", "summary", "end_time").(string)) - int64(gpu.FinalScrapeGrace)
	integral := powerIntegral(t, srv, start, end)
	t.Logf("amd_total_gpu_energy %v J, integral of the mock's power over the %v window %v J (%.4fx)",
		energyJ, time.Duration(end-start), integral, energyJ/integral)
	if math.Abs(energyJ-integral) > 0.02*integral {
		t.Errorf("amd_total_gpu_energy = %v J; integral of the mock's power over the profiling window = %v J (want within 2 %%)", energyJ, integral)
	}
	totalOSL := num(t, at(t, prof, "total_osl", "avg"))
	if got, want := num(t, at(t, prof, "amd_output_tokens_per_joule", "avg")), totalOSL/energyJ; math.Abs(got-want) > 1e-12*want {
		t.Errorf("amd_output_tokens_per_joule = %v; want total_osl/energy = %v", got, want)
	}
	for k := range prof {
		if strings.HasPrefix(k, "nvidia_") {
			t.Errorf("%s in the summary of an AMD-only run", k)
		}
	}

	// The summary's telemetry_data: each GPU is AMD, with the exporter's
	// 12 amd_* fields in AIPerf's units; the energy counter is a delta.
	eps := at(t, prof, "telemetry_data", "endpoints").(map[string]any)
	if len(eps) != 1 {
		t.Fatalf("telemetry_data has %d endpoints, want 1", len(eps))
	}
	for _, ep := range eps {
		gpus := at(t, ep, "gpus").(map[string]any)
		if len(gpus) != 2 {
			t.Fatalf("%d GPUs, want 2", len(gpus))
		}
		for name, g := range gpus {
			if p := at(t, g, "platform"); p != "amd" || at(t, g, "gpu_name") != "AMD Instinct MI300X" {
				t.Errorf("%s: platform %v, name %v", name, p, at(t, g, "gpu_name"))
			}
			metrics := at(t, g, "metrics").(map[string]any)
			units := map[string]string{
				"amd_power": "W", "amd_energy_consumption": "MJ", "amd_gfx_activity": "%", "amd_umc_activity": "%",
				"amd_memory_used": "GB", "amd_memory_free": "GB", "amd_memory_total": "GB", "amd_temperature": "°C",
				"amd_memory_temperature": "°C", "amd_ecc_uncorrectable": "count", "amd_sm_clock": "MHz", "amd_mem_clock": "MHz",
			}
			if len(metrics) != len(units) {
				t.Errorf("%s has %d metrics, want the exporter's %d", name, len(metrics), len(units))
			}
			for m, u := range units {
				if got := at(t, metrics, m, "unit"); got != u {
					t.Errorf("%s %s unit %v, want %s", name, m, got, u)
				}
			}
			if total := num(t, at(t, metrics, "amd_memory_total", "avg")); math.Abs(total-196592.0/1024) > 1e-9 {
				t.Errorf("%s amd_memory_total %v GB, want the exporter's 196592 MB / 1024", name, total)
			}
			if e := num(t, at(t, metrics, "amd_energy_consumption", "avg")); !(e > 0 && e < 1) {
				t.Errorf("%s amd_energy_consumption %v MJ, want the counter's increase over the run (a small fraction of a MJ), not its reading since boot", name, e)
			}
		}
	}

	lines := jsonLines(t, filepath.Join(dir, "gpu_telemetry_export.jsonl"))
	if len(lines) < 4 {
		t.Fatalf("gpu_telemetry_export.jsonl has %d lines", len(lines))
	}
	for i, l := range lines {
		if l["platform"] != "amd" || at(t, l, "telemetry_data", "amd_power") == nil || at(t, l, "telemetry_data", "amd_sm_clock") == nil {
			t.Fatalf("gpu_telemetry_export.jsonl line %d is not an AMD reading: %v", i+1, l)
		}
	}

	csv, err := os.ReadFile(filepath.Join(dir, "profile_export_aiperf.csv"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{",AMD Instinct MI300X (simulated),", ",amd,AMD GPU Power (W),", ",amd,AMD Energy Consumption (MJ),", ",amd,AMD Memory Clock Frequency (MHz),", "Total GPU Energy (J),"} {
		if !strings.Contains(string(csv), want) {
			t.Errorf("profile_export_aiperf.csv lacks %q", want)
		}
	}
	for _, want := range []string{"GPU Power Efficiency (AMD) (simulated GPUs)", "GPU 0 | AMD Instinct MI300X (simulated)", "AMD GPU Power", "AMD SM Clock Frequency"} {
		if !strings.Contains(out, want) {
			t.Errorf("console lacks %q", want)
		}
	}
}
