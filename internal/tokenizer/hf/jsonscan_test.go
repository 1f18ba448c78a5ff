package hf

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"slices"
	"testing"
)

// TestScanMatchesEncodingJSON checks the fast vocab and merges scanners
// against encoding/json on real files, one with "a b" merges (llama2) and
// one with pair merges (qwen3).
func TestScanMatchesEncodingJSON(t *testing.T) {
	for _, model := range []string{"llama2", "qwen3"} {
		data, err := os.ReadFile(testmodelsPath(t, model))
		if err != nil {
			t.Fatal(err)
		}
		var f struct {
			Model struct {
				Vocab  json.RawMessage `json:"vocab"`
				Merges json.RawMessage `json:"merges"`
			} `json:"model"`
		}
		if err := json.Unmarshal(data, &f); err != nil {
			t.Fatal(err)
		}
		fast, err := scanVocab(f.Model.Vocab)
		if err != nil {
			t.Fatalf("%s: scanVocab: %v", model, err)
		}
		var slow map[string]int
		if err := json.Unmarshal(f.Model.Vocab, &slow); err != nil {
			t.Fatal(err)
		}
		if !maps.Equal(fast, slow) {
			t.Errorf("%s: scanned vocabulary differs from encoding/json's", model)
		}
		got, err := scanMerges(f.Model.Merges)
		if err != nil {
			t.Fatalf("%s: scanMerges: %v", model, err)
		}
		want := slowMerges(t, f.Model.Merges)
		if !slices.Equal(got, want) {
			t.Errorf("%s: scanned merges differ from encoding/json's", model)
		}
	}
}

// slowMerges parses merges with encoding/json only.
func slowMerges(tb testing.TB, raw []byte) [][2]string {
	var strs []string
	if err := json.Unmarshal(raw, &strs); err == nil {
		out := make([][2]string, len(strs))
		for i, s := range strs {
			a, b, _ := cutSpace(s)
			out[i] = [2]string{a, b}
		}
		return out
	}
	var pairs [][2]string
	if err := json.Unmarshal(raw, &pairs); err != nil {
		tb.Fatal(err)
	}
	return pairs
}

// FuzzScanVocab checks that whatever the fast scanner accepts,
// encoding/json accepts with the same result.
func FuzzScanVocab(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":0,"b":1}`, `{"\u00e9\n":12, "x" : 3 }`, `{"a":01}`, `{"a":-1}`, `{"a":1,}`, "{\"\xff\":1}", `{"a":1}x`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		fast, err := scanVocab(raw)
		if err != nil {
			return
		}
		var slow map[string]int
		if err := json.Unmarshal(raw, &slow); err != nil {
			t.Fatalf("scanVocab accepted %q, encoding/json says %v", raw, err)
		}
		if !maps.Equal(fast, slow) {
			t.Fatalf("scanVocab(%q) = %v, encoding/json %v", raw, fast, slow)
		}
	})
}

// FuzzScanMerges is FuzzScanVocab for merge lists.
func FuzzScanMerges(f *testing.F) {
	for _, s := range []string{`[]`, `["a b","c d"]`, `[["a","b"],["c d","e"]]`, `["ab"]`, `[["a"]]`, `["a b",["c","d"]]`, `["a\"b c"]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, err := scanMerges(raw)
		if err != nil {
			return
		}
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			t.Fatalf("scanMerges accepted %q, encoding/json says %v", raw, err)
		}
		if len(items) != len(got) {
			t.Fatalf("scanMerges(%q) gave %d merges, encoding/json %d items", raw, len(got), len(items))
		}
		for i, it := range items {
			var s string
			var p [2]string
			if json.Unmarshal(it, &s) == nil {
				a, b, _ := cutSpace(s)
				p = [2]string{a, b}
			} else if err := json.Unmarshal(it, &p); err != nil {
				t.Fatalf("item %d of %q: %v", i, raw, err)
			}
			if p != got[i] {
				t.Fatalf("item %d of %q: scanned %q, encoding/json %q", i, raw, got[i], p)
			}
		}
	})
}

// FuzzComponentType checks the type sniffer never disagrees with
// encoding/json on a spec both can read.
func FuzzComponentType(f *testing.F) {
	for _, s := range []string{`{"type":"BPE","vocab":{}}`, `{"vocab":{"a":[1,{"b":"}"}]},"type":"X"}`, `{"type":1}`, `[]`, `{"a":"\"","type":"\u0042"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if bytes.Count(bytes.ToLower(raw), []byte(`type"`)) > 1 {
			// Repeated (or differently cased) keys: encoding/json takes
			// the last, case-insensitively; the sniffer the first "type".
			return
		}
		got, err := componentType(raw)
		var want component
		werr := json.Unmarshal(raw, &want)
		if err == nil && werr == nil && got != want {
			t.Fatalf("componentType(%q) = %q, encoding/json %q", raw, got.Type, want.Type)
		}
	})
}
