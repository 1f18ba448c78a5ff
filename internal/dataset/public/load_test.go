package public

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/go-json-experiment/json"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/dataset/loader"
	"github.com/aiperf-go/aiperf/internal/dataset/sound"
	"github.com/aiperf-go/aiperf/internal/tokenizer"
	"github.com/aiperf-go/aiperf/internal/tokenizer/hub"
	"github.com/aiperf-go/aiperf/internal/tokenizer/hub/hubtest"
)

// fixtureHub is testdata/hub, the hub cache gen_hub.py writes.
var fixtureHub = filepath.Join("testdata", "hub")

var builtinTok = sync.OnceValues(tokenizer.Builtin)

func tok(t *testing.T) tokenizer.Tokenizer {
	t.Helper()
	tk, err := builtinTok()
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

// offline reads the fixture cache only, as HF_HUB_OFFLINE=1 does.
func offline(dir string) func(string) string {
	return func(k string) string {
		switch k {
		case "HF_HUB_CACHE":
			return dir
		case "HF_HUB_OFFLINE":
			return "1"
		case "HOME":
			return os.Getenv("HOME")
		}
		return ""
	}
}

func load(t *testing.T, name string, o Options) *loader.Loaded {
	t.Helper()
	if o.Getenv == nil {
		o.Getenv = offline(fixtureHub)
	}
	if o.Tokenizer == nil {
		o.Tokenizer = tok(t)
	}
	o.SeedSet, o.Seed = true, 42
	l, err := Load(context.Background(), name, o)
	if err != nil {
		t.Fatalf("Load(%s): %v", name, err)
	}
	return l
}

func firstText(c dataset.Conversation) string { return c.Turns[0].Texts[0] }

// TestTextDatasets checks every text-only public dataset against its
// fixture: how many rows become conversations (empty prompts skipped),
// the prompt of the first one, session IDs and sampling.
func TestTextDatasets(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		convs int
		first string // prefix of the first prompt
		o     Options
	}{
		{"aimo", 3, "Find the sum of the first 10 positive integers.", Options{}},
		{"aimo_aime", 3, "Let $x$ be a real number", Options{}},
		{"aimo_numina_cot", 3, "What is 12 times 12?", Options{}}, // two train shards, in order
		{"aimo_numina_1_5", 2, "Prove that there are infinitely many primes.", Options{}},
		{"spec_al_gsm8k", 2, "Natalia sold clips", Options{}},
		{"spec_al_math500", 2, "Convert the point", Options{}},
		{"spec_al_humaneval", 2, "def has_close_elements", Options{}},
		{"spec_al_mbpp", 2, "Write a python function to remove", Options{}},
		{"instruct_coder", 2, "Refactor the function", Options{}},
		{"blazedit_5k", 2, "Given a code file, please apply the change requests and generate the new file.\n\nOriginal file:\n```python\nimport os\n", Options{}},
		{"blazedit_10k", 2, "Given a code file", Options{}},
	} {
		l := load(t, c.name, c.o)
		convs := l.Dataset.Conversations
		if len(convs) != c.convs {
			t.Errorf("%s: %d conversations; want %d", c.name, len(convs), c.convs)
			continue
		}
		if got := firstText(convs[0]); !strings.HasPrefix(got, c.first) {
			t.Errorf("%s: first prompt %q; want prefix %q", c.name, got, c.first)
		}
		if convs[0].ID != "session_000000" || convs[len(convs)-1].ID == convs[0].ID {
			t.Errorf("%s: session ids %q..%q", c.name, convs[0].ID, convs[len(convs)-1].ID)
		}
		if l.Sampling != dataset.SamplingSequential || l.Type != c.name {
			t.Errorf("%s: sampling %s, type %s", c.name, l.Sampling, l.Type)
		}
		if convs[0].Turns[0].InputTokens <= 0 {
			t.Errorf("%s: input tokens %d", c.name, convs[0].Turns[0].InputTokens)
		}
	}
}

