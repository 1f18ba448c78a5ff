package loader

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/tokenizer"
)

func builtinTok(t testing.TB) tokenizer.Tokenizer {
	t.Helper()
	tok, err := tokenizer.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func writeFile(t testing.TB, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadTypes(t *testing.T) {
	tests := []struct {
		name, file, typ, content string
		convs, turns0            int
		check                    func(t *testing.T, l *Loaded)
	}{
		{"single_turn", "a.jsonl", TypeSingleTurn,
			`{"text":"hi","output_length":5,"extra":{"b":1,"a":2}}` + "\n\n" + `{"texts":["x","y"],"session_id":"s","timestamp":10}` + "\n" + `{"text":"z","session_id":"s","image":"http://i"}`,
			2, 1, func(t *testing.T, l *Loaded) {
				t0 := l.Dataset.Conversations[0].Turns[0]
				if t0.MaxTokens != 5 || len(t0.Extra) != 2 || t0.Extra[0].Key != "b" || string(t0.Extra[1].Value) != "2" {
					t.Errorf("turn 0 = %+v", t0)
				}
				s := l.Dataset.Conversations[1]
				if s.ID != "s" || len(s.Turns) != 2 || !s.Turns[0].HasTimestamp || s.Turns[0].Timestamp.Milliseconds() != 10 || s.Turns[1].Images[0] != "http://i" {
					t.Errorf("session s = %+v", s)
				}
			}},
		{"multi_turn", "m.jsonl", TypeMultiTurn,
			`{"session_id":"c","turns":[{"text":"1"},{"text":"2","delay":1500}]}` + "\n" + `{"session_id":"c","turns":[{"text":"3"}]}`,
			1, 3, func(t *testing.T, l *Loaded) {
				c := l.Dataset.Conversations[0]
				if c.Turns[1].Delay.Milliseconds() != 1500 || c.Turns[2].Texts[0] != "3" {
					t.Errorf("conv = %+v", c)
				}
			}},
		{"mooncake", "t.jsonl", TypeMooncakeTrace,
			`{"timestamp":0,"input_length":40,"output_length":4,"hash_ids":[1,2,3]}` + "\n" + `{"timestamp":5,"input_length":32,"hash_ids":[1,2]}` + "\n" + `{"text_input":"literal"}`,
			3, 1, func(t *testing.T, l *Loaded) {
				if !l.Timestamps || l.Sampling != dataset.SamplingSequential {
					t.Errorf("timestamps %v sampling %s", l.Timestamps, l.Sampling)
				}
				c := l.Dataset.Conversations
				if c[2].Turns[0].Texts[0] != "literal" {
					t.Errorf("text_input = %q", c[2].Turns[0].Texts[0])
				}
			}},
		{"bailian", "b.jsonl", TypeBailianTrace,
			`{"chat_id":2,"parent_chat_id":1,"timestamp":1.5,"input_length":32,"output_length":3,"type":"text","turn":2,"hash_ids":[7,8]}` + "\n" + `{"chat_id":1,"parent_chat_id":-1,"timestamp":1,"input_length":16,"output_length":3,"type":"text","turn":1,"hash_ids":[7]}`,
			1, 2, func(t *testing.T, l *Loaded) {
				c := l.Dataset.Conversations[0]
				if c.ID != "1" || c.Turns[0].Timestamp.Milliseconds() != 1000 || !strings.HasPrefix(c.Turns[1].Texts[0], c.Turns[0].Texts[0][:10]) {
					t.Errorf("conv = %+v", c)
				}
			}},
		{"burst", "b.csv", TypeBurstGPTTrace, "Timestamp,Model,Request tokens,Response tokens\n0.5,x,12,3\n2,x,9,0\n", 2, 1,
			func(t *testing.T, l *Loaded) {
				tr := l.Dataset.Conversations[0].Turns[0]
				if tr.Timestamp.Milliseconds() != 500 || tr.MaxTokens != 3 || tr.InputTokens != 12 {
					t.Errorf("turn = %+v", tr)
				}
			}},
		{"raw", "r.jsonl", TypeRawPayload, `{"messages":[{"role":"user","content":"hey"}],"model":"q","max_tokens":4}`, 1, 1,
			func(t *testing.T, l *Loaded) {
				tr := l.Dataset.Conversations[0].Turns[0]
				if string(tr.RawPayload) != `{"messages":[{"role":"user","content":"hey"}],"model":"q","max_tokens":4}` || tr.Model != "q" || tr.MaxTokens != 4 || tr.Texts[0] != "hey" {
					t.Errorf("turn = %+v", tr)
				}
			}},
		{"inputs_json", "inputs.json", TypeInputsJSON, "{\n \"data\": [{\"session_id\": \"a\", \"payloads\": [{\"prompt\": \"p\", \"model\": \"m\"}, {\"prompt\": \"q\"}]}]\n}\n", 1, 2,
			func(t *testing.T, l *Loaded) {
				if got := string(l.Dataset.Conversations[0].Turns[0].RawPayload); got != `{"prompt":"p","model":"m"}` {
					t.Errorf("payload = %s", got)
				}
			}},
		{"random_pool", "p.jsonl", TypeRandomPool, `{"text":"a"}` + "\n" + `{"text":"b"}`, DefaultPoolConversations, 1,
			func(t *testing.T, l *Loaded) {
				if l.Sampling != dataset.SamplingShuffle {
					t.Errorf("sampling %s", l.Sampling)
				}
			}},
	}
	tok := builtinTok(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, tt.file, tt.content)
			for _, typ := range []string{tt.typ, ""} {
				if typ == "" && (tt.typ == TypeRandomPool || tt.typ == TypeRawPayload) {
					continue // a pool file is recognised only by name or as a directory; a raw payload line also fits mooncake_trace, as in AIPerf
				}
				l, err := Load(LoadOptions{Path: path, Type: typ, BlockSize: 16, Seed: 1, SeedSet: true}, tok)
				if err != nil {
					t.Fatalf("Load(type %q): %v", typ, err)
				}
				if l.Type != tt.typ || len(l.Dataset.Conversations) != tt.convs || len(l.Dataset.Conversations[0].Turns) != tt.turns0 {
					t.Fatalf("type %s, %d conversations, %d turns; want %s %d %d", l.Type, len(l.Dataset.Conversations), len(l.Dataset.Conversations[0].Turns), tt.typ, tt.convs, tt.turns0)
				}
				if tt.check != nil {
					tt.check(t, l)
				}
			}
		})
	}
}

