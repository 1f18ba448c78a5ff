package export

import (
	"fmt"
	"github.com/aiperf-go/aiperf/internal/metrics/stats"
	"path/filepath"
	"strconv"
	"strings"
)

// Level is AIPerf's --export-level: how much per-request detail is written
// next to the summary.
type Level uint8

const (
	// LevelRecords writes the summary plus one JSONL line per request
	// (AIPerf's default).
	LevelRecords Level = iota
	// LevelSummary writes only the summary files (JSON, CSV, console text).
	LevelSummary
	// LevelRaw additionally writes every request payload and raw response.
	LevelRaw
)

// String returns the --export-level spelling.
func (l Level) String() string {
	switch l {
	case LevelSummary:
		return "summary"
	case LevelRaw:
		return "raw"
	default:
		return "records"
	}
}

// ParseLevel parses an --export-level value (case-insensitive).
func ParseLevel(s string) (Level, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "summary":
		return LevelSummary, nil
	case "records":
		return LevelRecords, nil
	case "raw":
		return LevelRaw, nil
	}
	return 0, fmt.Errorf("export level %q: want summary, records or raw", s)
}

// prefixSuffixes are the endings AIPerf strips from --profile-export-prefix,
// longest first, so that "foo_raw.jsonl" and "foo.json" both mean "foo".
// Only the first matching suffix is removed.
var prefixSuffixes = [...]string{
	"_server_metrics.parquet",
	"_server_metrics.jsonl",
	"_server_metrics.json",
	"_server_metrics.csv",
	"_network_latency.jsonl",
	"_gpu_telemetry.jsonl",
	"_timeslices.csv",
	"_timeslices.json",
	"_console.txt",
	"_raw.jsonl",
	".parquet",
	".csv",
	".json",
	".jsonl",
}

// PrefixBase returns the file-name base for a --profile-export-prefix
// value: the value with one known export suffix or extension removed.
// An empty prefix yields "" (the default file names apply).
func PrefixBase(prefix string) string {
	for _, s := range prefixSuffixes {
		if strings.HasSuffix(prefix, s) {
			return strings.TrimSuffix(prefix, s)
		}
	}
	return prefix
}

// Paths are the artifact file locations of one run. All paths are inside
// Dir. The zero value is not useful; call NewPaths.
type Paths struct {
	Dir        string // the artifact directory
	Level      Level
	JSON       string // summary JSON
	CSV        string // summary CSV
	JSONL      string // per-request records; written at LevelRecords and LevelRaw
	RawJSONL   string // raw request/response records; written at LevelRaw only
	ConsoleTxt string // plain-text copy of the end-of-run console tables
	// TimeslicesJSON and TimeslicesCSV hold the per-slice metrics; written
	// with --slice-duration only.
	TimeslicesJSON, TimeslicesCSV string
	// The telemetry files, written when server metrics or GPU telemetry
	// were collected (and, for server metrics, their format was chosen).
	ServerMetricsJSON, ServerMetricsCSV, ServerMetricsJSONL, ServerMetricsParquet string
	GPUTelemetryJSONL                                                             string
	// NetworkLatencyJSONL holds every network round-trip probe; written
	// with --network-latency-automatic only.
	NetworkLatencyJSONL string
	Inputs              string // inputs.json, always written
	Log                 string // logs/aiperf.log
	// Outputs is outputs.json (--export-outputs-json); AIPerf does not
	// prefix it.
	Outputs string
}

// NewPaths lays out the artifact files of dir for a --profile-export-prefix
// value (empty for AIPerf's default names) and an export level.
func NewPaths(dir, prefix string, level Level) Paths {
	base := PrefixBase(prefix)
	name := func(def, suffix string) string {
		if base == "" {
			return filepath.Join(dir, def)
		}
		return filepath.Join(dir, base+suffix)
	}
	return Paths{
		Dir:                  dir,
		Level:                level,
		JSON:                 name("profile_export_aiperf.json", ".json"),
		CSV:                  name("profile_export_aiperf.csv", ".csv"),
		JSONL:                name("profile_export.jsonl", ".jsonl"),
		RawJSONL:             name("profile_export_raw.jsonl", "_raw.jsonl"),
		ConsoleTxt:           name("profile_export_console.txt", "_console.txt"),
		TimeslicesJSON:       name("profile_export_aiperf_timeslices.json", "_timeslices.json"),
		TimeslicesCSV:        name("profile_export_aiperf_timeslices.csv", "_timeslices.csv"),
		ServerMetricsJSON:    name("server_metrics_export.json", "_server_metrics.json"),
		ServerMetricsCSV:     name("server_metrics_export.csv", "_server_metrics.csv"),
		ServerMetricsJSONL:   name("server_metrics_export.jsonl", "_server_metrics.jsonl"),
		ServerMetricsParquet: name("server_metrics_export.parquet", "_server_metrics.parquet"),
		GPUTelemetryJSONL:    name("gpu_telemetry_export.jsonl", "_gpu_telemetry.jsonl"),
		NetworkLatencyJSONL:  name("profile_export_network_latency.jsonl", "_network_latency.jsonl"),
		Inputs:               filepath.Join(dir, "inputs.json"),
		Log:                  filepath.Join(dir, "logs", "aiperf.log"),
		Outputs:              filepath.Join(dir, "outputs.json"),
	}
}

