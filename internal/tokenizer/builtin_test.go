package tokenizer

import (
	"encoding/json"
	"os"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// goldenCase is one entry of testdata/o200k_golden.json, produced by Python
// tiktoken (see testdata/gen_golden.py).
type goldenCase struct {
	Name string `json:"name"`
	Text string `json:"text"`
	IDs  []int  `json:"ids"`
}

func loadGolden(t testing.TB) []goldenCase {
	t.Helper()
	data, err := os.ReadFile("testdata/o200k_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []goldenCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatal("no golden cases")
	}
	return cases
}

func mustBuiltin(t testing.TB) Tokenizer {
	t.Helper()
	tok, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestBuiltinName(t *testing.T) {
	if got := mustBuiltin(t).Name(); got != "builtin (o200k_base)" {
		t.Errorf("Name() = %q", got)
	}
}

func TestBuiltinGolden(t *testing.T) {
	tok := mustBuiltin(t)
	for _, tc := range loadGolden(t) {
		t.Run(tc.Name, func(t *testing.T) {
			got := tok.Encode(tc.Text)
			if diff := cmp.Diff(tc.IDs, got); diff != "" {
				t.Errorf("Encode(%q) mismatch (-tiktoken +ours):\n%s", tc.Text, diff)
			}
			if n := tok.Count(tc.Text); n != len(tc.IDs) {
				t.Errorf("Count(%q) = %d, want %d", tc.Text, n, len(tc.IDs))
			}
			if back := tok.Decode(tc.IDs); back != tc.Text {
				t.Errorf("Decode(golden ids) = %q, want %q", back, tc.Text)
			}
		})
	}
}

func TestBuiltinSpecialTokens(t *testing.T) {
	tok := mustBuiltin(t)
	tests := []struct {
		name string
		text string
		want []int
	}{
		{"alone", "<|endoftext|>", []int{199999}},
		{"endofprompt", "<|endofprompt|>", []int{200018}},
		{"twice", "<|endoftext|><|endoftext|>", []int{199999, 199999}},
		{"embedded", "a<|endoftext|>b", []int{64, 199999, 65}},
		// "<|im_start|>" is not an o200k_base special token: it is text.
		{"lookalike", "<|im_start|>", []int{27, 91, 321, 10949, 91, 29}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tok.Encode(tc.text)); diff != "" {
				t.Errorf("Encode mismatch (-want +got):\n%s", diff)
			}
			if n := tok.Count(tc.text); n != len(tc.want) {
				t.Errorf("Count = %d, want %d", n, len(tc.want))
			}
			if got := tok.Decode(tc.want); got != tc.text {
				t.Errorf("Decode = %q, want %q", got, tc.text)
			}
		})
	}
}

func TestBuiltinDecodeEdgeCases(t *testing.T) {
	tok := mustBuiltin(t)
	rocket := tok.Encode("🚀") // one character, several byte-level tokens
	if len(rocket) < 2 {
		t.Fatalf("Encode(rocket) = %v, want a multi-token character", rocket)
	}
	tests := []struct {
		name string
		ids  []int
		want string
	}{
		{"nil", nil, ""},
		{"partial character becomes U+FFFD", rocket[:1], "\uFFFD"},
		{"partial character before a special", append(rocket[:1:1], 199999), "\uFFFD<|endoftext|>"},
		{"unknown ids are skipped", []int{-1, 13225, 199998, 200000, 1 << 40, 0}, "Hello!"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tok.Decode(tc.ids); got != tc.want {
				t.Errorf("Decode(%v) = %q, want %q", tc.ids, got, tc.want)
			}
		})
	}
}

func TestBuiltinInvalidUTF8(t *testing.T) {
	tok := mustBuiltin(t)
	// Python would see "a\uFFFDb" (errors="replace").
	if got, want := tok.Encode("a\xffb"), tok.Encode("a\uFFFDb"); !cmp.Equal(got, want) {
		t.Errorf("Encode(invalid) = %v, want %v", got, want)
	}
	if got := tok.Count("a\xffb"); got != len(tok.Encode("a\uFFFDb")) {
		t.Errorf("Count(invalid) = %d", got)
	}
}

