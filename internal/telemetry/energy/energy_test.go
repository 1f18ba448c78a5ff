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
// rising 3000 J and 1000 J, plus a scrape 0.5 s after the window (another
// 200 J, outside the window: not counted).
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
	const energy = 4000.0 // the window's; not the 200 J after it
	near(t, "total power", v["nvidia_total_gpu_power"], 400)
	near(t, "total energy", v["nvidia_total_gpu_energy"], energy)
	near(t, "average power (energy / window)", v["nvidia_average_gpu_power"], energy/10)
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

// scraped is a GPU scraped every 333 ms from 0 to 30 s the way a DCGM
// exporter reports one (and the mock server's does): each scrape shows
// the power held until the next one and the energy counter that
// integrates it exactly, in whole mJ. Power swings between 80 and 400 W.
func scraped() (*gpu.Store, func(start, end int64) float64) {
	const step = 333 * int64(1e6)
	var at []int64
	var watts []float64
	s := gpu.NewStore(nil)
	meta := gpu.Meta{UUID: "GPU-s", Platform: gpu.PlatformNVIDIA}
	mJ := 4.2e9
	for i, t := 0, int64(0); t <= 30*sec; i, t = i+1, t+step {
		if i > 0 {
			mJ += watts[i-1] * float64(step) / 1e9 * 1000
		}
		w := 80 + 320*float64((i*7)%11)/10
		at, watts = append(at, t), append(watts, w)
		s.Add(gpu.Sample{Meta: meta, Source: "dcgm", At: t, Values: map[string]float64{
			gpu.NVIDIAPower: w, gpu.NVIDIAEnergy: math.Floor(mJ) / 1e9,
		}})
	}
	integral := func(start, end int64) float64 {
		var j float64
		for i := range at {
			from, to := max(at[i], start), end
			if i+1 < len(at) {
				to = min(at[i+1], end)
			}
			if to > from {
				j += watts[i] * float64(to-from) / 1e9
			}
		}
		return j
	}
	return s, integral
}

// The energy is the integral of the sampled power over the profiling
// window within 2 % for any run length, from a fraction of one scrape
// interval to many, wherever the window falls between scrapes; counting
// from the scrape before the window to the one after it (or past it by
// the final-scrape grace) is off by up to 3x on a 0.4 s run.
func TestEnergyIsThePowerIntegralOverTheWindow(t *testing.T) {
	store, integral := scraped()
	in := Inputs{Summary: summary(nil)}
	for _, length := range []int64{sec / 10, 4 * sec / 10, sec, 4 * sec, 20 * sec} {
		for _, offset := range []int64{5 * sec, 5*sec + 100e6, 5*sec + 250e6, 5*sec + 332e6} {
			w := Window{Start: offset, End: offset + length}
			want := integral(w.Start, w.End)
			got := byTag(Compute(store, w, in))["nvidia_total_gpu_energy"]
			if math.Abs(got-want) > 0.02*want {
				t.Errorf("%.1f s run from %.3f s: energy %.3f J, power integral %.3f J (%.2fx)",
					float64(length)/1e9, float64(offset)/1e9, got, want, got/want)
			}
			avg := byTag(Compute(store, w, in))["nvidia_average_gpu_power"]
			if wantAvg := want / (float64(length) / 1e9); math.Abs(avg-wantAvg) > 0.02*wantAvg {
				t.Errorf("%.1f s run: average power %.1f W, want %.1f W", float64(length)/1e9, avg, wantAvg)
			}
		}
	}
}

// Without an energy counter the power samples are held between scrapes
// and integrated over the window, as the counter would have counted.
func TestEnergyWithoutACounterIsThePowerIntegral(t *testing.T) {
	s := gpu.NewStore(nil)
	meta := gpu.Meta{UUID: "x", Platform: gpu.PlatformAMD}
	for i, w := range []float64{100, 300, 200} {
		s.Add(gpu.Sample{Meta: meta, Source: "amd", At: int64(i) * sec, Values: map[string]float64{gpu.AMDPower: w}})
	}
	v := byTag(Compute(s, Window{Start: sec / 2, End: 2*sec + sec/2}, Inputs{Summary: summary(nil)}))
	near(t, "energy", v["amd_total_gpu_energy"], 100*0.5+300+200*0.5)
	near(t, "average power", v["amd_average_gpu_power"], (100*0.5+300+200*0.5)/2)
}