// WritesRecords reports whether the level produces the per-request JSONL.
func (p Paths) WritesRecords() bool { return p.Level != LevelSummary }

// WritesRaw reports whether the level produces the raw request/response JSONL.
func (p Paths) WritesRaw() bool { return p.Level == LevelRaw }

// Files lists every file the level produces, in a stable order.
func (p Paths) Files() []string {
	files := []string{p.JSON, p.CSV}
	if p.WritesRecords() {
		files = append(files, p.JSONL)
	}
	if p.WritesRaw() {
		files = append(files, p.RawJSONL)
	}
	return append(files, p.ConsoleTxt, p.Inputs, p.Log)
}

// Export is one "<label>: <path>" line printed after the console tables.
type Export struct {
	Label string // "CSV Export", "JSON Export", "Raw Records"
	Path  string
}

// Exports lists the files AIPerf announces at the end of a run, in its
// order: the CSV, the JSON and, at LevelRaw, the raw records. (AIPerf does
// not announce the per-request JSONL; the log file has its own line.)
func (p Paths) Exports() []Export {
	ex := []Export{{"CSV Export", p.CSV}, {"JSON Export", p.JSON}}
	if p.WritesRaw() {
		ex = append(ex, Export{"Raw Records", p.RawJSONL})
	}
	return ex
}

// Stimulus describes the load of the first profiling phase, for the
// artifact directory name. At most one of the modes applies; fields that
// are zero are unset.
type Stimulus struct {
	Concurrency   int     // --concurrency; with RequestRate it caps a rate phase
	RequestRate   float64 // --request-rate (requests/sec)
	UserCentric   bool    // --user-centric-rate mode
	Users         int     // --num-users, with UserCentric
	FixedSchedule bool    // trace replay with --fixed-schedule
}

// String renders the stimulus as AIPerf names it: "concurrency10",
// "request_rate20.0", "concurrency4-request_rate2.5",
// "user_centric-users8-qps1.5" or "fixed_schedule". The rate is formatted
// like a Python float, so a whole rate keeps its ".0".
func (s Stimulus) String() string {
	switch {
	case s.FixedSchedule:
		return "fixed_schedule"
	case s.UserCentric:
		parts := []string{"user_centric"}
		if s.Users > 0 {
			parts = append(parts, "users"+strconv.Itoa(s.Users))
		}
		if s.RequestRate > 0 {
			parts = append(parts, "qps"+pyRepr(s.RequestRate))
		}
		return strings.Join(parts, "-")
	}
	var parts []string
	if s.Concurrency > 0 {
		parts = append(parts, "concurrency"+strconv.Itoa(s.Concurrency))
	}
	if s.RequestRate > 0 && stats.Finite(s.RequestRate) {
		parts = append(parts, "request_rate"+pyRepr(s.RequestRate))
	}
	return strings.Join(parts, "-")
}

// DirName is the sub-directory AIPerf appends to the default artifact
// directory: "<model>-<service_kind>-<endpoint_type>-<stimulus>", e.g.
// "Qwen_Qwen3-0.6B-openai-chat-concurrency10". With several models the
// first is used with a "_multi" suffix; every "/" becomes "_". Empty parts
// are left out.
func DirName(models []string, serviceKind, endpointType string, s Stimulus) string {
	var parts []string
	if len(models) > 0 && models[0] != "" {
		m := models[0]
		if len(models) > 1 {
			m += "_multi"
		}
		parts = append(parts, strings.ReplaceAll(m, "/", "_"))
	}
	switch {
	case serviceKind != "" && endpointType != "":
		parts = append(parts, serviceKind+"-"+endpointType)
	case endpointType != "":
		parts = append(parts, endpointType)
	}
	if st := s.String(); st != "" {
		parts = append(parts, st)
	}
	return strings.Join(parts, "-")
}
