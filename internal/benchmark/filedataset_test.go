package benchmark

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/builtin"
	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/mockserver"
)

// fileRecordingMock starts a mock server that records every request body.
func fileRecordingMock(t *testing.T) (url string, bodies func() []map[string]any, raw func() []string) {
	t.Helper()
	url, posts := recorderServer(t, mockserver.New(mockConfig(t, nil)))
	return url, func() []map[string]any {
			var out []map[string]any
			for _, r := range posts() {
				var m map[string]any
				json.Unmarshal(r.Body, &m)
				out = append(out, m)
			}
			return out
		}, func() []string {
			var out []string
			for _, r := range posts() {
				out = append(out, string(r.Body))
			}
			return out
		}
}

func TestRunCustomDatasets(t *testing.T) {
	raw := `{"messages":[{"role":"user","content":"raw hi"}],"model":"raw-model","max_tokens":3}`
	tests := []struct {
		name, typ, content string
		count              int
		check              func(t *testing.T, bodies []map[string]any, raws []string)
	}{
		{"single_turn", "single_turn", `{"text":"first","output_length":5,"extra":{"temperature":0.5,"model":"override"}}` + "\n" + `{"text":"second"}` + "\n", 2,
			func(t *testing.T, b []map[string]any, raws []string) {
				if b[0]["temperature"] != 0.5 || b[0]["model"] != "override" || b[0]["max_completion_tokens"] != 5.0 {
					t.Errorf("extra not merged or max tokens missing: %v", b[0])
				}
				// dict.update order: the existing "model" keeps its place,
				// the new key comes last.
				if !strings.HasPrefix(raws[0], `{"messages":[{"role":"user","content":"first"}],"model":"override",`) || !strings.HasSuffix(raws[0], `"temperature":0.5}`) {
					t.Errorf("body order = %s", raws[0])
				}
				if b[1]["model"] != "mock-model" {
					t.Errorf("second turn model = %v", b[1]["model"])
				}
			}},
		{"single_turn image", "single_turn", `{"text":"what is this?","image":"https://example.com/cat.png"}` + "\n", 1,
			func(t *testing.T, _ []map[string]any, raws []string) {
				if !strings.Contains(raws[0], `https://example.com/cat.png`) || !strings.Contains(raws[0], `what is this?`) {
					t.Errorf("image turn = %s", raws[0])
				}
			}},
		{"multi_turn", "multi_turn", `{"session_id":"c","turns":[{"text":"t1"},{"text":"t2"},{"text":"t3","extra":{"temperature":0.25}}]}` + "\n", 3,
			func(t *testing.T, b []map[string]any, raws []string) {
				for i, want := range []string{"t1", "t2", "t3"} {
					if !strings.Contains(raws[i], want) {
						t.Errorf("request %d = %s, want turn %s", i, raws[i], want)
					}
				}
				// A later turn is built at run time with its history; its
				// own extra must still be merged, last.
				if msgs, _ := b[2]["messages"].([]any); len(msgs) != 5 || !strings.HasSuffix(raws[2], `"temperature":0.25}`) {
					t.Errorf("third turn: %d messages, body %s; want the history (5 messages) and the turn's extra last", len(msgs), raws[2])
				}
				if _, ok := b[1]["temperature"]; ok {
					t.Errorf("second turn carries the third turn's extra: %s", raws[1])
				}
			}},
		{"raw_payload", "raw_payload", raw + "\n", 1,
			func(t *testing.T, _ []map[string]any, raws []string) {
				if raws[0] != raw {
					t.Errorf("raw payload changed on the wire:\n got %s\nwant %s", raws[0], raw)
				}
			}},
		{"mooncake_trace", "mooncake_trace", `{"input_length":40,"output_length":4,"hash_ids":[1,2,3]}` + "\n" + `{"input_length":32,"output_length":4,"hash_ids":[1,2]}` + "\n", 2,
			func(t *testing.T, b []map[string]any, _ []string) {
				p0 := b[0]["messages"].([]any)[0].(map[string]any)["content"].(string)
				p1 := b[1]["messages"].([]any)[0].(map[string]any)["content"].(string)
				if !strings.HasPrefix(p0, p1[:len(p1)/2]) {
					t.Errorf("prompts sharing hash ids 1,2 do not share a prefix:\n%q\n%q", p0, p1)
				}
			}},
		{"bailian_trace", "bailian_trace", `{"chat_id":1,"parent_chat_id":-1,"timestamp":0,"input_length":20,"output_length":3,"type":"text","turn":1,"hash_ids":[7,8]}` + "\n", 1, nil},
		{"burst_gpt_trace", "burst_gpt_trace", "Timestamp,Model,Request tokens,Response tokens\n0,ChatGPT,20,5\n", 1,
			func(t *testing.T, b []map[string]any, _ []string) {
				if b[0]["max_completion_tokens"] != 5.0 {
					t.Errorf("max tokens = %v", b[0]["max_completion_tokens"])
				}
			}},
		{"random_pool", "random_pool", `{"text":"only"}` + "\n", 2, nil},
		{"inputs_json", "inputs_json", `{"data":[{"session_id":"a","payloads":[{"messages":[{"role":"user","content":"x"}],"model":"m2"}]}]}`, 1,
			func(t *testing.T, _ []map[string]any, raws []string) {
				if raws[0] != `{"messages":[{"role":"user","content":"x"}],"model":"m2"}` {
					t.Errorf("inputs.json payload changed: %s", raws[0])
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, bodies, raws := fileRecordingMock(t)
			path := filepath.Join(t.TempDir(), "data.jsonl")
			if err := os.WriteFile(path, []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg := baseConfig(t, url)
			cfg.Endpoint.Streaming = false
			cfg.Tokenizer.Name = "builtin"
			cfg.Dataset.InputFile = path
			cfg.Dataset.CustomType = config.CustomDatasetType(tt.typ)
			cfg.Dataset.BlockSize = ptr(16)
			cfg.Load.RequestCount = ptr(tt.count)
			cfg.Load.Concurrency = ptr(1)
			if out, err := run(t, context.Background(), cfg); err != nil {
				t.Fatalf("run: %v\n%s", err, out)
			}
			b, r := bodies(), raws()
			if len(b) != tt.count {
				t.Fatalf("%d requests recorded, want %d", len(b), tt.count)
			}
			if tt.check != nil {
				tt.check(t, b, r)
			}
		})
	}
}

// TestFileDatasetPlan checks the plan of a file dataset: the sampling
// strategy is the format's unless the flag sets one, the type is detected,
// and a bad file is a usage error naming file and line.
func TestFileDatasetPlan(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "trace.jsonl")
	os.WriteFile(trace, []byte(`{"timestamp":0,"input_length":20,"hash_ids":[1]}`+"\n"), 0o644)
	pool := filepath.Join(dir, "pool")
	os.Mkdir(pool, 0o755)
	os.WriteFile(filepath.Join(pool, "q.jsonl"), []byte(`{"text":"q"}`+"\n"), 0o644)
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(`{"text":"ok"}`+"\n"+`{"text":3}`+"\n"), 0o644)
	for _, tt := range []struct {
		name, path, strategy, wantSampling, wantType string
		wantTimestamps                               bool
		sessions                                     int
	}{
		{"trace", trace, "", "sequential", "mooncake_trace", true, 0},
		{"trace with flag", trace, "shuffle", "shuffle", "mooncake_trace", true, 0},
		{"pool", pool, "", "shuffle", "random_pool", false, 7},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := baseConfig(t, "http://127.0.0.1:1")
			cfg.Tokenizer.Name = "builtin"
			cfg.Dataset.InputFile = tt.path
			cfg.Dataset.SamplingStrategy = config.SamplingStrategy(tt.strategy)
			if tt.sessions > 0 {
				cfg.Conversation.NumSessions = ptr(tt.sessions)
			}
			p, err := NewPlan(cfg, builtin.New(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := p.BuildDataset(); err != nil {
				t.Fatal(err)
			}
			if p.Sampling != tt.wantSampling || p.DatasetType != tt.wantType || p.DatasetTimestamps != tt.wantTimestamps {
				t.Errorf("sampling %s type %s timestamps %v", p.Sampling, p.DatasetType, p.DatasetTimestamps)
			}
			if tt.sessions > 0 && p.Dataset.Len() != tt.sessions {
				t.Errorf("%d conversations, want %d", p.Dataset.Len(), tt.sessions)
			}
		})
	}
	cfg := baseConfig(t, "http://127.0.0.1:1")
	cfg.Tokenizer.Name = "builtin"
	cfg.Dataset.InputFile = bad
	p, err := NewPlan(cfg, builtin.New(), nil)
	if err != nil {
		t.Fatal(err)
	}
	err = p.BuildDataset()
	if exitCode(err) != int(config.ExitUsage) || !strings.Contains(err.Error(), bad+":2: text:") {
		t.Errorf("bad file: %v (exit %d)", err, exitCode(err))
	}
}

