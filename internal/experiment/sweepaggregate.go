package experiment

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/aiperf-go/aiperf/internal/sla"
)

// Sweep aggregate artifact names, as AIPerf's.
const (
	sweepJSONName = "profile_export_aiperf_sweep.json"
	sweepCSVName  = "profile_export_aiperf_sweep.csv"
)

// sweepParam is one swept parameter of a variation, under its display
// name (the last path segment unless two parameters share it).
type sweepParam struct {
	Name  string
	Value any
}

// sweepCell is one variation of a sweep and its runs.
type sweepCell struct {
	Params  []sweepParam
	Results []runResult
}

// cellMetric is one entry of a cell's per-metric statistics: Key is the
// metric tag (single-trial cells) or "<tag>_<stat>" (multi-trial cells).
type cellMetric struct {
	Key  string
	Mean float64
	Unit string
	Obj  *jobj
}

// cellStats reduces a cell's runs to per-metric statistics, as AIPerf: one
// run gives that run's values under the metric tags (spread 0); several
// runs give the confidence aggregate under "<tag>_<stat>" keys. A cell
// without usable results gives nil.
func cellStats(results []runResult, level float64) []cellMetric {
	if len(results) == 0 {
		return nil
	}
	if len(results) == 1 {
		r := results[0]
		if !r.ok() {
			return nil
		}
		out := make([]cellMetric, 0, len(r.Summary.Metrics))
		for _, m := range r.Summary.Metrics {
			avg := m.Stats["avg"] // 0 when absent, as AIPerf
			lo, ok := m.Stats["min"]
			if !ok {
				lo = avg
			}
			hi, ok := m.Stats["max"]
			if !ok {
				hi = avg
			}
			o := (&jobj{}).set("mean", avg).set("avg", avg).set("std", 0.0).
				set("min", lo).set("max", hi).set("cv", 0.0).
				set("ci_low", avg).set("ci_high", avg).set("unit", m.Unit)
			for _, k := range percentileKeys {
				if v, ok := m.Stats[k]; ok {
					o.set(k, v)
				}
			}
			if v, ok := m.Stats["count"]; ok {
				o.set("count", intIfWhole(v))
			}
			if v, ok := m.Stats["sum"]; ok {
				o.set("sum", v)
			}
			out = append(out, cellMetric{Key: m.Tag, Mean: avg, Unit: m.Unit, Obj: o})
		}
		return out
	}
	a, ok := aggregateConfidence(results, level)
	if !ok {
		return nil
	}
	out := make([]cellMetric, 0, len(a.Metrics))
	for _, cm := range a.Metrics {
		c := cm.C
		o := (&jobj{}).set("mean", c.Mean).set("std", c.Std).set("min", c.Min).set("max", c.Max).
			set("cv", c.CV).set("ci_low", c.CILow).set("ci_high", c.CIHigh).set("unit", cm.Unit)
		out = append(out, cellMetric{Key: cm.Key, Mean: c.Mean, Unit: cm.Unit, Obj: o})
	}
	return out
}

func intIfWhole(v float64) any {
	if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
		return int(v)
	}
	return v
}

// lookup returns the entry keyed key.
func lookup(ms []cellMetric, key string) (*cellMetric, bool) {
	for i := range ms {
		if ms[i].Key == key {
			return &ms[i], true
		}
	}
	return nil, false
}

// sweepAggregate is the cross-variation summary of a sweep.
type sweepAggregate struct {
	NumRuns, NumSuccessful int
	Failed                 []runResult
	ParamNames             []string
	ParamValues            [][]any // per parameter, the distinct values in first-seen order
	Combos                 []sweepCombo
	Best                   *jobj
	Pareto                 [][]sweepParam
	Mode                   string
	ConfidenceLevel        float64
	TrialsPerValue         int
	// Filters are the SLA filters of the sweep (a search's, a recipe's,
	// sweep.sla_filters): best_configurations come from the feasible
	// combinations (all of them when none is), pareto_optimal only from
	// feasible ones, as AIPerf's SweepAnalyzer; Feasible is per combo.
	Filters  []sla.Filter
	Feasible []bool
}

// sweepCombo is a variation with usable statistics.
type sweepCombo struct {
	Params  []sweepParam
	Metrics []cellMetric
}

