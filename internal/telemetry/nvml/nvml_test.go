package nvml

import (
	"context"
	"errors"
	"os"
	"testing"
)

// TestOpenWithoutGPU: on a machine without an NVIDIA driver (CI), Open
// fails cleanly: ErrNoDriver in the nvml build, ErrUnavailable
// without. Where a driver is present it must find at least one GPU and
// read its power.
func TestOpenWithoutGPU(t *testing.T) {
	s, err := Open()
	if !Supported {
		if !errors.Is(err, ErrUnavailable) {
			t.Fatalf("Open() in a build without NVML = %v; want ErrUnavailable", err)
		}
		return
	}
	if err != nil {
		if _, statErr := os.Stat("/dev/nvidiactl"); statErr == nil {
			t.Fatalf("Open() with an NVIDIA device present = %v", err)
		}
		if !errors.Is(err, ErrNoDriver) {
			t.Errorf("Open() without a driver = %v; want ErrNoDriver (NVML's library-not-found)", err)
		}
		return
	}
	defer s.Close()
	_, samples, err := s.Collect(context.Background())
	if err != nil || len(samples) == 0 {
		t.Fatalf("Collect() = %d samples, %v", len(samples), err)
	}
	if _, ok := samples[0].Values["nvidia_power_usage"]; !ok {
		t.Errorf("GPU 0 reported no power: %+v", samples[0])
	}
}
