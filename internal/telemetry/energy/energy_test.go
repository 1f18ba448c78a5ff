package energy

import (
	"math"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/metrics"
	"github.com/aiperf-go/aiperf/internal/telemetry/gpu"
)

const sec = int64(1e9)

func summary(values map[string]float64) *metrics.Summary {
	s := &metrics.Summary{}
	for tag, v := range values {
		m := &metrics.Metric{Tag: tag}
		if tag == "request_latency" {
			s.Results = append(s.Results, metrics.Result{Metric: m, Stats: &metrics.Stats{Avg: v}})
		} else {
			s.Results = append(s.Results, metrics.Result{Metric: m, Value: v})
		}
	}
	return s
}

func byTag(rs []metrics.Result) map[string]float64 {
	out := map[string]float64{}
	for _, r := range rs {
		out[r.Metric.Tag] = r.Value
	}
	return out
}

func near(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

// Two GPUs at 300 W and 100 W for a 10 s window, their energy counters
// rising 3000 J and 1000 J, plus a scrape 0.5 s after the window that the
// final-scrape grace takes in (another 200 J).
func twoGPUs() *gpu.Store {
	s := gpu.NewStore(nil)
	for i, w := range []float64{300, 100} {
		meta := gpu.Meta{Index: i, UUID: []string{"GPU-a", "GPU-b"}[i], Platform: gpu.PlatformNVIDIA}
		for ts := int64(0); ts <= 10; ts++ {
			s.Add(gpu.Sample{Meta: meta, Source: "dcgm", At: ts * sec, Values: map[string]float64{
				gpu.NVIDIAPower: w, gpu.NVIDIAEnergy: (5e6 + w*float64(ts)) / gpu.MJ,
			}})
		}
		s.Add(gpu.Sample{Meta: meta, Source: "dcgm", At: 10*sec + sec/2, Values: map[string]float64{
			gpu.NVIDIAPower: w, gpu.NVIDIAEnergy: (5e6 + w*10.5) / gpu.MJ,
		}})
	}
	return s
}

func TestComputeFromTheEnergyCounter(t *testing.T) {
	in := Inputs{Concurrency: 4, Summary: summary(map[string]float64{
		"total_osl": 2100, "total_isl": 900, "request_count": 30, "request_latency": 500,
		"request_throughput": 3, "output_token_throughput": 210, "goodput": 2.5,
	})}
	got := Compute(twoGPUs(), Window{Start: 0, End: 10 * sec}, in)
	var order []string
	for _, r := range got {
		order = append(order, r.Metric.Tag)
	}
	const wantOrder = "nvidia_total_gpu_power,nvidia_average_gpu_power,nvidia_total_gpu_energy," +
		"nvidia_output_tokens_per_joule,nvidia_energy_per_output_token,nvidia_energy_per_total_token," +
		"nvidia_energy_per_request,nvidia_energy_per_user,nvidia_energy_delay_product," +
		"nvidia_performance_per_watt,nvidia_output_tps_per_watt,nvidia_goodput_per_watt"
	if s := strings.Join(order, ","); s != wantOrder {
		t.Fatalf("metrics\n %s\nwant\n %s", s, wantOrder)
	}
	v := byTag(got)
	const energy = 4200.0 // 4000 J in the window + 200 J of the grace
	near(t, "total power", v["nvidia_total_gpu_power"], 400)
	near(t, "total energy", v["nvidia_total_gpu_energy"], energy)
	near(t, "average power (energy / unwidened window)", v["nvidia_average_gpu_power"], energy/10)
	near(t, "tokens/J", v["nvidia_output_tokens_per_joule"], 2100/energy)
	near(t, "mJ/output token", v["nvidia_energy_per_output_token"], energy*1000/2100)
	near(t, "mJ/token", v["nvidia_energy_per_total_token"], energy*1000/3000)
	near(t, "J/request", v["nvidia_energy_per_request"], energy/30)
	near(t, "J/user", v["nvidia_energy_per_user"], energy/4)
	near(t, "EDP", v["nvidia_energy_delay_product"], energy/30*0.5)
	near(t, "req/s/W", v["nvidia_performance_per_watt"], 3/(energy/10))
	near(t, "tok/s/W", v["nvidia_output_tps_per_watt"], 210/(energy/10))
	near(t, "goodput/W", v["nvidia_goodput_per_watt"], 2.5/(energy/10))
	for _, r := range got {
		if r.Metric.Group != metrics.GroupNone || r.Metric.Unit == "" {
			t.Errorf("%s: group %v unit %q", r.Metric.Tag, r.Metric.Group, r.Metric.Unit)
		}
	}
}

func TestComputeWithoutAnEnergyCounter(t *testing.T) {
	s := gpu.NewStore(nil)
	for ts := int64(0); ts <= 4; ts++ {
		s.Add(gpu.Sample{Meta: gpu.Meta{UUID: "x", Platform: gpu.PlatformAMD}, Source: "amd", At: ts * sec,
			Values: map[string]float64{gpu.AMDPower: 250}})
	}
	v := byTag(Compute(s, Window{Start: 0, End: 4 * sec}, Inputs{Summary: summary(map[string]float64{"total_osl": 1000})}))
	near(t, "energy = power x duration", v["amd_total_gpu_energy"], 1000)
	near(t, "average power", v["amd_average_gpu_power"], 250)
	near(t, "tokens/J", v["amd_output_tokens_per_joule"], 1)
	if _, ok := v["amd_energy_per_user"]; ok {
		t.Error("energy per user without a concurrency")
	}
	if _, ok := v["amd_energy_per_request"]; ok {
		t.Error("energy per request without a request count")
	}
}

func TestComputeWithoutTelemetry(t *testing.T) {
	if got := Compute(gpu.NewStore(nil), Window{0, sec}, Inputs{Summary: summary(nil)}); len(got) != 0 {
		t.Errorf("metrics from no telemetry: %v", got)
	}
	if Definitions("intel") != nil {
		t.Error("a platform without energy metrics has definitions")
	}
}