// TestRunShareGPTLocal runs --public-dataset sharegpt from a local file:
// each kept pair is sent with its completion length as max tokens.
func TestRunShareGPTLocal(t *testing.T) {
	url, bodies, _ := fileRecordingMock(t)
	path := filepath.Join(t.TempDir(), "sharegpt.json")
	os.WriteFile(path, []byte(`[{"id":"a","conversations":[
		{"from":"human","value":"Tell me a story about a brave little toaster please."},
		{"from":"gpt","value":"Once upon a time a toaster set out across the wide world."}]},
		{"id":"b","conversations":[{"from":"human","value":"Hi"},{"from":"gpt","value":"Hello there, how can I help?"}]}]`), 0o644)
	cfg := baseConfig(t, url)
	cfg.Endpoint.Streaming = false
	cfg.Tokenizer.Name = "builtin"
	cfg.Input.OutputTokens.Mean = nil
	cfg.Dataset.Public = config.PublicShareGPT
	cfg.Dataset.InputFile = path
	cfg.Load.RequestCount = ptr(2)
	cfg.Load.Concurrency = ptr(1)
	if out, err := run(t, context.Background(), cfg); err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	b := bodies()
	if len(b) != 2 {
		t.Fatalf("%d requests", len(b))
	}
	for _, body := range b {
		msg := body["messages"].([]any)[0].(map[string]any)["content"]
		if msg != "Tell me a story about a brave little toaster please." || body["max_completion_tokens"] == nil {
			t.Errorf("body = %v", body)
		}
	}
}

