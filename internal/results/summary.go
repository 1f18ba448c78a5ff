// Package results reads finished benchmarks back from their artifacts:
// the summary JSON of a run (profile_export_aiperf.json), the confidence
// aggregate of repeated runs, the sweep aggregate, and the per-request
// JSONL. It reads this tool's artifacts and AIPerf's alike (they share
// names and shapes), so everything that looks at results after the fact,
// the experiment runner, `aiperf compare`, the verdicts and the metric
// views, reads them one way.
//
// The package imports nothing from this module: it knows file shapes, not
// how they were produced.
package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
)

// Metric is one metric of a run's summary: its display unit and the
// statistics it has (avg, min, p99, count, ...). Aggregate metrics
// (throughputs, counts) carry their value as "avg", as AIPerf writes them.
type Metric struct {
	Tag   string
	Unit  string
	Stats map[string]float64
}

// Summary is a run's summary JSON, read back: the metrics in file order
// and the facts about the run that later readers need.
type Summary struct {
	Metrics []Metric
	// Version is aiperf_version (this tool's or AIPerf's).
	Version string
	// BenchmarkID is benchmark_id.
	BenchmarkID string
	// Run describes the configuration, from input_config; zero fields are
	// unknown.
	Run RunConfig
	// Start and End are start_time and end_time as written (ISO 8601).
	Start, End string
	// CLICommand and SweepID come from run_info.
	CLICommand, SweepID string
	// InputConfig is the input_config block as written; nil without one.
	InputConfig json.RawMessage
	// Producer is "aiperf-go" for this tool's summaries (they carry
	// client_health) and "aiperf" otherwise.
	Producer string
	// Path is the file the summary was read from; empty when parsed from
	// bytes.
	Path string
	// OverSaturation is the over_saturation member (--over-saturation);
	// nil when the run did not watch for a server past its capacity.
	OverSaturation *OverSaturation
}

// OverSaturation is a run's over-saturation verdict as its summary
// writes it: the mode, whether the server fell behind (and, in enforce
// mode, the phase was stopped), and the slopes and margins it was judged
// from.
type OverSaturation struct {
	Mode          string `json:"mode"`
	Stopped       bool   `json:"stopped"`
	OverSaturated bool   `json:"is_over_saturated"`
	// ConcurrentSlope is the in-flight count's rise per second and
	// ConcurrentMOE its relative margin of error; TTFTSlope the time to
	// first token's rise in seconds per second, TTFTMOE its margin.
	ConcurrentSlope float64 `json:"concurrent_slope"`
	ConcurrentMOE   float64 `json:"concurrent_slope_moe"`
	TTFTSlope       float64 `json:"ttft_slope"`
	TTFTMOE         float64 `json:"ttft_slope_moe"`
	// Seconds is the run time the verdict was taken at.
	Seconds float64 `json:"seconds"`
}

// RunConfig is what a summary's input_config (AIPerf's config v2 layout,
// which this tool writes too) says about the run.
type RunConfig struct {
	Model        string  // models.items[0].name
	EndpointType string  // endpoint.type
	Streaming    bool    // endpoint.streaming
	Concurrency  int     // the profiling phase's concurrency; 0 when not set
	RequestRate  float64 // the profiling phase's rate; 0 when not set
	ISL          float64 // datasets[0].prompts.isl.mean; 0 when unknown
	OSL          float64 // datasets[0].prompts.osl.mean; 0 when unknown
	// ISLStddev and OSLStddev are the prompts' configured spreads.
	ISLStddev, OSLStddev float64
	// DatasetType is datasets[0].type (synthetic, file, public, ...).
	DatasetType string
}

// Get returns the metric tagged tag.
func (s *Summary) Get(tag string) (*Metric, bool) {
	for i := range s.Metrics {
		if s.Metrics[i].Tag == tag {
			return &s.Metrics[i], true
		}
	}
	return nil, false
}

// Value returns stat of metric (an sla.Source).
func (s *Summary) Value(metric, stat string) (float64, bool) {
	m, ok := s.Get(metric)
	if !ok {
		return 0, false
	}
	v, ok := m.Stats[stat]
	return v, ok
}

