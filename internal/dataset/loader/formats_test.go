package loader

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/tokenizer"
)

var formatsTok = sync.OnceValues(tokenizer.Builtin)

func formats(name string) string { return filepath.Join("..", "testdata", "formats", name) }

func loadFormat(t *testing.T, path, typ string, edit func(*LoadOptions)) *Loaded {
	t.Helper()
	tok, err := formatsTok()
	if err != nil {
		t.Fatal(err)
	}
	o := LoadOptions{Path: path, Type: typ, Seed: 1, SeedSet: true}
	if edit != nil {
		edit(&o)
	}
	l, err := Load(o, tok)
	if err != nil {
		t.Fatalf("Load(%s, %s): %v", path, typ, err)
	}
	return l
}

// TestDetectFormats: every fixture is detected as its format.
func TestDetectFormats(t *testing.T) {
	t.Parallel()
	for path, want := range map[string]string{
		"weka":                           TypeWekaTrace,
		"weka/a.json":                    TypeWekaTrace,
		"tracelab.jsonl.gz":              TypeTraceLab,
		"baseten.parquet":                TypeBasetenTrace,
		"capture":                        TypeSageMakerDataCapture,
		"capture/2026/04/29/00/a.jsonl":  TypeSageMakerDataCapture,
		"dag.jsonl":                      TypeDagJSONL,
		"speedbench/qualitative.jsonl":   "speed_bench_qualitative",
		"speedbench/throughput_1k.jsonl": "speed_bench_throughput_1k",
	} {
		got, err := Detect(formats(path))
		if err != nil || got != want {
			t.Errorf("Detect(%s) = %q, %v; want %q", path, got, err, want)
		}
	}
}

func TestWekaTraceFormat(t *testing.T) {
	t.Parallel()
	l := loadFormat(t, formats("weka"), "", nil)
	convs := l.Dataset.Conversations
	// trace-a: main agent and its subagent; trace-b: main agent.
	if len(convs) != 3 || convs[0].ID != "trace-a" || convs[1].ID != "trace-a::sa:agent_001" || convs[2].ID != "trace-b" {
		t.Fatalf("conversations %v", ids(convs))
	}
	main := convs[0]
	if main.Context != dataset.ContextDeltasWithResponses || len(main.Turns) != 3 {
		t.Fatalf("main: %s, %d turns", main.Context, len(main.Turns))
	}
	t0, t1, t2 := main.Turns[0], main.Turns[1], main.Turns[2]
	// Turn 0: a system message for the 128-token tool+system prefix (2
	// blocks), a user message with the other 2 blocks and the 44-token tail.
	var m0 []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}
	json.Unmarshal(t0.Messages, &m0)
	if len(m0) != 2 || m0[0].Role != "system" || m0[1].Role != "user" || !t0.HasTimestamp {
		t.Errorf("turn 0 messages %s", t0.Messages)
	}
	// Turn 1 extends the blocks: the new ones are the previous reply's
	// share (one block for 50 tokens) and a user message.
	var m1 []struct {
		Role string `json:"role"`
	}
	json.Unmarshal(t1.Messages, &m1)
	if len(m1) != 2 || m1[0].Role != "assistant" || m1[1].Role != "user" || t1.ResetContext {
		t.Errorf("turn 1 messages %s", t1.Messages)
	}
	// The delay is the idle gap: 3.0 - (0.0 + 2.0 api time).
	if t1.Delay != time.Second || t1.MaxTokens != 20 {
		t.Errorf("turn 1 delay %v, max tokens %d", t1.Delay, t1.MaxTokens)
	}
	if !t2.ResetContext {
		t.Error("turn 2 does not extend turn 1's blocks but keeps the context")
	}
	if t1.HistoryMessages == nil || len(t1.HistoryMessages) >= len(t1.Messages) {
		t.Error("turn 1's partial tail is not left out of the history")
	}
	// The subagent starts at its spawn time (inner times are relative).
	if sa := convs[1].Turns[0]; !sa.HasTimestamp || sa.Timestamp != 2200*time.Millisecond {
		t.Errorf("subagent starts at %v", sa.Timestamp)
	}
	// Options: think time only, no delays, a context bound, model mapping.
	tt := loadFormat(t, formats("weka"), "", func(o *LoadOptions) { o.Weka.ThinkTimeOnly = true }).Dataset.Conversations[0].Turns[1]
	if tt.Delay != 400*time.Millisecond {
		t.Errorf("think-time-only delay %v", tt.Delay)
	}
	nd := loadFormat(t, formats("weka"), "", func(o *LoadOptions) { o.Weka.IgnoreDelays = true }).Dataset.Conversations[0].Turns
	if nd[0].HasTimestamp || nd[1].Delay != 0 {
		t.Error("--ignore-trace-delays kept the timing")
	}
	mc := loadFormat(t, formats("weka"), "", func(o *LoadOptions) { o.Weka.MaxContext = 420; o.Weka.Models = []string{"big", "small"} }).Dataset.Conversations
	if len(mc) != 1 || mc[0].ID != "trace-b" || mc[0].Turns[0].Model != "big" || mc[0].Turns[2].Model != "small" {
		t.Errorf("max context 440 / model map: %v", ids(mc))
	}
	tok, _ := formatsTok()
	if _, err := Load(LoadOptions{Path: formats("weka"), Weka: WekaOptions{MaxContext: 10}}, tok); err == nil || !strings.Contains(err.Error(), "smallest trace needs 400 tokens") {
		t.Errorf("nothing fits: %v", err)
	}
}

