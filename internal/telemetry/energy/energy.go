// Package energy derives AIPerf 0.13's energy-efficiency metrics from GPU
// telemetry and the run's results, per GPU vendor (nvidia_*, amd_*):
// total and average power, total energy, tokens per joule, energy per
// token, request and user, the energy-delay product and performance per
// watt.
//
// They are injected after aggregation, as AIPerf's EnergyEfficiencyAnalyzer
// does: the inputs live in two places (the GPU telemetry store and the
// metrics summary), so no per-record derivation could compute them.
// Energy is the integral of the sampled power over exactly the profiling
// window (gpu.Store.EnergyOver: the energy counter interpolated at the
// window's bounds, or the power samples held between scrapes without a
// counter), for any run length. Average power is energy over the window,
// total power the sum of each GPU's average power sample in it.
package energy

import (
	"github.com/aiperf-go/aiperf/internal/metrics"
	"github.com/aiperf-go/aiperf/internal/telemetry/gpu"
)

// role is one of the twelve metrics of each vendor.
type role uint8

const (
	totalPower role = iota
	averagePower
	totalEnergy
	outputTokensPerJoule
	energyPerOutputToken
	energyPerTotalToken
	energyPerRequest
	energyPerUser
	energyDelayProduct
	performancePerWatt
	outputTPSPerWatt
	goodputPerWatt
	numRoles
)

// definition is a role's tag suffix, header, unit, display order (NVIDIA's;
// AMD's is 100 more) and flags.
var definitions = [numRoles]struct {
	suffix, header string
	unit           metrics.Unit
	order          int
	flags          metrics.Flags
}{
	totalPower:           {"total_gpu_power", "Total GPU Power", "W", 740, metrics.FlagNone},
	averagePower:         {"average_gpu_power", "Average GPU Power", "W", 720, metrics.FlagNone},
	totalEnergy:          {"total_gpu_energy", "Total GPU Energy", "J", 730, metrics.FlagNone},
	outputTokensPerJoule: {"output_tokens_per_joule", "Output Tokens per Joule", "tokens/J", 760, metrics.FlagLargerIsBetter | metrics.FlagProducesTokensOnly},
	energyPerOutputToken: {"energy_per_output_token", "Energy per Output Token", "mJ/token", 750, metrics.FlagProducesTokensOnly},
	energyPerTotalToken:  {"energy_per_total_token", "Energy per Total Token", "mJ/token", 745, metrics.FlagNone},
	energyPerRequest:     {"energy_per_request", "Energy per Request", "joules/request", 755, metrics.FlagNone},
	energyPerUser:        {"energy_per_user", "Energy per User", "joules/user", 765, metrics.FlagNone},
	energyDelayProduct:   {"energy_delay_product", "Energy Delay Product", "J*s", 700, metrics.FlagNone},
	performancePerWatt:   {"performance_per_watt", "Performance per Watt", "requests/sec/W", 710, metrics.FlagLargerIsBetter},
	outputTPSPerWatt:     {"output_tps_per_watt", "Output Tokens per Second per Watt", "tokens/sec/W", 712, metrics.FlagLargerIsBetter | metrics.FlagProducesTokensOnly},
	goodputPerWatt:       {"goodput_per_watt", "Goodput per Watt", "good-req/s/W", 714, metrics.FlagLargerIsBetter},
}

// vendors are the platforms with energy metrics and their tag prefixes.
var vendors = map[string]struct {
	prefix, title string
	orderOffset   int
}{
	gpu.PlatformNVIDIA: {"nvidia_", "GPU Power Efficiency (NVIDIA)", 0},
	gpu.PlatformAMD:    {"amd_", "GPU Power Efficiency (AMD)", 100},
}

