package mockserver

import (
	"flag"
	"fmt"
	"hash/fnv"
	"math"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DCGM is the mock's DCGM-exporter imitation: a Prometheus page of N fake
// GPUs whose load follows the token throughput the mock really produced,
// like AIPerf's mock (--dcgm-* options).
//
// Power and energy are tied together exactly: each scrape first integrates
// the power reported by the previous scrape over the time since, into the
// energy counter, then sets the new power from the current load. So the
// energy counter is the exact integral of the reported power, held from one
// scrape to the next; a client can check its energy figure against the
// power samples it read.
type DCGM struct {
	// Enabled starts the exporter beside the server (Start): on Port, or a
	// free port when Port is 0.
	Enabled bool
	Port    int
	// GPUs is the number of fake GPUs (--dcgm-num-gpus, default 2).
	GPUs int
	// GPUName picks the GPU model (--dcgm-gpu-name: h200, h100, a100, b200,
	// gb200, rtx6000; mi300x, mi325x, mi355x serve AMD's device-metrics
	// exporter page instead of DCGM's).
	GPUName string
	// MinThroughput floors the peak token rate (tokens/s) that load is
	// relative to (--dcgm-min-throughput, default 100).
	MinThroughput float64
	// Window is the sliding window of the token rate (--dcgm-window-sec).
	Window time.Duration
	// Hostname is the Hostname label (--dcgm-hostname).
	Hostname string
}

// DefaultDCGM returns AIPerf's mock DCGM defaults, disabled.
func DefaultDCGM() DCGM {
	return DCGM{GPUs: 2, GPUName: "h200", MinThroughput: 100, Window: time.Second, Hostname: "localhost"}
}

// gpuSpec is a GPU model's fixed properties. An AMD model's exporter
// serves AMD's device-metrics exporter page instead of DCGM's.
type gpuSpec struct {
	name      string
	memoryMiB float64
	tdpW      float64
	idleW     float64
	maxSMMHz  float64
	amd       bool
}

var gpuSpecs = map[string]gpuSpec{
	"h200":     {"NVIDIA H200", 143771, 700, 75, 1980, false},
	"h100":     {"NVIDIA H100 80GB HBM3", 81559, 700, 70, 1980, false},
	"h100-sxm": {"NVIDIA H100 80GB HBM3", 81559, 700, 70, 1980, false},
	"a100":     {"NVIDIA A100-SXM4-80GB", 81920, 400, 55, 1410, false},
	"b200":     {"NVIDIA B200", 183359, 1000, 120, 1965, false},
	"gb200":    {"NVIDIA GB200", 189471, 1200, 140, 2062, false},
	"rtx6000":  {"NVIDIA RTX 6000 Ada Generation", 49140, 300, 25, 2505, false},
	"mi300x":   {"AMD Instinct MI300X", 196592, 750, 140, 2100, true},
	"mi325x":   {"AMD Instinct MI325X", 262128, 1000, 160, 2100, true},
	"mi355x":   {"AMD Instinct MI355X", 294896, 1400, 200, 2400, true},
}

// GPUNames lists the accepted --dcgm-gpu-name values.
func GPUNames() []string {
	out := make([]string, 0, len(gpuSpecs))
	for k := range gpuSpecs {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Exporter names the page the exporter serves: "AMD device-metrics
// exporter" for an AMD model, else "DCGM exporter".
func (d DCGM) Exporter() string {
	if gpuSpecs[d.GPUName].amd {
		return "AMD device-metrics exporter"
	}
	return "DCGM exporter"
}

func (d *DCGM) registerFlags(fs *flag.FlagSet) {
	fs.Var(&dcgmPort{d}, "dcgm-port", "also serve a DCGM-exporter-style /metrics page of fake GPUs on this port (0 = a free one); off when not given")
	fs.IntVar(&d.GPUs, "dcgm-num-gpus", d.GPUs, "number of fake GPUs on the DCGM page")
	fs.StringVar(&d.GPUName, "dcgm-gpu-name", d.GPUName, "fake GPU model: "+strings.Join(GPUNames(), ", ")+" (an AMD model serves AMD's device-metrics exporter page)")
	fs.Float64Var(&d.MinThroughput, "dcgm-min-throughput", d.MinThroughput, "floor, in tokens/s, of the peak token rate GPU load is relative to")
	fs.Var(&seconds{&d.Window}, "dcgm-window-sec", "sliding window, in seconds, of the token rate that drives GPU load")
	fs.StringVar(&d.Hostname, "dcgm-hostname", d.Hostname, "Hostname label of the fake GPUs")
}

func (d *DCGM) validate() []error {
	if !d.Enabled {
		return nil
	}
	var errs []error
	if d.Port < 0 || d.Port > 65535 {
		errs = append(errs, fmt.Errorf("dcgm-port: must be in [0, 65535], got %d", d.Port))
	}
	if d.GPUs < 1 || d.GPUs > 64 {
		errs = append(errs, fmt.Errorf("dcgm-num-gpus: must be in [1, 64], got %d", d.GPUs))
	}
	if _, ok := gpuSpecs[d.GPUName]; !ok {
		errs = append(errs, fmt.Errorf("dcgm-gpu-name: %q is not one of %s", d.GPUName, strings.Join(GPUNames(), ", ")))
	}
	if !(d.MinThroughput > 0) || math.IsInf(d.MinThroughput, 0) {
		errs = append(errs, fmt.Errorf("dcgm-min-throughput: must be a finite number > 0, got %v", d.MinThroughput))
	}
	if d.Window <= 0 {
		errs = append(errs, fmt.Errorf("dcgm-window-sec: must be > 0, got %v", d.Window.Seconds()))
	}
	return errs
}

// dcgmPort is the --dcgm-port flag: setting it enables the exporter.
type dcgmPort struct{ d *DCGM }

func (p *dcgmPort) String() string {
	if p == nil || p.d == nil || !p.d.Enabled {
		return ""
	}
	return strconv.Itoa(p.d.Port)
}

func (p *dcgmPort) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("port: %w", err)
	}
	p.d.Port, p.d.Enabled = n, true
	return nil
}

// seconds is a flag.Value holding a Duration written as seconds.
type seconds struct{ d *time.Duration }

func (s *seconds) String() string {
	if s == nil || s.d == nil {
		return "0"
	}
	return strconv.FormatFloat(s.d.Seconds(), 'g', -1, 64)
}

func (s *seconds) Set(v string) error {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > 1e9 {
		return fmt.Errorf("seconds: %q is not a finite number", v)
	}
	*s.d = time.Duration(f * float64(time.Second))
	return nil
}

// dcgmExporter serves the DCGM page for one Server.
type dcgmExporter struct {
	srv  *Server
	cfg  DCGM
	spec gpuSpec

	mu     sync.Mutex
	rate   rateWindow
	peak   float64   // highest token rate seen, floored at MinThroughput
	last   time.Time // when power was last set
	power  []float64 // W, per GPU, held since last
	energy []float64 // mJ since "boot", per GPU
	load   float64
	// renders are the pages served, oldest first, at most maxRenders.
	renders []DCGMRender
}

// SimulatedLabel is the label, "true" on every series of the mock's DCGM
// page, that marks its GPUs as simulated: no real DCGM exporter sets it.
const SimulatedLabel = "simulated"

// DCGMRender is one page the DCGM exporter served, on the mock's own
// clock: when it was rendered, and per GPU the power then set (W, held
// until the next page, unrounded) and the energy counter shown (mJ). A
// test integrates the power over the mock's own render times, which no
// client-side stamp can give (a loaded machine delays the reply, not the
// integration).
type DCGMRender struct {
	At       time.Time
	PowerW   []float64
	EnergyMJ []float64 // as the page shows it: whole millijoules
}

// maxRenders bounds the render log: a scrape every 333 ms for 6 hours.
const maxRenders = 1 << 16

// Renders returns a copy of the pages served so far, oldest first.
func (d *dcgmExporter) Renders() []DCGMRender {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.renders)
}

