package tokenizer

import (
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestASCIIClasses(t *testing.T) {
	for r := range rune(utf8.RuneSelf) {
		want := classifyRune(r)
		if r == '\r' || r == '\n' {
			want |= classNewline
		}
		if got := classify(r); got != want {
			t.Errorf("class of %q = %06b, want %06b", r, got, want)
		}
	}
}

// pieces splits s the way nextPiece does.
func pieces(s string) []string {
	var out []string
	for len(s) > 0 {
		n := nextPiece(s)
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

// TestNextPiece pins the split of each alternative of the o200k_base
// pattern, including the backtracking cases.
func TestNextPiece(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"Hello world", []string{"Hello", " world"}},
		{"HTTPServer", []string{"HTTPServer"}}, // 2: upper+ lower*
		{"iPhone", []string{"i", "Phone"}},     // 1 stops at the capital
		{"don't I'M we'LL", []string{"don't", " I'M", " we'LL"}},
		{" I'ſt", []string{" I'ſ", "t"}},                           // 's folds to ſ
		{"it'x", []string{"it", "'x"}},                             // no contraction: ' prefixes x
		{"12345", []string{"123", "45"}},                           // 3: at most 3 digits
		{"x+=1", []string{"x", "+=", "1"}},                         // 4
		{" ...\n\n/x", []string{" ...\n\n/", "x"}},                 // 4 takes trailing \r \n /
		{"a \n \n    1", []string{"a", " \n \n", "   ", " ", "1"}}, // 5 backtracks to the last newline, 6, 7
		{"a   ", []string{"a", "   "}},                             // 6 at the end of text
		{"a\u00a0b", []string{"a", "\u00a0b"}},                     // NBSP is a prefix, like ' '
		{"e\u0301\u0301X", []string{"e\u0301\u0301", "X"}},         // marks are lower and upper
		{"\u0301abc", []string{"\u0301abc"}},                       // a leading mark as prefix
		{"a\x7fb", []string{"a", "\x7fb"}},                         // DEL is an ordinary prefix
		{"中文字", []string{"中文字"}},                                   // Lo is both cases
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, pieces(tc.in)); diff != "" {
			t.Errorf("pieces(%q) mismatch (-want +got):\n%s", tc.in, diff)
		}
	}
}
