package mockserver_test

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/mockserver"
)

// An AMD model's exporter serves AMD's device-metrics exporter page: the
// power it set and the energy counter in µJ that integrates it, per
// gpu_id, marked simulated, and no DCGM field.
func TestAMDExporterPage(t *testing.T) {
	t.Parallel()
	cfg := mockserver.DefaultConfig()
	cfg.DCGM.Enabled, cfg.DCGM.GPUName = true, "mi355x"
	if got := cfg.DCGM.Exporter(); got != "AMD device-metrics exporter" {
		t.Errorf("Exporter() = %q", got)
	}
	srv, err := mockserver.Start(cfg, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Error(err)
		}
	})
	page := mustScrape(t, srv.DCGMURL())
	if strings.Contains(page, "DCGM_FI_") {
		t.Fatal("the AMD page has DCGM fields")
	}
	s := samples(t, page)
	r := srv.DCGMRenders()
	if len(r) != 1 {
		t.Fatalf("%d renders, want 1", len(r))
	}
	for i := range 2 {
		g := `{card_model="AMD Instinct MI355X",gpu_compute_partition_type="spx",gpu_id="` + strconv.Itoa(i) + `"`
		if p := lookup(t, s, "gpu_package_power"+g); p != math.Round(r[0].PowerW[i]*1000)/1000 {
			t.Errorf("GPU %d power %v W, the mock set %v W", i, p, r[0].PowerW[i])
		}
		// The page's µJ and the render's whole mJ floor the same counter.
		if uj := lookup(t, s, "gpu_energy_consumed"+g); uj/1000 < r[0].EnergyMJ[i] || uj/1000 >= r[0].EnergyMJ[i]+1 {
			t.Errorf("GPU %d energy %v µJ, the counter is %v mJ", i, uj, r[0].EnergyMJ[i])
		}
		if total := lookup(t, s, "gpu_total_vram"+g); total != 294896 {
			t.Errorf("GPU %d VRAM %v MB", i, total)
		}
	}
	if n := strings.Count(page, `simulated="true"`); n != strings.Count(page, "\n")-2*strings.Count(page, "# HELP") {
		t.Errorf("%d of the page's series are marked simulated, want all", n)
	}
}
