// Package llmd writes a finished run as an llm-d benchmark report, the
// "universal" result format of llm-d-benchmark, so results from this tool
// (or from AIPerf: it reads either's summary) drop into llm-d tooling
// (llm-d-prism, the results store, its plotting).
//
// The schema implemented is benchmark report v0.2, as defined by
// llmdbenchmark/analysis/benchmark_report/schema_v0_2.py in
// github.com/llm-d/llm-d-benchmark at commit 8bc9f1dd (2026-08-21). A v0.2
// report is also valid under v0.2.1, which only adds optional fields.
//
// Definitions follow the schema's own notes: TPOT is per request
// (request_latency - TTFT) / (output tokens - 1), which is AIPerf's
// inter_token_latency; ITL is the latency between consecutive tokens
// aggregated over all of them, which is AIPerf's pooled
// inter_chunk_latency; NTPOT (request_latency / output tokens per request)
// needs the per-request records and is written when they exist. Latencies
// are in seconds, as llm-d's own reports and importers write them.
package llmd

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strconv"

	"github.com/aiperf-go/aiperf/internal/results"
)

// Version is the benchmark report schema version written.
const Version = "0.2"

// FileName is the report's file name in an artifact directory.
const FileName = "benchmark_report.yaml"

// Report is a benchmark report v0.2. Optional parts are pointers, left
// out when nil.
type Report struct {
	Version  string   `yaml:"version" json:"version"`
	Run      Run      `yaml:"run" json:"run"`
	Scenario Scenario `yaml:"scenario" json:"scenario"`
	Results  Results  `yaml:"results" json:"results"`
}

// Run identifies the benchmark run.
type Run struct {
	UID         string   `yaml:"uid" json:"uid"`
	EID         string   `yaml:"eid,omitempty" json:"eid,omitempty"`
	Time        *RunTime `yaml:"time,omitempty" json:"time,omitempty"`
	Description string   `yaml:"description,omitempty" json:"description,omitempty"`
}

// RunTime is when the run happened.
type RunTime struct {
	Start    string `yaml:"start,omitempty" json:"start,omitempty"`
	End      string `yaml:"end,omitempty" json:"end,omitempty"`
	Duration string `yaml:"duration,omitempty" json:"duration,omitempty"` // ISO 8601, "PT12.5S"
}

// Scenario is the workload (the stack, unknown to a client, is left out:
// it is optional).
type Scenario struct {
	Load Load `yaml:"load" json:"load"`
}

// Load is the workload generator and its settings.
type Load struct {
	Metadata     LoadMetadata     `yaml:"metadata" json:"metadata"`
	Standardized LoadStandardized `yaml:"standardized" json:"standardized"`
	Native       LoadNative       `yaml:"native" json:"native"`
}

// LoadMetadata describes the workload configuration.
type LoadMetadata struct {
	SchemaVersion string `yaml:"schema_version" json:"schema_version"`
	CfgID         string `yaml:"cfg_id,omitempty" json:"cfg_id,omitempty"`
	Description   string `yaml:"description,omitempty" json:"description,omitempty"`
}

// LoadStandardized is the workload in llm-d's common terms.
type LoadStandardized struct {
	Tool         string          `yaml:"tool" json:"tool"`
	ToolVersion  string          `yaml:"tool_version" json:"tool_version"`
	Source       string          `yaml:"source" json:"source"` // random | sampled
	InputSeqLen  SequenceLength  `yaml:"input_seq_len" json:"input_seq_len"`
	OutputSeqLen *SequenceLength `yaml:"output_seq_len,omitempty" json:"output_seq_len,omitempty"`
	RateQPS      *float64        `yaml:"rate_qps,omitempty" json:"rate_qps,omitempty"`
	Concurrency  *int            `yaml:"concurrency,omitempty" json:"concurrency,omitempty"`
}