func TestBlazeditTemplate(t *testing.T) {
	t.Parallel()
	got := firstText(load(t, "blazedit_5k", Options{}).Dataset.Conversations[0])
	want := "Given a code file, please apply the change requests and generate the new file.\n\nOriginal file:\n```python\n" +
		"import os\n\ndef main():\n    print(os.getcwd())\n\n```\n\nChange request:\nPrint the home directory instead of the working directory.\n\n" +
		"Please generate the new code file in the \"New file\" section below."
	if got != want {
		t.Errorf("prompt =\n%q\nwant\n%q", got, want)
	}
}

func TestImageDatasets(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		convs int
		first string
		o     Options
	}{
		{"mmstar", 3, "Which shape is shown?", Options{}},
		{"vision_arena", 2, "What is in this picture?", Options{}},
		{"llava_onevision", 3, "sharegpt4o question 0?", Options{}},
		{"llava_onevision", 2, "clevr question 0?", Options{Subset: "CLEVR-Math(MathV360K)"}},
		{"llava_onevision", 2, "sharegpt4o question 0?", Options{Limit: 2}}, // streaming: capped
	} {
		convs := load(t, c.name, c.o).Dataset.Conversations
		if len(convs) != c.convs {
			t.Fatalf("%s %+v: %d conversations; want %d", c.name, c.o, len(convs), c.convs)
		}
		turn := convs[0].Turns[0]
		if !strings.HasPrefix(turn.Texts[0], c.first) || strings.Contains(turn.Texts[0], "<image>") {
			t.Errorf("%s: text %q; want %q (<image> placeholders removed)", c.name, turn.Texts[0], c.first)
		}
		for i, cv := range convs {
			if imgs := cv.Turns[0].Images; len(imgs) != 1 || !strings.HasPrefix(imgs[0], "data:image/jpeg;base64,") {
				t.Errorf("%s conversation %d: images %v; want one JPEG data URL", c.name, i, shortList(imgs))
			}
		}
	}
}

func shortList(s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[i] = v[:min(len(v), 40)]
	}
	return out
}

func TestMMVU(t *testing.T) {
	t.Parallel()
	convs := load(t, "mmvu", Options{}).Dataset.Conversations
	if len(convs) != 2 {
		t.Fatalf("%d conversations; want 2 (the row without a video is skipped)", len(convs))
	}
	if got, want := firstText(convs[0]), "What technique does the artist use in the video? A.Fresco B.Impasto C.Glazing D.Sgraffito"; got != want {
		t.Errorf("prompt %q; want %q", got, want)
	}
	if v := convs[0].Turns[0].Videos; len(v) != 1 || !strings.HasSuffix(v[0], "/videos/Art/0.mp4") {
		t.Errorf("videos %v", v)
	}
	if got := firstText(convs[1]); got != "Which reaction is demonstrated?" {
		t.Errorf("a question without choices: %q", got)
	}
}

func TestMTBench(t *testing.T) {
	t.Parallel()
	convs := load(t, "spec_al_mtbench", Options{}).Dataset.Conversations
	if len(convs) != 2 || len(convs[0].Turns) != 2 || len(convs[1].Turns) != 1 {
		t.Fatalf("conversations %+v; want 2 (2 turns, then 1: an empty prompt is dropped, an empty list skipped)", convs)
	}
	if got := convs[0].Turns[1].Texts[0]; !strings.HasPrefix(got, "Rewrite your previous response.") {
		t.Errorf("second turn %q", got)
	}
}