// NewDCGMHandler returns the DCGM-exporter handler for s: GET /metrics.
// The GPUs start idle at the handler's creation.
func NewDCGMHandler(s *Server, cfg DCGM) http.Handler { return newDCGMExporter(s, cfg) }

func newDCGMExporter(s *Server, cfg DCGM) *dcgmExporter {
	d := &dcgmExporter{srv: s, cfg: cfg, spec: gpuSpecs[cfg.GPUName], last: time.Now()}
	if d.spec.name == "" {
		d.spec = gpuSpecs["h200"]
	}
	d.rate.window = cfg.Window
	d.peak = cfg.MinThroughput
	n := max(cfg.GPUs, 1)
	d.power = make([]float64, n)
	d.energy = make([]float64, n)
	for i := range n {
		d.power[i] = d.idlePower(i)
		d.energy[i] = 4.2e9 + float64(i)*1.3e8 // a GPU that has been up for a while
	}
	return d
}

func (d *dcgmExporter) idlePower(i int) float64 { return d.spec.idleW + 0.5*float64(i) }

func (d *dcgmExporter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/metrics" {
		writeError(w, http.StatusNotFound, "not_found_error", "no route for "+r.URL.Path)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", http.MethodGet)
		writeError(w, http.StatusMethodNotAllowed, "invalid_request_error", r.Method+" is not allowed on /metrics")
		return
	}
	body := d.page(time.Now())
	h := w.Header()
	h.Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		_, _ = w.Write([]byte(body))
	}
}

