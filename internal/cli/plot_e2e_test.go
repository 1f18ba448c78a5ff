package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	plotreport "github.com/aiperf-go/aiperf/internal/report"
)

// TestSweepWithRepeatedRunsPlotsParetoAndEllipses runs a 3x3 sweep
// (concurrency x ISL) with 5 runs per point (the fewest that get an
// ellipse) through the real binary with --auto-plot, then reads the plots
// back: one Pareto front per ISL across concurrency, and a 95% confidence
// ellipse from 5 runs around each of the 9 points.
func TestSweepWithRepeatedRunsPlotsParetoAndEllipses(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end run")
	}
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "sweep")
	home := t.TempDir()
	cmd := aiperfCmd(t, "profile", "-m", "mock-model", "--mock-server", "--streaming", "--tokenizer", "builtin",
		"--concurrency", "1,2,4", "--isl", "32,64,128", "--num-profile-runs", "5",
		"--request-count", "8", "--osl", "8", "--ui", "none", "--output-artifact-dir", dir, "--auto-plot")
	cmd.Env = append(cmd.Env, "HOME="+home)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("profile: %v\n%s", err, out)
	}
	for _, name := range []string{"pareto_curve_throughput_per_gpu_vs_latency.png", "latency_throughput_uncertainty.png", "ttft_vs_throughput.png", "report.html"} {
		if _, err := os.Stat(filepath.Join(dir, "plots", name)); err != nil {
			t.Errorf("--auto-plot did not write %s: %v\n%s", name, err, out)
		}
	}
	res, err := plotreport.Plot(plotreport.Options{Paths: []string{dir}, Output: t.TempDir(), NoPNG: true, NoHTML: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Mode != "multi-run" || len(res.RunDirs) != 9 {
		t.Fatalf("mode %s over %d run dirs %v; want multi-run over the 9 points' aggregates", res.Mode, len(res.RunDirs), res.RunDirs)
	}
	byName := map[string]*plotreport.Chart{}
	for _, c := range res.Charts {
		byName[c.Name] = c
	}
	pareto := byName["pareto_curve_throughput_per_gpu_vs_latency"]
	if pareto == nil {
		t.Fatalf("no pareto chart among %v", res.Charts)
	}
	fronts, points := 0, 0
	for _, s := range pareto.Series {
		switch {
		case strings.HasSuffix(s.Name, "Pareto front"):
			fronts++
			if s.Len() < 1 || s.Len() > 3 {
				t.Errorf("front %q has %d points; want 1-3 of its 3", s.Name, s.Len())
			}
		case s.Kind == plotreport.Markers:
			points += s.Len()
		}
	}
	if fronts != 3 || points != 9 {
		t.Errorf("pareto: %d fronts over %d points; want one front per ISL (3) over 9 points", fronts, points)
	}
	u := byName["latency_throughput_uncertainty"]
	if u == nil {
		t.Fatal("no uncertainty chart")
	}
	ellipses := 0
	for _, s := range u.Series {
		if s.Kind == plotreport.Polygon {
			ellipses++
			if s.Faint || !strings.Contains(s.Name, "(n=5)") || s.Len() != 65 {
				t.Errorf("ellipse %q: faint %v, %d vertices; want a solid 64-gon from 5 runs", s.Name, s.Faint, s.Len())
			}
		}
	}
	if ellipses != 9 {
		t.Errorf("%d confidence ellipses; want one per point (9)", ellipses)
	}
}
