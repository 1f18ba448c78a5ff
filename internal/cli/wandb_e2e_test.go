package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/environ"
	"github.com/aiperf-go/aiperf/internal/wandb/wandbtest"
)

// TestWandbRun uploads a real run to the fake W&B server: the run with
// its configuration (credentials redacted) and tags, the summary table,
// the summary values and the artifact files.
func TestWandbRun(t *testing.T) {
	t.Parallel()
	srv := wandbtest.New()
	defer srv.Close()
	dir := t.TempDir()
	var stderr bytes.Buffer
	env := Env{Stderr: &stderr, Runner: RunBenchmark, Snapshot: environ.Read(), Getenv: func(k string) string {
		return map[string]string{"WANDB_API_KEY": "wb-key-777", "WANDB_BASE_URL": srv.URL}[k]
	}}
	code := Main(context.Background(), []string{"profile", "--mock-server", "-m", "mock-model", "--osl", "8", "--request-count", "6",
		"--ui-type", "none", "--output-artifact-dir", dir, "--api-key", "sk-wandb-secret-1", "--wandb-project", "perf", "--wandb-entity", "team-a",
		"--wandb-tag", "ci,nightly"}, env)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "W&B: uploaded run") {
		t.Fatalf("no upload reported:\n%s", stderr.String())
	}
	up := srv.GraphQL("upsertBucket")
	if len(up) != 1 {
		t.Fatalf("upsertBucket calls %d", len(up))
	}
	vars := up[0]["variables"].(map[string]any)
	if vars["entity"] != "team-a" || vars["project"] != "perf" || !strings.HasPrefix(vars["displayName"].(string), "aiperf-") {
		t.Errorf("variables %v", vars)
	}
	if len(srv.GraphQL("viewer")) != 0 {
		t.Error("viewer queried although --wandb-entity was given")
	}
	for _, c := range srv.Calls {
		if strings.Contains(string(c.Body), "sk-wandb-secret-1") {
			t.Fatalf("%s %s sends the API key", c.Method, c.Path)
		}
	}
	var conf map[string]map[string]any
	json.Unmarshal([]byte(vars["config"].(string)), &conf)
	if _, ok := conf["endpoint"]; !ok || !strings.Contains(conf["aiperf.cli_command"]["value"].(string), "--wandb-project") {
		t.Errorf("config keys %v", conf)
	}
	var rows int
	for k, b := range srv.Uploaded {
		if strings.HasPrefix(k, "media/table/") {
			var tb struct{ Data [][]any }
			json.Unmarshal(b, &tb)
			rows = len(tb.Data)
		}
	}
	if rows < 5 {
		t.Errorf("summary_metrics table rows %d", rows)
	}
	if _, ok := srv.Uploaded["aiperf/profile_export_aiperf.json"]; !ok {
		t.Errorf("uploaded %d files, not the summary", len(srv.Uploaded))
	}
	if len(srv.Stream) != 2 {
		t.Errorf("file_stream calls %d", len(srv.Stream))
	}
}
