// Package nvml reads GPU telemetry from the local NVIDIA driver (NVML),
// AIPerf's pynvml collector: `--gpu-telemetry pynvml` (or nvml). The reader
// needs cgo on Linux (github.com/NVIDIA/go-nvml, which loads
// libnvidia-ml.so.1 at run time); the default static build (CGO_ENABLED=0)
// and other systems get a stub whose Open reports ErrUnavailable, so the
// binary still builds everywhere. Build with NVML:
//
//	CGO_ENABLED=1 go build -o aiperf ./cmd/aiperf
//
// Values use AIPerf's units: power in W (NVML: mW), energy in MJ (mJ),
// memory used in GB (bytes, 1e9 per GB), power-throttling time in µs (ns).
package nvml

import "errors"

// SourceURL is how exports name the local NVML source, as AIPerf does.
const SourceURL = "pynvml://localhost"

// ErrUnavailable reports a binary built without NVML support (no cgo, or
// not Linux).
var ErrUnavailable = errors.New("this aiperf was built without NVML support: rebuild with CGO_ENABLED=1 on Linux (go build ./cmd/aiperf with a C compiler), or use a DCGM exporter URL")

// ErrNoDriver reports a build with NVML support on a machine without the
// NVIDIA driver (NVML's ERROR_LIBRARY_NOT_FOUND: no libnvidia-ml.so.1).
var ErrNoDriver = errors.New("no NVIDIA driver found (libnvidia-ml.so.1 is not installed)")
