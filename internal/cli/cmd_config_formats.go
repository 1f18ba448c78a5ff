package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/goccy/go-yaml"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/configfile"
	"github.com/aiperf-go/aiperf/internal/experiment"
)

// expandFormats are `config expand --format` choices, AIPerf's.
var expandFormats = []string{"text", "yaml", "json"}

// usageErrorf is a command-line mistake: exit code 2 with the message.
func usageErrorf(format string, args ...any) error {
	return &config.ExitError{Code: config.ExitUsage, Err: fmt.Errorf(format, args...)}
}

// sweepClassNames are the sweep_type values AIPerf's expand prints (its
// sweep classes' names; "none" without a sweep).
var sweepClassNames = map[string]string{
	"": "none", configfile.SweepGrid: "GridSweep", configfile.SweepZip: "ZipSweep",
	configfile.SweepScenarios: "ScenarioSweep", configfile.SweepAdaptive: "AdaptiveSearchSweep",
}

// expandDoc is AIPerf 0.13's `config expand -f json|yaml` document.
type expandDoc struct {
	SweepType  string          `json:"sweep_type"`
	Variations []expandVariant `json:"variations"`
}

// expandVariant is one variation: values maps each varied dot path to its
// value; benchmark (with --full) is this implementation's resolved
// configuration, not AIPerf's BenchmarkConfig body (docs/aiperf-compat.md).
type expandVariant struct {
	Index     int             `json:"index"`
	DirName   string          `json:"dir_name"`
	Label     string          `json:"label"`
	Values    json.RawMessage `json:"values"`
	Benchmark *config.Config  `json:"benchmark,omitempty"`
}

// writeVariationsDoc prints the variations as AIPerf's JSON or YAML
// document; maps keep the order the sweep gives.
func writeVariationsDoc(w io.Writer, format, sweepType string, vars []config.Variation, full bool, index int) error {
	doc := expandDoc{SweepType: sweepClassNames[sweepType], Variations: []expandVariant{}}
	for i := range vars {
		v := &vars[i]
		if index >= 0 && v.Index != index {
			continue
		}
		e := expandVariant{Index: v.Index, DirName: experiment.VariationDirName(v), Label: experiment.VariationLabel(v), Values: orderedValues(v.Params)}
		if sweepType == "" {
			e.DirName = "base" // AIPerf's single variation
		}
		if full {
			e.Benchmark = &v.Config
		}
		doc.Variations = append(doc.Variations, e)
	}
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("config expand: %w", err)
	}
	if format == "yaml" {
		if data, err = yaml.JSONToYAML(data); err != nil {
			return fmt.Errorf("config expand: %w", err)
		}
	} else {
		data = append(data, '\n')
	}
	_, err = w.Write(data)
	return err
}

// orderedValues is {path: value, ...} in sweep order.
func orderedValues(ps []config.Param) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, p := range ps {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(p.Path)
		v, err := json.Marshal(p.Value)
		if err != nil {
			v = []byte("null")
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes()
}
