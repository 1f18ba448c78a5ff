package mlflow

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/live"
	"github.com/aiperf-go/aiperf/internal/mlflow/mlflowtest"
)

const summary = `{"schema_version":"1.4","benchmark_id":"0123456789ab",
"request_latency":{"unit":"ms","avg":10.5,"p50":10,"p99":20,"min":5,"max":21,"std":1.5,"count":4,"sum":42},
"request_count":{"unit":"requests","avg":4}}`

func artifactDir(t *testing.T) string {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "profile_export_aiperf.json"), []byte(summary), 0o644)
	os.WriteFile(filepath.Join(dir, "profile_export.jsonl"), []byte("{}\n"), 0o644)
	os.MkdirAll(filepath.Join(dir, "plots"), 0o755)
	os.WriteFile(filepath.Join(dir, "plots", "ttft.png"), []byte("png"), 0o644)
	os.MkdirAll(filepath.Join(dir, "logs"), 0o755)
	os.WriteFile(filepath.Join(dir, "logs", "aiperf.log"), []byte("log"), 0o644)
	return dir
}

func opts(srv *mlflowtest.Server, dir string) Options {
	url := ""
	if srv != nil {
		url = srv.URL
	}
	return Options{
		TrackingURI: url, RedactedURI: url, Experiment: "perf", ArtifactDir: dir,
		SummaryFile: filepath.Join(dir, "profile_export_aiperf.json"),
		Globs:       []string{"*.json", "*.jsonl", "**/*.png"}, BenchmarkID: "0123456789ab", Version: "v9",
		Tags:   []KV{{"team", "perf"}},
		Params: []KV{{"endpoint.type", "chat"}, {"aiperf.cli_command", "aiperf profile --api-key '<redacted>'"}},
		Getenv: func(k string) string {
			if k == "MLFLOW_TRACKING_TOKEN" {
				return "tok123"
			}
			return ""
		},
	}
}

func TestExportPinsRequests(t *testing.T) {
	t.Parallel()
	srv := mlflowtest.New()
	defer srv.Close()
	dir := artifactDir(t)
	md, err := Export(context.Background(), opts(srv, dir), nil)
	if err != nil {
		t.Fatal(err)
	}
	// The experiment is looked up, then created.
	if c := srv.CallsTo("/api/2.0/mlflow/experiments/create"); len(c) != 1 || string(c[0].Body) != `{"name":"perf"}` || c[0].Auth != "Bearer tok123" {
		t.Errorf("experiments/create = %+v", c)
	}
	create := srv.CallsTo("/api/2.0/mlflow/runs/create")
	if len(create) != 1 {
		t.Fatalf("runs/create calls %d", len(create))
	}
	var cr struct {
		Experiment string `json:"experiment_id"`
		Name       string `json:"run_name"`
		Start      int64  `json:"start_time"`
		Tags       []KV   `json:"tags"`
	}
	json.Unmarshal(create[0].Body, &cr)
	if cr.Experiment != "101" || cr.Name != "aiperf-01234567" || cr.Start == 0 || !slices.Equal(cr.Tags, []KV{{"mlflow.runName", "aiperf-01234567"}}) {
		t.Errorf("runs/create body %s", create[0].Body)
	}
	batch := srv.CallsTo("/api/2.0/mlflow/runs/log-batch")
	var lb struct {
		RunID   string   `json:"run_id"`
		Metrics []Metric `json:"metrics"`
		Params  []KV     `json:"params"`
		Tags    []KV     `json:"tags"`
	}
	json.Unmarshal(batch[0].Body, &lb)
	keys := []string{}
	for _, m := range lb.Metrics {
		keys = append(keys, m.Key)
	}
	want := []string{"aiperf.completed_requests", "request_count", "request_latency", "request_latency.count", "request_latency.max",
		"request_latency.min", "request_latency.p50", "request_latency.p99", "request_latency.std", "request_latency.sum"}
	if !slices.Equal(keys, want) || lb.Metrics[2].Value != 10.5 || lb.Metrics[0].Value != 4 {
		t.Errorf("log-batch metrics %v (%s)", keys, batch[0].Body)
	}
	if !slices.Equal(lb.Tags, []KV{{"aiperf.version", "v9"}, {"aiperf.was_cancelled", "false"}, {"benchmark_id", "0123456789ab"}, {"team", "perf"}}) {
		t.Errorf("log-batch tags %v", lb.Tags)
	}
	if len(lb.Params) != 2 || lb.Params[1].Value != "aiperf profile --api-key '<redacted>'" {
		t.Errorf("log-batch params %v", lb.Params)
	}
	run := srv.Run(md.RunID)
	if run.Status != "FINISHED" {
		t.Errorf("run status %q", run.Status)
	}
	var names []string
	for k := range srv.Artifacts {
		names = append(names, k)
	}
	slices.Sort(names)
	prefix := "101/" + md.RunID + "/artifacts/"
	wantArt := []string{prefix + "exports/mlflow_export.json", prefix + "exports/profile_export.jsonl", prefix + "exports/profile_export_aiperf.json", prefix + "plots/ttft.png"}
	if !slices.Equal(names, wantArt) {
		t.Errorf("artifacts %v; want %v", names, wantArt)
	}
	if string(srv.Artifacts[prefix+"exports/profile_export_aiperf.json"]) != summary {
		t.Error("uploaded summary differs from the file")
	}
	back, err := ReadMetadata(filepath.Join(dir, MetadataFile))
	if err != nil || back.RunID != md.RunID || back.Experiment != "perf" || back.LiveStreaming ||
		!slices.Equal(back.UploadedArtifacts, []string{"profile_export_aiperf.json", "profile_export.jsonl", "plots/ttft.png", "mlflow_export.json"}) {
		t.Errorf("mlflow_export.json = %+v, %v", back, err)
	}
}

