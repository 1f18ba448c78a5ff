package experiment

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/aiperf-go/aiperf/internal/metrics/stats"
	"github.com/aiperf-go/aiperf/internal/results"
)

// Aggregate artifact names, as AIPerf's.
const (
	aggregateJSONName = "profile_export_aiperf_aggregate.json"
	aggregateCSVName  = "profile_export_aiperf_aggregate.csv"
	// aggregateSchemaVersion is the aggregate file's own schema version.
	aggregateSchemaVersion = "1.0"
)

// runResult is one run of an experiment, finished or failed.
type runResult struct {
	Label     string // run_NNNN (the trial, 1-based)
	Variation int    // index of the variation
	Trial     int    // 0-based
	Dir       string // the run's artifact directory
	// Records is the run's profile_export.jsonl; "" when its export
	// level writes none.
	Records string
	// Err is why the run failed; nil for a run whose results count.
	Err     error
	Summary *results.Summary // nil when Err is set
}

// ok reports whether the run's results count.
func (r *runResult) ok() bool { return r.Err == nil && r.Summary != nil }

// confidenceMetric is one metric statistic across runs, keyed
// "<tag>_<stat>" (e.g. "time_to_first_token_p99").
type confidenceMetric struct {
	Key  string
	Unit string
	C    stats.Confidence
}

// confidenceAggregate is AIPerf's confidence aggregation of the runs of
// one configuration.
type confidenceAggregate struct {
	NumRuns   int
	Failed    []runResult
	RunLabels []string // labels of the runs that count
	// SingleRun marks the degenerate case of one successful run: point
	// values, no interval.
	SingleRun bool
	Metrics   []confidenceMetric
}

// numSuccessful is the number of runs that count.
func (a *confidenceAggregate) numSuccessful() int { return len(a.RunLabels) }

// metric returns the statistic keyed key.
func (a *confidenceAggregate) metric(key string) (*confidenceMetric, bool) {
	for i := range a.Metrics {
		if a.Metrics[i].Key == key {
			return &a.Metrics[i], true
		}
	}
	return nil, false
}

// aggregateConfidence combines runs at the confidence level. Only the
// successful runs count; with none it returns false. Each (metric, stat)
// pair that any successful run has is aggregated over the runs where it is
// finite, in the order the pairs first appear.
func aggregateConfidence(runs []runResult, level float64) (*confidenceAggregate, bool) {
	a := &confidenceAggregate{NumRuns: len(runs)}
	var good []*results.Summary
	for i := range runs {
		if runs[i].ok() {
			good = append(good, runs[i].Summary)
			a.RunLabels = append(a.RunLabels, runs[i].Label)
		} else {
			a.Failed = append(a.Failed, runs[i])
		}
	}
	switch len(good) {
	case 0:
		return a, false
	case 1:
		a.SingleRun = true
		for _, m := range good[0].Metrics {
			for _, k := range statKeys {
				if v, ok := m.Stats[k]; ok {
					a.Metrics = append(a.Metrics, confidenceMetric{Key: m.Tag + "_" + k, Unit: m.Unit, C: stats.PointConfidence(v)})
				}
			}
		}
		return a, true
	}
	type pair struct{ tag, stat string }
	var order []pair
	seen := map[pair]bool{}
	for _, s := range good {
		for _, m := range s.Metrics {
			for _, k := range statKeys {
				if _, ok := m.Stats[k]; ok && !seen[pair{m.Tag, k}] {
					seen[pair{m.Tag, k}] = true
					order = append(order, pair{m.Tag, k})
				}
			}
		}
	}
	for _, p := range order {
		var values []float64
		unit := ""
		for _, s := range good {
			m, ok := s.Get(p.tag)
			if !ok {
				continue
			}
			v, ok := m.Stats[p.stat]
			if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			values = append(values, v)
			if unit == "" {
				unit = m.Unit
			}
		}
		if len(values) == 0 {
			continue
		}
		a.Metrics = append(a.Metrics, confidenceMetric{Key: p.tag + "_" + p.stat, Unit: unit, C: stats.ConfidenceOf(values, level)})
	}
	return a, true
}

// aggregateMeta is the metadata AIPerf adds to a confidence aggregate
// after the run counts, in its order.
type aggregateMeta struct {
	ConfidenceLevel float64
	CooldownSeconds float64
	// Variation fields are set for the per-variation aggregates of a sweep.
	Variation *variationMeta
}

// variationMeta identifies a sweep variation in its aggregate.
type variationMeta struct {
	Label  string
	Values *jobj // dot path -> value
	Mode   string
	Model  string
}

