package results

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
)

// Param is one swept parameter of a sweep point, under the sweep
// aggregate's display name (concurrency, isl, ...).
type Param struct {
	Name  string
	Value any // float64, string or bool as JSON decodes it
}

// Point is one combination of a sweep aggregate: its parameters and its
// metrics. A single-trial sweep keys metrics by tag (with avg, p99, ...
// inside); a multi-trial one by "<tag>_<stat>" (with mean, std, ...).
type Point struct {
	Params  []Param
	Metrics map[string]map[string]any
}

// Value returns stat of metric at this point (an sla.Source), reading
// either layout as AIPerf's SLA filter does: "<tag>_<stat>".mean first,
// then "<tag>".<stat>, then "<tag>".mean.
func (p *Point) Value(metric, stat string) (float64, bool) {
	num := func(m map[string]any, k string) (float64, bool) {
		f, ok := m[k].(float64)
		return f, ok && !math.IsNaN(f)
	}
	if m, ok := p.Metrics[metric+"_"+stat]; ok {
		if v, ok := num(m, "mean"); ok {
			return v, true
		}
	}
	if m, ok := p.Metrics[metric]; ok {
		if v, ok := num(m, stat); ok {
			return v, true
		}
		return num(m, "mean")
	}
	return 0, false
}

// Param returns the value of the parameter named name as a number.
func (p *Point) Param(name string) (float64, bool) {
	for _, q := range p.Params {
		if q.Name == name {
			f, ok := q.Value.(float64)
			return f, ok
		}
	}
	return 0, false
}

// Label is "name=value, ..." for people.
func (p *Point) Label() string {
	s := ""
	for i, q := range p.Params {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%s=%v", q.Name, q.Value)
	}
	return s
}

// Sweep is a sweep aggregate (profile_export_aiperf_sweep.json) read back.
type Sweep struct {
	ParamNames []string
	Points     []Point
	Path       string
}

// ReadSweep reads a sweep aggregate JSON.
func ReadSweep(path string) (*Sweep, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s, err := ParseSweep(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	s.Path = path
	return s, nil
}

// ParseSweep parses a sweep aggregate document; parameters keep their
// order in the file.
func ParseSweep(data []byte) (*Sweep, error) {
	var doc struct {
		Metadata struct {
			Params []struct {
				Name string `json:"name"`
			} `json:"sweep_parameters"`
		} `json:"metadata"`
		Combos []struct {
			Parameters json.RawMessage           `json:"parameters"`
			Metrics    map[string]map[string]any `json:"metrics"`
		} `json:"per_combination_metrics"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("sweep JSON: %w", err)
	}
	s := &Sweep{}
	for _, p := range doc.Metadata.Params {
		s.ParamNames = append(s.ParamNames, p.Name)
	}
	for i, c := range doc.Combos {
		keys, vals, err := orderedObject(c.Parameters)
		if err != nil {
			return nil, fmt.Errorf("sweep JSON: combination %d: parameters: %w", i, err)
		}
		pt := Point{Metrics: c.Metrics}
		for j, k := range keys {
			var v any
			if err := json.Unmarshal(vals[j], &v); err != nil {
				return nil, fmt.Errorf("sweep JSON: combination %d: %s: %w", i, k, err)
			}
			pt.Params = append(pt.Params, Param{Name: k, Value: v})
		}
		s.Points = append(s.Points, pt)
	}
	return s, nil
}