func ids(cs []dataset.Conversation) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.ID
	}
	return out
}

func TestTraceLabFormat(t *testing.T) {
	t.Parallel()
	convs := loadFormat(t, formats("tracelab.jsonl.gz"), "", nil).Dataset.Conversations
	if len(convs) != 2 || convs[0].ID != "sess-1" || len(convs[0].Turns) != 3 {
		t.Fatalf("conversations %v", ids(convs))
	}
	// Round 1 reuses the 3 blocks of round 0's 200 tokens (its prefix is
	// the 200 tokens) and adds 1: an extension, not a reset.
	if d := convs[0].Turns[1].Delay - 9050*time.Millisecond; convs[0].Turns[1].ResetContext || d > time.Millisecond || d < -time.Millisecond {
		t.Errorf("round 1: reset %v, delay %v (want 10 s - 0.95 s api time)", convs[0].Turns[1].ResetContext, convs[0].Turns[1].Delay)
	}
	if got := convs[1].Turns[0].MaxTokens; got != 45 {
		t.Errorf("reasoning tokens not counted in the output: %d", got)
	}
}

func TestBasetenFormat(t *testing.T) {
	t.Parallel()
	convs := loadFormat(t, formats("baseten.parquet"), "", nil).Dataset.Conversations
	// Open loop: every request is its own conversation at its time.
	if len(convs) != 4 || convs[0].ID != "A#0" || convs[0].Turns[0].Texts[0] != "<s>User: first turn of session A" {
		t.Fatalf("conversations %v", ids(convs))
	}
	first := convs[0].Turns[0]
	if first.Timestamp != 0 || first.MaxTokens != 1 {
		t.Errorf("first request at %v asking %d tokens (0 recorded tokens floored to 1)", first.Timestamp, first.MaxTokens)
	}
	if got := extras(first); got != `min_tokens=1 hash_ids=[11] block_size=64` {
		t.Errorf("first request extras %s", got)
	}
	if convs[1].Turns[0].Timestamp != time.Second || convs[3].Turns[0].Timestamp != 4*time.Second {
		t.Errorf("times %v, %v", convs[1].Turns[0].Timestamp, convs[3].Turns[0].Timestamp)
	}
	closed := loadFormat(t, formats("baseten.parquet"), "", func(o *LoadOptions) {
		o.Baseten = BasetenOptions{ClosedLoop: true, OmitKVHints: true, NoMinTokens: true, MaxIdleGap: time.Second}
	}).Dataset.Conversations
	if len(closed) != 3 || len(closed[0].Turns) != 2 || closed[0].Context != dataset.ContextMessageArray {
		t.Fatalf("closed loop: %v", ids(closed))
	}
	// Think time: the 1 s start-to-start gap less the 400 ms recorded duration.
	if d := closed[0].Turns[1].Delay; d != 600*time.Millisecond || extras(closed[0].Turns[0]) != "" {
		t.Errorf("closed loop: delay %v, extras %q", d, extras(closed[0].Turns[0]))
	}
	if ts := closed[2].Turns[0].Timestamp; ts != 2*time.Second {
		t.Errorf("idle gaps capped at 1 s: the last session starts at %v, want 2s", ts)
	}
	sampled := loadFormat(t, formats("baseten.parquet"), "", func(o *LoadOptions) { o.Baseten.SampleRatio = 0.01 }).Dataset.Conversations
	if len(sampled) < 1 || len(sampled) > 3 {
		t.Errorf("sampling kept %d conversations", len(sampled))
	}
}

