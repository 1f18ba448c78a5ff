package mlflow

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/aiperf-go/aiperf/internal/results"
)

// MetadataFile is the run mapping written into the artifact directory.
const MetadataFile = "mlflow_export.json"

// Options describe one export.
type Options struct {
	// TrackingURI is the server ("http://host:5000"); RedactedURI is the
	// same with its credentials redacted, the form that is written.
	TrackingURI, RedactedURI string
	Experiment               string
	RunName                  string // "" = aiperf-<benchmark id[:8]>
	ParentRunID              string
	Tags                     []KV // the user's tags
	// Params are the run's parameters (endpoint, load, redacted command).
	Params []KV
	// ArtifactDir holds the files; SummaryFile is its summary JSON.
	ArtifactDir, SummaryFile string
	Globs                    []string
	BenchmarkID, Version     string
	WasCancelled             bool
	Getenv                   func(string) string
	// Warn receives non-fatal problems (a missing parent run).
	Warn func(string)
}

// Metadata is mlflow_export.json (AIPerf's MLflowExportMetadata).
type Metadata struct {
	TrackingURI       string   `json:"tracking_uri"`
	Experiment        string   `json:"experiment"`
	RunID             string   `json:"run_id"`
	RunName           string   `json:"run_name"`
	BenchmarkID       string   `json:"benchmark_id,omitempty"`
	ParentRunID       *string  `json:"parent_run_id"`
	LiveStreaming     bool     `json:"live_streaming"`
	ReusedLiveRun     bool     `json:"reused_live_run"`
	MetricKeys        []string `json:"metric_keys"`
	ParamKeys         []string `json:"param_keys"`
	TagKeys           []string `json:"tag_keys"`
	UploadedArtifacts []string `json:"uploaded_artifacts"`
	ExportedAtNs      int64    `json:"exported_at_ns"`
}

// statFields are the statistics logged per metric: avg as the bare tag,
// the others as tag.<stat> (AIPerf's list).
var statFields = []string{"avg", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "min", "max", "std", "count", "sum"}

// MetricPayload turns a run summary into MLflow metrics.
func MetricPayload(s *results.Summary) map[string]float64 {
	out := map[string]float64{}
	for _, m := range s.Metrics {
		for _, st := range statFields {
			v, ok := m.Stats[st]
			if !ok {
				continue
			}
			key := m.Tag
			if st != "avg" {
				key += "." + st
			}
			out[key] = v
		}
	}
	if v, ok := s.Value("request_count", "avg"); ok {
		out["aiperf.completed_requests"] = v
	}
	return out
}

// DefaultRunName is aiperf-<first 8 characters of the benchmark ID>.
func DefaultRunName(benchmarkID string) string {
	if len(benchmarkID) > 8 {
		benchmarkID = benchmarkID[:8]
	}
	if benchmarkID == "" {
		return fmt.Sprintf("aiperf-%d", time.Now().Unix())
	}
	return "aiperf-" + benchmarkID
}

