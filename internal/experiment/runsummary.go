package experiment

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
)

// statKeys are the per-metric statistics that multi-run aggregation
// combines, in AIPerf's order (STAT_KEYS).
var statKeys = []string{"avg", "min", "max", "sum", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "std"}

// percentileKeys are the percentile statistics a single-trial sweep cell
// carries through.
var percentileKeys = []string{"p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99"}

// runMetric is one metric of a finished run's profile_export_aiperf.json:
// its unit and the statistics it has (avg, min, p99, count, ...).
type runMetric struct {
	Tag   string
	Unit  string
	Stats map[string]float64
}

// runSummary is what the experiment runner reads back from a run's summary
// JSON: the metrics in file order.
type runSummary struct {
	Metrics []runMetric
}

// metric returns the metric tagged tag.
func (s *runSummary) metric(tag string) (*runMetric, bool) {
	for i := range s.Metrics {
		if s.Metrics[i].Tag == tag {
			return &s.Metrics[i], true
		}
	}
	return nil, false
}

// readRunSummary reads a run's summary JSON. As AIPerf, every top-level
// object with a "unit" is a metric; other keys (input_config, run_info,
// error_summary, ...) are skipped.
func readRunSummary(path string) (*runSummary, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseRunSummary(data)
}

// parseRunSummary is readRunSummary's parser; metrics keep the file's
// order.
func parseRunSummary(data []byte) (*runSummary, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("summary JSON: %w", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("summary JSON: not an object")
	}
	s := &runSummary{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("summary JSON: %w", err)
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("summary JSON: %q: %w", key, err)
		}
		if len(raw) == 0 || raw[0] != '{' {
			continue
		}
		var fields map[string]any
		if err := json.Unmarshal(raw, &fields); err != nil {
			continue
		}
		unit, ok := fields["unit"].(string)
		if !ok {
			continue
		}
		m := runMetric{Tag: key, Unit: unit, Stats: map[string]float64{}}
		for k, v := range fields {
			if f, ok := v.(float64); ok {
				m.Stats[k] = f
			}
		}
		s.Metrics = append(s.Metrics, m)
	}
	return s, nil
}