func extras(t dataset.Turn) string {
	var parts []string
	for _, f := range t.Extra {
		parts = append(parts, f.Key+"="+string(f.Value))
	}
	return strings.Join(parts, " ")
}

func TestSageMakerCaptureFormat(t *testing.T) {
	t.Parallel()
	convs := loadFormat(t, formats("capture"), "", nil).Dataset.Conversations
	if len(convs) != 3 {
		t.Fatalf("%d conversations", len(convs))
	}
	first := convs[0].Turns[0]
	if first.Timestamp != 0 || first.MaxTokens != 50 || !strings.Contains(string(first.Messages), `"Be brief."`) || first.Tools == nil {
		t.Errorf("first record: %v, %d, %s, %s", first.Timestamp, first.MaxTokens, first.Messages, first.Tools)
	}
	if second := convs[1].Turns[0]; second.Timestamp != 1500*time.Millisecond || second.MaxTokens != 7 {
		t.Errorf("second record (BASE64): %v, %d", second.Timestamp, second.MaxTokens)
	}
	if convs[2].Turns[0].Timestamp != time.Hour-3*time.Minute-18500*time.Millisecond {
		t.Errorf("third record at %v", convs[2].Turns[0].Timestamp)
	}
}

func TestDagFormat(t *testing.T) {
	t.Parallel()
	convs := loadFormat(t, formats("dag.jsonl"), "", nil).Dataset.Conversations
	if len(convs) != 3 || convs[0].ID != "root" || len(convs[0].Turns) != 2 {
		t.Fatalf("conversations %v (the orchestrator sends nothing)", ids(convs))
	}
	r := convs[0].Turns
	if r[0].MaxTokens != 64 || extras(r[0]) != "temperature=0.1" || r[1].Delay != 250*time.Millisecond {
		t.Errorf("root turns: %d %q %v", r[0].MaxTokens, extras(r[0]), r[1].Delay)
	}
	// The fork child starts from the parent's messages up to the fork.
	fork := convs[1].Turns[0]
	if !strings.HasPrefix(string(fork.Messages), `[{"role":"system","content":"You plan."}`) || fork.Model != "small-model" {
		t.Errorf("fork child %s %s", fork.Messages, fork.Model)
	}
	if convs[2].Context != dataset.ContextMessageArray || convs[2].Turns[0].Tools == nil {
		t.Errorf("spawn child %s", convs[2].Context)
	}
}

func TestSpeedBenchFormat(t *testing.T) {
	t.Parallel()
	all := loadFormat(t, formats("speedbench/qualitative.jsonl"), "speed_bench_qualitative", nil).Dataset.Conversations
	if len(all) != 12 || all[1].Turns[0].Role != "system" || len(all[2].Turns) != 2 {
		t.Fatalf("qualitative: %v", ids(all))
	}
	coding := loadFormat(t, formats("speedbench/qualitative.jsonl"), "speed_bench_coding", nil).Dataset.Conversations
	if len(coding) != 2 || coding[0].ID != "00000000000000000000000000000001" {
		t.Errorf("coding: %v", ids(coding))
	}
	high := loadFormat(t, formats("speedbench/throughput_1k.jsonl"), "speed_bench_throughput_1k_high_entropy", nil).Dataset.Conversations
	if len(high) != 1 {
		t.Errorf("high entropy: %v", ids(high))
	}
	tok, _ := formatsTok()
	if _, err := Load(LoadOptions{Path: formats("speedbench/throughput_1k.jsonl"), Type: "speed_bench_roleplay"}, tok); err == nil {
		t.Error("a category with no rows loaded")
	}
	if len(SpeedBenchTypes()) != 32 {
		t.Errorf("%d speed_bench types; AIPerf has 32", len(SpeedBenchTypes()))
	}
}

func TestMooncakeMessages(t *testing.T) {
	t.Parallel()
	convs := loadFormat(t, formats("mooncake_messages.jsonl"), TypeMooncakeTrace, nil).Dataset.Conversations
	if len(convs) != 1 || convs[0].Context != dataset.ContextMessageArray || len(convs[0].Turns) != 2 {
		t.Fatalf("conversations %+v", convs)
	}
	if t0 := convs[0].Turns[0]; string(t0.Tools) != `[{"type":"function","function":{"name":"t"}}]` || t0.MaxTokens != 5 {
		t.Errorf("turn 0: tools %s", t0.Tools)
	}
}

