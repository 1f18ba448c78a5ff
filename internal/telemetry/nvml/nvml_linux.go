//go:build cgo && linux

package nvml

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	gonvml "github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/aiperf-go/aiperf/internal/telemetry/gpu"
)

// Supported reports whether this build can read NVML.
const Supported = true

// Source reads every local NVIDIA GPU through NVML.
type Source struct {
	mu      sync.Mutex
	devices []device
	closed  bool
}

// device is one GPU and its metadata.
type device struct {
	h        gonvml.Device
	meta     gpu.Meta
	lastSeen uint64 // process-utilization sample cursor
}

var _ gpu.Source = (*Source)(nil)

// Open initialises NVML and finds the GPUs. Without a driver it fails with
// NVML's ERROR_LIBRARY_NOT_FOUND ("the library was not found"), cleanly.
func Open() (*Source, error) {
	switch ret := gonvml.Init(); ret {
	case gonvml.SUCCESS:
	case gonvml.ERROR_LIBRARY_NOT_FOUND:
		return nil, fmt.Errorf("NVML: %w", ErrNoDriver)
	default:
		return nil, fmt.Errorf("NVML: %w", nvmlErr(ret))
	}
	n, ret := gonvml.DeviceGetCount()
	if ret != gonvml.SUCCESS {
		gonvml.Shutdown()
		return nil, fmt.Errorf("NVML device count: %w", nvmlErr(ret))
	}
	s := &Source{}
	for i := range n {
		h, ret := gonvml.DeviceGetHandleByIndex(i)
		if ret != gonvml.SUCCESS {
			continue
		}
		m := gpu.Meta{Index: i, Device: fmt.Sprintf("nvidia%d", i), Hostname: "localhost", Platform: gpu.PlatformNVIDIA}
		if u, ret := h.GetUUID(); ret == gonvml.SUCCESS {
			m.UUID = u
		} else {
			m.UUID = fmt.Sprintf("GPU-unknown-%d", i)
		}
		if name, ret := h.GetName(); ret == gonvml.SUCCESS {
			m.ModelName = name
		} else {
			m.ModelName = "Unknown GPU"
		}
		if pci, ret := h.GetPciInfo(); ret == gonvml.SUCCESS {
			m.PCIBusID = cString(pci.BusId[:])
		}
		s.devices = append(s.devices, device{h: h, meta: m})
	}
	if len(s.devices) == 0 {
		gonvml.Shutdown()
		return nil, errors.New("NVML: no GPU found")
	}
	return s, nil
}

func nvmlErr(r gonvml.Return) error { return errors.New(gonvml.ErrorString(r)) }

func cString(b []int8) string {
	out := make([]byte, 0, len(b))
	for _, c := range b {
		if c == 0 {
			break
		}
		out = append(out, byte(c))
	}
	return string(out)
}

// URL implements gpu.Source.
func (s *Source) URL() string { return SourceURL }

// Reachable implements gpu.Source: the GPUs were found by Open.
func (s *Source) Reachable(context.Context, time.Duration) bool { return len(s.devices) > 0 }

// Collect implements gpu.Source: one sample per GPU of every field NVML
// answers (a field it does not support is left out).
func (s *Source) Collect(context.Context) (time.Time, []gpu.Sample, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return time.Time{}, nil, errors.New("NVML: closed")
	}
	at := time.Now()
	out := make([]gpu.Sample, 0, len(s.devices))
	for i := range s.devices {
		d := &s.devices[i]
		v := map[string]float64{}
		if p, ret := d.h.GetPowerUsage(); ret == gonvml.SUCCESS {
			v[gpu.NVIDIAPower] = float64(p) * 1e-3
		}
		if e, ret := d.h.GetTotalEnergyConsumption(); ret == gonvml.SUCCESS {
			v[gpu.NVIDIAEnergy] = float64(e) * 1e-9
		}
		if u, ret := d.h.GetUtilizationRates(); ret == gonvml.SUCCESS {
			v["nvidia_gpu_utilization"] = float64(u.Gpu)
			v["nvidia_memory_utilization"] = float64(u.Memory)
		}
		if m, ret := d.h.GetMemoryInfo(); ret == gonvml.SUCCESS {
			v["nvidia_memory_used"] = float64(m.Used) * 1e-9
		}
		if t, ret := d.h.GetTemperature(gonvml.TEMPERATURE_GPU); ret == gonvml.SUCCESS {
			v["nvidia_temperature"] = float64(t)
		}
		if u, _, ret := d.h.GetDecoderUtilization(); ret == gonvml.SUCCESS {
			v["nvidia_decoder_utilization"] = float64(u)
		}
		if u, _, ret := d.h.GetEncoderUtilization(); ret == gonvml.SUCCESS {
			v["nvidia_encoder_utilization"] = float64(u)
		}
		if u, _, ret := d.h.GetJpgUtilization(); ret == gonvml.SUCCESS {
			v["nvidia_jpg_utilization"] = float64(u)
		}
		if ps, ret := d.h.GetProcessUtilization(d.lastSeen); ret == gonvml.SUCCESS || ret == gonvml.ERROR_NOT_FOUND {
			var sm uint32
			for _, p := range ps {
				sm += p.SmUtil
				d.lastSeen = max(d.lastSeen, p.TimeStamp)
			}
			v["nvidia_sm_utilization"] = min(float64(sm), 100)
		}
		if vt, ret := d.h.GetViolationStatus(gonvml.PERF_POLICY_POWER); ret == gonvml.SUCCESS {
			v["nvidia_power_violation"] = float64(vt.ViolationTime) * 1e-3
		}
		if len(v) > 0 {
			out = append(out, gpu.Sample{Meta: d.meta, Values: v})
		}
	}
	return at, out, nil
}

// Close shuts NVML down.
func (s *Source) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	if ret := gonvml.Shutdown(); ret != gonvml.SUCCESS {
		return nvmlErr(ret)
	}
	return nil
}