// TestRunSystemPromptFile sends --system-prompt-file's text as the leading
// system message of every request of a file dataset (later turns too),
// fills max tokens from --osl where a line sets none, and fails before
// the run on a missing file.
func TestRunSystemPromptFile(t *testing.T) {
	url, bodies, _ := fileRecordingMock(t)
	dir := t.TempDir()
	sys := filepath.Join(dir, "system.txt")
	data := filepath.Join(dir, "data.jsonl")
	os.WriteFile(sys, []byte("Answer in French."), 0o644)
	os.WriteFile(data, []byte(`{"session_id":"s","turns":[{"text":"t1","output_length":3},{"text":"t2"}]}`+"\n"), 0o644)
	cfg := baseConfig(t, url)
	cfg.Endpoint.Streaming = false
	cfg.Tokenizer.Name = "builtin"
	cfg.Dataset.InputFile, cfg.Dataset.CustomType = data, config.DatasetMultiTurn
	cfg.Prompt.SystemPromptFile = sys
	cfg.Load.RequestCount = ptr(2)
	cfg.Load.Concurrency = ptr(1)
	if out, err := run(t, context.Background(), cfg); err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	b := bodies()
	if len(b) != 2 {
		t.Fatalf("%d requests, want 2", len(b))
	}
	for i, want := range []float64{3, 8} {
		msgs, _ := b[i]["messages"].([]any)
		first, _ := msgs[0].(map[string]any)
		if first["role"] != "system" || first["content"] != "Answer in French." {
			t.Errorf("request %d starts with %v; want the system prompt", i, first)
		}
		if b[i]["max_completion_tokens"] != want {
			t.Errorf("request %d max tokens = %v; want %v", i, b[i]["max_completion_tokens"], want)
		}
	}
	cfg.Prompt.SystemPromptFile = filepath.Join(dir, "missing.txt")
	cfg.Output.ArtifactDir = t.TempDir()
	_, err := run(t, context.Background(), cfg)
	if exitCode(err) != int(config.ExitUsage) || !strings.Contains(err.Error(), "missing.txt") {
		t.Errorf("missing file: %v (exit %d)", err, exitCode(err))
	}
}

