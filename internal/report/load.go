package report

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/aiperf-go/aiperf/internal/metrics/stats"
	"github.com/aiperf-go/aiperf/internal/results"
)

// Artifact file names read here besides internal/results' ones.
const (
	timeslicesJSONName = "profile_export_aiperf_timeslices.json"
	timeslicesCSVName  = "profile_export_aiperf_timeslices.csv"
	gpuTelemetryName   = "gpu_telemetry_export.jsonl"
)

// Run is one run directory's artifacts, as the plots read them: a single
// run (summary and per-request records), or a per-variation confidence
// aggregate standing for its repeated runs. Ours and AIPerf's share the
// layout, so either loads.
type Run struct {
	Dir  string
	Name string // the directory's name, or its variation's for an aggregate/ directory
	// Label names the run's point on multi-run plots (e.g. "concurrency=8").
	Label string
	// Model and Concurrency are read from the configuration or the path.
	Model       string
	Concurrency int
	// ExperimentType is "baseline" or "treatment" (experiment_classification).
	ExperimentType string
	// VariationValues are the sweep parameters of the run, by leaf name.
	VariationValues map[string]any

	Summary   *results.Summary   // nil for an aggregate-only directory
	Aggregate *results.Aggregate // the confidence aggregate, for an aggregate directory
	// Trials are the per-run summaries behind an aggregate, when found.
	Trials []*results.Summary
	// InputConfig is the summary's input_config, for the report.
	InputConfig json.RawMessage

	// Requests are the profiling records (profile_export.jsonl), in file
	// order; nil when there are none.
	Requests []Request
	// Slices are the timeslice metrics; nil without --slice-duration.
	Slices *Timeslices
	// GPU are the GPU telemetry samples, when exported.
	GPU []GPUSample
}

// Value returns a metric statistic of the run: the summary's, or the
// mean across runs of an aggregate. Throughput per GPU is derived from
// the output token throughput and the GPUs seen in telemetry, as AIPerf
// derives it.
func (r *Run) Value(metric, stat string) (float64, bool) {
	if stat == "" {
		stat = "avg"
	}
	if r.Summary != nil {
		if v, ok := r.Summary.Value(metric, stat); ok {
			return v, true
		}
	}
	if r.Aggregate != nil {
		if v, ok := r.Aggregate.Value(metric, stat); ok {
			return v, true
		}
	}
	if base, ok := strings.CutSuffix(metric, "_per_gpu"); ok {
		if n := r.gpuCount(); n > 0 {
			if v, ok := r.Value(base, stat); ok {
				return v / float64(n), true
			}
		}
	}
	return 0, false
}

// gpuCount is the number of distinct GPUs in the telemetry; 0 when none.
func (r *Run) gpuCount() int {
	seen := map[string]bool{}
	for _, g := range r.GPU {
		seen[g.Key] = true
	}
	return len(seen)
}

// simulatedGPUs reports that some of the run's GPU telemetry comes from
// GPUs that do not exist (the mock server's fake DCGM exporter).
func (r *Run) simulatedGPUs() bool {
	for _, g := range r.GPU {
		if g.Simulated {
			return true
		}
	}
	return false
}

// simulatedTitle is the suffix of the title of a chart drawn from
// simulated GPUs' figures.
const simulatedTitle = " (simulated GPUs)"

// Interval returns the confidence interval of a statistic across the
// run's repeated runs at level: from the per-run summaries when they are
// known (a Student-t interval, as AIPerf's), else from the aggregate's own
// interval. n is the number of runs.
func (r *Run) Interval(metric, stat string, level float64) (lo, hi float64, n int, ok bool) {
	if vals := r.trialValues(metric, stat); len(vals) >= 2 {
		ci := stats.ConfidenceOf(vals, level)
		return ci.CILow, ci.CIHigh, ci.N, ci.N >= 2
	}
	if r.Aggregate != nil {
		if iv, found := r.Aggregate.Interval(metric, stat); found && !math.IsNaN(iv.CILow) && !math.IsNaN(iv.CIHigh) {
			return iv.CILow, iv.CIHigh, r.Aggregate.NumSuccessful, true
		}
	}
	return 0, 0, 0, false
}

// trialValues are a statistic's values across the per-run summaries.
func (r *Run) trialValues(metric, stat string) []float64 {
	var out []float64
	for _, s := range r.Trials {
		t := &Run{Summary: s, GPU: r.GPU}
		if v, ok := t.Value(metric, stat); ok {
			out = append(out, v)
		}
	}
	return out
}

