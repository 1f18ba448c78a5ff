package experiment

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"strconv"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/metrics/stats"
	"github.com/aiperf-go/aiperf/internal/results"
)

// convergence is AIPerf's adaptive multi-run criterion: repeated runs of a
// variation stop once they agree on one metric (--convergence-metric).
// check is a pure function of the runs so far.
type convergence struct {
	metric, stat string
	mode         config.ConvergenceMode
	threshold    float64
	level        float64 // confidence level of ci_width
	minRuns      int
	// values reads a run's per-request values of metric (distribution
	// mode); replaced in tests.
	values func(r *runResult, metric string) ([]float64, error)
}

// newConvergence returns the criterion of cfg, nil without one.
func newConvergence(cfg *config.Config) *convergence {
	if !cfg.Converges() {
		return nil
	}
	mode, stat, threshold, minRuns := cfg.ResolvedConvergence()
	return &convergence{
		metric: cfg.Experiment.ConvergenceMetric, stat: stat, mode: mode, threshold: threshold,
		level: cfg.Experiment.ConfidenceLevel, minRuns: minRuns, values: recordValues,
	}
}

// check reports whether runs have converged and why (or why not yet), as
// AIPerf's AdaptiveStrategy: nothing before minRuns runs (failed ones
// count toward it); then the criterion on the successful ones.
func (c *convergence) check(runs []runResult) (bool, string) {
	if len(runs) < c.minRuns {
		return false, fmt.Sprintf("%d of at least %d runs", len(runs), c.minRuns)
	}
	if c.mode == config.ConvergeDistribution {
		return c.distribution(runs)
	}
	var vals []float64
	for i := range runs {
		if !runs[i].ok() {
			continue
		}
		if v, ok := runs[i].Summary.Value(c.metric, c.stat); ok && !math.IsNaN(v) && !math.IsInf(v, 0) {
			vals = append(vals, v)
		}
	}
	need := c.minRuns
	if c.mode == config.ConvergeCIWidth {
		need = max(need, 2)
	}
	if len(vals) < need {
		return false, fmt.Sprintf("%s %s in %d run(s), %d needed", c.metric, c.stat, len(vals), need)
	}
	ci := stats.ConfidenceOf(vals, c.level)
	if ci.Mean == 0 {
		return false, fmt.Sprintf("%s %s has mean 0", c.metric, c.stat)
	}
	var ratio float64
	var name string
	if c.mode == config.ConvergeCV {
		ratio, name = ci.Std/math.Abs(ci.Mean), "cv"
	} else {
		ratio, name = (ci.CIHigh-ci.CILow)/math.Abs(ci.Mean), "ci width/mean"
	}
	desc := fmt.Sprintf("%s of %s %s over %d runs = %.4f (threshold %g)", name, c.metric, c.stat, len(vals), ratio, c.threshold)
	return ratio < c.threshold, desc
}

// distribution compares the last successful run's per-request values with
// the earlier runs' pooled: converged when the KS p-value exceeds the
// threshold.
func (c *convergence) distribution(runs []runResult) (bool, string) {
	var good []*runResult
	for i := range runs {
		if runs[i].ok() && runs[i].Records != "" {
			good = append(good, &runs[i])
		}
	}
	if len(good) < c.minRuns {
		return false, fmt.Sprintf("%d successful run(s) with records, %d needed", len(good), c.minRuns)
	}
	var earlier []float64
	for _, r := range good[:len(good)-1] {
		v, err := c.values(r, c.metric)
		if err != nil {
			return false, err.Error()
		}
		earlier = append(earlier, v...)
	}
	last, err := c.values(good[len(good)-1], c.metric)
	if err != nil {
		return false, err.Error()
	}
	if len(earlier) < 2 || len(last) < 2 {
		return false, fmt.Sprintf("too few %s values in the records (%d earlier, %d last)", c.metric, len(earlier), len(last))
	}
	d, p := stats.KS2Samp(earlier, last)
	desc := fmt.Sprintf("KS test of %s, last run (%d values) vs the %d before (%d values): D = %.4f, p = %.4f (threshold %g)",
		c.metric, len(last), len(good)-1, len(earlier), d, p, c.threshold)
	return p > c.threshold, desc
}

// recordValues reads a run's per-request values of a scalar metric from
// its records: successful profiling requests only, as AIPerf.
func recordValues(r *runResult, metric string) ([]float64, error) {
	var out []float64
	err := results.ReadRecords(r.Records, func(rec *results.Record) error {
		if rec.Failed || rec.Phase != "profiling" {
			return nil
		}
		if v, ok := rec.Scalar(metric); ok {
			out = append(out, v)
		}
		return nil
	})
	return out, err
}

// trialSeed is AIPerf's per-trial seed with --vary-seed-per-trial: the
// first 8 bytes, big-endian, of SHA-256("<base>:variation:<label>:trial:<t>"),
// masked to 63 bits.
func trialSeed(base int64, label string, trial int) int64 {
	sum := sha256.Sum256([]byte(strconv.FormatInt(base, 10) + ":variation:" + label + ":trial:" + strconv.Itoa(trial)))
	return int64(binary.BigEndian.Uint64(sum[:8]) & math.MaxInt64)
}
