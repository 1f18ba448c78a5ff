package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
)

// Interval is one statistic of a metric across repeated runs, as the
// confidence aggregate writes it. Fields the file leaves null are NaN.
type Interval struct {
	Mean, Std, Min, Max, CV, SE, CILow, CIHigh, TCritical float64
	Unit                                                  string
}

// Aggregate is a confidence aggregate (profile_export_aiperf_aggregate.json)
// read back.
type Aggregate struct {
	NumRuns, NumSuccessful int
	ConfidenceLevel        float64
	// Keys are the metric keys "<tag>_<stat>" in file order.
	Keys    []string
	Metrics map[string]Interval
	Path    string
}

// Value returns the mean across runs of stat of metric (an sla.Source).
func (a *Aggregate) Value(metric, stat string) (float64, bool) {
	iv, ok := a.Metrics[metric+"_"+stat]
	if !ok || math.IsNaN(iv.Mean) {
		return 0, false
	}
	return iv.Mean, true
}

// Interval returns the interval of stat of metric.
func (a *Aggregate) Interval(metric, stat string) (Interval, bool) {
	iv, ok := a.Metrics[metric+"_"+stat]
	return iv, ok
}

// ReadAggregate reads a confidence aggregate JSON.
func ReadAggregate(path string) (*Aggregate, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	a, err := ParseAggregate(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	a.Path = path
	return a, nil
}

// ParseAggregate parses a confidence aggregate document.
func ParseAggregate(data []byte) (*Aggregate, error) {
	var doc struct {
		Metadata struct {
			NumRuns         int     `json:"num_profile_runs"`
			NumSuccessful   int     `json:"num_successful_runs"`
			ConfidenceLevel float64 `json:"confidence_level"`
		} `json:"metadata"`
		Metrics json.RawMessage `json:"metrics"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("aggregate JSON: %w", err)
	}
	a := &Aggregate{
		NumRuns: doc.Metadata.NumRuns, NumSuccessful: doc.Metadata.NumSuccessful,
		ConfidenceLevel: doc.Metadata.ConfidenceLevel, Metrics: map[string]Interval{},
	}
	keys, objs, err := orderedObject(doc.Metrics)
	if err != nil {
		return nil, fmt.Errorf("aggregate JSON: metrics: %w", err)
	}
	for i, k := range keys {
		iv, ok := intervalOf(objs[i])
		if !ok {
			continue
		}
		if _, dup := a.Metrics[k]; !dup {
			a.Keys = append(a.Keys, k)
		}
		a.Metrics[k] = iv // a repeated key keeps its last value, as a JSON decoder does
	}
	return a, nil
}

// intervalOf reads {mean, std, ..., unit}; ok is false without a mean key.
func intervalOf(raw json.RawMessage) (Interval, bool) {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return Interval{}, false
	}
	if _, ok := m["mean"]; !ok {
		return Interval{}, false
	}
	num := func(k string) float64 {
		if f, ok := m[k].(float64); ok {
			return f
		}
		return math.NaN()
	}
	unit, _ := m["unit"].(string)
	return Interval{
		Mean: num("mean"), Std: num("std"), Min: num("min"), Max: num("max"), CV: num("cv"),
		SE: num("se"), CILow: num("ci_low"), CIHigh: num("ci_high"), TCritical: num("t_critical"), Unit: unit,
	}, true
}

// orderedObject splits a JSON object into its keys (in order) and raw
// values; null or absent gives nothing.
func orderedObject(raw json.RawMessage) ([]string, []json.RawMessage, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil, nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, nil, fmt.Errorf("not an object")
	}
	var keys []string
	var vals []json.RawMessage
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, err
		}
		keys = append(keys, tok.(string))
		vals = append(vals, v)
	}
	return keys, vals, nil
}

// SplitKey splits an aggregate key "<tag>_<stat>" at its last "_" when
// the suffix is a known statistic: "time_to_first_token_p99" ->
// ("time_to_first_token", "p99").
func SplitKey(key string) (tag, stat string, ok bool) {
	i := strings.LastIndexByte(key, '_')
	if i <= 0 {
		return "", "", false
	}
	switch s := key[i+1:]; s {
	case "avg", "min", "max", "sum", "std", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99":
		return key[:i], s, true
	}
	return "", "", false
}