func TestHashIDPromptsShareBlocks(t *testing.T) {
	path := writeFile(t, "t.jsonl", `{"input_length":48,"hash_ids":[1,2,3]}`+"\n"+`{"input_length":48,"hash_ids":[1,2,4]}`+"\n")
	tok := builtinTok(t)
	l, err := Load(LoadOptions{Path: path, Type: TypeMooncakeTrace, BlockSize: 16, Seed: 3, SeedSet: true}, tok)
	if err != nil {
		t.Fatal(err)
	}
	a := tok.Encode(l.Dataset.Conversations[0].Turns[0].Texts[0])
	b := tok.Encode(l.Dataset.Conversations[1].Turns[0].Texts[0])
	same := 0
	for same < min(len(a), len(b)) && a[same] == b[same] {
		same++
	}
	if same < 28 || same >= 48 {
		t.Errorf("prompts share %d leading tokens, want about 32 (two 16-token blocks)", same)
	}
}

func TestRandomPoolDirectory(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a_queries.jsonl"), []byte(`{"text":"q"}`+"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "b_passages.jsonl"), []byte(`{"text":"p"}`+"\n"), 0o644)
	l, err := Load(LoadOptions{Path: dir, Conversations: 3, Seed: 1, SeedSet: true}, builtinTok(t))
	if err != nil {
		t.Fatal(err)
	}
	if l.Type != TypeRandomPool || len(l.Dataset.Conversations) != 3 || strings.Join(l.Dataset.Conversations[0].Turns[0].Texts, ",") != "q,p" {
		t.Fatalf("got %+v", l)
	}
}