// Unit returns the display unit of metric, "" when the run lacks it.
func (s *Summary) Unit(metric string) string {
	if m, ok := s.Get(metric); ok {
		return m.Unit
	}
	return ""
}

// ReadSummary reads a run's summary JSON.
func ReadSummary(path string) (*Summary, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s, err := ParseSummary(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	s.Path = path
	return s, nil
}

// ParseSummary parses a summary JSON document. As AIPerf, every top-level
// object with a string "unit" is a metric; metrics keep the file's order.
// Other keys (run_info, error_summary, telemetry_data, ...) are skipped,
// except input_config, which fills Run.
func ParseSummary(data []byte) (*Summary, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("summary JSON: %w", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("summary JSON: not an object")
	}
	s := &Summary{Producer: "aiperf"}
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
		switch key {
		case "aiperf_version":
			_ = json.Unmarshal(raw, &s.Version)
			continue
		case "benchmark_id":
			_ = json.Unmarshal(raw, &s.BenchmarkID)
			continue
		case "input_config":
			s.Run, s.InputConfig = parseRunConfig(raw), raw
			continue
		case "start_time":
			_ = json.Unmarshal(raw, &s.Start)
			continue
		case "end_time":
			_ = json.Unmarshal(raw, &s.End)
			continue
		case "run_info":
			var ri struct {
				CLICommand string `json:"cli_command"`
				SweepID    string `json:"sweep_id"`
			}
			_ = json.Unmarshal(raw, &ri)
			s.CLICommand, s.SweepID = ri.CLICommand, ri.SweepID
			continue
		case "client_health":
			s.Producer = "aiperf-go"
			continue
		case "over_saturation":
			var o OverSaturation
			if json.Unmarshal(raw, &o) == nil {
				s.OverSaturation = &o
			}
			continue
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
		m := Metric{Tag: key, Unit: unit, Stats: map[string]float64{}}
		for k, v := range fields {
			if f, ok := v.(float64); ok {
				m.Stats[k] = f
			}
		}
		s.Metrics = append(s.Metrics, m)
	}
	return s, nil
}

// inputConfig is the part of input_config that RunConfig reads.
type inputConfig struct {
	Models struct {
		Items []struct {
			Name string `json:"name"`
		} `json:"items"`
	} `json:"models"`
	Endpoint struct {
		Type      string `json:"type"`
		Streaming bool   `json:"streaming"`
	} `json:"endpoint"`
	Datasets []struct {
		Type    string `json:"type"`
		Prompts struct {
			ISL *dist `json:"isl"`
			OSL *dist `json:"osl"`
		} `json:"prompts"`
	} `json:"datasets"`
	Phases []struct {
		Name        string  `json:"name"`
		Kind        string  `json:"kind"`
		Concurrency float64 `json:"concurrency"`
		Rate        float64 `json:"rate"`
	} `json:"phases"`
}

// dist is a configured length distribution.
type dist struct {
	Mean   float64 `json:"mean"`
	Stddev float64 `json:"stddev"`
}

// parseRunConfig reads what it can; a malformed block gives a zero
// RunConfig (the metrics still count).
func parseRunConfig(raw []byte) RunConfig {
	var ic inputConfig
	if json.Unmarshal(raw, &ic) != nil {
		return RunConfig{}
	}
	var rc RunConfig
	if len(ic.Models.Items) > 0 {
		rc.Model = ic.Models.Items[0].Name
	}
	rc.EndpointType, rc.Streaming = ic.Endpoint.Type, ic.Endpoint.Streaming
	if len(ic.Datasets) > 0 {
		d := ic.Datasets[0]
		rc.DatasetType = d.Type
		if p := d.Prompts.ISL; p != nil {
			rc.ISL, rc.ISLStddev = p.Mean, p.Stddev
		}
		if p := d.Prompts.OSL; p != nil {
			rc.OSL, rc.OSLStddev = p.Mean, p.Stddev
		}
	}
	for _, ph := range ic.Phases {
		if ph.Kind == "profiling" || (ph.Kind == "" && ph.Name == "profiling") {
			rc.Concurrency, rc.RequestRate = int(ph.Concurrency), ph.Rate
		}
	}
	return rc
}
