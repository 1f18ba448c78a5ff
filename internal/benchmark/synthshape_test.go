package benchmark

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/dataset/synthesis"
	"github.com/aiperf-go/aiperf/internal/mockserver"
	"github.com/aiperf-go/aiperf/internal/tokenizer"
)

// shapeMock serves the mock server behind a request recorder; bodies
// returns the JSON body of every POST it received, in arrival order.
func shapeMock(t *testing.T) (url string, bodies func() []shapeBody) {
	t.Helper()
	url, posts := recorderServer(t, mockserver.New(mockConfig(t, nil)))
	return url, func() []shapeBody {
		var out []shapeBody
		for _, r := range posts() {
			var b shapeBody
			if err := json.Unmarshal(r.Body, &b); err != nil {
				t.Fatalf("request body %s: %v", r.Body, err)
			}
			out = append(out, b)
		}
		return out
	}
}

// shapeBody is the part of a chat request body these tests read. Content
// is a string or a list of text parts.
type shapeBody struct {
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	MaxTokens int `json:"max_completion_tokens"`
}

// texts returns message i's text: the string, or each text part.
func (b *shapeBody) texts(t *testing.T, i int) []string {
	t.Helper()
	var s string
	if json.Unmarshal(b.Messages[i].Content, &s) == nil {
		return []string{s}
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(b.Messages[i].Content, &parts); err != nil {
		t.Fatalf("content %s: %v", b.Messages[i].Content, err)
	}
	var out []string
	for _, p := range parts {
		if p.Type != "text" {
			t.Fatalf("unexpected part %+v", p)
		}
		out = append(out, p.Text)
	}
	return out
}

func shapeTok(t *testing.T) tokenizer.Tokenizer {
	t.Helper()
	tok, err := tokenizer.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// shapeInputs reads inputs.json: each session's payloads.
func shapeInputs(t *testing.T, cfg *config.Config) map[string][]shapeBody {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(cfg.Output.ArtifactDir, "inputs.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Data []struct {
			SessionID string      `json:"session_id"`
			Payloads  []shapeBody `json:"payloads"`
		} `json:"data"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string][]shapeBody{}
	for _, d := range doc.Data {
		out[d.SessionID] = d.Payloads
	}
	return out
}

// TestRunSystemContextAndBatchOnTheWire runs a synthetic benchmark with a
// shared system prompt, per-session user context and two texts per
// request, and checks what the server received.
func TestRunSystemContextAndBatchOnTheWire(t *testing.T) {
	t.Parallel()
	url, bodies := shapeMock(t)
	cfg := baseConfig(t, url)
	cfg.Endpoint.Streaming = false
	cfg.Input.InputTokens.Mean = 24
	cfg.Input.NumDatasetEntries = ptr(3)
	cfg.Load.RequestCount = ptr(9)
	cfg.Prompt.BatchSize = 2
	cfg.Prompt.SharedSystemLength = ptr(20)
	cfg.Prompt.UserContextLength = ptr(10)
	if _, err := run(t, context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	tok := shapeTok(t)
	got := bodies()
	if len(got) != 9 {
		t.Fatalf("server received %d requests, want 9", len(got))
	}
	systems, contexts, wantISL := map[string]bool{}, map[string]bool{}, map[float64]bool{}
	for _, b := range got {
		if len(b.Messages) != 3 || b.Messages[0].Role != "system" || b.Messages[1].Role != "user" || b.Messages[2].Role != "user" {
			t.Fatalf("messages %+v; want system, user context, user", b.Messages)
		}
		sys, ctx, texts := b.texts(t, 0)[0], b.texts(t, 1)[0], b.texts(t, 2)
		systems[sys], contexts[ctx] = true, true
		// AIPerf's ISL: every text of the body joined with spaces.
		wantISL[float64(tok.Count(strings.Join(append([]string{sys, ctx}, texts...), " ")))] = true
		if n := tok.Count(sys); n != 20 {
			t.Errorf("system prompt has %d tokens, want 20", n)
		}
		if n := tok.Count(ctx); n != 10 {
			t.Errorf("user context has %d tokens, want 10", n)
		}
		if len(texts) != 2 {
			t.Fatalf("%d text parts, want 2 (-b 2)", len(texts))
		}
		for _, s := range texts {
			if n := tok.Count(s); n != 24 {
				t.Errorf("text part has %d tokens, want 24", n)
			}
		}
		if b.MaxTokens != 8 {
			t.Errorf("max_completion_tokens = %d, want 8", b.MaxTokens)
		}
	}
	if len(systems) != 1 || len(contexts) != 3 {
		t.Errorf("%d distinct system prompts and %d user contexts over 3 sessions; want 1 and 3", len(systems), len(contexts))
	}
	// inputs.json holds the same bodies, and ISL counts every message.
	for id, payloads := range shapeInputs(t, cfg) {
		if len(payloads) != 1 || len(payloads[0].Messages) != 3 {
			t.Fatalf("%s: inputs.json payloads %+v", id, payloads)
		}
	}
	for _, v := range shapeRecords(t, cfg, "input_sequence_length") {
		if !wantISL[v] {
			t.Errorf("input_sequence_length %v; want the token count of system + context + texts joined, one of %v", v, wantISL)
		}
	}
}

// shapeRecords returns a per-request metric of every record in the JSONL
// export.
func shapeRecords(t *testing.T, cfg *config.Config, tag string) []float64 {
	t.Helper()
	var out []float64
	for _, l := range lines(t, filepath.Join(cfg.Output.ArtifactDir, "profile_export.jsonl")) {
		var r faultRecord
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		v, ok := r.scalar(tag)
		if !ok {
			t.Fatalf("record lacks %s: %s", tag, l)
		}
		out = append(out, v)
	}
	return out
}

func TestRunPrefixPromptsOnTheWire(t *testing.T) {
	t.Parallel()
	url, bodies := shapeMock(t)
	cfg := baseConfig(t, url)
	cfg.Input.InputTokens.Mean = 32
	cfg.Input.NumDatasetEntries = ptr(12)
	cfg.Load.RequestCount = ptr(12)
	cfg.Prompt.PrefixPoolSize, cfg.Prompt.PrefixLength = 2, 16
	if _, err := run(t, context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	tok := shapeTok(t)
	got := bodies()
	prefixes := map[string]int{}
	exact := 0
	for _, b := range got {
		if len(b.Messages) != 1 {
			t.Fatalf("messages %+v; want the one user message", b.Messages)
		}
		text := b.texts(t, 0)[0]
		ids := tok.Encode(text)
		if len(ids) == 48 {
			exact++
		}
		prefixes[tok.Decode(ids[:min(16, len(ids))])]++
	}
	if len(got) != 12 || exact < 11 {
		t.Errorf("%d requests, %d with exactly 16 + 32 tokens; want 12, all or all but one", len(got), exact)
	}
	if len(prefixes) != 2 {
		t.Errorf("requests start with %d distinct 16-token prefixes, want the pool's 2: %v", len(prefixes), prefixes)
	}
}

func TestRunSeqDistOnTheWire(t *testing.T) {
	t.Parallel()
	url, bodies := shapeMock(t)
	cfg := baseConfig(t, url)
	cfg.Endpoint.Streaming = false
	cfg.Load.RequestCount = ptr(40)
	entries, err := config.ParseSequenceDistribution("16,4:50;48,12:50")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Prompt.SequenceDistribution = entries
	cfg.Dataset.SamplingStrategy = config.SamplingSequential
	if _, err := run(t, context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	tok := shapeTok(t)
	pairs := map[[2]int]int{}
	for _, b := range bodies() {
		pairs[[2]int{tok.Count(b.texts(t, 0)[0]), b.MaxTokens}]++
	}
	keys := make([][2]int, 0, len(pairs))
	for k := range pairs {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b [2]int) int { return a[0] - b[0] })
	if !slices.Equal(keys, [][2]int{{16, 4}, {48, 12}}) || pairs[[2]int{16, 4}] < 10 || pairs[[2]int{48, 12}] < 10 {
		t.Errorf("(ISL, OSL) pairs on the wire %v; want about 20 each of (16, 4) and (48, 12)", pairs)
	}
	// The summary's input_config names the mixture as AIPerf does.
	doc := summary(t, filepath.Join(cfg.Output.ArtifactDir, "profile_export_aiperf.json"))
	var ic struct {
		Datasets []struct {
			Prompts struct {
				SequenceDistribution []struct {
					ISL, OSL    struct{ Mean, Stddev float64 }
					Probability float64
				} `json:"sequence_distribution"`
			} `json:"prompts"`
		} `json:"datasets"`
	}
	if err := json.Unmarshal(doc["input_config"], &ic); err != nil {
		t.Fatal(err)
	}
	if len(ic.Datasets) != 1 || len(ic.Datasets[0].Prompts.SequenceDistribution) != 2 ||
		ic.Datasets[0].Prompts.SequenceDistribution[1].ISL.Mean != 48 || ic.Datasets[0].Prompts.SequenceDistribution[1].Probability != 50 {
		t.Errorf("input_config datasets %+v; want the two-pair sequence distribution", ic.Datasets)
	}
}

// TestRunSyntheticMultiTurnOnTheWire generates three-turn synthetic
// sessions with a shared system prompt: inputs.json has three payloads per
// session, and on the wire each turn carries the system prompt once, then
// the history, then its own prompt.
func TestRunSyntheticMultiTurnOnTheWire(t *testing.T) {
	t.Parallel()
	url, bodies := shapeMock(t)
	cfg := baseConfig(t, url)
	cfg.Endpoint.Streaming = false
	cfg.Input.InputTokens.Mean = 12
	cfg.Load.RequestCount = nil
	cfg.Conversation.NumSessions = ptr(2)
	cfg.Conversation.TurnsMean = 3
	cfg.Conversation.TurnDelayMean = 1
	cfg.Prompt.SharedSystemLength = ptr(8)
	if _, err := run(t, context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	inputs := shapeInputs(t, cfg)
	if len(inputs) != 2 {
		t.Fatalf("inputs.json has %d sessions, want 2", len(inputs))
	}
	for id, payloads := range inputs {
		if len(payloads) != 3 {
			t.Fatalf("%s: %d payloads, want 3 turns", id, len(payloads))
		}
		for _, p := range payloads {
			if len(p.Messages) != 2 || p.Messages[0].Role != "system" {
				t.Fatalf("%s: inputs.json messages %+v; want system then the turn", id, p.Messages)
			}
		}
	}
	got := bodies()
	if len(got) != 6 {
		t.Fatalf("server received %d requests, want 2 sessions x 3 turns", len(got))
	}
	lengths := map[int]int{}
	for _, b := range got {
		systems := 0
		for _, m := range b.Messages {
			if m.Role == "system" {
				systems++
			}
		}
		if systems != 1 || b.Messages[0].Role != "system" {
			t.Fatalf("messages %+v; want exactly one system message, first", b.Messages)
		}
		lengths[len(b.Messages)]++
	}
	// Turn n sends the system prompt, n-1 user/assistant pairs and itself.
	if lengths[2] != 2 || lengths[4] != 2 || lengths[6] != 2 {
		t.Errorf("message counts %v; want 2, 4 and 6 messages twice each", lengths)
	}
}

func TestShapeSyntheticTranslatesOptions(t *testing.T) {
	t.Parallel()
	cfg := config.Defaults()
	p := &Plan{Config: &cfg, Sampling: "shuffle"}
	var o synthesis.SyntheticOptions
	p.shapeSynthetic(&o)
	if *o.Shape.BatchSize != 1 || o.Shape.TurnsMean != 1 || o.Shape.TurnDelayRatio != 1 || o.Shape.SeqDist != nil ||
		o.Shape.PrefixPoolSize != 0 || o.Shape.SystemLength != 0 || p.Sampling != "shuffle" {
		t.Fatalf("defaults: shape %+v, sampling %q", o.Shape, p.Sampling)
	}
	cfg.Prompt = config.Prompt{BatchSize: 0, PrefixPoolSize: 4, PrefixLength: 9,
		SequenceDistribution: []config.SeqDistEntry{{ISL: 5, ISLStddev: 1, OSL: 6, OSLStddev: 2, Probability: 100}}}
	cfg.Conversation.TurnsMean, cfg.Conversation.TurnsStddev = 3, 1
	cfg.Conversation.TurnDelayMean, cfg.Conversation.TurnDelayStddev, cfg.Conversation.DelayRatio = 100, 10, 0.5
	cfg.Dataset.SamplingStrategy = config.SamplingRandom
	p.shapeSynthetic(&o)
	want := synthesis.Shape{TurnsMean: 3, TurnsStddev: 1, TurnDelayMean: 100, TurnDelayStddev: 10, TurnDelayRatio: 0.5,
		BatchSize: ptr(0), PrefixPoolSize: 4, PrefixLength: 9,
		SeqDist: []synthesis.SeqDistPair{{ISL: 5, ISLStddev: 1, OSL: 6, OSLStddev: 2, Probability: 100}}}
	if !reflect.DeepEqual(o.Shape, want) || p.Sampling != "random" {
		t.Fatalf("shape %+v, sampling %q; want %+v, random", o.Shape, p.Sampling, want)
	}
	cfg.Prompt = config.Prompt{BatchSize: 1, SharedSystemLength: ptr(7), UserContextLength: ptr(3)}
	p.shapeSynthetic(&o)
	if o.Shape.SystemLength != 7 || o.Shape.UserContextLength != 3 {
		t.Fatalf("context lengths not passed on: %+v", o.Shape)
	}
}

// TestRunShapedInputsDeterministic checks that a seeded run with every
// prompt-shaping option writes the same inputs.json bytes twice.
func TestRunShapedInputsDeterministic(t *testing.T) {
	t.Parallel()
	url, _ := mock(t, nil)
	var inputs [2][]byte
	for i := range inputs {
		cfg := baseConfig(t, url)
		cfg.Input.NumDatasetEntries = ptr(6)
		cfg.Load.RequestCount = ptr(4)
		cfg.Prompt.BatchSize = 2
		cfg.Prompt.PrefixPoolSize, cfg.Prompt.PrefixLength = 3, 8
		entries, err := config.ParseSequenceDistribution("16|2,4:50;32,8|1:50")
		if err != nil {
			t.Fatal(err)
		}
		cfg.Prompt.SequenceDistribution = entries
		cfg.Conversation.TurnsMean, cfg.Conversation.TurnsStddev = 2, 1
		if _, err := run(t, context.Background(), cfg); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(cfg.Output.ArtifactDir, "inputs.json"))
		if err != nil {
			t.Fatal(err)
		}
		inputs[i] = b
	}
	if !bytes.Equal(inputs[0], inputs[1]) {
		t.Fatal("same seed and options, different inputs.json")
	}
}