func TestExportParentAndLive(t *testing.T) {
	t.Parallel()
	srv := mlflowtest.New()
	defer srv.Close()
	dir := artifactDir(t)
	o := opts(srv, dir)
	o.ParentRunID = "missing-parent"
	var warned []string
	o.Warn = func(s string) { warned = append(warned, s) }
	s, err := StartLive(context.Background(), o, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "missing-parent") {
		t.Errorf("warnings %v", warned)
	}
	s.ObserveRecord(&live.Record{Metrics: []live.RecordMetric{{Tag: "request_latency", Unit: "ms", Value: 1500}, {Tag: "output_token_count", Value: 7}}})
	s.ObserveRecord(&live.Record{Metrics: []live.RecordMetric{{Tag: "request_latency", Unit: "ms", Value: 500}}})
	s.Observe(&live.Snapshot{Seq: 1, Phase: live.Progress{Phase: "profiling", Sent: 2, Done: 1}})
	s.Observe(&live.Snapshot{Seq: 2, Phase: live.Progress{Phase: "profiling", Sent: 2, Done: 2}, Final: true})
	s.Close()
	run := srv.Run(s.Run().ID)
	if got := run.Metrics["live.gen_ai.client.operation.duration"]; !slices.Equal(got, []float64{1.5, 0.5}) || !slices.Equal(run.Steps["live.gen_ai.client.operation.duration"], []int64{0, 1}) {
		t.Errorf("live durations %v steps %v", got, run.Steps["live.gen_ai.client.operation.duration"])
	}
	if got := run.Metrics["live.aiperf.timing.requests.completed.profiling"]; !slices.Equal(got, []float64{1, 2}) {
		t.Errorf("live completed %v", got)
	}
	if got := run.Metrics["live.aiperf.timing.requests.sent.profiling"]; !slices.Equal(got, []float64{2}) {
		t.Errorf("live sent %v (unchanged values are not repeated)", got)
	}
	md, err := Export(context.Background(), o, s.Run())
	if err != nil {
		t.Fatal(err)
	}
	if md.RunID != s.Run().ID || !md.ReusedLiveRun || md.ParentRunID != nil || len(srv.CallsTo("/api/2.0/mlflow/runs/create")) != 1 {
		t.Errorf("export did not reuse the live run: %+v", md)
	}
	// With an existing parent, the run is nested.
	o.ParentRunID = md.RunID
	md2, err := Export(context.Background(), o, nil)
	if err != nil || md2.ParentRunID == nil || srv.Run(md2.RunID).Tags["mlflow.parentRunId"] != md.RunID {
		t.Errorf("nested run: %+v, %v", md2, err)
	}
}