func TestASRDatasets(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		convs   int
		seconds float64
	}{
		{"librispeech", 2, 1.5}, // the 31 s clip is skipped
		{"voxpopuli", 2, 1.2},
		{"gigaspeech", 2, 1.0}, // a WAV and a FLAC clip
		{"ami", 2, 0.4},
		{"spgispeech", 2, 0.9},
	} {
		convs := load(t, c.name, Options{}).Dataset.Conversations
		if len(convs) != c.convs {
			t.Fatalf("%s: %d conversations; want %d", c.name, len(convs), c.convs)
		}
		turn := convs[0].Turns[0]
		if turn.Texts[0] != asrPrompt || turn.AudioSeconds != c.seconds {
			t.Errorf("%s: %q, %v s; want %q, %v s", c.name, turn.Texts[0], turn.AudioSeconds, asrPrompt, c.seconds)
		}
		if len(turn.Audios) != 1 || !strings.HasPrefix(turn.Audios[0], "wav,") {
			t.Fatalf("%s: audios %v", c.name, shortList(turn.Audios))
		}
		wav, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(turn.Audios[0], "wav,"))
		if err != nil {
			t.Fatal(err)
		}
		p, err := sound.Decode(wav)
		if err != nil || p.Duration() != c.seconds {
			t.Errorf("%s: the sent WAV decodes to %v s (%v)", c.name, p.Duration(), err)
		}
	}
}

func TestSpecBench(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("testdata", "spec_bench", "question.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var hits int
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits++
		mu.Unlock()
		w.Write(data)
	}))
	defer srv.Close()
	cache := filepath.Join(t.TempDir(), ".cache", "aiperf", "datasets", "spec_bench.jsonl")
	o := Options{SpecBenchURL: srv.URL + "/question.jsonl", SpecBenchCache: cache, Getenv: func(string) string { return "" }}
	for range 2 { // the second load reads the cache
		convs := load(t, "spec_bench", o).Dataset.Conversations
		if len(convs) != 2 || firstText(convs[0]) != "Compose an engaging travel blog post about a trip to Hawaii." || len(convs[0].Turns) != 1 {
			t.Fatalf("conversations %+v", convs)
		}
	}
	if hits != 1 {
		t.Errorf("%d downloads; want 1", hits)
	}
	o.SpecBenchCache = filepath.Join(t.TempDir(), "missing.jsonl")
	o.Getenv = func(k string) string { return map[string]string{"HF_HUB_OFFLINE": "1"}[k] }
	if _, err := Load(context.Background(), "spec_bench", o); err == nil || !strings.Contains(err.Error(), "HF_HUB_OFFLINE") {
		t.Errorf("offline without a cache: %v", err)
	}
}

