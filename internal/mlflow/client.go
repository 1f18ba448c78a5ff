// Package mlflow logs runs to an MLflow tracking server over its REST API
// (--mlflow-tracking-uri), as AIPerf 0.13's MLflow exporter does with the
// Python client: live metrics while the run goes (live.gen_ai.* and
// live.aiperf.timing.*), then every summary statistic, the run's
// parameters and tags and its artifact files, recorded in
// mlflow_export.json; `aiperf plot --mlflow-upload` attaches plots later.
//
// Only the REST calls the export needs are used: experiments get-by-name
// and create, runs create, get, log-batch and update, and the artifact
// proxy (mlflow-artifacts:/ URIs, the default of `mlflow server`), or a
// copy into a local artifact root.
package mlflow

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// Client talks to one tracking server.
type Client struct {
	base   *url.URL // without userinfo
	user   *url.Userinfo
	token  string
	client *http.Client
}

// NewClient parses the tracking URI. Credentials come from its userinfo,
// MLFLOW_TRACKING_USERNAME and MLFLOW_TRACKING_PASSWORD (basic auth) or
// MLFLOW_TRACKING_TOKEN (bearer), as with the Python client.
func NewClient(trackingURI string, getenv func(string) string) (*Client, error) {
	u, err := url.Parse(strings.TrimRight(strings.TrimSpace(trackingURI), "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("--mlflow-tracking-uri: not an http(s) URL")
	}
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	c := &Client{user: u.User, token: getenv("MLFLOW_TRACKING_TOKEN"), client: &http.Client{Timeout: 30 * time.Second}}
	if name := getenv("MLFLOW_TRACKING_USERNAME"); name != "" {
		c.user = url.UserPassword(name, getenv("MLFLOW_TRACKING_PASSWORD"))
	}
	u.User = nil
	c.base = u
	return c, nil
}

// APIError is an error answer of the server ({"error_code", "message"}).
type APIError struct {
	Status  int
	Code    string
	Message string
	Call    string
}

func (e *APIError) Error() string {
	return fmt.Sprintf("mlflow %s: HTTP %d %s: %s", e.Call, e.Status, e.Code, e.Message)
}

// IsNotFound reports whether err is RESOURCE_DOES_NOT_EXIST.
func IsNotFound(err error) bool {
	var ae *APIError
	return errors.As(err, &ae) && (ae.Code == "RESOURCE_DOES_NOT_EXIST" || ae.Status == http.StatusNotFound)
}

func (c *Client) do(ctx context.Context, method, p string, q url.Values, body any, out any) error {
	u := *c.base
	u.Path = strings.TrimRight(u.Path, "/") + p
	u.RawQuery = q.Encode()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	c.auth(req)
	resp, err := c.client.Do(req)
	if err != nil {
		return fmt.Errorf("mlflow %s: %w", p, errors.Unwrap(err))
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if resp.StatusCode/100 != 2 {
		ae := &APIError{Status: resp.StatusCode, Call: strings.TrimPrefix(p, "/api/2.0/mlflow/")}
		var e struct {
			Code    string `json:"error_code"`
			Message string `json:"message"`
		}
		if json.Unmarshal(b, &e) == nil && e.Code != "" {
			ae.Code, ae.Message = e.Code, e.Message
		} else {
			ae.Message = strings.TrimSpace(string(b))
		}
		return ae
	}
	if out != nil && len(b) > 0 {
		return json.Unmarshal(b, out)
	}
	return nil
}

func (c *Client) auth(req *http.Request) {
	switch {
	case c.token != "":
		req.Header.Set("Authorization", "Bearer "+c.token)
	case c.user != nil:
		pw, _ := c.user.Password()
		req.SetBasicAuth(c.user.Username(), pw)
	}
}

// KV is a param or tag.
type KV struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Metric is one logged value.
type Metric struct {
	Key       string  `json:"key"`
	Value     float64 `json:"value"`
	Timestamp int64   `json:"timestamp"` // ms
	Step      int64   `json:"step"`
}

// Run is what runs/create and runs/get return.
type Run struct {
	ID           string `json:"run_id"`
	Name         string `json:"run_name"`
	ExperimentID string `json:"experiment_id"`
	ArtifactURI  string `json:"artifact_uri"`
}

// ExperimentID returns the experiment named name, creating it when
// missing.
func (c *Client) ExperimentID(ctx context.Context, name string) (string, error) {
	var got struct {
		Experiment struct {
			ID string `json:"experiment_id"`
		} `json:"experiment"`
	}
	err := c.do(ctx, "GET", "/api/2.0/mlflow/experiments/get-by-name", url.Values{"experiment_name": {name}}, nil, &got)
	if err == nil {
		return got.Experiment.ID, nil
	}
	if !IsNotFound(err) {
		return "", err
	}
	var created struct {
		ID string `json:"experiment_id"`
	}
	if err := c.do(ctx, "POST", "/api/2.0/mlflow/experiments/create", nil, map[string]any{"name": name}, &created); err != nil {
		return "", err
	}
	return created.ID, nil
}

// CreateRun starts a run in experiment with name and tags.
func (c *Client) CreateRun(ctx context.Context, experiment, name string, tags []KV) (*Run, error) {
	var out struct {
		Run struct {
			Info Run `json:"info"`
		} `json:"run"`
	}
	body := map[string]any{"experiment_id": experiment, "run_name": name, "start_time": time.Now().UnixMilli(), "tags": tags}
	if err := c.do(ctx, "POST", "/api/2.0/mlflow/runs/create", nil, body, &out); err != nil {
		return nil, err
	}
	return &out.Run.Info, nil
}

// GetRun returns a run.
func (c *Client) GetRun(ctx context.Context, id string) (*Run, error) {
	var out struct {
		Run struct {
			Info Run `json:"info"`
		} `json:"run"`
	}
	if err := c.do(ctx, "GET", "/api/2.0/mlflow/runs/get", url.Values{"run_id": {id}}, nil, &out); err != nil {
		return nil, err
	}
	return &out.Run.Info, nil
}

// MLflow's log-batch limits.
const (
	maxBatchMetrics = 1000
	maxBatchParams  = 100
	maxBatchTags    = 100
	maxParamValue   = 6000
)

// LogBatch logs metrics, params and tags, in as many calls as the
// server's per-call limits need.
func (c *Client) LogBatch(ctx context.Context, runID string, metrics []Metric, params, tags []KV) error {
	// Empty lists, never null: the server answers null with a 500.
	metrics, params, tags = nonNil(metrics), nonNil(params), nonNil(tags)
	for len(metrics) > 0 || len(params) > 0 || len(tags) > 0 {
		nm, np, nt := min(len(metrics), maxBatchMetrics), min(len(params), maxBatchParams), min(len(tags), maxBatchTags)
		body := map[string]any{"run_id": runID, "metrics": metrics[:nm], "params": params[:np], "tags": tags[:nt]}
		if err := c.do(ctx, "POST", "/api/2.0/mlflow/runs/log-batch", nil, body, nil); err != nil {
			return err
		}
		metrics, params, tags = metrics[nm:], params[np:], tags[nt:]
	}
	return nil
}

// Finish marks a run FINISHED (or KILLED / FAILED).
func (c *Client) Finish(ctx context.Context, runID, status string) error {
	return c.do(ctx, "POST", "/api/2.0/mlflow/runs/update", nil,
		map[string]any{"run_id": runID, "status": status, "end_time": time.Now().UnixMilli()}, nil)
}

// UploadArtifact stores the file at local under artifactPath/<its base
// name> in the run's artifact root: through the server's artifact proxy
// for an mlflow-artifacts:/ root, by copying for a local one.
func (c *Client) UploadArtifact(ctx context.Context, run *Run, local, artifactPath string) error {
	rel := path.Join(artifactPath, filepath.Base(local))
	root := run.ArtifactURI
	switch {
	case strings.HasPrefix(root, "mlflow-artifacts:"):
		rest := strings.TrimPrefix(strings.TrimPrefix(root, "mlflow-artifacts:"), "//")
		if u, err := url.Parse(root); err == nil && u.Host != "" {
			rest = u.Path
		}
		f, err := os.Open(local)
		if err != nil {
			return err
		}
		defer f.Close()
		u := *c.base
		u.Path = strings.TrimRight(u.Path, "/") + "/api/2.0/mlflow-artifacts/artifacts/" + strings.TrimLeft(path.Join(rest, rel), "/")
		req, err := http.NewRequestWithContext(ctx, "PUT", u.String(), f)
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/octet-stream")
		c.auth(req)
		resp, err := c.client.Do(req)
		if err != nil {
			return fmt.Errorf("mlflow artifact upload: %w", errors.Unwrap(err))
		}
		resp.Body.Close()
		if resp.StatusCode/100 != 2 {
			return &APIError{Status: resp.StatusCode, Call: "artifacts upload", Message: rel}
		}
		return nil
	case strings.HasPrefix(root, "file:") || strings.HasPrefix(root, "/"):
		dir := strings.TrimPrefix(strings.TrimPrefix(root, "file://"), "file:")
		dst := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		b, err := os.ReadFile(local)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	}
	return fmt.Errorf("mlflow: the run's artifact root %q is neither served by the tracking server (mlflow-artifacts:/) nor local; start the server with --serve-artifacts", root)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
