// Package wandb uploads a finished run to Weights & Biases over its HTTP
// APIs (--wandb-project), as AIPerf 0.13's exporter does with the wandb
// client: the run (GraphQL upsertBucket) with the configuration and
// tags, a summary_metrics table of the console metrics, the summary
// values, and the artifact files. The API key is WANDB_API_KEY, the
// server WANDB_BASE_URL (default https://api.wandb.ai).
//
// The calls are the wandb client's own: POST /graphql (viewer,
// upsertBucket, createRunFiles), POST /files/<entity>/<project>/<run>/
// file_stream (history, summary, completion), and PUT to the upload URLs
// createRunFiles returns. Files are stored as the run's files (under
// aiperf/) rather than as a versioned W&B Artifact.
package wandb

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/aiperf-go/aiperf/internal/results"
)

// DefaultBaseURL is W&B's cloud API.
const DefaultBaseURL = "https://api.wandb.ai"

// Options describe one upload.
type Options struct {
	Project, Entity, RunName string
	Tags                     []string // the user's tags
	// Config is the run configuration (JSON object, credentials
	// redacted); CLICommand is added to it as aiperf.cli_command.
	Config     json.RawMessage
	CLICommand string
	// Rows are the summary_metrics table: a label and the console
	// statistics (avg, min, max, p99, p90, p50, std), nil when absent.
	Rows                     []Row
	ArtifactDir, SummaryFile string
	Files                    []string // artifact files relative to ArtifactDir
	BenchmarkID, Version     string
	Getenv                   func(string) string
	HTTP                     *http.Client
}

// Row is one summary_metrics row.
type Row struct {
	Label  string
	Values []*float64
}

// Columns are the summary_metrics columns (AIPerf's console stat columns).
var Columns = []string{"Metric", "avg", "min", "max", "p99", "p90", "p50", "std"}

// Result is what was uploaded.
type Result struct {
	RunID, RunName, Entity, Project, URL string
	Files                                []string
}

type client struct {
	base, key string
	http      *http.Client
}