// Export uploads a finished run: it reuses live (the run the live stream
// created) when set, else creates a run; logs the summary metrics,
// params and tags in batches; uploads the artifact files (exports/ and
// plots/) and mlflow_export.json; and marks the run finished.
func Export(ctx context.Context, o Options, live *StartedRun) (*Metadata, error) {
	c, err := NewClient(o.TrackingURI, o.Getenv)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(o.SummaryFile)
	if err != nil {
		return nil, fmt.Errorf("mlflow: the run's summary: %w", err)
	}
	sum, err := results.ParseSummary(b)
	if err != nil {
		return nil, fmt.Errorf("mlflow: %s: %w", o.SummaryFile, err)
	}
	md := &Metadata{TrackingURI: o.RedactedURI, Experiment: o.Experiment, BenchmarkID: o.BenchmarkID}
	run := live
	if run != nil {
		md.LiveStreaming, md.ReusedLiveRun = true, true
	} else {
		run, err = startRun(ctx, c, o)
		if err != nil {
			return nil, err
		}
	}
	md.RunID, md.RunName = run.ID, run.Name
	if o.ParentRunID != "" && run.parent {
		md.ParentRunID = &o.ParentRunID
	}
	now := time.Now().UnixMilli()
	payload := MetricPayload(sum)
	metrics := make([]Metric, 0, len(payload))
	for _, k := range slices.Sorted(maps.Keys(payload)) {
		metrics = append(metrics, Metric{Key: k, Value: payload[k], Timestamp: now})
		md.MetricKeys = append(md.MetricKeys, k)
	}
	params := make([]KV, 0, len(o.Params))
	for _, p := range o.Params {
		v := p.Value
		if len(v) > maxParamValue {
			v = v[:maxParamValue]
		}
		params = append(params, KV{p.Key, v})
		md.ParamKeys = append(md.ParamKeys, p.Key)
	}
	tags := runTags(o)
	for _, t := range tags {
		md.TagKeys = append(md.TagKeys, t.Key)
	}
	slices.Sort(md.ParamKeys)
	slices.Sort(md.TagKeys)
	if err := c.LogBatch(ctx, run.ID, metrics, params, tags); err != nil {
		return nil, err
	}
	files, err := collect(o.ArtifactDir, o.Globs)
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		md.UploadedArtifacts = append(md.UploadedArtifacts, f.rel)
	}
	md.UploadedArtifacts = append(md.UploadedArtifacts, MetadataFile)
	md.ExportedAtNs = time.Now().UnixNano()
	metaPath := filepath.Join(o.ArtifactDir, MetadataFile)
	if err := writeMetadata(metaPath, md); err != nil {
		return nil, err
	}
	for _, f := range append(files, artifact{abs: metaPath, rel: MetadataFile}) {
		if err := c.UploadArtifact(ctx, &run.Run, f.abs, destination(f.rel)); err != nil {
			return md, err
		}
	}
	status := "FINISHED"
	if o.WasCancelled {
		status = "KILLED"
	}
	return md, c.Finish(ctx, run.ID, status)
}

// StartedRun is a run this process created.
type StartedRun struct {
	Run
	parent bool // created under ParentRunID
}

// StartRun creates the run the export will log to (the live stream's).
func StartRun(ctx context.Context, o Options) (*StartedRun, error) {
	c, err := NewClient(o.TrackingURI, o.Getenv)
	if err != nil {
		return nil, err
	}
	return startRun(ctx, c, o)
}

// startRun creates the experiment if needed and a run under the parent
// when it exists (a missing parent falls back to a top-level run with a
// warning, as AIPerf does).
func startRun(ctx context.Context, c *Client, o Options) (*StartedRun, error) {
	exp, err := c.ExperimentID(ctx, o.Experiment)
	if err != nil {
		return nil, err
	}
	name := o.RunName
	if name == "" {
		name = DefaultRunName(o.BenchmarkID)
	}
	tags := []KV{{"mlflow.runName", name}}
	parent := false
	if o.ParentRunID != "" {
		if _, err := c.GetRun(ctx, o.ParentRunID); err == nil {
			tags = append(tags, KV{"mlflow.parentRunId", o.ParentRunID})
			parent = true
		} else if IsNotFound(err) {
			if o.Warn != nil {
				o.Warn(fmt.Sprintf("MLflow parent run %s not found; creating a top-level run instead", o.ParentRunID))
			}
		} else {
			return nil, err
		}
	}
	r, err := c.CreateRun(ctx, exp, name, tags)
	if err != nil {
		return nil, err
	}
	if r.Name == "" {
		r.Name = name
	}
	return &StartedRun{Run: *r, parent: parent}, nil
}

func runTags(o Options) []KV {
	tags := []KV{{"aiperf.version", o.Version}, {"aiperf.was_cancelled", fmt.Sprint(o.WasCancelled)}}
	if o.BenchmarkID != "" {
		tags = append(tags, KV{"benchmark_id", o.BenchmarkID})
	}
	return append(tags, o.Tags...)
}

// artifact is a file to upload: its path and its name relative to the
// artifact directory.
type artifact struct{ abs, rel string }