func TestExgentic(t *testing.T) {
	t.Parallel()
	l := load(t, "exgentic", Options{Entries: 10})
	convs := l.Dataset.Conversations
	if len(convs) != 3 {
		t.Fatalf("%d conversations; want 3 sessions", len(convs))
	}
	c := convs[0]
	if c.ID != "sess-0" || c.Context != dataset.ContextMessageArray || len(c.Turns) != 2 {
		t.Fatalf("first session %s (%s) with %d turns; want sess-0, message arrays, 2 LLM calls (tool span and failed call skipped)", c.ID, c.Context, len(c.Turns))
	}
	t0, t1 := c.Turns[0], c.Turns[1]
	if t0.MaxTokens != 256 || t1.MaxTokens != 31 {
		t.Errorf("max tokens %d, %d; want the requested 256, then the recorded output 31", t0.MaxTokens, t1.MaxTokens)
	}
	if t1.Delay.Milliseconds() != 1500 {
		t.Errorf("delay %v; want the 1.5 s between the first call's end and the second's start", t1.Delay)
	}
	wantMsgs := `[{"role":"system","content":"You are a careful agent."},{"role":"user","content":"Task 0: find the bug."}]`
	if string(t0.Messages) != wantMsgs {
		t.Errorf("messages %s\nwant %s", t0.Messages, wantMsgs)
	}
	var msgs []map[string]any
	if err := json.Unmarshal(t1.Messages, &msgs); err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 4 || msgs[2]["reasoning_content"] != "Look it up." || msgs[3]["role"] != "tool" || msgs[3]["content"] != `{"hits":["a","b"]}` {
		t.Errorf("normalized messages %s", t1.Messages)
	}
	if calls, _ := msgs[2]["tool_calls"].([]any); len(calls) != 1 || calls[0].(map[string]any)["function"].(map[string]any)["arguments"] != `{"q":"Now fix it.","k":3}` {
		t.Errorf("tool calls %v", msgs[2]["tool_calls"])
	}
	if !strings.Contains(string(t1.Tools), `"name":"search"`) || t0.Tools != nil {
		t.Errorf("tools %s / %s", t0.Tools, t1.Tools)
	}
	if len(t0.Headers) != 1 || t0.Headers[0].Value != "sess-0" {
		t.Errorf("headers %v", t0.Headers)
	}
	if len(t0.Extra) != 2 || t0.Extra[0].Key != "temperature" || string(t0.Extra[1].Value) != `["</done>"]` {
		t.Errorf("extra %v", t0.Extra)
	}

	// Filters, the fixed-schedule split and the count requirement.
	if got := load(t, "exgentic", Options{Entries: 10, Filters: map[string]string{"source_model": "azure/GPT-4.1"}}).Dataset.Conversations; len(got) != 1 || got[0].ID != "sess-0" {
		t.Errorf("source_model filter gave %d conversations", len(got))
	}
	fixed := load(t, "exgentic", Options{Limit: 1, FixedSchedule: true}).Dataset.Conversations
	if len(fixed) != 2 || fixed[1].ID != "sess-0:2" || fixed[1].Turns[0].Timestamp.Milliseconds() != 4000 {
		t.Errorf("fixed schedule: %d conversations, second %s at %v", len(fixed), fixed[1].ID, fixed[1].Turns[0].Timestamp)
	}
	for _, bad := range []Options{
		{},
		{Entries: 1, Filters: map[string]string{"benchmark": "swebench"}},
		{Entries: 1, Filters: map[string]string{"harness": "nope"}},
		{Entries: 1, Filters: map[string]string{"harness": "openai_solo", "source_model": "gpt-5.2-2025-12-11"}},
		{Entries: 1, Filters: map[string]string{"harness": "claude_code", "source_model": "gpt-4.1"}},
	} {
		bad.Getenv, bad.Tokenizer = offline(fixtureHub), tok(t)
		if _, err := Load(context.Background(), "exgentic", bad); err == nil {
			t.Errorf("%+v loaded", bad.Filters)
		}
	}
	v2 := load(t, "exgentic_v2", Options{Entries: 5, Filters: map[string]string{"benchmark": "tau2_retail"}}).Dataset.Conversations
	if len(v2) != 1 || v2[0].ID != "sess-1" {
		t.Errorf("exgentic_v2 benchmark filter: %d conversations", len(v2))
	}
}

func TestWekaDatasets(t *testing.T) {
	t.Parallel()
	for _, s := range Catalog() {
		if s.Kind != KindWeka || s.Name == WekaHF {
			continue
		}
		l := load(t, s.Name, Options{})
		convs := l.Dataset.Conversations
		sub := !strings.Contains(s.Repo, "no-subagents")
		want := 2
		if sub {
			want = 3 // one trace spawns a subagent
		}
		if len(convs) != want {
			t.Errorf("%s: %d conversations; want %d", s.Name, len(convs), want)
			continue
		}
		c := convs[0]
		if c.Context != dataset.ContextDeltasWithResponses || len(c.Turns) != 3 || !c.Turns[0].HasTimestamp {
			t.Errorf("%s: first conversation %s, %d turns", s.Name, c.Context, len(c.Turns))
		}
		if !l.Timestamps {
			t.Errorf("%s: not a timestamped replay", s.Name)
		}
	}
	l := load(t, WekaHF, Options{WekaRepo: "semianalysisai/cc-traces-weka-061526"})
	if n := len(l.Dataset.Conversations); n != 3 {
		t.Errorf("weka_hf: %d conversations", n)
	}
	if _, err := Load(context.Background(), WekaHF, Options{Getenv: offline(fixtureHub), Tokenizer: tok(t)}); err == nil {
		t.Error("weka_hf without a repository loaded")
	}
}