func TestLoadBadInput(t *testing.T) {
	tests := []struct {
		name, typ, content string
		want               []string // substrings of the error
	}{
		{"malformed", TypeSingleTurn, `{"text":"a"}` + "\n" + `{"text":`, []string{":2:", "truncated"}},
		{"no modality", TypeSingleTurn, `{"output_length":3}`, []string{":1:", "at least one of text"}},
		{"wrong type", TypeSingleTurn, `{"text":"a","output_length":"x"}`, []string{":1: output_length:", "integer"}},
		{"text and texts", TypeSingleTurn, `{"text":"a","texts":["b"]}`, []string{"text:", "together"}},
		{"extra not object", TypeSingleTurn, `{"text":"a","extra":[1]}`, []string{"extra:", "object"}},
		{"not utf8", TypeSingleTurn, "{\"text\":\"\xff\"}", []string{"UTF-8"}},
		{"empty", TypeSingleTurn, "\n\n", []string{"empty"}},
		{"turn field", TypeMultiTurn, `{"turns":[{"text":"a"},{"text":5}]}`, []string{":1: turns[1].text:"}},
		{"no turns", TypeMultiTurn, `{"session_id":"x"}`, []string{"turns: missing"}},
		{"two modes", TypeMooncakeTrace, `{"input_length":3,"text_input":"x"}`, []string{"exactly one"}},
		{"bad hash ids", TypeMooncakeTrace, `{"input_length":3,"hash_ids":["a"]}`, []string{"hash_ids:"}},
		{"block misfit", TypeMooncakeTrace, `{"input_length":3,"hash_ids":[1,2]}`, []string{":1: hash_ids:", "final block"}},
		{"bailian missing", TypeBailianTrace, `{"chat_id":1,"timestamp":1,"output_length":2}`, []string{"input_length: missing"}},
		{"csv column", TypeBurstGPTTrace, "Timestamp,Request tokens\n1,2\n", []string{"Response tokens"}},
		{"csv value", TypeBurstGPTTrace, "Timestamp,Request tokens,Response tokens\n1,x,2\n", []string{":2: Request tokens:"}},
		{"raw no messages", TypeRawPayload, `{"prompt":"x"}`, []string{"messages: missing"}},
		{"inputs dup", TypeInputsJSON, `{"data":[{"session_id":"a","payloads":[{}]},{"session_id":"a","payloads":[{}]}]}`, []string{"data[1].session_id", "duplicate"}},
	}
	tok := builtinTok(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, "in.jsonl", tt.content)
			_, err := Load(LoadOptions{Path: path, Type: tt.typ, BlockSize: 4, Seed: 1, SeedSet: true}, tok)
			if err == nil {
				t.Fatal("no error")
			}
			var ie *dataset.InputError
			if !errors.As(err, &ie) {
				t.Errorf("error %v is not an *InputError", err)
			}
			for _, w := range append(tt.want, path) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestDetectAmbiguous(t *testing.T) {
	path := writeFile(t, "x.jsonl", `{"text":"hi","input_length":3}`)
	if _, err := Detect(path); err == nil || !strings.Contains(err.Error(), "several formats") {
		t.Errorf("Detect = %v, want an ambiguity error", err)
	}
}

// TestAnalyzeTrace checks the statistics against AIPerf 0.13's
// analyze-trace on the same file (its JSON report was identical).
func TestAnalyzeTrace(t *testing.T) {
	path := writeFile(t, "t.jsonl", `{"timestamp":0,"input_length":40,"output_length":4,"hash_ids":[1,2,3]}`+"\n"+
		`{"timestamp":100,"input_length":30,"output_length":6,"hash_ids":[1,2,5]}`+"\n"+`{"input_length":7}`+"\n")
	s, err := AnalyzeTrace(path, 16)
	if err != nil {
		t.Fatal(err)
	}
	if s.TotalRequests != 3 || s.UniquePrefixes != 4 || s.NumPrefixGroups != 1 || s.MinISL != 7 || s.MaxOSL != 6 {
		t.Errorf("stats = %+v", s)
	}
	if want := (0.0 + 2.0/3) / 2; math.Abs(s.CacheHitRate-want) > 1e-12 {
		t.Errorf("hit rate = %v, want %v", s.CacheHitRate, want)
	}
	if c := s.ContextLength; c.Median != 32 || c.P25 != 16 || c.Min != 0 {
		t.Errorf("context length = %+v", c)
	}
	if u := s.UniquePromptLength; u.Min != -2 || u.Max != 8 || u.P75 != 7.5 {
		t.Errorf("unique prompt length = %+v", u)
	}
	if r := s.PrefixReuseRatio; math.Abs(r-4.0/6) > 1e-12 {
		t.Errorf("prefix reuse = %v, want 4/6", r)
	}
}

// fuzzLoad loads content as typ ("" detects) and checks the invariants
// every successful load keeps: at least one conversation, every
// conversation has turns, raw payloads are JSON objects, extras are
// valid JSON, and counted inputs are non-negative.
func fuzzLoad(t *testing.T, tok tokenizer.Tokenizer, path, typ, content string) {
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := Load(LoadOptions{Path: path, Type: typ, BlockSize: 4, Conversations: 2, Seed: 1, SeedSet: true}, tok)
	if err != nil {
		var ie *dataset.InputError
		if !errors.As(err, &ie) {
			t.Fatalf("type %q: error %v is not an *InputError", typ, err)
		}
		return
	}
	if len(l.Dataset.Conversations) == 0 {
		t.Fatalf("type %q: no error and no data", typ)
	}
	for _, c := range l.Dataset.Conversations {
		if len(c.Turns) == 0 {
			t.Fatalf("type %q: conversation %s has no turns", typ, c.ID)
		}
		for _, tr := range c.Turns {
			if tr.RawPayload != nil && !json.Valid(tr.RawPayload) {
				t.Fatalf("raw payload %q is not JSON", tr.RawPayload)
			}
			for _, f := range tr.Extra {
				if !json.Valid(f.Value) {
					t.Fatalf("extra %s = %q is not JSON", f.Key, f.Value)
				}
			}
			if tr.InputTokens < 0 || tr.MaxTokens < 0 || tr.Delay < 0 || tr.Timestamp < 0 {
				t.Fatalf("negative count or time in %+v", tr)
			}
		}
	}
}

func fuzzType(f *testing.F, typ string, seeds ...string) {
	for _, s := range seeds {
		f.Add(s)
	}
	tok := builtinTok(f)
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, content string) {
		fuzzLoad(t, tok, filepath.Join(dir, "f.jsonl"), typ, content)
	})
}