// SequenceLength is a length distribution.
type SequenceLength struct {
	Distribution string   `yaml:"distribution" json:"distribution"` // fixed | gaussian | random | other
	Value        float64  `yaml:"value" json:"value"`
	StdDev       *float64 `yaml:"std_dev,omitempty" json:"std_dev,omitempty"`
	Min          *int     `yaml:"min,omitempty" json:"min,omitempty"`
	Max          *int     `yaml:"max,omitempty" json:"max,omitempty"`
}

// LoadNative is the generator's own configuration: the summary's
// input_config.
type LoadNative struct {
	Config any `yaml:"config,omitempty" json:"config,omitempty"`
}

// Results holds the request performance.
type Results struct {
	RequestPerformance RequestPerformance `yaml:"request_performance" json:"request_performance"`
}

// RequestPerformance holds the aggregate statistics.
type RequestPerformance struct {
	Aggregate Aggregate `yaml:"aggregate" json:"aggregate"`
}

// Aggregate is the run's request statistics.
type Aggregate struct {
	Requests   Requests   `yaml:"requests" json:"requests"`
	Latency    Latency    `yaml:"latency" json:"latency"`
	Throughput Throughput `yaml:"throughput" json:"throughput"`
}

// Requests counts requests and their lengths.
type Requests struct {
	Total        int         `yaml:"total" json:"total"`
	Failures     *int        `yaml:"failures,omitempty" json:"failures,omitempty"`
	InputLength  *Statistics `yaml:"input_length,omitempty" json:"input_length,omitempty"`
	OutputLength *Statistics `yaml:"output_length,omitempty" json:"output_length,omitempty"`
}

// Latency are the latency distributions.
type Latency struct {
	TimeToFirstToken             *Statistics `yaml:"time_to_first_token,omitempty" json:"time_to_first_token,omitempty"`
	NormalizedTimePerOutputToken *Statistics `yaml:"normalized_time_per_output_token,omitempty" json:"normalized_time_per_output_token,omitempty"`
	TimePerOutputToken           *Statistics `yaml:"time_per_output_token,omitempty" json:"time_per_output_token,omitempty"`
	InterTokenLatency            *Statistics `yaml:"inter_token_latency,omitempty" json:"inter_token_latency,omitempty"`
	RequestLatency               *Statistics `yaml:"request_latency,omitempty" json:"request_latency,omitempty"`
}

// Throughput are the rates of the node.
type Throughput struct {
	InputTokenRate  *Statistics `yaml:"input_token_rate,omitempty" json:"input_token_rate,omitempty"`
	OutputTokenRate *Statistics `yaml:"output_token_rate,omitempty" json:"output_token_rate,omitempty"`
	TotalTokenRate  *Statistics `yaml:"total_token_rate,omitempty" json:"total_token_rate,omitempty"`
	RequestRate     *Statistics `yaml:"request_rate,omitempty" json:"request_rate,omitempty"`
}

// Statistics is a distribution in the schema's units ("count", "s",
// "s/token", "tokens/s", "queries/s").
type Statistics struct {
	Units  string   `yaml:"units" json:"units"`
	Mean   float64  `yaml:"mean" json:"mean"`
	StdDev *float64 `yaml:"stddev,omitempty" json:"stddev,omitempty"`
	Min    *float64 `yaml:"min,omitempty" json:"min,omitempty"`
	P1     *float64 `yaml:"p1,omitempty" json:"p1,omitempty"`
	P5     *float64 `yaml:"p5,omitempty" json:"p5,omitempty"`
	P10    *float64 `yaml:"p10,omitempty" json:"p10,omitempty"`
	P25    *float64 `yaml:"p25,omitempty" json:"p25,omitempty"`
	P50    *float64 `yaml:"p50,omitempty" json:"p50,omitempty"`
	P75    *float64 `yaml:"p75,omitempty" json:"p75,omitempty"`
	P90    *float64 `yaml:"p90,omitempty" json:"p90,omitempty"`
	P95    *float64 `yaml:"p95,omitempty" json:"p95,omitempty"`
	P99    *float64 `yaml:"p99,omitempty" json:"p99,omitempty"`
	Max    *float64 `yaml:"max,omitempty" json:"max,omitempty"`
}

