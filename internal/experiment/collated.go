package experiment

import (
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/aiperf-go/aiperf/internal/metrics/stats"
	"github.com/aiperf-go/aiperf/internal/results"
)

// collatedJSONName is the per-request pool of a converging variation's
// runs, AIPerf's "detailed" aggregate.
const collatedJSONName = "profile_export_aiperf_collated.json"

// collatedSchemaVersion is that file's schema version, as AIPerf's.
const collatedSchemaVersion = "1.0.0"

// collate pools the per-request values of every scalar metric over the
// successful runs' records, as AIPerf's DetailedAggregation (written when
// convergence is on): combined mean, sample std, numpy percentiles and
// count, and each run's mean and count. Metrics keep their first-seen
// order; list metrics (inter_chunk_latency) are left out, as AIPerf
// leaves them.
func collate(runs []runResult, version string, cooldown float64) ([]byte, error) {
	type perRun struct {
		label string
		vals  []float64
	}
	var order []string
	known := map[string]bool{}
	byTag := map[string][]perRun{}
	var labels []any
	ok := 0
	for i := range runs {
		r := &runs[i]
		if !r.ok() {
			continue
		}
		ok++
		labels = append(labels, r.Label)
		if r.Records == "" {
			continue
		}
		vals := map[string][]float64{}
		err := results.ReadRecords(r.Records, func(rec *results.Record) error {
			if rec.Failed || rec.Phase != "profiling" {
				return nil
			}
			for _, tag := range rec.Tags {
				v := rec.Metrics[tag]
				if v.IsList {
					continue
				}
				if !known[tag] {
					known[tag] = true
					order = append(order, tag)
				}
				vals[tag] = append(vals[tag], v.Scalar)
			}
			return nil
		})
		if errors.Is(err, fs.ErrNotExist) {
			continue // a run whose records are gone counts with its summary only
		}
		if err != nil {
			return nil, err
		}
		for _, tag := range order {
			if v, has := vals[tag]; has {
				byTag[tag] = append(byTag[tag], perRun{r.Label, v})
			}
		}
	}
	metricsObj := &jobj{}
	for _, tag := range order {
		var all []float64
		var per []any
		for _, pr := range byTag[tag] {
			all = append(all, pr.vals...)
			per = append(per, (&jobj{}).set("label", pr.label).set("mean", mean(pr.vals)).set("count", len(pr.vals)))
		}
		if len(all) == 0 {
			continue
		}
		sd := 0.0
		if len(all) > 1 {
			sd = stats.ConfidenceOf(all, 0.95).Std
		}
		slices.Sort(all)
		metricsObj.set(tag, (&jobj{}).
			set("combined", (&jobj{}).set("mean", mean(all)).set("std", sd).
				set("p50", stats.Percentile(all, 50)).set("p90", stats.Percentile(all, 90)).
				set("p95", stats.Percentile(all, 95)).set("p99", stats.Percentile(all, 99)).
				set("count", len(all))).
			set("per_run", per))
	}
	doc := (&jobj{}).
		set("schema_version", collatedSchemaVersion).
		set("aiperf_version", version).
		set("description", "Collated per-request metrics across all runs: the request-level values of every run pooled into one population, with combined percentiles (p50, p90, p95, p99). profile_export_aiperf_aggregate.json instead computes statistics over the runs' summary values.").
		set("metadata", (&jobj{}).
			set("aggregation_type", "detailed").
			set("num_profile_runs", len(runs)).
			set("num_successful_runs", ok).
			set("failed_runs", failedRuns(failedOf(runs))).
			set("run_labels", labels).
			set("cooldown_seconds", cooldown)).
		set("metrics", metricsObj)
	return marshalIndent(doc), nil
}

func failedOf(runs []runResult) []runResult {
	var out []runResult
	for _, r := range runs {
		if !r.ok() {
			out = append(out, r)
		}
	}
	return out
}

func mean(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	return stats.Sum(v) / float64(len(v))
}

// writeCollated writes the collated JSON of a variation's runs into dir.
func writeCollated(dir string, runs []runResult, version string, cooldown float64) error {
	b, err := collate(runs, version, cooldown)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, collatedJSONName), b, 0o644)
}