// Unit is a metric's display unit, "" when unknown.
func (r *Run) Unit(metric string) string {
	if r.Summary != nil {
		if u := r.Summary.Unit(metric); u != "" {
			return u
		}
	}
	if r.Aggregate != nil {
		for _, stat := range []string{"avg", "p50", "p99"} {
			if iv, ok := r.Aggregate.Interval(metric, stat); ok && iv.Unit != "" {
				return iv.Unit
			}
		}
	}
	if base, ok := strings.CutSuffix(metric, "_per_gpu"); ok && r.gpuCount() > 0 {
		if u := r.Unit(base); u != "" {
			return u + "/gpu"
		}
	}
	return ""
}

// FindRuns expands paths into run directories as AIPerf's plot does: a
// directory holding profile_export.jsonl and profile_export_aiperf.json is
// a run, and so is one holding a confidence aggregate (unless it only
// shadows a sibling run); directories are searched recursively, skipping
// profile_runs/ when an aggregate/ beside it stands for those runs. The
// result is sorted and free of duplicates. Each path must exist and hold
// at least one run.
func FindRuns(paths []string) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("path does not exist: %s", p)
		}
		if !fi.IsDir() {
			return nil, fmt.Errorf("path is not a directory: %s", p)
		}
		var found []string
		real, _ := filepath.EvalSymlinks(p)
		again := seen[real]
		walkRuns(p, seen, &found, 0)
		if len(found) == 0 && !again {
			return nil, fmt.Errorf("%s holds no run: no %s with %s, nor %s, in it or below it", p, results.RecordsName, results.SummaryName, results.AggregateName)
		}
		out = append(out, found...)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// maxRunDepth bounds the search below a path.
const maxRunDepth = 8

func walkRuns(dir string, seen map[string]bool, out *[]string, depth int) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil || seen[real] || depth > maxRunDepth {
		return
	}
	seen[real] = true
	if isRunDir(dir) {
		*out = append(*out, dir)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	hasAggregate := isDir(filepath.Join(dir, "aggregate"))
	for _, e := range entries {
		sub := filepath.Join(dir, e.Name())
		if !isDir(sub) || (e.Name() == "profile_runs" && hasAggregate) {
			continue
		}
		walkRuns(sub, seen, out, depth+1)
	}
}