// step integrates the held power up to now into the energy counters, then
// sets the power from the current load. The caller holds d.mu.
func (d *dcgmExporter) step(now time.Time) {
	if dt := now.Sub(d.last).Seconds(); dt > 0 {
		for i, p := range d.power {
			d.energy[i] += p * dt * 1000 // W*s = J; DCGM counts mJ
		}
		d.last = now
	}
	rate := d.rate.rate(now, d.srv.GenerationTokens())
	d.peak = max(d.peak, rate)
	d.load = min(1, rate/d.peak)
	for i := range d.power {
		d.power[i] = d.idlePower(i) + (d.spec.tdpW-d.spec.idleW)*d.load
	}
}

// page steps the model to now and renders it.
func (d *dcgmExporter) page(now time.Time) string {
	d.mu.Lock()
	d.step(now)
	power := append([]float64(nil), d.power...)
	energy := append([]float64(nil), d.energy...)
	load := d.load
	if len(d.renders) < maxRenders {
		shown := make([]float64, len(energy))
		for i, e := range energy {
			shown[i] = math.Floor(e)
		}
		d.renders = append(d.renders, DCGMRender{At: now, PowerW: power, EnergyMJ: shown})
	}
	d.mu.Unlock()
	if d.spec.amd {
		return d.amdPage(power, energy, load)
	}

	w := promWriter{intPlain: true}
	labels := make([][]label, len(power))
	for i := range power {
		labels[i] = []label{
			{"gpu", strconv.Itoa(i)},
			{"UUID", gpuUUID(d.cfg.Hostname, i)},
			{"pci_bus_id", fmt.Sprintf("00000000:%02X:00.0", 0x18+i*0x10)},
			{"device", "nvidia" + strconv.Itoa(i)},
			{"modelName", d.spec.name},
			{"Hostname", d.cfg.Hostname},
			{"DCGM_FI_DRIVER_VERSION", "580.95.05"},
			// Every series says its GPU is invented, so that a client
			// shows the figures as simulated wherever it shows them.
			{SimulatedLabel, "true"},
		}
	}
	busy := load > 0
	smClock := 345.0
	if busy {
		smClock = d.spec.maxSMMHz
	}
	used := math.Round(0.9 * d.spec.memoryMiB) // vLLM reserves 90 % of the memory up front
	fields := []struct {
		name, typ, help string
		value           func(i int) float64
	}{
		{"DCGM_FI_DEV_SM_CLOCK", "gauge", "SM clock frequency (in MHz).", func(int) float64 { return smClock }},
		{"DCGM_FI_DEV_MEM_CLOCK", "gauge", "Memory clock frequency (in MHz).", func(int) float64 { return 2619 }},
		{"DCGM_FI_DEV_MEMORY_TEMP", "gauge", "Memory temperature (in C).", func(i int) float64 { return math.Round(32 + 30*load + float64(i)) }},
		{"DCGM_FI_DEV_GPU_TEMP", "gauge", "GPU temperature (in C).", func(i int) float64 { return math.Round(30 + 45*load + float64(i)) }},
		{"DCGM_FI_DEV_POWER_USAGE", "gauge", "Power draw (in W).", func(i int) float64 { return round3(power[i]) }},
		{"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "counter", "Total energy consumption since boot (in mJ).", func(i int) float64 { return math.Floor(energy[i]) }},
		{"DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "counter", "Total number of PCIe retries.", func(int) float64 { return 0 }},
		{"DCGM_FI_DEV_GPU_UTIL", "gauge", "GPU utilization (in %).", func(int) float64 { return math.Round(100 * load) }},
		{"DCGM_FI_DEV_MEM_COPY_UTIL", "gauge", "Memory utilization (in %).", func(int) float64 { return math.Round(60 * load) }},
		{"DCGM_FI_DEV_ENC_UTIL", "gauge", "Encoder utilization (in %).", func(int) float64 { return 0 }},
		{"DCGM_FI_DEV_DEC_UTIL", "gauge", "Decoder utilization (in %).", func(int) float64 { return 0 }},
		{"DCGM_FI_DEV_XID_ERRORS", "gauge", "Value of the last XID error encountered.", func(int) float64 { return 0 }},
		{"DCGM_FI_DEV_FB_FREE", "gauge", "Framebuffer memory free (in MiB).", func(int) float64 { return d.spec.memoryMiB - used }},
		{"DCGM_FI_DEV_FB_USED", "gauge", "Framebuffer memory used (in MiB).", func(int) float64 { return used }},
		{"DCGM_FI_DEV_POWER_VIOLATION", "counter", "Throttling duration due to power constraints (in us).", func(int) float64 { return 0 }},
		{"DCGM_FI_PROF_SM_ACTIVE", "gauge", "The ratio of cycles an SM has at least 1 warp assigned (in %).", func(int) float64 { return round3(0.8 * load) }},
	}
	for _, f := range fields {
		w.family(f.name, f.typ, f.help)
		for i := range power {
			w.sample(f.name, labels[i], f.value(i))
		}
	}
	return w.String()
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

// gpuUUID is a stable, DCGM-shaped UUID for GPU i of host.
func gpuUUID(host string, i int) string {
	h := fnv.New128a()
	fmt.Fprintf(h, "%s/%d", host, i)
	b := h.Sum(nil)
	return fmt.Sprintf("GPU-%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// rateWindow measures a cumulative count's rate over a sliding window from
// the points it is read at.
type rateWindow struct {
	mu     sync.Mutex
	window time.Duration
	points []ratePoint
}

type ratePoint struct {
	at    time.Time
	count uint64
}

// rate records (now, count) and returns the count's rate per second since
// the oldest point still needed: the last one at or before now - window,
// so the rate covers at least the window once there is history.
func (w *rateWindow) rate(now time.Time, count uint64) float64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	win := w.window
	if win <= 0 {
		win = time.Second
	}
	w.points = append(w.points, ratePoint{now, count})
	for len(w.points) > 2 && !w.points[1].at.After(now.Add(-win)) {
		w.points = w.points[1:]
	}
	first := w.points[0]
	dt := now.Sub(first.at).Seconds()
	if dt <= 0 || count < first.count {
		return 0
	}
	return float64(count-first.count) / dt
}