// metadata builds the "metadata" object of the aggregate JSON.
func (a *confidenceAggregate) metadata(m aggregateMeta) *jobj {
	o := &jobj{}
	o.set("aggregation_type", "confidence")
	o.set("num_profile_runs", a.NumRuns)
	o.set("num_successful_runs", a.numSuccessful())
	o.set("failed_runs", failedRuns(a.Failed))
	for _, kv := range a.extraMetadata(m).keys {
		o.set(kv.k, kv.v)
	}
	return o
}

// extraMetadata is the metadata after the run counts, shared by the JSON
// and the CSV.
func (a *confidenceAggregate) extraMetadata(m aggregateMeta) *jobj {
	o := &jobj{}
	o.set("confidence_level", m.ConfidenceLevel)
	labels := make([]any, len(a.RunLabels))
	for i, l := range a.RunLabels {
		labels[i] = l
	}
	o.set("run_labels", labels)
	if a.SingleRun {
		o.set("single_run", true)
	}
	o.set("cooldown_seconds", m.CooldownSeconds)
	if v := m.Variation; v != nil {
		o.set("variation_label", v.Label)
		o.set("variation_values", v.Values)
		o.set("sweep_mode", v.Mode)
		if v.Model != "" {
			o.set("model", v.Model)
		}
	}
	return o
}

// failedRuns lists failed runs as [{label, error}].
func failedRuns(failed []runResult) []any {
	out := make([]any, len(failed))
	for i, r := range failed {
		msg := "run failed"
		if r.Err != nil {
			msg = r.Err.Error()
		}
		out[i] = (&jobj{}).set("label", r.Label).set("error", msg)
	}
	return out
}

// aggregateJSON renders profile_export_aiperf_aggregate.json.
func (a *confidenceAggregate) aggregateJSON(version string, m aggregateMeta) []byte {
	metricsObj := &jobj{}
	for _, cm := range a.Metrics {
		c := cm.C
		metricsObj.set(cm.Key, (&jobj{}).
			set("mean", c.Mean).set("std", c.Std).set("min", c.Min).set("max", c.Max).
			set("cv", c.CV).set("se", c.SE).set("ci_low", c.CILow).set("ci_high", c.CIHigh).
			set("t_critical", c.TCritical).set("unit", cm.Unit))
	}
	doc := (&jobj{}).
		set("schema_version", aggregateSchemaVersion).
		set("aiperf_version", version).
		set("metadata", a.metadata(m)).
		set("metrics", metricsObj)
	return marshalIndent(doc)
}

// aggregateCSV renders profile_export_aiperf_aggregate.csv: the metrics
// table, a blank line, then the metadata as "Title,value" rows. Values
// that do not exist (a NaN interval, an infinite CV) are empty.
func (a *confidenceAggregate) aggregateCSV(m aggregateMeta) ([]byte, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.UseCRLF = true
	rows := [][]string{{"metric", "mean", "std", "min", "max", "cv", "se", "ci_low", "ci_high", "t_critical", "unit"}}
	for _, cm := range a.Metrics {
		c := cm.C
		rows = append(rows, []string{cm.Key, fixed(c.Mean, 2), fixed(c.Std, 2), fixed(c.Min, 2), fixed(c.Max, 2),
			fixed(c.CV, 4), fixed(c.SE, 4), fixed(c.CILow, 2), fixed(c.CIHigh, 2), fixed(c.TCritical, 4), cm.Unit})
	}
	rows = append(rows, nil,
		[]string{"Aggregation Type", "confidence"},
		[]string{"Total Runs", fmt.Sprint(a.NumRuns)},
		[]string{"Successful Runs", fmt.Sprint(a.numSuccessful())})
	for _, kv := range a.extraMetadata(m).keys {
		rows = append(rows, []string{pyTitle(kv.k), csvValue(kv.v)})
	}
	if err := w.WriteAll(rows); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// csvValue is Python's str() of a metadata value.
func csvValue(v any) string {
	switch v.(type) {
	case []any, *jobj:
		return pyRepr(v)
	}
	return pyStr(v)
}

// writeConfidenceAggregate writes the aggregate JSON and CSV into dir.
func writeConfidenceAggregate(dir, version string, a *confidenceAggregate, m aggregateMeta) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	csvData, err := a.aggregateCSV(m)
	if err != nil {
		return err
	}
	return writeFiles(map[string][]byte{
		filepath.Join(dir, aggregateJSONName): a.aggregateJSON(version, m),
		filepath.Join(dir, aggregateCSVName):  csvData,
	})
}

// writeFiles writes every file, reporting every failure.
func writeFiles(files map[string][]byte) error {
	var errs []error
	for _, path := range slices.Sorted(maps.Keys(files)) {
		if err := os.WriteFile(path, files[path], 0o644); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("writing aggregates: %w", errors.Join(errs...))
	}
	return nil
}
