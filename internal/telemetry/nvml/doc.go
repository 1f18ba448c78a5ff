// Package nvml reads GPU telemetry from the local NVIDIA driver (NVML),
// AIPerf's pynvml collector: `--gpu-telemetry pynvml` (or nvml).
//
// NVML is a C library (libnvidia-ml.so.1) that only the driver installs,
// so it is loaded at run time, never linked: the nvml build tag binds the
// few functions the collector calls with github.com/ebitengine/purego,
// without cgo. Loading a shared library needs the system's dynamic loader,
// so such a binary is dynamically linked (to libc, present on every GPU
// host); the default build stays static and its Open reports
// ErrUnavailable. Build with NVML:
//
//	go build -tags nvml -o aiperf ./cmd/aiperf
//
// Values use AIPerf's units: power in W (NVML: mW), energy in MJ (mJ),
// memory used in GB (bytes, 1e9 per GB), power-throttling time in µs (ns).
package nvml

import "errors"

// SourceURL is how exports name the local NVML source, as AIPerf does.
const SourceURL = "pynvml://localhost"

// ErrUnavailable reports a binary built without NVML support (the default
// static build, or a system other than Linux).
var ErrUnavailable = errors.New("this aiperf was built without NVML support (the default build is static and cannot load libnvidia-ml): rebuild with `go build -tags nvml ./cmd/aiperf` on Linux, or use a DCGM exporter URL")

// ErrNoDriver reports a build with NVML support on a machine without the
// NVIDIA driver (no libnvidia-ml.so.1 to load).
var ErrNoDriver = errors.New("no NVIDIA driver found (libnvidia-ml.so.1 is not installed)")