func TestMatchAndDestination(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		glob, rel string
		want      bool
	}{
		{"*.json", "a.json", true}, {"*.json", "plots/a.json", false}, {"**/*.png", "plots/x/a.png", true},
		{"**/*.png", "a.png", true}, {"*_timeslices.*", "profile_export_aiperf_timeslices.csv", true},
	} {
		if got := Match(tc.glob, tc.rel); got != tc.want {
			t.Errorf("Match(%q, %q) = %v", tc.glob, tc.rel, got)
		}
	}
	for rel, want := range map[string]string{"a.json": "exports", "plots/a.png": "plots", "plots/sub/a.html": "plots/sub", "x/a.csv": "exports/x", "b.png": "plots"} {
		if got := destination(rel); got != want {
			t.Errorf("destination(%q) = %q; want %q", rel, got, want)
		}
	}
}

func TestAPIErrors(t *testing.T) {
	t.Parallel()
	srv := mlflowtest.New()
	defer srv.Close()
	c, _ := NewClient(srv.URL, nil)
	_, err := c.GetRun(context.Background(), "nope")
	if !IsNotFound(err) || !strings.Contains(err.Error(), "RESOURCE_DOES_NOT_EXIST") {
		t.Errorf("GetRun(nope) = %v", err)
	}
	if _, err := NewClient("file:///tmp/mlruns", nil); err == nil {
		t.Error("a file store URI was accepted")
	}
}

// TestRealServer exports to a real MLflow tracking server, when
// AIPERF_TEST_MLFLOW names an mlflow executable (pip install mlflow):
//
//	AIPERF_TEST_MLFLOW=/work/venv-i21/bin/mlflow go test ./internal/mlflow -run TestRealServer -v
func TestRealServer(t *testing.T) {
	bin := os.Getenv("AIPERF_TEST_MLFLOW")
	if bin == "" {
		t.Skip("set AIPERF_TEST_MLFLOW to an mlflow executable to run against a real tracking server")
	}
	url := startMLflow(t, bin)
	dir := artifactDir(t)
	o := opts(nil, dir)
	o.TrackingURI, o.RedactedURI = url, url
	o.Getenv = nil
	o.Warn = func(s string) { t.Errorf("warning: %s", s) }
	s, err := StartLive(context.Background(), o, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	s.ObserveRecord(&live.Record{Metrics: []live.RecordMetric{{Tag: "request_latency", Unit: "ms", Value: 250}}})
	s.Observe(&live.Snapshot{Seq: 1, Phase: live.Progress{Phase: "profiling", Sent: 4, Done: 4}, Final: true})
	s.Close()
	md, err := Export(context.Background(), o, s.Run())
	if err != nil {
		t.Fatal(err)
	}
	c, _ := NewClient(url, nil)
	var got struct {
		Run struct {
			Info struct {
				Status string `json:"status"`
			} `json:"info"`
			Data struct {
				Metrics []Metric `json:"metrics"`
				Params  []KV     `json:"params"`
				Tags    []KV     `json:"tags"`
			} `json:"data"`
		} `json:"run"`
	}
	if err := c.do(context.Background(), "GET", "/api/2.0/mlflow/runs/get", map[string][]string{"run_id": {md.RunID}}, nil, &got); err != nil {
		t.Fatal(err)
	}
	metrics := map[string]float64{}
	for _, m := range got.Run.Data.Metrics {
		metrics[m.Key] = m.Value
	}
	if got.Run.Info.Status != "FINISHED" || metrics["request_latency"] != 10.5 || metrics["request_latency.p99"] != 20 ||
		metrics["live.gen_ai.client.operation.duration"] != 0.25 || metrics["live.aiperf.timing.requests.completed.profiling"] != 4 {
		t.Errorf("run on the server: %+v", got.Run)
	}
	var list struct {
		Files []struct {
			Path string `json:"path"`
		} `json:"files"`
	}
	for _, sub := range []string{"exports", "plots"} {
		if err := c.do(context.Background(), "GET", "/api/2.0/mlflow/artifacts/list", map[string][]string{"run_id": {md.RunID}, "path": {sub}}, nil, &list); err != nil {
			t.Fatal(err)
		}
		var paths []string
		for _, f := range list.Files {
			paths = append(paths, f.Path)
		}
		want := map[string][]string{"exports": {"exports/mlflow_export.json", "exports/profile_export.jsonl", "exports/profile_export_aiperf.json"}, "plots": {"plots/ttft.png"}}[sub]
		if slices.Sort(paths); !slices.Equal(paths, want) {
			t.Errorf("server artifacts under %s: %v; want %v", sub, paths, want)
		}
	}
}
