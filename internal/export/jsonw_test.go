package export

import (
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// quoteSeeds cover every byte alone and in a plain string, and the
// multi-byte and invalid UTF-8 cases appendQuoted hands to jsontext.
func quoteSeeds() []string {
	seeds := []string{"", "time_to_first_token", "record_processor_0", "a\"b", `back\slash`, "tab\there", "nl\n", "\u00e9t\u00e9",
		"\u2028\u2029", "emoji \U0001F600", "bad \xff\xfe", "<html>&amp;</html>", "\x7f del", "\x00"}
	for b := range 256 {
		seeds = append(seeds, string([]byte{byte(b)}), "x"+string([]byte{byte(b)})+"y")
	}
	// Every byte at every position of a 17-byte string, so each lane of
	// the eight-byte check and the tail see it.
	for b := range 256 {
		for pos := range 17 {
			s := []byte("abcdefghijklmnopq")
			s[pos] = byte(b)
			seeds = append(seeds, string(s))
		}
	}
	return seeds
}

func TestAppendQuotedMatchesJSONText(t *testing.T) {
	t.Parallel()
	for _, s := range quoteSeeds() {
		if plain := plainASCII(s); plain != !strings.ContainsFunc(s, func(r rune) bool { return r < ' ' || r == '"' || r == '\\' || r >= 0x80 }) {
			t.Errorf("plainASCII(%q) = %v", s, plain)
		}
		want, _ := jsontext.AppendQuote(nil, s)
		if got := appendQuoted(nil, s); string(got) != string(want) {
			t.Errorf("appendQuoted(%q) = %s; jsontext writes %s", s, got, want)
		}
	}
	if got := appendQuoted([]byte("prefix:"), strings.Repeat("k", 3)); string(got) != `prefix:"kkk"` {
		t.Errorf("appendQuoted appends to dst: got %s", got)
	}
}

func FuzzAppendQuoted(f *testing.F) {
	for _, s := range quoteSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := jsontext.AppendQuote(nil, s)
		if got := appendQuoted(nil, s); string(got) != string(want) {
			t.Fatalf("appendQuoted(%q) = %s; jsontext writes %s", s, got, want)
		}
	})
}

func BenchmarkAppendQuoted(b *testing.B) {
	keys := []string{"metadata", "session_num", "x_request_id", "request_start_ns", "time_to_first_token", "value", "unit", "ms"}
	dst := make([]byte, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		dst = dst[:0]
		for _, k := range keys {
			dst = appendQuoted(dst, k)
		}
	}
}

// TestJSONWDeepNesting: commas stay right past the 64 depths jsonw keeps
// in bits.
func TestJSONWDeepNesting(t *testing.T) {
	t.Parallel()
	const depth = 70
	var w jsonw
	var want strings.Builder
	for range depth {
		w.open('[')
		w.int(1)
		want.WriteString("[1,")
	}
	w.open('{')
	w.key("k")
	w.str("v")
	w.key("n")
	w.bool(true)
	w.close('}')
	want.WriteString(`{"k":"v","n":true}`)
	for range depth {
		w.int(2)
		w.close(']')
		want.WriteString(",2]")
	}
	if got := string(w.b); got != want.String() {
		t.Errorf("got  %s\nwant %s", got, want.String())
	}
	if !jsontext.Value(w.b).IsValid() {
		t.Errorf("not valid JSON: %s", w.b)
	}
}