// aggregateSweep summarises cells (in sweep order) as AIPerf's
// SweepAnalyzer: per-combination statistics, the best throughput and
// latency configurations, and the throughput/latency Pareto front.
func aggregateSweep(cells []sweepCell, level float64, mode string, filters ...sla.Filter) *sweepAggregate {
	s := &sweepAggregate{Best: &jobj{}, Mode: mode, ConfidenceLevel: level, Filters: filters}
	for _, c := range cells {
		s.NumRuns += len(c.Results)
		s.TrialsPerValue = max(s.TrialsPerValue, len(c.Results))
		for _, r := range c.Results {
			if r.ok() {
				s.NumSuccessful++
			} else {
				s.Failed = append(s.Failed, r)
			}
		}
		for _, p := range c.Params {
			i := slices.Index(s.ParamNames, p.Name)
			if i < 0 {
				s.ParamNames = append(s.ParamNames, p.Name)
				s.ParamValues = append(s.ParamValues, nil)
				i = len(s.ParamNames) - 1
			}
			if !slices.ContainsFunc(s.ParamValues[i], func(v any) bool { return sameValue(v, p.Value) }) {
				s.ParamValues[i] = append(s.ParamValues[i], p.Value)
			}
		}
		if ms := cellStats(c.Results, level); ms != nil {
			s.Combos = append(s.Combos, sweepCombo{Params: c.Params, Metrics: ms})
		}
	}
	for i := range s.Combos {
		s.Feasible = append(s.Feasible, sla.Evaluate(filters, &s.Combos[i]).Pass)
	}
	s.best()
	s.pareto()
	return s
}

// Value reads stat of metric from the combination as AIPerf's SLA filter
// does (an sla.Source): the multi-trial "<tag>_<stat>" mean, else the
// single-trial statistic, else the single-trial mean.
func (c *sweepCombo) Value(metric, stat string) (float64, bool) {
	if v, _, ok := (objective{metric, stat}).value(c); ok {
		return v, true
	}
	if m, ok := lookup(c.Metrics, metric); ok {
		return m.Mean, true
	}
	return 0, false
}

// feasibleCount is how many combinations meet the filters.
func (s *sweepAggregate) feasibleCount() int {
	n := 0
	for _, f := range s.Feasible {
		if f {
			n++
		}
	}
	return n
}

// candidates are the combinations best and pareto choose from: the
// feasible ones; with none feasible, all of them for best (the user still
// sees something) and none for pareto (a front of failures means nothing).
func (s *sweepAggregate) candidates(forPareto bool) []int {
	var out []int
	for i := range s.Combos {
		if len(s.Filters) == 0 || s.Feasible[i] {
			out = append(out, i)
		}
	}
	if len(out) == 0 && !forPareto {
		for i := range s.Combos {
			out = append(out, i)
		}
	}
	return out
}

// objective is one figure a sweep is judged on: a metric tag and the
// statistic of it (throughput's avg, a latency's p99).
type objective struct{ tag, stat string }

var throughputObjective = objective{"request_throughput", "avg"}

// value returns the objective's figure for c and its unit. A multi-trial
// cell has it under "<tag>_<stat>" (the mean over trials); a single-trial
// cell keeps the run's own statistics under the tag, where avg is the
// entry's mean and a percentile its field.
func (o objective) value(c *sweepCombo) (float64, string, bool) {
	if m, ok := lookup(c.Metrics, o.tag+"_"+o.stat); ok {
		return m.Mean, m.Unit, true
	}
	m, ok := lookup(c.Metrics, o.tag)
	if !ok {
		return 0, "", false
	}
	if o.stat == "avg" {
		return m.Mean, m.Unit, true
	}
	v, ok := m.Obj.get(o.stat)
	f, isFloat := v.(float64)
	return f, m.Unit, ok && isFloat
}

// latencyObjective is the latency objective present in every
// combination: TTFT p99 for streaming runs, else request latency p99.
func (s *sweepAggregate) latencyObjective() (objective, bool) {
	for _, o := range []objective{{"time_to_first_token", "p99"}, {"request_latency", "p99"}} {
		if s.allHave(o) {
			return o, true
		}
	}
	return objective{}, false
}

func (s *sweepAggregate) allHave(o objective) bool {
	if len(s.Combos) == 0 {
		return false
	}
	for i := range s.Combos {
		if _, _, ok := o.value(&s.Combos[i]); !ok {
			return false
		}
	}
	return true
}

// best picks the highest-throughput and the lowest-latency combination
// (the first one on ties), for single-trial sweeps as for repeated ones.
func (s *sweepAggregate) best() {
	pick := func(o objective, better func(a, b float64) bool) *jobj {
		var bc *sweepCombo
		var bv float64
		var unit string
		for _, i := range s.candidates(false) {
			v, u, _ := o.value(&s.Combos[i])
			if bc == nil || better(v, bv) {
				bc, bv, unit = &s.Combos[i], v, u
			}
		}
		return (&jobj{}).set("parameters", paramsObj(bc.Params)).set("metric", bv).set("unit", unit)
	}
	if s.allHave(throughputObjective) {
		s.Best.set("best_throughput", pick(throughputObjective, func(a, b float64) bool { return a > b }))
	}
	if o, ok := s.latencyObjective(); ok {
		s.Best.set("best_latency_p99", pick(o, func(a, b float64) bool { return a < b }))
	}
}