// Options add what the summary alone does not hold.
type Options struct {
	// ToolVersion is this tool's version, used for its own summaries when
	// the summary's aiperf_version is empty.
	ToolVersion string
	// NTPOT, when set, is the per-request request_latency / output tokens
	// distribution in ms (from the records; see metricview).
	NTPOT *results.Metric
}

// scaled builds Statistics from a summary metric's display-unit stats,
// multiplied by scale (1e-3 for ms -> s); nil when the metric is absent.
func scaled(m *results.Metric, units string, scale float64) *Statistics {
	if m == nil {
		return nil
	}
	mean, ok := m.Stats["avg"]
	if !ok || math.IsNaN(mean) || math.IsInf(mean, 0) {
		return nil
	}
	st := &Statistics{Units: units, Mean: mean * scale}
	set := func(dst **float64, key string) {
		if v, ok := m.Stats[key]; ok && !math.IsNaN(v) && !math.IsInf(v, 0) {
			x := v * scale
			*dst = &x
		}
	}
	set(&st.StdDev, "std")
	set(&st.Min, "min")
	set(&st.P1, "p1")
	set(&st.P5, "p5")
	set(&st.P10, "p10")
	set(&st.P25, "p25")
	set(&st.P50, "p50")
	set(&st.P75, "p75")
	set(&st.P90, "p90")
	set(&st.P95, "p95")
	set(&st.P99, "p99")
	set(&st.Max, "max")
	return st
}

// rate is a single-valued throughput.
func rate(s *results.Summary, tag, units string) *Statistics {
	v, ok := s.Value(tag, "avg")
	if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &Statistics{Units: units, Mean: v}
}

func get(s *results.Summary, tag string) *results.Metric {
	m, _ := s.Get(tag)
	return m
}

