package amd

import (
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/aiperf-go/aiperf/internal/telemetry/gpu"
	"github.com/aiperf-go/aiperf/internal/telemetry/prom"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func parse(t testing.TB, page string) []prom.Family {
	t.Helper()
	fams, err := prom.Parse([]byte(page), "text/plain; version=0.0.4")
	if err != nil {
		t.Fatal(err)
	}
	return fams
}

// The exporter page sample maps to AIPerf's amd_* fields and units: the
// package power over gpu_power_usage, µJ to MJ, MB to GB (/1024), the
// lowest-index system and memory clocks, serial number as UUID.
func TestExporterPageGolden(t *testing.T) {
	page, err := os.ReadFile(filepath.Join("testdata", "exporter_page.txt"))
	if err != nil {
		t.Fatal(err)
	}
	fams := parse(t, string(page))
	if !Detect(fams) {
		t.Fatal("the exporter page is not detected")
	}
	got, err := json.MarshalIndent(Samples(fams), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	golden := filepath.Join("testdata", "exporter_page.golden.json")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("samples differ from %s (-want +got; -update rewrites it):\n%s", golden, diff)
	}
}

func TestSamples(t *testing.T) {
	const l0 = `gpu_id="0",serial_number="SN0",card_model="MI355X",hostname="h"`
	for _, c := range []struct {
		name, page string
		want       []gpu.Sample
	}{{
		name: "package power wins in either order",
		page: "gpu_power_usage{" + l0 + "} 10\ngpu_package_power{" + l0 + "} 20\n",
		want: []gpu.Sample{{Meta: gpu.Meta{Index: 0, UUID: "SN0", ModelName: "MI355X", Hostname: "h", Platform: "amd"}, Values: map[string]float64{"amd_power": 20}}},
	}, {
		name: "power usage alone",
		page: "gpu_power_usage{" + l0 + "} 10\n",
		want: []gpu.Sample{{Meta: gpu.Meta{Index: 0, UUID: "SN0", ModelName: "MI355X", Hostname: "h", Platform: "amd"}, Values: map[string]float64{"amd_power": 10}}},
	}, {
		name: "edge temperature only without junction (MI2xx)",
		page: "gpu_edge_temperature{" + l0 + "} 30\ngpu_junction_temperature{" + l0 + "} 50\ngpu_edge_temperature{gpu_id=\"1\"} 31\n",
		want: []gpu.Sample{
			{Meta: gpu.Meta{Index: 0, UUID: "SN0", ModelName: "MI355X", Hostname: "h", Platform: "amd"}, Values: map[string]float64{"amd_temperature": 50}},
			{Meta: gpu.Meta{Index: 1, UUID: "amd-gpu-1", ModelName: "Unknown AMD GPU", Platform: "amd"}, Values: map[string]float64{"amd_temperature": 31}},
		},
	}, {
		name: "older releases: upper-case labels and clock types",
		page: `gpu_clock{GPU_ID="2",SERIAL_NUMBER="S2",CARD_MODEL="0x74a1",CLOCK_TYPE="GPU_CLOCK_TYPE_SYSTEM",CLOCK_INDEX="0"} 2100` + "\n" +
			`gpu_clock{GPU_ID="2",SERIAL_NUMBER="S2",CARD_MODEL="0x74a1",CLOCK_TYPE="GPU_CLOCK_TYPE_MEMORY",CLOCK_INDEX="8"} 1300` + "\n",
		want: []gpu.Sample{{Meta: gpu.Meta{Index: 2, UUID: "S2", ModelName: "0x74a1", Platform: "amd"}, Values: map[string]float64{"amd_sm_clock": 2100, "amd_mem_clock": 1300}}},
	}, {
		name: "counter-typed ECC total keeps its name",
		page: "# TYPE gpu_ecc_uncorrect_total counter\ngpu_ecc_uncorrect_total{" + l0 + "} 3\n",
		want: []gpu.Sample{{Meta: gpu.Meta{Index: 0, UUID: "SN0", ModelName: "MI355X", Hostname: "h", Platform: "amd"}, Values: map[string]float64{"amd_ecc_uncorrectable": 3}}},
	}, {
		name: "no gpu_id, unknown metrics, non-finite values and bad indices are skipped",
		page: "gpu_package_power{serial_number=\"x\"} 5\ngpu_xgmi_link_rx{" + l0 + "} 7\ngpu_gfx_activity{" + l0 + "} NaN\ngpu_umc_activity{gpu_id=\"a\"} 1\ngpu_clock{" + l0 + ",clock_type=\"video\",clock_index=\"0\"} 9\n",
		want: []gpu.Sample{},
	}, {
		name: "simulated GPUs say so",
		page: "gpu_package_power{" + l0 + ",simulated=\"true\"} 1\n",
		want: []gpu.Sample{{Meta: gpu.Meta{Index: 0, UUID: "SN0", ModelName: "MI355X", Hostname: "h", Platform: "amd", Simulated: true}, Values: map[string]float64{"amd_power": 1}}},
	}} {
		t.Run(c.name, func(t *testing.T) {
			if diff := cmp.Diff(c.want, Samples(parse(t, c.page))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestDetect(t *testing.T) {
	for page, want := range map[string]bool{
		`DCGM_FI_DEV_POWER_USAGE{gpu="0",UUID="GPU-1"} 100` + "\n":             false,
		`gpu_power_usage{gpu="0"} 100` + "\n":                                  false,
		`gpu_gfx_activity{gpu_id="0"} 3` + "\n":                                true,
		`gpu_clock{gpu_id="0",clock_type="system",clock_index="0"} 100` + "\n": true,
		`process_cpu_seconds{job="x"} 1` + "\n":                                false,
	} {
		if got := Detect(parse(t, page)); got != want {
			t.Errorf("Detect(%q) = %v, want %v", page, got, want)
		}
	}
}

// FuzzSamples: any page the parser accepts maps without a panic to
// samples with finite values of AMD fields, one per GPU.
func FuzzSamples(f *testing.F) {
	page, err := os.ReadFile(filepath.Join("testdata", "exporter_page.txt"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(page)
	f.Add([]byte(`gpu_clock{gpu_id="0",clock_type="GPU_CLOCK_TYPE_SYSTEM",clock_index="-1"} 1e300` + "\n"))
	known := map[string]bool{}
	for _, fl := range gpu.DefaultFields() {
		known[fl.Name] = strings.HasPrefix(fl.Name, "amd_")
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		fams, err := prom.Parse(body, "text/plain; version=0.0.4")
		if err != nil {
			return
		}
		_ = Detect(fams)
		seen := map[int]bool{}
		for _, s := range Samples(fams) {
			if seen[s.Meta.Index] || s.Meta.Platform != gpu.PlatformAMD || len(s.Values) == 0 {
				t.Fatalf("bad sample %+v", s)
			}
			seen[s.Meta.Index] = true
			for k, v := range s.Values {
				if !known[k] || math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("field %s = %v", k, v)
				}
			}
		}
	})
}
