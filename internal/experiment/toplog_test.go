package experiment

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/benchmark"
	"github.com/aiperf-go/aiperf/internal/config"
)

// TestExperimentTopLevelLog: a multi-run keeps its own logs/aiperf.log at
// the top of its artifact directory, as AIPerf does, with every line the
// experiment printed (the plan, each run's outcome, the aggregates); what
// a run prints to stderr stays out of it (each run has its own log).
func TestExperimentTopLevelLog(t *testing.T) {
	t.Parallel()
	base := experimentBase(t)
	base.Experiment.NumProfileRuns = 3
	f := &fakeRun{}
	x, _, stderr := fakeExperiment(t, sweepVars(base, []int{4}, []int{550}), f)
	run := x.runOne
	x.runOne = func(ctx context.Context, cfg *config.Config, rio benchmark.IO) error {
		fmt.Fprintln(rio.Stderr, "a run's own warning")
		return run(ctx, cfg, rio)
	}
	if err := x.run(context.Background()); err != nil {
		t.Fatalf("run: %v", err)
	}
	b, err := os.ReadFile(filepath.Join(base.Output.ArtifactDir, "logs", "aiperf.log"))
	if err != nil {
		t.Fatal(err)
	}
	log := string(b)
	for _, want := range []string{"Experiment: 1 variation(s) x 3 run(s) = 3 benchmarks", "Experiment: run 1/3", "Experiment: run 3/3", "Experiment: aggregates written under"} {
		if !strings.Contains(log, want) {
			t.Errorf("logs/aiperf.log lacks %q:\n%s", want, log)
		}
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q", want)
		}
	}
	if strings.Contains(log, "a run's own warning") {
		t.Errorf("the experiment's log repeats a run's stderr:\n%s", log)
	}
	if n := strings.Count(stderr.String(), "a run's own warning"); n != 3 {
		t.Errorf("stderr has the runs' warning %d times, want 3", n)
	}
}