// TestNewFormatsRejectBadLines: a bad record is reported with its file,
// line and field.
func TestNewFormatsRejectBadLines(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cases := []struct {
		typ, name, content, want string
	}{
		{TypeDagJSONL, "d.jsonl", `{"session_id":"a","turns":[{"messages":[{"role":"user","content":"x"}],"bogus":1}]}`, "d.jsonl:1: turns[0].bogus: unknown field"},
		{TypeDagJSONL, "d2.jsonl", `{"session_id":"a","turns":[{"messages":[{"role":"user","content":"x"}],"forks":["nobody"]}]}`, `branches to unknown session "nobody"`},
		{TypeDagJSONL, "d3.jsonl", `{"session_id":"a","turns":[{"messages":[{"content":"x"}]}]}`, "d3.jsonl:1: turns[0].messages: message 0 must be an object with a role"},
		{TypeDagJSONL, "d4.jsonl", `{"session_id":"a","turns":[{"messages":[{"role":"user","content":"x"}],"spawns":["b"]}]}` + "\n" +
			`{"session_id":"b","turns":[{"messages":[{"role":"user","content":"y"}],"spawns":["a"]}]}`, "branch cycle: a -> b -> a"},
		{TypeDagJSONL, "d5.jsonl", `{"session_id":"a","turns":[{"messages":[{"role":"user","content":"x"}],"max_tokens":true}]}`, "max_tokens: must be an integer, not a boolean"},
		{TypeSageMakerDataCapture, "c.jsonl", `{"captureData":{"endpointInput":{"data":"{\"prompt\":\"x\"}","encoding":"JSON"}},"eventMetadata":{"inferenceTime":"2026-01-01T00:00:00Z"}}`, "c.jsonl:1: captureData.endpointInput.data: the request has no messages array"},
		{TypeSageMakerDataCapture, "c2.jsonl", `{"captureData":{},"eventMetadata":{"inferenceTime":"yesterday"}}`, "c2.jsonl:1: eventMetadata.inferenceTime"},
		{"speed_bench_qualitative", "q.jsonl", `{"question_id":"short","category":"x","messages":[{"role":"user","content":"y"}]}`, "q.jsonl:1: question_id: want a 32-character id"},
		{"speed_bench_qualitative", "q2.jsonl", `{"question_id":"` + strings.Repeat("a", 32) + `","category":"x","messages":[{"role":"user","content":"` + speedBenchPlaceholder + `"}]}`, "messages[0].content: is the placeholder text"},
		{TypeWekaTrace, "w.json", `{"id":"x","models":[],"block_size":64,"hash_id_scope":"local","requests":[{"t":0,"type":"n","model":"m","in":-1,"out":1}]}`, "w.json: requests[0].in: must not be negative"},
		{TypeWekaTrace, "w2.json", `{"id":"x","models":[],"block_size":64,"hash_id_scope":"global","requests":[]}`, `hash_id_scope: only "local" is supported`},
		{TypeTraceLab, "t.jsonl", `{"session_id":"s","round_index":"zero","timing_events":[]}`, "t.jsonl:1: round_index: want an integer"},
		{TypeMooncakeTrace, "m.jsonl", `{"text_input":"x","hash_ids":[1]}`, "m.jsonl:1: hash_ids: only allowed with input_length"},
		{TypeMooncakeTrace, "m2.jsonl", `{"messages":[{"role":"user","content":"x"}],"tools":[]}`, "m2.jsonl:1: tools: want a non-empty array"},
		{TypeMooncakeTrace, "m3.jsonl", `{"session_id":"s","messages":[{"role":"user","content":"x"}]}` + "\n" + `{"session_id":"s","input_length":5}`, "mixes recorded messages or payloads with synthesized prompts"},
	}
	tok, _ := formatsTok()
	for _, c := range cases {
		p := filepath.Join(dir, c.name)
		os.WriteFile(p, []byte(c.content+"\n"), 0o644)
		_, err := Load(LoadOptions{Path: p, Type: c.typ}, tok)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: %v; want %q", c.typ, c.name, err, c.want)
		}
	}
	if _, err := Load(LoadOptions{Path: filepath.Join(dir, "t.arrow"), Type: TypeBasetenTrace}, tok); err == nil || !strings.Contains(err.Error(), "Arrow IPC") {
		t.Errorf("arrow: %v", err)
	}
}