// Upload creates the run and sends everything, then marks it finished.
func Upload(ctx context.Context, o Options) (*Result, error) {
	getenv := o.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	key := getenv("WANDB_API_KEY")
	if key == "" {
		return nil, errors.New("--wandb-project: set WANDB_API_KEY to the W&B API key")
	}
	c := &client{base: strings.TrimRight(getenv("WANDB_BASE_URL"), "/"), key: key, http: o.HTTP}
	if c.base == "" {
		c.base = DefaultBaseURL
	}
	if c.http == nil {
		c.http = &http.Client{Timeout: 60 * time.Second}
	}
	entity := o.Entity
	if entity == "" {
		e, err := c.viewerEntity(ctx)
		if err != nil {
			return nil, err
		}
		entity = e
	}
	runID := newRunID()
	name := o.RunName
	if name == "" {
		name = defaultName(o.BenchmarkID)
	}
	tags := []string{"aiperf-" + o.Version}
	if o.BenchmarkID != "" {
		tags = append(tags, "benchmark-"+short(o.BenchmarkID))
	}
	tags = append(tags, o.Tags...)
	conf, err := wandbConfig(o.Config, o.CLICommand)
	if err != nil {
		return nil, err
	}
	var up struct {
		UpsertBucket struct {
			Bucket struct {
				ID, Name, DisplayName string
				Project               struct {
					Name   string
					Entity struct{ Name string }
				}
			}
		}
	}
	err = c.graphql(ctx, upsertBucket, map[string]any{
		"name": runID, "project": o.Project, "entity": entity, "displayName": name,
		"config": string(conf), "tags": tags, "state": "running", "jobType": "aiperf",
	}, &up)
	if err != nil {
		return nil, err
	}
	if p := up.UpsertBucket.Bucket.Project; p.Entity.Name != "" {
		entity = p.Entity.Name
	}
	res := &Result{RunID: runID, RunName: name, Entity: entity, Project: o.Project,
		URL: fmt.Sprintf("%s/%s/%s/runs/%s", strings.Replace(c.base, "api.", "", 1), entity, o.Project, runID)}

	// The table file, then history and summary through the file stream.
	table, err := json.Marshal(map[string]any{"columns": Columns, "data": tableData(o.Rows)})
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(table)
	tablePath := "media/table/summary_metrics_0_" + hex.EncodeToString(sum[:])[:20] + ".table.json"
	ref := map[string]any{"_type": "table-file", "path": tablePath, "sha256": hex.EncodeToString(sum[:]),
		"size": len(table), "ncols": len(Columns), "nrows": len(o.Rows)}
	uploads := []upload{{name: tablePath, data: table}}
	for _, f := range o.Files {
		b, err := os.ReadFile(filepath.Join(o.ArtifactDir, filepath.FromSlash(f)))
		if err != nil {
			return nil, err
		}
		uploads = append(uploads, upload{name: "aiperf/" + f, data: b})
	}
	if err := c.uploadFiles(ctx, entity, o.Project, runID, uploads); err != nil {
		return nil, err
	}
	for _, u := range uploads[1:] {
		res.Files = append(res.Files, u.name)
	}
	now := float64(time.Now().UnixNano()) / 1e9
	history, _ := json.Marshal(map[string]any{"summary_metrics": ref, "_step": 0, "_runtime": 0, "_timestamp": now})
	summary := map[string]any{"summary_metrics": ref, "_step": 0, "_runtime": 0, "_timestamp": now}
	if o.SummaryFile != "" {
		if b, err := os.ReadFile(o.SummaryFile); err == nil {
			if s, err := results.ParseSummary(b); err == nil {
				for _, m := range s.Metrics {
					if v, ok := m.Stats["avg"]; ok && !math.IsNaN(v) && !math.IsInf(v, 0) {
						summary[m.Tag] = v
					}
				}
			}
		}
	}
	sb, _ := json.Marshal(summary)
	stream := fmt.Sprintf("%s/files/%s/%s/%s/file_stream", c.base, entity, o.Project, runID)
	if err := c.post(ctx, stream, map[string]any{"files": map[string]any{
		"wandb-history.jsonl": map[string]any{"offset": 0, "content": []string{string(history)}},
		"wandb-summary.json":  map[string]any{"offset": 0, "content": []string{string(sb)}},
	}}, nil); err != nil {
		return nil, err
	}
	if err := c.post(ctx, stream, map[string]any{"complete": true, "exitcode": 0}, nil); err != nil {
		return nil, err
	}
	return res, nil
}

const upsertBucket = `mutation UpsertBucket($name: String, $project: String, $entity: String, $displayName: String, $config: JSONString, $tags: [String!], $state: String, $jobType: String) {
  upsertBucket(input: {name: $name, modelName: $project, entityName: $entity, displayName: $displayName, config: $config, tags: $tags, state: $state, jobType: $jobType}) {
    bucket { id name displayName project { name entity { name } } }
    inserted
  }
}`

const viewerQuery = `query Viewer { viewer { entity } }`

const createRunFiles = `mutation CreateRunFiles($entity: String!, $project: String!, $run: String!, $files: [String!]!) {
  createRunFiles(input: {entityName: $entity, projectName: $project, runName: $run, files: $files}) {
    runID
    uploadHeaders
    files { name uploadUrl }
  }
}`

func (c *client) viewerEntity(ctx context.Context) (string, error) {
	var v struct{ Viewer struct{ Entity string } }
	if err := c.graphql(ctx, viewerQuery, nil, &v); err != nil {
		return "", err
	}
	if v.Viewer.Entity == "" {
		return "", errors.New("W&B: the API key has no default entity; pass --wandb-entity")
	}
	return v.Viewer.Entity, nil
}

type upload struct {
	name string
	data []byte
}

