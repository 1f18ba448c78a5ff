package wandb

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/wandb/wandbtest"
)

func TestUploadPinsRequests(t *testing.T) {
	t.Parallel()
	srv := wandbtest.New()
	defer srv.Close()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "profile_export_aiperf.json"), []byte(`{"request_latency":{"unit":"ms","avg":12.5,"p99":20},"request_count":{"unit":"requests","avg":4}}`), 0o644)
	v := 12.345
	res, err := Upload(context.Background(), Options{
		Project: "perf", Tags: []string{"nightly"}, Config: json.RawMessage(`{"endpoint":{"api_key":"<redacted>"}}`), CLICommand: "aiperf profile",
		Rows:        []Row{{Label: "Request Latency (ms)", Values: []*float64{&v, nil, nil, nil, nil, nil, nil}}},
		ArtifactDir: dir, SummaryFile: filepath.Join(dir, "profile_export_aiperf.json"), Files: []string{"profile_export_aiperf.json"},
		BenchmarkID: "0123456789ab", Version: "v9",
		Getenv: func(k string) string {
			return map[string]string{"WANDB_API_KEY": "key-123", "WANDB_BASE_URL": srv.URL}[k]
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Entity != "alice" || res.RunName != "aiperf-01234567" || len(res.RunID) != 8 {
		t.Errorf("result %+v", res)
	}
	up := srv.GraphQL("upsertBucket")
	if len(up) != 1 {
		t.Fatalf("upsertBucket calls %d", len(up))
	}
	vars := up[0]["variables"].(map[string]any)
	if vars["project"] != "perf" || vars["entity"] != "alice" || vars["displayName"] != "aiperf-01234567" || vars["state"] != "running" {
		t.Errorf("upsertBucket variables %v", vars)
	}
	var tags []string
	for _, x := range vars["tags"].([]any) {
		tags = append(tags, x.(string))
	}
	if !slices.Equal(tags, []string{"aiperf-v9", "benchmark-01234567", "nightly"}) {
		t.Errorf("tags %v", tags)
	}
	if conf := vars["config"].(string); conf != `{"aiperf.cli_command":{"value":"aiperf profile"},"endpoint":{"value":{"api_key":"\u003credacted\u003e"}}}` {
		t.Errorf("config %s", conf)
	}
	for _, c := range srv.Calls {
		if c.Method == "POST" && c.Auth != "Basic YXBpOmtleS0xMjM=" {
			t.Errorf("%s auth %q", c.Path, c.Auth)
		}
	}
	var table struct {
		Columns []string `json:"columns"`
		Data    [][]any  `json:"data"`
	}
	var tableName string
	for k, b := range srv.Uploaded {
		if strings.HasPrefix(k, "media/table/summary_metrics_0_") {
			tableName = k
			json.Unmarshal(b, &table)
		}
	}
	if !slices.Equal(table.Columns, Columns) || len(table.Data) != 1 || table.Data[0][0] != "Request Latency (ms)" || table.Data[0][1] != 12.35 || table.Data[0][2] != nil {
		t.Errorf("table %s = %+v", tableName, table)
	}
	if _, ok := srv.Uploaded["aiperf/profile_export_aiperf.json"]; !ok {
		t.Errorf("artifact not uploaded: %v", srv.Uploaded)
	}
	if len(srv.Stream) != 2 || srv.Stream[1]["complete"] != true {
		t.Fatalf("file_stream bodies %v", srv.Stream)
	}
	files := srv.Stream[0]["files"].(map[string]any)
	sum := files["wandb-summary.json"].(map[string]any)["content"].([]any)[0].(string)
	var s map[string]any
	json.Unmarshal([]byte(sum), &s)
	ref := s["summary_metrics"].(map[string]any)
	if ref["_type"] != "table-file" || ref["path"] != tableName || s["request_latency"] != 12.5 || s["request_count"] != 4.0 {
		t.Errorf("summary %s", sum)
	}
}

func TestUploadNeedsKey(t *testing.T) {
	t.Parallel()
	if _, err := Upload(context.Background(), Options{Project: "p"}); err == nil || !strings.Contains(err.Error(), "WANDB_API_KEY") {
		t.Errorf("Upload without a key = %v", err)
	}
}
