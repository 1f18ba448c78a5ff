package dcgm

import (
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/telemetry/gpu"
	"github.com/aiperf-go/aiperf/internal/telemetry/prom"
)

// page is a DCGM exporter page as dcgm-exporter 3.x writes it (two GPUs,
// a field we do not collect, a custom one, a series without a gpu label).
const page = `# HELP DCGM_FI_DEV_POWER_USAGE Power draw (in W).
# TYPE DCGM_FI_DEV_POWER_USAGE gauge
DCGM_FI_DEV_POWER_USAGE{gpu="0",UUID="GPU-a",pci_bus_id="00000000:01:00.0",device="nvidia0",modelName="NVIDIA H200",Hostname="node1"} 412.5
DCGM_FI_DEV_POWER_USAGE{gpu="1",UUID="GPU-b",pci_bus_id="00000000:02:00.0",device="nvidia1",modelName="NVIDIA H200",Hostname="node1",namespace="ns",pod="p"} 98
# HELP DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION Total energy consumption since boot (in mJ).
# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter
DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu="0",UUID="GPU-a",modelName="NVIDIA H200",Hostname="node1"} 2.5e9
DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu="1",UUID="GPU-b",modelName="NVIDIA H200",Hostname="node1"} 1e9
# HELP DCGM_FI_DEV_FB_USED Framebuffer memory used (in MiB).
# TYPE DCGM_FI_DEV_FB_USED gauge
DCGM_FI_DEV_FB_USED{gpu="0",UUID="GPU-a"} 1000
# HELP DCGM_FI_PROF_SM_ACTIVE The ratio of cycles an SM has at least 1 warp assigned.
# TYPE DCGM_FI_PROF_SM_ACTIVE gauge
DCGM_FI_PROF_SM_ACTIVE{gpu="0",UUID="GPU-a"} 0.25
# HELP DCGM_FI_DEV_POWER_VIOLATION Throttling duration due to power constraints (in us).
# TYPE DCGM_FI_DEV_POWER_VIOLATION counter
DCGM_FI_DEV_POWER_VIOLATION{gpu="0",UUID="GPU-a"} 5000
# HELP DCGM_FI_DEV_SM_CLOCK SM clock frequency (in MHz).
# TYPE DCGM_FI_DEV_SM_CLOCK gauge
DCGM_FI_DEV_SM_CLOCK{gpu="0",UUID="GPU-a"} 1980
DCGM_FI_DEV_SM_CLOCK{gpu="1",UUID="GPU-b"} NaN
# HELP DCGM_FI_DEV_GPU_TEMP GPU temperature (in C).
# TYPE DCGM_FI_DEV_GPU_TEMP gauge
DCGM_FI_DEV_GPU_TEMP{UUID="GPU-x"} 50
`

func TestSamplesMapAndScaleFields(t *testing.T) {
	fams, err := prom.Parse([]byte(page), "text/plain; version=0.0.4")
	if err != nil {
		t.Fatal(err)
	}
	s := New("http://user:pw@localhost:9400/metrics", []gpu.Field{{Name: "nvidia_sm_clock", From: "DCGM_FI_DEV_SM_CLOCK"}}, nil)
	if strings.Contains(s.URL(), "pw") {
		t.Errorf("URL %q keeps the password", s.URL())
	}
	got := s.samples(fams)
	if len(got) != 2 {
		t.Fatalf("%d samples, want 2 (one per gpu label): %+v", len(got), got)
	}
	g0, g1 := got[0], got[1]
	want0 := gpu.Meta{Index: 0, UUID: "GPU-a", ModelName: "NVIDIA H200", PCIBusID: "00000000:01:00.0", Device: "nvidia0", Hostname: "node1", Platform: gpu.PlatformNVIDIA}
	if g0.Meta != want0 {
		t.Errorf("meta %+v, want %+v", g0.Meta, want0)
	}
	if g1.Meta.Index != 1 || g1.Meta.Namespace != "ns" || g1.Meta.Pod != "p" {
		t.Errorf("meta of gpu 1: %+v", g1.Meta)
	}
	near := func(field string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
			t.Errorf("%s = %v, want %v", field, got, want)
		}
	}
	near(gpu.NVIDIAPower, g0.Values[gpu.NVIDIAPower], 412.5)
	near(gpu.NVIDIAEnergy, g0.Values[gpu.NVIDIAEnergy], 2.5) // mJ -> MJ
	near("nvidia_memory_used", g0.Values["nvidia_memory_used"], 1.048576)
	near("nvidia_sm_utilization", g0.Values["nvidia_sm_utilization"], 25)
	near("nvidia_power_violation", g0.Values["nvidia_power_violation"], 5)
	near("nvidia_sm_clock", g0.Values["nvidia_sm_clock"], 1980)
	if _, ok := g1.Values["nvidia_sm_clock"]; ok {
		t.Error("a NaN reading was kept")
	}
	if len(g1.Values) != 2 {
		t.Errorf("gpu 1 values %v, want power and energy only", g1.Values)
	}
}