func FuzzSingleTurn(f *testing.F) {
	fuzzType(f, TypeSingleTurn, `{"text":"a","extra":{"x":1},"output_length":3}`, `{"texts":["a","b"],"session_id":"s","timestamp":1}`)
}

func FuzzMultiTurn(f *testing.F) {
	fuzzType(f, TypeMultiTurn, `{"session_id":"s","turns":[{"text":"a"},{"text":"b","delay":2}]}`)
}

func FuzzRandomPool(f *testing.F) {
	fuzzType(f, TypeRandomPool, `{"text":"a"}`+"\n"+`{"image":"u"}`)
}

func FuzzMooncakeTrace(f *testing.F) {
	fuzzType(f, TypeMooncakeTrace, `{"timestamp":1,"input_length":9,"hash_ids":[1,2,3]}`, `{"text_input":"x","session_id":"a"}`, `{"payload":{"messages":[]}}`)
}

func FuzzBailianTrace(f *testing.F) {
	fuzzType(f, TypeBailianTrace, `{"chat_id":1,"parent_chat_id":-1,"timestamp":1,"input_length":5,"output_length":1,"turn":1,"hash_ids":[1,2]}`)
}

func FuzzBurstGPTTrace(f *testing.F) {
	fuzzType(f, TypeBurstGPTTrace, "Timestamp,Model,Request tokens,Response tokens\n1,x,2,3\n")
}

func FuzzRawPayload(f *testing.F) {
	fuzzType(f, TypeRawPayload, `{"messages":[{"role":"user","content":"x"}],"model":"m"}`)
}

func FuzzInputsJSON(f *testing.F) {
	fuzzType(f, TypeInputsJSON, `{"data":[{"session_id":"a","payloads":[{"prompt":"p"}]}]}`)
}

// FuzzDetect feeds the format detection (and the load it leads to).
func FuzzDetect(f *testing.F) {
	fuzzType(f, "", `{"text":"a"}`, `{"turns":[{"text":"a"}]}`, `{"input_length":3}`, `{"data":[]}`, "Timestamp,Request tokens,Response tokens\n")
}

func FuzzShareGPT(f *testing.F) {
	f.Add(`[{"conversations":[{"from":"human","value":"hello there friend"},{"from":"gpt","value":"hi to you as well"}]}]`)
	tok := builtinTok(f)
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, content string) {
		path := filepath.Join(dir, "s.json")
		os.WriteFile(path, []byte(content), 0o644)
		l, err := LoadShareGPT(ShareGPTOptions{Path: path}, tok)
		if err == nil && len(l.Dataset.Conversations) == 0 {
			t.Fatal("no error and no data")
		}
	})
}

func FuzzAnalyzeTrace(f *testing.F) {
	f.Add(`{"input_length":40,"output_length":4,"hash_ids":[1,2,3]}`)
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, content string) {
		path := filepath.Join(dir, "t.jsonl")
		os.WriteFile(path, []byte(content), 0o644)
		s, err := AnalyzeTrace(path, 4)
		if err != nil {
			return
		}
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatalf("stats do not marshal (non-finite value?): %v", err)
		}
		_ = b
	})
}

func TestBurstGPTRejectsNonFinite(t *testing.T) {
	for _, v := range []string{"NaN", "Inf", "-1", "1e300"} {
		path := writeFile(t, "b.csv", "Timestamp,Request tokens,Response tokens\n"+v+",5,1\n")
		_, err := Load(LoadOptions{Path: path, Type: TypeBurstGPTTrace, Seed: 1, SeedSet: true}, builtinTok(t))
		if err == nil || !strings.Contains(err.Error(), ":2: Timestamp:") {
			t.Errorf("timestamp %s: error %v", v, err)
		}
	}
}
