package nvml

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/aiperf-go/aiperf/internal/telemetry/gpu"
)

// Source reads every local NVIDIA GPU through NVML.
type Source struct {
	lib     *library
	mu      sync.Mutex
	devices []device
	closed  bool
}

// device is one GPU and its metadata.
type device struct {
	h        handle
	meta     gpu.Meta
	lastSeen uint64 // process-utilization sample cursor
}

var _ gpu.Source = (*Source)(nil)

// Open loads NVML, initialises it and finds the GPUs. Without a driver it
// fails with ErrNoDriver; in a build without NVML with ErrUnavailable.
func Open() (*Source, error) {
	l, err := defaultLibrary()
	if err != nil {
		return nil, err
	}
	return open(l)
}

func open(l *library) (*Source, error) {
	switch r := l.init(); r {
	case retSuccess:
	case retLibraryNotFound:
		return nil, fmt.Errorf("NVML: %w", ErrNoDriver)
	default:
		return nil, fmt.Errorf("NVML: %w", l.err(r))
	}
	var n uint32
	if r := l.deviceGetCount(&n); r != retSuccess {
		l.shutdown()
		return nil, fmt.Errorf("NVML device count: %w", l.err(r))
	}
	s := &Source{lib: l}
	for i := range int(n) {
		var h handle
		if l.deviceGetHandleByIndex(uint32(i), &h) != retSuccess {
			continue
		}
		m := gpu.Meta{Index: i, Device: fmt.Sprintf("nvidia%d", i), Hostname: "localhost", Platform: gpu.PlatformNVIDIA}
		if u, r := text(l.deviceGetUUID, h, deviceUUIDBufferSize); r == retSuccess {
			m.UUID = u
		} else {
			m.UUID = fmt.Sprintf("GPU-unknown-%d", i)
		}
		if name, r := text(l.deviceGetName, h, deviceNameBufferSize); r == retSuccess {
			m.ModelName = name
		} else {
			m.ModelName = "Unknown GPU"
		}
		var pci pciInfo
		if l.deviceGetPciInfo != nil && l.deviceGetPciInfo(h, &pci) == retSuccess {
			m.PCIBusID = cString(pci.BusID[:])
		}
		s.devices = append(s.devices, device{h: h, meta: m})
	}
	if len(s.devices) == 0 {
		l.shutdown()
		return nil, errors.New("NVML: no GPU found")
	}
	return s, nil
}

// URL implements gpu.Source.
func (s *Source) URL() string { return SourceURL }

// Reachable implements gpu.Source: the GPUs were found by Open.
func (s *Source) Reachable(context.Context, time.Duration) bool { return len(s.devices) > 0 }

// Collect implements gpu.Source: one sample per GPU of every field NVML
// answers (a field it does not support, or a function this driver lacks,
// is left out).
func (s *Source) Collect(context.Context) (time.Time, []gpu.Sample, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return time.Time{}, nil, errors.New("NVML: closed")
	}
	at := time.Now()
	out := make([]gpu.Sample, 0, len(s.devices))
	for i := range s.devices {
		if v := s.sample(&s.devices[i]); len(v) > 0 {
			out = append(out, gpu.Sample{Meta: s.devices[i].meta, Values: v})
		}
	}
	return at, out, nil
}

// sample reads one GPU's fields in AIPerf's units.
func (s *Source) sample(d *device) map[string]float64 {
	l, h := s.lib, d.h
	v := map[string]float64{}
	var u32, period uint32
	if l.deviceGetPowerUsage != nil && l.deviceGetPowerUsage(h, &u32) == retSuccess {
		v[gpu.NVIDIAPower] = float64(u32) * 1e-3
	}
	var u64 uint64
	if l.deviceGetTotalEnergy != nil && l.deviceGetTotalEnergy(h, &u64) == retSuccess {
		v[gpu.NVIDIAEnergy] = float64(u64) * 1e-9
	}
	var ut utilization
	if l.deviceGetUtilization != nil && l.deviceGetUtilization(h, &ut) == retSuccess {
		v["nvidia_gpu_utilization"] = float64(ut.GPU)
		v["nvidia_memory_utilization"] = float64(ut.Memory)
	}
	var mem memory
	if l.deviceGetMemoryInfo != nil && l.deviceGetMemoryInfo(h, &mem) == retSuccess {
		v["nvidia_memory_used"] = float64(mem.Used) * 1e-9
	}
	if l.deviceGetTemperature != nil && l.deviceGetTemperature(h, temperatureGPU, &u32) == retSuccess {
		v["nvidia_temperature"] = float64(u32)
	}
	for _, f := range []struct {
		fn   func(handle, *uint32, *uint32) ret
		name string
	}{
		{l.deviceGetDecoderUtil, "nvidia_decoder_utilization"},
		{l.deviceGetEncoderUtil, "nvidia_encoder_utilization"},
		{l.deviceGetJpgUtil, "nvidia_jpg_utilization"},
	} {
		if f.fn != nil && f.fn(h, &u32, &period) == retSuccess {
			v[f.name] = float64(u32)
		}
	}
	if l.deviceGetProcessUtil != nil {
		if ps, r := l.processUtilization(h, d.lastSeen); r == retSuccess || r == retNotFound {
			var sm uint32
			for _, p := range ps {
				sm += p.SMUtil
				d.lastSeen = max(d.lastSeen, p.TimeStamp)
			}
			v["nvidia_sm_utilization"] = min(float64(sm), 100)
		}
	}
	var vt violationTime
	if l.deviceGetViolationStatus != nil && l.deviceGetViolationStatus(h, perfPolicyPower, &vt) == retSuccess {
		v["nvidia_power_violation"] = float64(vt.ViolationTime) * 1e-3
	}
	return v
}

// Close shuts NVML down.
func (s *Source) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	if r := s.lib.shutdown(); r != retSuccess {
		return s.lib.err(r)
	}
	return nil
}