func TestShareGPTFromHub(t *testing.T) {
	t.Parallel()
	convs := load(t, "sharegpt", Options{}).Dataset.Conversations
	if len(convs) != 2 || len(convs[1].Turns) != 2 {
		t.Fatalf("conversations %d; want 2 (the short pair is filtered)", len(convs))
	}
}

// TestDownloadIntoCache fetches public datasets from a hub serving the
// fixture into an empty cache, then reads them again offline.
func TestDownloadIntoCache(t *testing.T) {
	t.Parallel()
	srv := hubtest.New(fixtureHub)
	defer srv.Close()
	cache := t.TempDir()
	online := func(k string) string {
		return map[string]string{"HF_HUB_CACHE": cache, "HF_ENDPOINT": srv.URL}[k]
	}
	for _, name := range []string{"aimo", "mmstar", "librispeech", "spec_al_gsm8k", "exgentic"} {
		on := load(t, name, Options{Getenv: online, Entries: 5})
		off := load(t, name, Options{Getenv: offline(cache), Entries: 5})
		if len(on.Dataset.Conversations) == 0 || len(on.Dataset.Conversations) != len(off.Dataset.Conversations) {
			t.Errorf("%s: %d conversations online, %d offline from the filled cache", name, len(on.Dataset.Conversations), len(off.Dataset.Conversations))
		}
	}
	if _, err := os.Stat(filepath.Join(cache, "datasets--openai--gsm8k", "snapshots")); err != nil {
		t.Errorf("gsm8k not in the cache: %v", err)
	}
	// A dataset that is neither cached nor offline-available fails with
	// the cache path in the message.
	_, err := Load(context.Background(), "ami", Options{Getenv: offline(t.TempDir()), Tokenizer: tok(t)})
	if !errors.Is(err, hub.ErrNotCached) {
		t.Errorf("offline, not cached: %v", err)
	}
}

func TestLoadErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		o    Options
		want string
	}{
		{"nope", Options{}, "unknown public dataset"},
		{"aimo", Options{Filters: map[string]string{"a": "b"}}, "does not support --dataset-filter"},
		{"aimo", Options{Subset: "nonexistent"}, `config (subset) "nonexistent" not found`},
		{"llava_onevision", Options{Subset: "missing"}, "available: CLEVR-Math(MathV360K), sharegpt4o"},
		// The sanitized MBPP config names its prompt column "prompt".
		{"spec_al_mbpp", Options{Subset: "sanitized"}, `"text" is not in google-research-datasets/mbpp (available: code, prompt,`},
	} {
		c.o.Getenv, c.o.Tokenizer = offline(fixtureHub), tok(t)
		if _, err := Load(context.Background(), c.name, c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %+v: %v; want %q", c.name, c.o, err, c.want)
		}
	}
}

func TestCatalog(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, s := range Catalog() {
		if seen[s.Name] {
			t.Errorf("%s listed twice", s.Name)
		}
		seen[s.Name] = true
		if s.Description == "" || s.Kind == "" {
			t.Errorf("%s: incomplete spec %+v", s.Name, s)
		}
	}
	if len(seen) != 42 {
		t.Errorf("%d public datasets; AIPerf 0.13 has 42", len(seen))
	}
}

func TestPyFormat(t *testing.T) {
	t.Parallel()
	row := map[string]any{"a": "x", "n": int64(3), "f": 2.0, "l": []any{"p", int64(1)}, "b": true, "z": nil, "e": 1e-7}
	got, err := pyFormat("{a}|{n}|{f}|{l}|{b}|{z}|{e}|{{lit}}", row)
	if want := "x|3|2.0|['p', 1]|True|None|1e-07|{lit}"; err != nil || got != want {
		t.Errorf("pyFormat = %q, %v; want %q", got, err, want)
	}
	if _, err := pyFormat("{missing}", row); err == nil {
		t.Error("a missing column formatted")
	}
}