// pareto finds the combinations no other beats on both throughput (max)
// and latency (min), sorted by their (name, value) pairs.
func (s *sweepAggregate) pareto() {
	lat, ok := s.latencyObjective()
	if !s.allHave(throughputObjective) || !ok {
		return
	}
	val := func(c *sweepCombo) (float64, float64) {
		t, _, _ := throughputObjective.value(c)
		l, _, _ := lat.value(c)
		return t, l
	}
	cands := s.candidates(true)
	for _, i := range cands {
		ti, li := val(&s.Combos[i])
		dominated := false
		for _, j := range cands {
			if i == j {
				continue
			}
			tj, lj := val(&s.Combos[j])
			if tj >= ti && lj <= li && (tj > ti || lj < li) {
				dominated = true
				break
			}
		}
		if !dominated {
			s.Pareto = append(s.Pareto, s.Combos[i].Params)
		}
	}
	slices.SortStableFunc(s.Pareto, func(a, b []sweepParam) int { return compareParams(sortedParams(a), sortedParams(b)) })
}

func sortedParams(ps []sweepParam) []sweepParam {
	out := slices.Clone(ps)
	slices.SortStableFunc(out, func(a, b sweepParam) int { return strings.Compare(a.Name, b.Name) })
	return out
}

func compareParams(a, b []sweepParam) int {
	for i := range min(len(a), len(b)) {
		if c := strings.Compare(a[i].Name, b[i].Name); c != 0 {
			return c
		}
		if c := compareValues(a[i].Value, b[i].Value); c != 0 {
			return c
		}
	}
	return len(a) - len(b)
}