// Definitions returns the metric definitions of a platform's energy
// metrics in role order; nil for a platform without them. The metrics are
// hidden from the main console table (group None): Table renders them.
func Definitions(platform string) []*metrics.Metric {
	v, ok := vendors[platform]
	if !ok {
		return nil
	}
	out := make([]*metrics.Metric, numRoles)
	for r, d := range definitions {
		out[r] = &metrics.Metric{
			Tag: v.prefix + d.suffix, Header: d.header, Kind: metrics.KindDerived,
			Unit: d.unit, DisplayUnit: d.unit, Flags: d.flags, Order: d.order + v.orderOffset, Group: metrics.GroupNone,
		}
	}
	return out
}

// Window is the profiling phase in Unix ns: its start and its last
// response.
type Window struct{ Start, End int64 }

// Inputs are what the metrics are computed from besides the telemetry.
type Inputs struct {
	Summary *metrics.Summary
	// Concurrency is the profiling phase's concurrency; 0 for rate runs
	// without one (no energy per user).
	Concurrency int
}

// value reads a metric's value (a distribution's mean) from s.
func value(s *metrics.Summary, tag string) (float64, bool) {
	r, ok := s.Get(tag)
	if !ok {
		return 0, false
	}
	if r.Stats != nil {
		return r.Stats.Avg, true
	}
	return r.Value, true
}

// Compute derives every platform's energy metrics, in AIPerf's order
// (platforms sorted, then total power, average power, energy, the ratios,
// the per-watt metrics). A metric whose inputs are missing is left out;
// a platform with neither power nor energy contributes nothing.
func Compute(store *gpu.Store, w Window, in Inputs) []metrics.Result {
	var out []metrics.Result
	for _, platform := range store.Platforms() {
		defs := Definitions(platform)
		if defs == nil {
			continue
		}
		out = append(out, computeVendor(store, w, in, platform, defs)...)
	}
	return out
}

func computeVendor(store *gpu.Store, w Window, in Inputs, platform string, defs []*metrics.Metric) []metrics.Result {
	var out []metrics.Result
	emit := func(r role, v float64) { out = append(out, metrics.Result{Metric: defs[r], Value: v}) }
	powerW, powerGPUs := store.TotalPower(gpu.Bounded(w.Start, w.End), platform)
	if w.End <= w.Start {
		if first, last, ok := store.Span(); ok && last > first {
			w = Window{first, last}
		}
	}
	energyJ, _ := store.EnergyOver(w.Start, w.End, platform)
	var avgPower float64
	if duration := float64(w.End-w.Start) / 1e9; energyJ > 0 && duration > 0 {
		avgPower = energyJ / duration
	}
	if powerGPUs > 0 {
		emit(totalPower, powerW)
	}
	if energyJ <= 0 {
		return out
	}
	if avgPower > 0 {
		emit(averagePower, avgPower)
	}
	emit(totalEnergy, energyJ)
	s := in.Summary
	osl, hasOSL := value(s, "total_osl")
	if hasOSL && osl != 0 {
		emit(outputTokensPerJoule, osl/energyJ)
		emit(energyPerOutputToken, energyJ*1000/osl)
	}
	isl, _ := value(s, "total_isl")
	if total := isl + osl; total > 0 {
		emit(energyPerTotalToken, energyJ*1000/total)
	}
	perRequest, hasPerRequest := 0.0, false
	if n, ok := value(s, "request_count"); ok && n != 0 {
		perRequest, hasPerRequest = energyJ/n, true
		emit(energyPerRequest, perRequest)
	}
	if in.Concurrency > 0 {
		emit(energyPerUser, energyJ/float64(in.Concurrency))
	}
	if lat, ok := value(s, "request_latency"); hasPerRequest && ok && lat != 0 {
		emit(energyDelayProduct, perRequest*lat/1000)
	}
	if avgPower > 0 {
		if v, ok := value(s, "request_throughput"); ok {
			emit(performancePerWatt, v/avgPower)
		}
		if v, ok := value(s, "output_token_throughput"); ok {
			emit(outputTPSPerWatt, v/avgPower)
		}
		if v, ok := value(s, "goodput"); ok {
			emit(goodputPerWatt, v/avgPower)
		}
	}
	return out
}
