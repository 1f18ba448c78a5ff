//go:build !(cgo && linux)

package nvml

import (
	"context"
	"time"

	"github.com/aiperf-go/aiperf/internal/telemetry/gpu"
)

// Supported reports whether this build can read NVML.
const Supported = false

// Source is the stub of the NVML reader.
type Source struct{}

var _ gpu.Source = (*Source)(nil)

// Open reports ErrUnavailable: this build has no NVML.
func Open() (*Source, error) { return nil, ErrUnavailable }

// URL implements gpu.Source.
func (*Source) URL() string { return SourceURL }

// Reachable implements gpu.Source.
func (*Source) Reachable(context.Context, time.Duration) bool { return false }

// Collect implements gpu.Source.
func (*Source) Collect(context.Context) (time.Time, []gpu.Sample, error) {
	return time.Time{}, nil, ErrUnavailable
}

// Close implements io.Closer.
func (*Source) Close() error { return nil }