func TestCollectSkipsUnchangedPages(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		_, _ = w.Write([]byte(page))
	}))
	defer srv.Close()
	s := New(srv.URL+"/metrics", nil, srv.Client())
	ctx := context.Background()
	if !s.Reachable(ctx, 5*time.Second) {
		t.Fatal("not reachable")
	}
	at, samples, err := s.Collect(ctx)
	if err != nil || at.IsZero() || len(samples) != 2 {
		t.Fatalf("first collect: %v %v %d samples", at, err, len(samples))
	}
	_, samples, err = s.Collect(ctx)
	if err != nil || len(samples) != 0 {
		t.Fatalf("unchanged page gave %d samples (%v), want none", len(samples), err)
	}
}

func TestLoadMetricsFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "metrics.csv")
	body := `# custom DCGM fields
DCGM_FI_DEV_SM_CLOCK, gauge, SM clock frequency (in MHz)

DCGM_FI_DEV_POWER_USAGE, gauge, Power draw (in W)
DCGM_FI_DEV_SM_CLOCK, gauge, duplicate
DCGM_FI_PROF_PCIE_TX_BYTES, counter, The rate of data transmitted over the PCIe bus
DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL, gauge, Total NVLink bandwidth (in GB)
not_dcgm, gauge, help
DCGM_FI_DEV_X, histogram, help
DCGM_FI_DEV_Y, gauge
`
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	fields, warnings, err := LoadMetricsFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []gpu.Field{
		{Name: "nvidia_sm_clock", Display: "SM Clock Frequency", Unit: "MHz", From: "DCGM_FI_DEV_SM_CLOCK"},
		{Name: "nvidia_pcie_tx_bytes", Display: "The Rate Of Data Transmitted Over The PCIE Bus", Unit: "count", From: "DCGM_FI_PROF_PCIE_TX_BYTES"},
		{Name: "nvidia_nvlink_bandwidth_total", Display: "Total NVLINK Bandwidth", Unit: "GB", From: "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL"},
	}
	if len(fields) != len(want) {
		t.Fatalf("fields %+v, want %+v", fields, want)
	}
	for i := range want {
		if fields[i] != want[i] {
			t.Errorf("field %d = %+v, want %+v", i, fields[i], want[i])
		}
	}
	wantWarn := []string{":8: DCGM field \"not_dcgm\"", ":9: metric type \"histogram\"", ":10: expected 3"}
	if len(warnings) != len(wantWarn) {
		t.Fatalf("warnings %q", warnings)
	}
	for i, w := range wantWarn {
		if !strings.Contains(warnings[i], w) {
			t.Errorf("warning %q lacks %q", warnings[i], w)
		}
	}
	if _, _, err := LoadMetricsFile(filepath.Join(t.TempDir(), "missing.csv")); err == nil {
		t.Error("a missing file was accepted")
	}
}

func FuzzLoadMetricsFile(f *testing.F) {
	f.Add("DCGM_FI_DEV_SM_CLOCK, gauge, SM clock (in MHz)\n")
	f.Add("# c\n\nDCGM_FI_X,counter,(in\n")
	f.Add(",,,\n")
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, body string) {
		path := filepath.Join(dir, "m.csv")
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		fields, _, err := LoadMetricsFile(path)
		if err != nil {
			return // an over-long line
		}
		seen := map[string]bool{}
		for _, fd := range fields {
			if !strings.HasPrefix(fd.From, "DCGM_FI_") || !strings.HasPrefix(fd.Name, "nvidia_") || fd.Unit == "" {
				t.Fatalf("bad field %+v", fd)
			}
			if seen[fd.From] {
				t.Fatalf("field %s twice", fd.From)
			}
			seen[fd.From] = true
		}
	})
}

// A URL that serves AMD's device-metrics exporter page yields AMD GPUs
// with amd_* fields through the same source.
func TestCollectReadsAnAMDExporterPage(t *testing.T) {
	page, err := os.ReadFile(filepath.Join("..", "amd", "testdata", "exporter_page.txt"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		_, _ = w.Write(page)
	}))
	defer srv.Close()
	_, samples, err := New(srv.URL+"/metrics", nil, srv.Client()).Collect(context.Background())
	if err != nil || len(samples) != 2 {
		t.Fatalf("collect: %v, %d samples, want 2", err, len(samples))
	}
	for _, s := range samples {
		if s.Meta.Platform != gpu.PlatformAMD || s.Values[gpu.AMDPower] == 0 || len(s.Values) != 12 {
			t.Errorf("GPU %d: platform %q, %d fields %v; want amd and its 12 amd_* fields", s.Meta.Index, s.Meta.Platform, len(s.Values), s.Values)
		}
	}
}