func (c *client) uploadFiles(ctx context.Context, entity, project, run string, files []upload) error {
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = f.name
	}
	var got struct {
		CreateRunFiles struct {
			UploadHeaders []string
			Files         []struct{ Name, UploadURL string }
		}
	}
	if err := c.graphql(ctx, createRunFiles, map[string]any{"entity": entity, "project": project, "run": run, "files": names}, &got); err != nil {
		return err
	}
	urls := map[string]string{}
	for _, f := range got.CreateRunFiles.Files {
		urls[f.Name] = f.UploadURL
	}
	for _, f := range files {
		u := urls[f.name]
		if u == "" {
			return fmt.Errorf("W&B: no upload URL for %s", f.name)
		}
		req, err := http.NewRequestWithContext(ctx, "PUT", u, bytes.NewReader(f.data))
		if err != nil {
			return err
		}
		for _, h := range got.CreateRunFiles.UploadHeaders {
			if k, v, ok := strings.Cut(h, ":"); ok {
				req.Header.Set(strings.TrimSpace(k), strings.TrimSpace(v))
			}
		}
		resp, err := c.http.Do(req)
		if err != nil {
			return fmt.Errorf("W&B upload %s: %w", f.name, errors.Unwrap(err))
		}
		resp.Body.Close()
		if resp.StatusCode/100 != 2 {
			return fmt.Errorf("W&B upload %s: HTTP %d", f.name, resp.StatusCode)
		}
	}
	return nil
}

func (c *client) graphql(ctx context.Context, query string, vars map[string]any, out any) error {
	var resp struct {
		Data   json.RawMessage `json:"data"`
		Errors []struct {
			Message string `json:"message"`
		} `json:"errors"`
	}
	if err := c.post(ctx, c.base+"/graphql", map[string]any{"query": query, "variables": vars}, &resp); err != nil {
		return err
	}
	if len(resp.Errors) > 0 {
		return fmt.Errorf("W&B GraphQL: %s", resp.Errors[0].Message)
	}
	return json.Unmarshal(resp.Data, out)
}

func (c *client) post(ctx context.Context, url string, body, out any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, "POST", url, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.SetBasicAuth("api", c.key)
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("W&B %s: %w", strings.TrimPrefix(url, c.base), errors.Unwrap(err))
	}
	defer resp.Body.Close()
	rb, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("W&B %s: HTTP %d: %s", strings.TrimPrefix(url, c.base), resp.StatusCode, strings.TrimSpace(string(rb)))
	}
	if out != nil {
		return json.Unmarshal(rb, out)
	}
	return nil
}

// wandbConfig turns the configuration into W&B's config form: each
// top-level key as {"value": ...}, plus aiperf.cli_command.
func wandbConfig(raw json.RawMessage, cli string) ([]byte, error) {
	m := map[string]json.RawMessage{}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, fmt.Errorf("W&B config: %w", err)
		}
	}
	out := map[string]any{}
	for k, v := range m {
		out[k] = map[string]any{"value": v}
	}
	if cli != "" {
		out["aiperf.cli_command"] = map[string]any{"value": cli}
	}
	return json.Marshal(out)
}

func tableData(rows []Row) [][]any {
	out := make([][]any, len(rows))
	for i, r := range rows {
		row := []any{r.Label}
		for _, v := range r.Values {
			if v == nil || math.IsNaN(*v) || math.IsInf(*v, 0) {
				row = append(row, nil)
			} else {
				row = append(row, math.Round(*v*100)/100)
			}
		}
		out[i] = row
	}
	return out
}

func short(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

func defaultName(benchmarkID string) string {
	if benchmarkID == "" {
		return fmt.Sprintf("aiperf-%d", time.Now().Unix())
	}
	return "aiperf-" + short(benchmarkID)
}

// newRunID is a W&B run id: 8 characters of [a-z0-9].
func newRunID() string {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	var b [8]byte
	rand.Read(b[:])
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b[:])
}
