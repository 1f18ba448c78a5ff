package cli

import (
	"slices"
	"strings"
	"testing"
)

// AMD GPUs: an exporter URL takes AIPerf's optional amd_dme: prefix, and
// amdsmi is refused before the run with the exporter path to use instead.
func TestAMDGPUTelemetryFlags(t *testing.T) {
	cfg := profile(t, "-m", "x", "--gpu-telemetry", "amd_dme:http://gpu-node:5000/metrics", "node2:5000")
	if got, want := cfg.Telemetry.GPU.URLs, []string{"http://gpu-node:5000/metrics", "http://node2:5000/metrics"}; !slices.Equal(got, want) {
		t.Errorf("--gpu-telemetry URLs %q, want %q", got, want)
	}
	r := runMain(t, t.Context(), nil, "profile", "-m", "x", "--gpu-telemetry", "amdsmi")
	if r.code != 2 || !strings.Contains(r.stderr, "--gpu-telemetry") || !strings.Contains(r.stderr, "device-metrics exporter") {
		t.Errorf("amdsmi: exit %d, stderr %q; want 2 naming the flag and the exporter path", r.code, r.stderr)
	}
}