// Build converts a run's summary into a report.
func Build(s *results.Summary, o Options) (*Report, error) {
	r := &Report{Version: Version}
	r.Run.UID = s.BenchmarkID
	if r.Run.UID == "" {
		sum := sha256.Sum256(append([]byte(s.Start+s.Path), s.InputConfig...))
		r.Run.UID = hex.EncodeToString(sum[:16])
	}
	r.Run.EID = s.SweepID
	if s.Start != "" || s.End != "" {
		r.Run.Time = &RunTime{Start: s.Start, End: s.End}
	}
	if d, ok := s.Value("benchmark_duration", "avg"); ok && d > 0 {
		if r.Run.Time == nil {
			r.Run.Time = &RunTime{}
		}
		r.Run.Time.Duration = "PT" + strconv.FormatFloat(d, 'f', -1, 64) + "S"
	}
	label := filepath.Base(filepath.Dir(s.Path))
	if s.Path == "" {
		label = r.Run.UID
	}
	if s.Run.Model != "" {
		r.Run.Description = s.Run.Model + " [" + label + "]"
	}

	ld := &r.Scenario.Load
	ld.Metadata.SchemaVersion = "0.0.1"
	if len(s.InputConfig) > 0 {
		dec := json.NewDecoder(bytes.NewReader(s.InputConfig))
		dec.UseNumber()
		var cfg any
		if err := dec.Decode(&cfg); err != nil {
			return nil, fmt.Errorf("input_config: %w", err)
		}
		cfg = plainNumbers(cfg)
		ld.Native.Config = cfg
		canon, _ := json.Marshal(cfg) // map keys sorted: a stable hash
		sum := sha256.Sum256(canon)
		ld.Metadata.CfgID = hex.EncodeToString(sum[:])
	}
	if s.CLICommand != "" {
		ld.Metadata.Description = s.CLICommand
	}
	st := &ld.Standardized
	st.Tool, st.ToolVersion = s.Producer, s.Version
	if st.Tool == "" {
		st.Tool = "aiperf"
	}
	if st.ToolVersion == "" {
		st.ToolVersion = o.ToolVersion
	}
	st.Source = "random"
	if t := s.Run.DatasetType; t != "" && t != "synthetic" {
		st.Source = "sampled"
	}
	st.InputSeqLen = seqLen(s.Run.ISL, s.Run.ISLStddev, get(s, "input_sequence_length"))
	if s.Run.OSL > 0 || get(s, "output_sequence_length") != nil {
		osl := seqLen(s.Run.OSL, s.Run.OSLStddev, get(s, "output_sequence_length"))
		st.OutputSeqLen = &osl
	}
	if s.Run.Concurrency >= 1 {
		c := s.Run.Concurrency
		st.Concurrency = &c
	}
	if s.Run.RequestRate > 0 {
		q := s.Run.RequestRate
		st.RateQPS = &q
	}

	agg := &r.Results.RequestPerformance.Aggregate
	ok, _ := s.Value("request_count", "avg")
	bad, _ := s.Value("error_request_count", "avg")
	agg.Requests.Total = int(ok + bad)
	failures := int(bad)
	agg.Requests.Failures = &failures
	agg.Requests.InputLength = scaled(get(s, "input_sequence_length"), "count", 1)
	agg.Requests.OutputLength = scaled(get(s, "output_sequence_length"), "count", 1)

	lat := &agg.Latency
	lat.TimeToFirstToken = scaled(get(s, "time_to_first_token"), "s", 1e-3)
	lat.TimePerOutputToken = scaled(get(s, "inter_token_latency"), "s/token", 1e-3)
	lat.InterTokenLatency = scaled(get(s, "inter_chunk_latency"), "s/token", 1e-3)
	lat.RequestLatency = scaled(get(s, "request_latency"), "s", 1e-3)
	lat.NormalizedTimePerOutputToken = scaled(o.NTPOT, "s/token", 1e-3)

	tp := &agg.Throughput
	tp.OutputTokenRate = rate(s, "output_token_throughput", "tokens/s")
	tp.TotalTokenRate = rate(s, "total_token_throughput", "tokens/s")
	tp.RequestRate = rate(s, "request_throughput", "queries/s")
	tp.InputTokenRate = rate(s, "input_token_throughput", "tokens/s")
	if tp.InputTokenRate == nil && tp.TotalTokenRate != nil && tp.OutputTokenRate != nil {
		tp.InputTokenRate = &Statistics{Units: "tokens/s", Mean: tp.TotalTokenRate.Mean - tp.OutputTokenRate.Mean}
	}
	return r, nil
}

// plainNumbers turns the json.Numbers of a decoded tree into int64 when
// whole and float64 otherwise, so the YAML keeps 10 as 10, not 10.0.
func plainNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = plainNumbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = plainNumbers(e)
		}
	}
	return v
}

// seqLen describes a length distribution: the configured mean and spread
// (gaussian when it has one, fixed otherwise), bounded by the measured
// min and max; the measured mean when nothing was configured.
func seqLen(mean, stddev float64, measured *results.Metric) SequenceLength {
	sl := SequenceLength{Distribution: "fixed", Value: mean}
	if stddev > 0 {
		sl.Distribution = "gaussian"
		sl.StdDev = &stddev
	}
	if measured != nil {
		if sl.Value <= 0 {
			sl.Value = measured.Stats["avg"]
			if measured.Stats["min"] != measured.Stats["max"] {
				sl.Distribution = "other"
			}
		}
		if v, ok := measured.Stats["min"]; ok {
			n := int(math.Floor(v))
			sl.Min = &n
		}
		if v, ok := measured.Stats["max"]; ok && v >= 1 {
			n := int(math.Ceil(v))
			sl.Max = &n
		}
	}
	return sl
}