// TestRunTraceSynthesis replays a mooncake trace with the Synthesis
// flags: --synthesis-max-isl drops the long request, the speedup halves
// the timestamps, the output multiplier doubles max tokens; a non-trace
// dataset refuses them.
func TestRunTraceSynthesis(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "trace.jsonl")
	os.WriteFile(trace, []byte(`{"timestamp":0,"input_length":32,"output_length":3,"hash_ids":[1,2]}
{"timestamp":400,"input_length":300,"output_length":3,"hash_ids":[3]}
{"timestamp":900,"input_length":40,"output_length":2,"hash_ids":[1,2,4]}
`), 0o644)
	two, half := 2.0, 0.5
	url, bodies, _ := fileRecordingMock(t)
	cfg := baseConfig(t, url)
	cfg.Endpoint.Streaming = false
	cfg.Tokenizer.Name = "builtin"
	cfg.Input.OutputTokens.Mean = nil
	cfg.Dataset.InputFile, cfg.Dataset.BlockSize = trace, ptr(16)
	cfg.Dataset.Synthesis = config.Synthesis{SpeedupRatio: &two, OutputLenMultiplier: &two, PromptLenMultiplier: &half, MaxISL: ptr(100)}
	cfg.Load.RequestCount = nil
	p, err := NewPlan(cfg, builtin.New(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.BuildDataset(); err != nil {
		t.Fatal(err)
	}
	if n := p.Dataset.Len(); n != 2 {
		t.Fatalf("%d conversations, want 2 (the 300-token request dropped)", n)
	}
	if ts := p.Dataset.Conversations[1].Turns[0].Timestamp; ts != 450*time.Millisecond {
		t.Errorf("second request at %v; want 450ms (900 / 2)", ts)
	}
	// Request 1 (hash ids 1,2 shared with request 3) keeps its 32-token
	// prefix; request 3 halves its 8-token rest.
	third := p.Dataset.Conversations[1].Turns[0].Materialize() // a lazy trace prompt
	if n := p.Tokenizer.Count(third.Texts[0]); n < 34 || n > 38 {
		t.Errorf("third request has %d input tokens; want about 36 (32 shared + 8/2)", n)
	}
	if out, err := run(t, context.Background(), cfg); err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	b := bodies()
	if len(b) != 2 || b[0]["max_completion_tokens"] != 6.0 || b[1]["max_completion_tokens"] != 4.0 {
		t.Errorf("bodies %v; want 2 requests asking for 6 and 4 tokens", b)
	}

	single := filepath.Join(dir, "single.jsonl")
	os.WriteFile(single, []byte(`{"text":"hi"}`+"\n"), 0o644)
	cfg = baseConfig(t, "http://127.0.0.1:1")
	cfg.Tokenizer.Name = "builtin"
	cfg.Dataset.InputFile = single
	cfg.Dataset.Synthesis.MaxOSL = ptr(4)
	p, err = NewPlan(cfg, builtin.New(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.BuildDataset(); err == nil || !strings.Contains(err.Error(), "only apply to trace datasets") {
		t.Errorf("synthesis on a single_turn file: %v", err)
	}
}