func isRunDir(dir string) bool {
	if fileExists(filepath.Join(dir, results.RecordsName)) && fileExists(filepath.Join(dir, results.SummaryName)) {
		return true
	}
	if !fileExists(filepath.Join(dir, results.AggregateName)) {
		return false
	}
	// A one-trial sweep writes <cell>/ and aggregate/<cell>/ (or
	// <cell>/aggregate/): the aggregate only shadows the run.
	if filepath.Base(dir) == "aggregate" && fileExists(filepath.Join(filepath.Dir(dir), results.RecordsName)) {
		return false
	}
	parent := filepath.Dir(dir)
	if filepath.Base(parent) == "aggregate" && fileExists(filepath.Join(filepath.Dir(parent), filepath.Base(dir), results.RecordsName)) {
		return false
	}
	return true
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// LoadOptions tune LoadRun.
type LoadOptions struct {
	// Requests loads the per-request records (single-run plots need them).
	Requests bool
	// Classification, when set, fills ExperimentType.
	Classification *Classification
}

// LoadRun reads one run directory.
func LoadRun(dir string, o LoadOptions) (*Run, error) {
	r := &Run{Dir: dir, Name: filepath.Base(dir)}
	if p := filepath.Join(dir, results.SummaryName); fileExists(p) {
		s, err := results.ReadSummary(p)
		if err != nil {
			return nil, err
		}
		r.Summary = s
		r.InputConfig = readInputConfig(p)
	}
	if p := filepath.Join(dir, results.AggregateName); fileExists(p) {
		a, err := results.ReadAggregate(p)
		if err != nil {
			return nil, err
		}
		r.Aggregate = a
		r.readAggregateMeta(p)
		r.Trials = trialSummaries(dir)
		if r.Summary == nil && len(r.Trials) > 0 {
			r.InputConfig = readInputConfig(r.Trials[0].Path)
		}
	}
	if r.Summary == nil && r.Aggregate == nil {
		return nil, fmt.Errorf("%s: neither %s nor %s", dir, results.SummaryName, results.AggregateName)
	}
	if r.Name == "aggregate" {
		r.Name = filepath.Base(filepath.Dir(dir)) // <variation>/aggregate
	}
	r.fillMeta()
	if o.Classification != nil {
		r.ExperimentType = o.Classification.Classify(r.Name)
	} else {
		r.ExperimentType = "treatment"
	}
	if o.Requests {
		if p := filepath.Join(dir, results.RecordsName); fileExists(p) {
			reqs, err := readRequests(p)
			if err != nil {
				return nil, err
			}
			r.Requests = reqs
		}
		if ts, err := readTimeslices(dir); err != nil {
			return nil, err
		} else {
			r.Slices = ts
		}
	}
	if p := filepath.Join(dir, gpuTelemetryName); fileExists(p) {
		g, err := readGPUTelemetry(p)
		if err != nil {
			return nil, err
		}
		r.GPU = g
	}
	return r, nil
}

// readInputConfig returns a summary's input_config block, nil when none.
func readInputConfig(path string) json.RawMessage {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var doc struct {
		InputConfig json.RawMessage `json:"input_config"`
	}
	if json.Unmarshal(b, &doc) != nil {
		return nil
	}
	return doc.InputConfig
}

// readAggregateMeta reads the variation label and values an aggregate's
// metadata carries in a sweep.
func (r *Run) readAggregateMeta(path string) {
	b, err := os.ReadFile(path)
	if err != nil {
		return
	}
	var doc struct {
		Metadata struct {
			Label  string         `json:"variation_label"`
			Values map[string]any `json:"variation_values"`
		} `json:"metadata"`
	}
	if json.Unmarshal(b, &doc) != nil {
		return
	}
	r.Label = doc.Metadata.Label
	for k, v := range doc.Metadata.Values {
		if r.VariationValues == nil {
			r.VariationValues = map[string]any{}
		}
		r.VariationValues[paramName(k)] = v
	}
}

// paramName is a sweep parameter's short name: its path's last segment,
// or the one before a generic last segment ("...prompts.isl.mean" is isl).
func paramName(path string) string {
	parts := strings.Split(path, ".")
	name := parts[len(parts)-1]
	if len(parts) > 1 && (name == "mean" || name == "value" || name == "values") {
		name = parts[len(parts)-2]
	}
	return name
}

// trialSummaries finds the per-run summaries behind an aggregate
// directory in the layouts ours and AIPerf's write: <base>/aggregate with
// <base>/profile_runs/*/, <cell>/aggregate with <cell>/profile_runs/*/,
// and <base>/aggregate/<cell> with <base>/profile_runs/*/<cell>/.
func trialSummaries(dir string) []*results.Summary {
	var patterns []string
	if filepath.Base(dir) == "aggregate" {
		patterns = append(patterns, filepath.Join(filepath.Dir(dir), "profile_runs", "*", results.SummaryName))
	}
	if parent := filepath.Dir(dir); filepath.Base(parent) == "aggregate" {
		patterns = append(patterns, filepath.Join(filepath.Dir(parent), "profile_runs", "*", filepath.Base(dir), results.SummaryName))
	}
	var out []*results.Summary
	for _, pat := range patterns {
		paths, _ := filepath.Glob(pat)
		slices.Sort(paths)
		for _, p := range paths {
			if s, err := results.ReadSummary(p); err == nil {
				out = append(out, s)
			}
		}
	}
	return out
}

var concurrencyInPath = regexp.MustCompile(`(?:^|[^a-z])concurrency[_=-]?(\d+)`)

// fillMeta fills Model, Concurrency and Label from the configuration,
// the sweep values and the path.
func (r *Run) fillMeta() {
	cfg := results.RunConfig{}
	switch {
	case r.Summary != nil:
		cfg = r.Summary.Run
	case len(r.Trials) > 0:
		cfg = r.Trials[0].Run
	}
	r.Model, r.Concurrency = cfg.Model, cfg.Concurrency
	if v, ok := r.VariationValues["concurrency"].(float64); ok && v >= 1 {
		r.Concurrency = int(v)
	}
	if r.Concurrency == 0 {
		if m := concurrencyInPath.FindStringSubmatch(strings.ToLower(r.Dir)); m != nil {
			r.Concurrency, _ = strconv.Atoi(m[1])
		}
	}
	if r.Label == "" {
		r.Label = r.Name
	}
}

// Field returns a run's value of a labels/groups column: model,
// concurrency, experiment_type, run_name, a sweep parameter, or a
// configuration value such as isl; "" when unknown.
func (r *Run) Field(name string) string {
	switch name {
	case "model":
		return r.Model
	case "concurrency":
		if r.Concurrency > 0 {
			return strconv.Itoa(r.Concurrency)
		}
		return ""
	case "experiment_type":
		return r.ExperimentType
	case "run_name", "name":
		return r.Name
	case "label", "variation_label":
		return r.Label
	}
	if v, ok := r.VariationValues[name]; ok {
		return fmt.Sprint(v)
	}
	cfg := results.RunConfig{}
	if r.Summary != nil {
		cfg = r.Summary.Run
	} else if len(r.Trials) > 0 {
		cfg = r.Trials[0].Run
	}
	switch name {
	case "isl":
		if cfg.ISL > 0 {
			return strconv.FormatFloat(cfg.ISL, 'f', -1, 64)
		}
	case "osl":
		if cfg.OSL > 0 {
			return strconv.FormatFloat(cfg.OSL, 'f', -1, 64)
		}
	case "request_rate":
		if cfg.RequestRate > 0 {
			return strconv.FormatFloat(cfg.RequestRate, 'f', -1, 64)
		}
	case "endpoint_type":
		return cfg.EndpointType
	}
	return ""
}
