package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/config"
)

func TestConvergenceAndAnalysisFlags(t *testing.T) {
	t.Parallel()
	cfg := profile(t, "-m", "m", "--num-profile-runs", "5", "--convergence-metric", "time_to_first_token",
		"--convergence-mode", "CV", "--convergence-stat", "p99", "--convergence-threshold", "0.02", "--vary-seed-per-trial",
		"--use-case", "chat,rag", "--metric-view", "inference-perf", "--llmd-report")
	e := cfg.Experiment
	if e.ConvergenceMetric != "time_to_first_token" || e.ConvergenceMode != config.ConvergeCV || e.ConvergenceStat != "p99" ||
		*e.ConvergenceThreshold != 0.02 || !e.VarySeedPerTrial {
		t.Errorf("experiment = %+v", e)
	}
	a := cfg.Analysis
	if len(a.UseCases) != 2 || a.UseCases[1] != config.UseCaseRAG || a.MetricViews[0] != config.ViewInferencePerf || !a.LLMDReport {
		t.Errorf("analysis = %+v", a)
	}
	r := runMain(t, context.Background(), nil, "profile", "-m", "m", "--convergence-metric", "x", "--use-case", "gaming")
	if r.code != 2 || !strings.Contains(r.stderr, "--convergence-metric") || !strings.Contains(r.stderr, `--use-case: invalid choice "gaming"`) {
		t.Errorf("exit %d\n%s", r.code, r.stderr)
	}
}
