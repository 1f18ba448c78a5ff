//go:build nvml && linux

package nvml

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/telemetry/gpu"
)

// TestLoadWithoutTheLibrary: a missing library is ErrNoDriver, naming the
// file the loader tried.
func TestLoadWithoutTheLibrary(t *testing.T) {
	_, err := load(filepath.Join(t.TempDir(), "libnvidia-ml.so.1"))
	if !errors.Is(err, ErrNoDriver) || !strings.Contains(err.Error(), "libnvidia-ml.so.1") {
		t.Errorf("load(missing) = %v; want ErrNoDriver naming the file", err)
	}
}

// TestLoadAnotherLibrary: a library that is not NVML (libc) is refused
// with every required function it lacks named.
func TestLoadAnotherLibrary(t *testing.T) {
	_, err := load("libc.so.6")
	if err == nil {
		t.Fatal("load(libc.so.6) succeeded")
	}
	for _, s := range (&library{}).symbols() {
		if got := strings.Contains(err.Error(), s.name); got == s.optional {
			t.Errorf("load(libc.so.6) = %v; names %s: %v, want %v", err, s.name, got, !s.optional)
		}
	}
}

// TestCollectFromAStandInLibrary loads testdata/fakenvml.c, built as a
// shared library, through the real loader and checks every field in
// AIPerf's units, the fields of a function the library lacks (JPEG) or
// does not support (encoder) left out, and init/shutdown balanced.
func TestCollectFromAStandInLibrary(t *testing.T) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("needs a C compiler (cc) to build the stand-in library")
	}
	so := filepath.Join(t.TempDir(), "libfakenvml.so")
	if out, err := exec.Command(cc, "-shared", "-fPIC", "-o", so, filepath.Join("testdata", "fakenvml.c")).CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	l, err := load(so)
	if err != nil {
		t.Fatal(err)
	}
	if l.deviceGetJpgUtil != nil {
		t.Error("the JPEG function the library lacks was bound")
	}
	s, err := open(l)
	if err != nil {
		t.Fatal(err)
	}
	want := gpu.Meta{Index: 0, Device: "nvidia0", Hostname: "localhost", Platform: gpu.PlatformNVIDIA,
		UUID: "GPU-fake-0001", ModelName: "NVIDIA Fake H100", PCIBusID: "00000000:17:00.0"}
	wantValues := map[string]float64{
		gpu.NVIDIAPower:              123.456,
		gpu.NVIDIAEnergy:             5,
		"nvidia_gpu_utilization":     87,
		"nvidia_memory_utilization":  42,
		"nvidia_memory_used":         12.5,
		"nvidia_temperature":         61,
		"nvidia_decoder_utilization": 3,
		"nvidia_sm_utilization":      55,
		"nvidia_power_violation":     7,
	}
	for range 2 {
		_, samples, err := s.Collect(context.Background())
		if err != nil || len(samples) != 1 {
			t.Fatalf("Collect() = %d samples, %v", len(samples), err)
		}
		if samples[0].Meta != want {
			t.Errorf("meta %+v; want %+v", samples[0].Meta, want)
		}
		got := samples[0].Values
		if len(got) != len(wantValues) {
			t.Errorf("fields %v; want %v", got, wantValues)
		}
		for k, w := range wantValues {
			if g, ok := got[k]; !ok || g != w {
				t.Errorf("%s = %v (%v); want %v", k, g, ok, w)
			}
		}
	}
	// The stand-in stamps its samples lastSeen+5 and lastSeen+9: the
	// second read starts from the first's newest (9).
	if s.devices[0].lastSeen != 18 {
		t.Errorf("process sample cursor %d; want 18 (two reads, each from the newest sample seen)", s.devices[0].lastSeen)
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if _, _, err := s.Collect(context.Background()); err == nil {
		t.Error("Collect after Close succeeded")
	}
}
