package mockserver

import (
	"fmt"
	"hash/fnv"
	"math"
	"strconv"
)

// amdPage renders the exporter's state as AMD's device-metrics exporter
// (ROCm/device-metrics-exporter) writes its page: lower-case gpu_* gauges
// labelled by gpu_id, serial_number, card_model and hostname, energy in
// µJ, VRAM in MB, clocks in MHz in one gpu_clock family told apart by
// clock_type and clock_index. The power, energy and load are the same
// model as the DCGM page's (power and energy tied exactly).
func (d *dcgmExporter) amdPage(power, energyMJ []float64, load float64) string {
	w := promWriter{intPlain: true}
	labels := make([][]label, len(power))
	for i := range power {
		labels[i] = []label{
			{"card_model", d.spec.name},
			{"gpu_compute_partition_type", "spx"},
			{"gpu_id", strconv.Itoa(i)},
			{"gpu_partition_id", "0"},
			{"gpu_uuid", amdUUID(d.cfg.Hostname, i)},
			{"hostname", d.cfg.Hostname},
			{"serial_number", amdSerial(d.cfg.Hostname, i)},
			{SimulatedLabel, "true"},
		}
	}
	sclk := 132.0
	if load > 0 {
		sclk = d.spec.maxSMMHz
	}
	used := math.Round(0.9 * d.spec.memoryMiB)
	w.family("gpu_nodes_total", "gauge", "Number of GPUs in the node")
	w.sample("gpu_nodes_total", []label{{"hostname", d.cfg.Hostname}, {SimulatedLabel, "true"}}, float64(len(power)))
	fields := []struct {
		name, help string
		value      func(i int) float64
	}{
		{"gpu_package_power", "Current socket power in Watts", func(i int) float64 { return round3(power[i]) }},
		{"gpu_junction_temperature", "Current junction/hotspot temperature in Celsius", func(i int) float64 { return math.Round(40 + 45*load + float64(i)) }},
		{"gpu_memory_temperature", "Current memory temperature in Celsius", func(i int) float64 { return math.Round(36 + 30*load + float64(i)) }},
		{"gpu_gfx_activity", "Graphics engine usage in Percentage (0-100)", func(int) float64 { return math.Round(100 * load) }},
		{"gpu_umc_activity", "Memory engine usage in Percentage (0-100)", func(int) float64 { return math.Round(60 * load) }},
		{"gpu_energy_consumed", "Accumulated energy consumed by the GPU in uJ", func(i int) float64 { return math.Floor(energyMJ[i] * 1000) }},
		{"gpu_power_usage", "GPU Power usage in Watts", func(i int) float64 { return round3(power[i]) }},
		{"gpu_total_vram", "Total VRAM memory of the GPU (in MB)", func(int) float64 { return d.spec.memoryMiB }},
		{"gpu_used_vram", "Used VRAM memory of the GPU (in MB)", func(int) float64 { return used }},
		{"gpu_free_vram", "Free VRAM memory of the GPU (in MB)", func(int) float64 { return d.spec.memoryMiB - used }},
		{"gpu_ecc_uncorrect_total", "Total Uncorrectable error count", func(int) float64 { return 0 }},
	}
	for _, f := range fields {
		w.family(f.name, "gauge", f.help)
		for i := range power {
			w.sample(f.name, labels[i], f.value(i))
		}
	}
	w.family("gpu_clock", "gauge", "List of current GPU clock frequencies in MHz")
	for i := range power {
		for _, c := range []struct {
			index, typ string
			mhz        float64
		}{{"2", "system", sclk}, {"8", "memory", 1300}, {"9", "video", 29}, {"10", "soc", 29}} {
			ls := append([]label{{"clock_index", c.index}, {"clock_type", c.typ}}, labels[i]...)
			w.sample("gpu_clock", ls, c.mhz)
		}
	}
	return w.String()
}

// amdSerial is a stable, 12-digit serial number for GPU i of host.
func amdSerial(host string, i int) string {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/%d", host, i)
	return fmt.Sprintf("%012d", h.Sum64()%1e12)
}

// amdUUID is a stable, exporter-shaped GPU UUID for GPU i of host.
func amdUUID(host string, i int) string {
	h := fnv.New128a()
	fmt.Fprintf(h, "amd/%s/%d", host, i)
	b := h.Sum(nil)
	return fmt.Sprintf("%x-0000-1000-%x-%x", b[0:4], b[4:6], b[6:12])
}
