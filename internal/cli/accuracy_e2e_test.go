package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/environ"
)

// halfRightServer is an OpenAI chat server for the GSM8K fixture: it
// answers "Tom has A apples and buys B more" with A+B when A is 3 or 7,
// and A+B+1 otherwise, so exactly half of the fixture's four questions
// are answered right.
func halfRightServer(t *testing.T) *httptest.Server {
	re := regexp.MustCompile(`Tom has (\d+) apples and buys (\d+) more`)
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		var req struct {
			Messages []struct{ Role, Content string } `json:"messages"`
			Stream   bool                             `json:"stream"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 {
			http.Error(w, "bad request", 400)
			return
		}
		m := re.FindStringSubmatch(req.Messages[len(req.Messages)-1].Content)
		if m == nil {
			http.Error(w, "unknown question", 400)
			return
		}
		var a, b int
		fmt.Sscan(m[1], &a)
		fmt.Sscan(m[2], &b)
		ans := a + b
		if a != 3 && a != 7 {
			ans++
		}
		content := fmt.Sprintf("He has %d + %d apples.\n#### %d", a, b, ans)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": "x", "object": "chat.completion", "model": "m",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": content}}},
			"usage":   map[string]any{"prompt_tokens": 20, "completion_tokens": 8, "total_tokens": 28},
		})
	}))
}

// TestAccuracyHalfRight runs --accuracy-benchmark gsm8k from the fixture
// hub cache against a server that is right half the time: the run
// reports 50 % in the console, accuracy_results.csv, the summary JSON
// and accuracy_export.jsonl.
func TestAccuracyHalfRight(t *testing.T) {
	hub, _ := filepath.Abs(filepath.Join("..", "accuracy", "testdata", "hub"))
	t.Setenv("HF_HUB_CACHE", hub)
	t.Setenv("HF_HUB_OFFLINE", "1")
	srv := halfRightServer(t)
	defer srv.Close()
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := Main(context.Background(), []string{"profile", "-m", "m", "-u", srv.URL, "--accuracy-benchmark", "gsm8k",
		"--ui-type", "none", "--output-artifact-dir", dir, "--no-server-metrics", "--concurrency", "2", "--tokenizer", "builtin"},
		Env{Stdout: &stdout, Stderr: &stderr, Runner: RunBenchmark, Snapshot: environ.Read()})
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout.String(), stderr.String())
	}
	if out := stdout.String(); !strings.Contains(out, "Accuracy Benchmark Results") || !regexp.MustCompile(`OVERALL\s+2\s+4\s+0\s+50\.00%`).MatchString(out) {
		t.Errorf("console lacks the 50%% accuracy table:\n%s", out)
	}
	csv, err := os.ReadFile(filepath.Join(dir, "accuracy_results.csv"))
	if err != nil || string(csv) != "task,correct,total,unparsed,accuracy\ngsm8k,2,4,0,0.5000\nOVERALL,2,4,0,0.5000\n" {
		t.Errorf("accuracy_results.csv = %q, %v", csv, err)
	}
	var sum map[string]json.RawMessage
	b, _ := os.ReadFile(filepath.Join(dir, "profile_export_aiperf.json"))
	json.Unmarshal(b, &sum)
	var overall struct {
		Unit       string
		Avg        float64
		Count, Sum int
	}
	json.Unmarshal(sum["accuracy.overall"], &overall)
	if overall.Unit != "ratio" || overall.Avg != 0.5 || overall.Count != 4 || overall.Sum != 2 {
		t.Errorf("summary accuracy.overall = %+v (%s)", overall, sum["accuracy.overall"])
	}
	var acc struct {
		Rate   float64 `json:"accuracy_rate"`
		Grader string  `json:"grader_name"`
	}
	json.Unmarshal(sum["accuracy"], &acc)
	if acc.Rate != 0.5 || acc.Grader != "lighteval_gsm8k" {
		t.Errorf("summary accuracy = %s", sum["accuracy"])
	}
	var rc struct {
		Avg float64
	}
	json.Unmarshal(sum["request_count"], &rc)
	if rc.Avg != 4 {
		t.Errorf("request_count %v; want one request per question (4)", rc.Avg)
	}
	lines, _ := os.ReadFile(filepath.Join(dir, "accuracy_export.jsonl"))
	passed := strings.Count(string(lines), `"passed":true`)
	if n := strings.Count(string(lines), "\n"); n != 4 || passed != 2 || !strings.Contains(string(lines), `"actual":"7"`) {
		t.Errorf("accuracy_export.jsonl: %d lines, %d passed:\n%s", n, passed, lines)
	}
}
