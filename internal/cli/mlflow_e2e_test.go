package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/environ"
	"github.com/aiperf-go/aiperf/internal/mlflow"
	"github.com/aiperf-go/aiperf/internal/mlflow/mlflowtest"
)

// TestMLflowRun logs a real run to the fake tracking server: live
// metrics while it goes, then the summary, params, tags and artifacts on
// the same run, recorded in mlflow_export.json; `aiperf plot
// --mlflow-upload` then attaches the plots to that run.
func TestMLflowRun(t *testing.T) {
	t.Parallel()
	srv := mlflowtest.New()
	defer srv.Close()
	dir := t.TempDir()
	var stderr bytes.Buffer
	uri := strings.Replace(srv.URL, "http://", "http://bob:s3cretpw@", 1)
	code := Main(context.Background(), []string{"profile", "--mock-server", "-m", "mock-model", "--streaming", "--osl", "8",
		"--request-count", "12", "--concurrency", "3", "--ui-type", "none", "--output-artifact-dir", dir,
		"--mlflow-tracking-uri", uri, "--mlflow-experiment", "ci-perf", "--mlflow-tag", "team:perf", "--mlflow-run-name", "nightly"},
		Env{Stderr: &stderr, Runner: RunBenchmark, Snapshot: environ.Read()})
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	md, err := mlflow.ReadMetadata(filepath.Join(dir, mlflow.MetadataFile))
	if err != nil {
		t.Fatal(err)
	}
	if md.Experiment != "ci-perf" || md.RunName != "nightly" || !md.LiveStreaming || len(md.BenchmarkID) != 12 || strings.Contains(md.TrackingURI, "s3cretpw") {
		t.Errorf("mlflow_export.json = %+v", md)
	}
	run := srv.Run(md.RunID)
	if run == nil || run.Status != "FINISHED" || len(srv.Runs()) != 1 {
		t.Fatalf("runs on the server: %+v", srv.Runs())
	}
	if got := run.Metrics["request_count"]; len(got) != 1 || got[0] != 12 {
		t.Errorf("request_count = %v", got)
	}
	if got := run.Metrics["live.gen_ai.client.operation.duration"]; len(got) != 12 {
		t.Errorf("live durations: %d values; want one per request (12)", len(got))
	}
	if got := run.Metrics["live.aiperf.timing.requests.completed.profiling"]; len(got) == 0 || got[len(got)-1] != 12 {
		t.Errorf("live completed counter %v", got)
	}
	if run.Tags["team"] != "perf" || run.Tags["benchmark_id"] != md.BenchmarkID || run.Params["endpoint.type"] != "chat" || run.Params["loadgen.concurrency"] != "3" {
		t.Errorf("tags %v params %v", run.Tags, run.Params)
	}
	for _, c := range srv.Calls {
		if c.Auth != "Basic Ym9iOnMzY3JldHB3" || strings.Contains(string(c.Body), "s3cretpw") {
			t.Fatalf("%s %s: auth %q, body %s", c.Method, c.Path, c.Auth, c.Body)
		}
	}
	found := false
	for k := range srv.Artifacts {
		found = found || strings.HasSuffix(k, "/exports/profile_export_aiperf.json")
	}
	if !found {
		t.Errorf("summary not uploaded: %v", srv.Artifacts)
	}

	var out bytes.Buffer
	code = Main(context.Background(), []string{"plot", dir, "--format", "png", "--mlflow-upload", "--mlflow-tracking-uri", uri},
		Env{Stdout: &out, Stderr: &stderr})
	if code != 0 || !strings.Contains(out.String(), "Uploaded") {
		t.Fatalf("plot --mlflow-upload: exit %d\n%s\n%s", code, out.String(), stderr.String())
	}
	pngs := 0
	for k := range srv.Artifacts {
		if strings.Contains(k, md.RunID+"/artifacts/plots/") && strings.HasSuffix(k, ".png") {
			pngs++
		}
	}
	if pngs == 0 {
		t.Errorf("no plot uploaded under plots/: %d artifacts", len(srv.Artifacts))
	}
	if _, err := os.Stat(filepath.Join(dir, "plots")); err != nil {
		t.Error(err)
	}
}
