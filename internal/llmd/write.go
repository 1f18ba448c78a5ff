package llmd

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/goccy/go-yaml"

	"github.com/aiperf-go/aiperf/internal/metrics/stats"
	"github.com/aiperf-go/aiperf/internal/results"
)

// Marshal renders the report as YAML.
func (r *Report) Marshal() ([]byte, error) {
	b, err := yaml.MarshalWithOptions(r, yaml.Indent(2), yaml.IndentSequence(true))
	if err != nil {
		return nil, fmt.Errorf("llm-d report: %w", err)
	}
	return append([]byte("# llm-d benchmark report v"+Version+" (llm-d-benchmark schema_v0_2.py)\n"), b...), nil
}

// FromFiles builds the report of a run from its summary JSON and, when
// recordsPath exists, NTPOT from its per-request records.
func FromFiles(summaryPath, recordsPath string, o Options) (*Report, error) {
	s, err := results.ReadSummary(summaryPath)
	if err != nil {
		return nil, err
	}
	if o.NTPOT == nil && recordsPath != "" {
		m, err := NTPOT(recordsPath)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return nil, err
		default:
			o.NTPOT = m
		}
	}
	return Build(s, o)
}

// FromRunDir is FromFiles for a run directory with AIPerf's file names.
func FromRunDir(dir string, o Options) (*Report, error) {
	return FromFiles(filepath.Join(dir, results.SummaryName), filepath.Join(dir, results.RecordsName), o)
}

// Write builds the report from the run's files and writes it to out.
func Write(summaryPath, recordsPath, out string, o Options) error {
	r, err := FromFiles(summaryPath, recordsPath, o)
	if err != nil {
		return err
	}
	b, err := r.Marshal()
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, b, 0o644); err != nil {
		return fmt.Errorf("llm-d report: %w", err)
	}
	return nil
}

// NTPOT is the normalized time per output token of each successful
// profiling request, request_latency / output tokens, summarised as a
// metric in ms with numpy-linear percentiles; nil when no request had
// tokens.
func NTPOT(recordsPath string) (*results.Metric, error) {
	var vals []float64
	err := results.ReadRecords(recordsPath, func(r *results.Record) error {
		if r.Failed || (r.Phase != "" && r.Phase != "profiling") {
			return nil
		}
		e2e, ok1 := r.Scalar("request_latency")
		n, ok2 := r.Scalar("output_sequence_length")
		if ok1 && ok2 && n >= 1 {
			vals = append(vals, e2e/n)
		}
		return nil
	})
	if err != nil || len(vals) == 0 {
		return nil, err
	}
	sm := stats.Summarize(vals)
	return &results.Metric{Tag: "ntpot", Unit: "ms", Stats: map[string]float64{
		"avg": sm.Avg, "std": sm.Std, "min": sm.Min, "max": sm.Max,
		"p1": sm.P1, "p5": sm.P5, "p10": sm.P10, "p25": sm.P25, "p50": sm.P50,
		"p75": sm.P75, "p90": sm.P90, "p95": sm.P95, "p99": sm.P99,
	}}, nil
}
