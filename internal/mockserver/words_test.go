package mockserver_test

import (
	"strings"
	"testing"

	"github.com/tiktoken-go/tokenizer"

	"github.com/aiperf-go/aiperf/internal/mockserver"
)

// o200k returns the builtin tokenizer's codec.
func o200k(t *testing.T) tokenizer.Codec {
	t.Helper()
	enc, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		t.Fatalf("tokenizer.Get(o200k_base): %v", err)
	}
	return enc
}

// TestWordsAreSingleTokens proves the vocabulary invariant: " "+word is one
// o200k_base token for every word, and words are unique lowercase ASCII.
func TestWordsAreSingleTokens(t *testing.T) {
	t.Parallel()
	enc := o200k(t)
	words := mockserver.Words()
	if len(words) < 256 {
		t.Fatalf("len(Words()) = %d; want >= 256", len(words))
	}
	seen := map[string]bool{}
	for _, w := range words {
		if seen[w] {
			t.Errorf("duplicate word %q", w)
		}
		seen[w] = true
		if strings.Trim(w, "abcdefghijklmnopqrstuvwxyz") != "" || w == "" {
			t.Errorf("word %q is not lowercase ASCII letters", w)
		}
		ids, _, err := enc.Encode(" " + w)
		if err != nil || len(ids) != 1 {
			t.Errorf("o200k(%q) = %v, %v; want exactly 1 token", " "+w, ids, err)
		}
	}
}

// TestWordsConcatenationCountsExactly checks that a long run of emitted
// tokens counts as exactly as many o200k tokens, in every order that the
// server could produce them (each word after each other word is covered by
// walking pairs).
func TestWordsConcatenationCountsExactly(t *testing.T) {
	t.Parallel()
	enc := o200k(t)
	words := mockserver.Words()
	var b strings.Builder
	n := 0
	// Every word after every other word, in runs, bounded to keep it quick:
	// word i followed by words i+k for k over a stride set.
	for _, stride := range []int{1, 2, 3, 5, 7, 11, 13, 17, 31, 101} {
		for i := range words {
			b.WriteString(" " + words[i])
			b.WriteString(" " + words[(i+stride)%len(words)])
			n += 2
		}
	}
	got, err := enc.Count(b.String())
	if err != nil {
		t.Fatalf("Count: %v", err)
	}
	if got != n {
		t.Errorf("o200k count of %d concatenated tokens = %d; want %d", n, got, n)
	}
}

// TestServedTextCountsExactly checks end to end that the text served for a
// request tokenizes to exactly usage.completion_tokens.
func TestServedTextCountsExactly(t *testing.T) {
	t.Parallel()
	enc := o200k(t)
	srv := newTestServer(t, fastConfig())
	for _, n := range []int{1, 17, 500, 4096} {
		body := chatBody(map[string]any{"max_tokens": n, "ignore_eos": true}, "count me exactly please")
		got := postJSON(t, srv.URL+"/v1/chat/completions", body)
		text := got.Choices[0].Message.Content
		c, err := enc.Count(text)
		if err != nil {
			t.Fatal(err)
		}
		if c != n || got.Usage.CompletionTokens != n {
			t.Errorf("max_tokens=%d: o200k count %d, usage %d; want %d", n, c, got.Usage.CompletionTokens, n)
		}
	}
}
