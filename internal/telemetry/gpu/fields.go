// Package gpu is GPU telemetry as AIPerf 0.13 models it: samples of named
// fields (nvidia_power_usage in W, nvidia_energy_consumption in MJ, ...)
// per GPU per source, their statistics over the profiling window (gauges
// as distributions, counters as the increase), and AIPerf's artifacts:
// gpu_telemetry_export.jsonl, the summary JSON's telemetry_data, the CSV
// section and the console tables. Sources (DCGM exporters, the local
// NVIDIA driver) live in their own packages and produce Samples.
package gpu

// Platform names, as AIPerf writes them.
const (
	PlatformNVIDIA  = "nvidia"
	PlatformAMD     = "amd"
	PlatformUnknown = "unknown"
)

// The power and energy fields the energy-efficiency metrics read, per
// platform (energy in MJ, power in W).
const (
	NVIDIAPower  = "nvidia_power_usage"
	NVIDIAEnergy = "nvidia_energy_consumption"
	AMDPower     = "amd_power"
	AMDEnergy    = "amd_energy_consumption"
)

// PowerField and EnergyField map a platform to its power and energy
// fields ("" when the platform has none).
func PowerField(platform string) string {
	switch platform {
	case PlatformNVIDIA:
		return NVIDIAPower
	case PlatformAMD:
		return AMDPower
	}
	return ""
}

// EnergyField is PowerField's counterpart for the energy counter.
func EnergyField(platform string) string {
	switch platform {
	case PlatformNVIDIA:
		return NVIDIAEnergy
	case PlatformAMD:
		return AMDEnergy
	}
	return ""
}

// Field is one telemetry signal. Counter fields are cumulative (energy,
// XID errors, throttling time) and are reported as their increase over
// the window; the others are gauges with statistics.
type Field struct {
	Name    string // e.g. "nvidia_power_usage"
	Display string // e.g. "NVIDIA GPU Power Usage"
	Unit    string // e.g. "W"
	Counter bool
	// From is the source's own name of a field added by a custom metrics
	// file (a DCGM_FI_* field); "" for the default fields.
	From string
}

// DefaultFields are AIPerf's GPU telemetry fields, in its order (the order
// of every export): 0.13's NVIDIA fields, then 0.14's AMD fields (amdsmi's
// and the AMD device-metrics exporter's, whose console table shows memory
// free/total after used, memory temperature after temperature and the two
// clocks last).
func DefaultFields() []Field {
	return []Field{
		{Name: NVIDIAPower, Display: "NVIDIA GPU Power Usage", Unit: "W"},
		{Name: NVIDIAEnergy, Display: "NVIDIA Energy Consumption", Unit: "MJ", Counter: true},
		{Name: "nvidia_gpu_utilization", Display: "NVIDIA GPU Utilization", Unit: "%"},
		{Name: "nvidia_memory_utilization", Display: "NVIDIA Memory Utilization", Unit: "%"},
		{Name: "nvidia_memory_used", Display: "NVIDIA GPU Memory Used", Unit: "GB"},
		{Name: "nvidia_temperature", Display: "NVIDIA GPU Temperature", Unit: "°C"},
		{Name: "nvidia_sm_utilization", Display: "NVIDIA SM Utilization", Unit: "%"},
		{Name: "nvidia_decoder_utilization", Display: "NVIDIA Decoder Utilization", Unit: "%"},
		{Name: "nvidia_encoder_utilization", Display: "NVIDIA Encoder Utilization", Unit: "%"},
		{Name: "nvidia_jpg_utilization", Display: "NVIDIA JPEG Utilization", Unit: "%"},
		{Name: "nvidia_xid_errors", Display: "NVIDIA XID Errors", Unit: "count", Counter: true},
		{Name: "nvidia_power_violation", Display: "NVIDIA Power Violation", Unit: "us", Counter: true},
		{Name: AMDPower, Display: "AMD GPU Power", Unit: "W"},
		{Name: AMDEnergy, Display: "AMD Energy Consumption", Unit: "MJ", Counter: true},
		{Name: "amd_gfx_activity", Display: "AMD GFX Activity", Unit: "%"},
		{Name: "amd_umc_activity", Display: "AMD UMC Activity", Unit: "%"},
		{Name: "amd_mm_activity", Display: "AMD MM Activity", Unit: "%"},
		{Name: "amd_memory_used", Display: "AMD GPU Memory Used", Unit: "GB"},
		{Name: "amd_memory_free", Display: "AMD GPU Memory Free", Unit: "GB"},
		{Name: "amd_memory_total", Display: "AMD GPU Memory Total", Unit: "GB"},
		{Name: "amd_temperature", Display: "AMD GPU Temperature", Unit: "°C"},
		{Name: "amd_memory_temperature", Display: "AMD Memory Temperature", Unit: "°C"},
		{Name: "amd_ecc_uncorrectable", Display: "AMD ECC Uncorrectable", Unit: "count", Counter: true},
		{Name: "amd_throttle_status", Display: "AMD Throttle Status", Unit: "count"},
		{Name: "amd_sm_clock", Display: "AMD SM Clock Frequency", Unit: "MHz"},
		{Name: "amd_mem_clock", Display: "AMD Memory Clock Frequency", Unit: "MHz"},
	}
}
