package gpu

import (
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/testenv/golden"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// consoleResults are two GPUs of one simulated source with every default
// field, at magnitudes a busy H200 shows (energy in the thousands of MJ).
func consoleResults() *Results {
	var gpus []GPUResult
	for i := range 2 {
		g := GPUResult{Meta: Meta{Index: i, UUID: fmt.Sprintf("GPU-%d", i), ModelName: "NVIDIA H200", Platform: PlatformNVIDIA, Simulated: true}}
		for k, f := range DefaultFields() {
			if !strings.HasPrefix(f.Name, "nvidia_") {
				continue
			}
			v := 1234.5678 * float64(k+1) / 7
			st := FieldStats{Counter: f.Counter, Avg: v, Min: v / 2, Max: v * 1.5, P99: v * 1.4, P90: v * 1.2, P50: v, Std: v / 10, Count: 40}
			g.Fields = append(g.Fields, FieldResult{Field: f, Stats: st})
		}
		gpus = append(gpus, g)
	}
	return &Results{Sources: []SourceResult{{URL: "http://localhost:9400/metrics", GPUs: gpus}}}
}

// TestConsoleTablesFitTheWidth: the GPU telemetry tables fit 80 and 120
// columns as the metric tables do (the stat columns give way, std first,
// before the labels wrap), with avg, p99 and p50 always shown.
func TestConsoleTablesFitTheWidth(t *testing.T) {
	t.Parallel()
	r := consoleResults()
	for _, width := range []int{80, 120} {
		out := r.PlatformPanel(width) + r.ConsoleTables([]string{"http://localhost:9400/metrics", "http://localhost:9401/metrics"}, width)
		golden.Check(t, filepath.Join("testdata", fmt.Sprintf("console_%d.golden", width)), []byte(out), *update)
		golden.Fits(t, out, width)
		for _, h := range []string{" avg ┃", " p99 ┃", " p50 ┃"} {
			if !strings.Contains(out, h) {
				t.Errorf("%d columns: %q missing:\n%s", width, h, out)
			}
		}
		if !strings.Contains(out, "GPU Power Usage (W) │") {
			t.Errorf("%d columns: a label wraps:\n%s", width, out)
		}
	}
}