func TestBuiltinRoundTrip(t *testing.T) {
	tok := mustBuiltin(t)
	for _, tc := range loadGolden(t) {
		if got := tok.Decode(tok.Encode(tc.Text)); got != tc.Text {
			t.Errorf("%s: round trip = %q, want %q", tc.Name, got, tc.Text)
		}
	}
}

// TestBuiltinConcurrent runs one tokenizer from many goroutines, including
// its lazy first use; run it with -race.
func TestBuiltinConcurrent(t *testing.T) {
	tok := mustBuiltin(t)
	cases := loadGolden(t)
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := range 8 {
		wg.Go(func() {
			for i := range 3 * len(cases) {
				tc := cases[(g+i)%len(cases)]
				if got := tok.Encode(tc.Text); !cmp.Equal(got, tc.IDs, cmpopts.EquateEmpty()) {
					errs <- tc.Name + ": Encode differs"
					return
				}
				if tok.Count(tc.Text) != len(tc.IDs) || tok.Decode(tc.IDs) != tc.Text {
					errs <- tc.Name + ": Count or Decode differs"
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func FuzzBuiltinRoundTrip(f *testing.F) {
	for _, tc := range loadGolden(f) {
		f.Add(tc.Text)
	}
	f.Add("\xff\xfe<|endoftext")
	f.Add("<|endofprompt|><|")
	tok := mustBuiltin(f)
	f.Fuzz(func(t *testing.T, s string) {
		ids := tok.Encode(s)
		if n := tok.Count(s); n != len(ids) {
			t.Fatalf("Count(%q) = %d, len(Encode) = %d", s, n, len(ids))
		}
		got := tok.Decode(ids)
		if utf8.ValidString(s) {
			if got != s {
				t.Fatalf("Decode(Encode(%q)) = %q", s, got)
			}
			return
		}
		// Invalid input is cleaned first, so it round-trips to valid UTF-8
		// and encodes like its cleaned form.
		if !utf8.ValidString(got) {
			t.Fatalf("Decode(Encode(%q)) = %q is not valid UTF-8", s, got)
		}
		if again := tok.Encode(got); !cmp.Equal(again, ids, cmpopts.EquateEmpty()) {
			t.Fatalf("Encode(%q) = %v, Encode(cleaned %q) = %v", s, ids, got, again)
		}
	})
}

// TestBuiltinCountDoesNotAllocate pins Count's allocation-free path for
// valid UTF-8 (pieces shorter than heapMergeMinBytes), which metrics use on
// every response.
func TestBuiltinCountDoesNotAllocate(t *testing.T) {
	tok := mustBuiltin(t)
	text := englishText(4096) + " <|endoftext|> 你好 🚀 12345"
	tok.Count(text)
	if allocs := testing.AllocsPerRun(20, func() { tok.Count(text) }); allocs != 0 {
		t.Errorf("Count allocates %v times per call", allocs)
	}
}

func BenchmarkBuiltinCount(b *testing.B) {
	tok := mustBuiltin(b)
	text := englishText(4096)
	tok.Count(text) // load the vocabulary outside the timed loop
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		tok.Count(text)
	}
}

func BenchmarkBuiltinEncode(b *testing.B) {
	tok := mustBuiltin(b)
	text := englishText(4096)
	tok.Count(text)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		tok.Encode(text)
	}
}

// englishText returns about n bytes of English prose.
func englishText(n int) string {
	const para = "It was the best of times, it was the worst of times, it was the age of " +
		"wisdom, it was the age of foolishness, it was the epoch of belief, it was the " +
		"epoch of incredulity, it was the season of Light, it was the season of Darkness. "
	return strings.Repeat(para, n/len(para)+1)[:n]
}