// compareValues orders numbers numerically and anything else by its text.
func compareValues(a, b any) int {
	fa, okA := number(a)
	fb, okB := number(b)
	if okA && okB {
		switch {
		case fa < fb:
			return -1
		case fa > fb:
			return 1
		}
		return 0
	}
	return strings.Compare(pyStr(a), pyStr(b))
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// sameValue is Python's == on parameter values (1 == 1.0).
func sameValue(a, b any) bool {
	if fa, ok := number(a); ok {
		fb, ok := number(b)
		return ok && fa == fb
	}
	return a == b
}

// slaFilterObj is a filter as AIPerf dumps it.
func slaFilterObj(f sla.Filter) *jobj {
	return (&jobj{}).set("metric_tag", f.Metric).set("stat", f.Stat).set("op", string(f.Op)).set("threshold", f.Threshold)
}

func paramsObj(ps []sweepParam) *jobj {
	o := &jobj{}
	for _, p := range ps {
		o.set(p.Name, jsonValue(p.Value))
	}
	return o
}

// jsonValue converts a parameter value to a JSON tree value.
func jsonValue(v any) any {
	switch x := v.(type) {
	case int64:
		return int(x)
	case float32:
		return float64(x)
	case nil, bool, int, float64, string:
		return x
	}
	return fmt.Sprint(v)
}

// numCombinations is AIPerf's count: the product of the number of
// distinct values of each parameter.
func (s *sweepAggregate) numCombinations() int {
	n := 1
	for _, vs := range s.ParamValues {
		n *= len(vs)
	}
	return n
}

// sweepJSON renders profile_export_aiperf_sweep.json.
func (s *sweepAggregate) sweepJSON() []byte {
	params := make([]any, len(s.ParamNames))
	for i, name := range s.ParamNames {
		vals := make([]any, len(s.ParamValues[i]))
		for j, v := range s.ParamValues[i] {
			vals[j] = jsonValue(v)
		}
		params[i] = (&jobj{}).set("name", name).set("values", vals)
	}
	meta := (&jobj{}).
		set("sweep_parameters", params).
		set("num_combinations", s.numCombinations()).
		set("sweep_mode", s.Mode).
		set("confidence_level", s.ConfidenceLevel).
		set("num_trials_per_value", s.TrialsPerValue).
		set("aggregation_type", "sweep")
	if len(s.Filters) > 0 {
		active := make([]any, len(s.Filters))
		for i, f := range s.Filters {
			active[i] = slaFilterObj(f)
		}
		meta.set("sla_constraints", (&jobj{}).set("active_filters", active).
			set("feasible_count", s.feasibleCount()).set("infeasible_count", len(s.Combos)-s.feasibleCount()))
	}
	combos := make([]any, len(s.Combos))
	for i, c := range s.Combos {
		ms := &jobj{}
		for _, m := range c.Metrics {
			ms.set(m.Key, m.Obj)
		}
		combos[i] = (&jobj{}).set("parameters", paramsObj(c.Params)).set("metrics", ms)
	}
	pareto := make([]any, len(s.Pareto))
	for i, p := range s.Pareto {
		pareto[i] = paramsObj(p)
	}
	doc := (&jobj{}).
		set("aggregation_type", "sweep").
		set("num_profile_runs", s.NumRuns).
		set("num_successful_runs", s.NumSuccessful).
		set("failed_runs", failedRuns(s.Failed)).
		set("metadata", meta).
		set("per_combination_metrics", combos).
		set("best_configurations", s.Best).
		set("pareto_optimal", pareto)
	return marshalIndent(doc)
}

// sweepCSV renders profile_export_aiperf_sweep.csv: one row per
// combination (parameters, then mean/std/min/max/cv of every metric key in
// sorted order), then the best configurations, the Pareto points and the
// metadata, separated by blank lines.
func (s *sweepAggregate) sweepCSV() ([]byte, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.UseCRLF = true
	var rows [][]string
	paramCells := func(ps []sweepParam) []string {
		row := make([]string, len(s.ParamNames))
		for i, name := range s.ParamNames {
			for _, p := range ps {
				if p.Name == name {
					row[i] = pyStr(p.Value)
				}
			}
		}
		return row
	}
	if len(s.Combos) > 0 {
		keys := map[string]bool{}
		for _, c := range s.Combos {
			for _, m := range c.Metrics {
				keys[m.Key] = true
			}
		}
		names := slices.Sorted(maps.Keys(keys))
		header := slices.Clone(s.ParamNames)
		for _, n := range names {
			header = append(header, n+"_mean", n+"_std", n+"_min", n+"_max", n+"_cv")
		}
		rows = append(rows, header)
		for _, c := range s.Combos {
			row := paramCells(c.Params)
			for _, n := range names {
				m, ok := lookup(c.Metrics, n)
				if !ok {
					row = append(row, "", "", "", "", "")
					continue
				}
				row = append(row, objFixed(m.Obj, "mean", 2), objFixed(m.Obj, "std", 2),
					objFixed(m.Obj, "min", 2), objFixed(m.Obj, "max", 2), objFixed(m.Obj, "cv", 4))
			}
			rows = append(rows, row)
		}
	}
	rows = append(rows, nil, []string{"Best Configurations"})
	if len(s.Best.keys) > 0 {
		rows = append(rows, append(append([]string{"Configuration"}, s.ParamNames...), "Metric", "Unit"))
		for _, kv := range s.Best.keys {
			b := kv.v.(*jobj)
			pv, _ := b.get("parameters")
			var ps []sweepParam
			for _, p := range pv.(*jobj).keys {
				ps = append(ps, sweepParam{p.k, p.v})
			}
			metric, _ := b.get("metric")
			unit, _ := b.get("unit")
			row := append([]string{pyTitle(kv.k)}, paramCells(ps)...)
			rows = append(rows, append(row, fixed(metric.(float64), 2), unit.(string)))
		}
	}
	rows = append(rows, nil, []string{"Pareto Optimal Points"})
	if len(s.Pareto) > 0 {
		rows = append(rows, slices.Clone(s.ParamNames))
		for _, p := range s.Pareto {
			rows = append(rows, paramCells(p))
		}
	} else {
		rows = append(rows, []string{"None"})
	}
	rows = append(rows, nil,
		[]string{"Metadata"},
		[]string{"Field", "Value"},
		[]string{"Aggregation Type", "sweep"},
		[]string{"Sweep Parameters", strings.Join(s.ParamNames, ", ")},
		[]string{"Number of Combinations", fmt.Sprint(s.numCombinations())},
		[]string{"Number of Profile Runs", fmt.Sprint(s.NumRuns)},
		[]string{"Number of Successful Runs", fmt.Sprint(s.NumSuccessful)})
	if err := w.WriteAll(rows); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// objFixed formats a float field of a statistics object.
func objFixed(o *jobj, key string, decimals int) string {
	v, ok := o.get(key)
	if !ok {
		return ""
	}
	if f, ok := v.(float64); ok {
		return fixed(f, decimals)
	}
	return pyStr(v)
}

// writeSweepAggregate writes the sweep JSON and CSV into dir.
func writeSweepAggregate(dir string, s *sweepAggregate) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	csvData, err := s.sweepCSV()
	if err != nil {
		return err
	}
	return writeFiles(map[string][]byte{
		filepath.Join(dir, sweepJSONName): s.sweepJSON(),
		filepath.Join(dir, sweepCSVName):  csvData,
	})
}