// collect lists the artifact directory's files matching globs ("**"
// crosses directories), each once, sorted per glob, leaving out
// mlflow_export.json (uploaded last) and hidden files.
func collect(dir string, globs []string) ([]artifact, error) {
	var all []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && p != dir {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() {
			rel, _ := filepath.Rel(dir, p)
			all = append(all, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("mlflow: listing %s: %w", dir, err)
	}
	slices.Sort(all)
	seen := map[string]bool{}
	var out []artifact
	for _, g := range globs {
		for _, rel := range all {
			if seen[rel] || rel == MetadataFile || strings.HasPrefix(path.Base(rel), ".") || !Match(g, rel) {
				continue
			}
			seen[rel] = true
			out = append(out, artifact{abs: filepath.Join(dir, filepath.FromSlash(rel)), rel: rel})
		}
	}
	return out, nil
}

// Collect lists the files of dir matching globs, relative to dir, in
// upload order (the W&B upload uses the same selection).
func Collect(dir string, globs []string) ([]string, error) {
	as, err := collect(dir, globs)
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = a.rel
	}
	return out, err
}

// Match is a pathlib-style glob: "*" within one segment, "**/" any number
// of leading directories.
func Match(glob, rel string) bool {
	if rest, ok := strings.CutPrefix(glob, "**/"); ok {
		segs := strings.Split(rel, "/")
		for i := range segs {
			if Match(rest, strings.Join(segs[i:], "/")) {
				return true
			}
		}
		return false
	}
	ok, _ := path.Match(glob, rel)
	return ok
}

var plotExts = map[string]bool{".png": true, ".jpg": true, ".jpeg": true, ".svg": true, ".gif": true, ".webp": true, ".html": true}

// destination is where an artifact goes in the run: plots/ for images
// and HTML, exports/ for the rest, keeping sub-directories.
func destination(rel string) string {
	base := "exports"
	if plotExts[strings.ToLower(path.Ext(rel))] {
		base = "plots"
	}
	dir := path.Dir(rel)
	if first, rest, _ := strings.Cut(dir, "/"); first == base {
		dir = rest
		if dir == "" {
			dir = "."
		}
	}
	if dir == "." {
		return base
	}
	return base + "/" + dir
}

func writeMetadata(p string, md *Metadata) error {
	b, err := json.MarshalIndent(md, "", "  ")
	if err != nil {
		return err
	}
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, p)
}

// ReadMetadata reads mlflow_export.json.
func ReadMetadata(p string) (*Metadata, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	var md Metadata
	if err := json.Unmarshal(b, &md); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return &md, nil
}

// UploadPaths attaches files to an existing run under plots/ (images
// and HTML) or exports/, keeping their path relative to base; it returns
// the uploaded names.
func UploadPaths(ctx context.Context, trackingURI string, getenv func(string) string, runID, base string, files []string) ([]string, error) {
	return upload(ctx, trackingURI, getenv, runID, func() ([]artifact, error) {
		list := make([]artifact, len(files))
		for i, f := range files {
			rel, err := filepath.Rel(base, f)
			if err != nil || strings.HasPrefix(rel, "..") {
				rel = filepath.Base(f)
			}
			list[i] = artifact{abs: f, rel: filepath.ToSlash(rel)}
		}
		return list, nil
	})
}

// UploadFiles attaches files (relative to dir) to an existing run, for
// `aiperf plot --mlflow-upload`; it returns the uploaded names.
func UploadFiles(ctx context.Context, trackingURI string, getenv func(string) string, runID, dir string, globs []string) ([]string, error) {
	return upload(ctx, trackingURI, getenv, runID, func() ([]artifact, error) { return collect(dir, globs) })
}

// upload attaches the listed files to run runID (listed once the run is
// found) and returns the names uploaded before any error.
func upload(ctx context.Context, trackingURI string, getenv func(string) string, runID string, list func() ([]artifact, error)) ([]string, error) {
	c, err := NewClient(trackingURI, getenv)
	if err != nil {
		return nil, err
	}
	run, err := c.GetRun(ctx, runID)
	if err != nil {
		return nil, err
	}
	files, err := list()
	if err != nil {
		return nil, err
	}
	var names []string
	for _, f := range files {
		if err := c.UploadArtifact(ctx, run, f.abs, destination(f.rel)); err != nil {
			return names, err
		}
		names = append(names, f.rel)
	}
	return names, nil
}
