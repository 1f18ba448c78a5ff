package openai

import (
	"strings"
	"testing"
)

// TestParseErrorsHaveNoOffsets: two bodies cut short at different lengths
// fail with one message, so that error_summary, which groups by message,
// keeps one row for a server that truncates every body.
func TestParseErrorsHaveNoOffsets(t *testing.T) {
	t.Parallel()
	chat := `{"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"` +
		strings.Repeat(" word", 40) + `"},"finish_reason":"stop"}]}`
	text := `{"id":"cmpl-1","object":"text_completion","choices":[{"index":0,"text":"` +
		strings.Repeat(" word", 40) + `","finish_reason":"stop"}]}`
	for _, tc := range []struct {
		name  string
		parse func([]byte) error
		body  string
	}{
		{"chat", func(b []byte) error { _, err := NewChat().ParseResponse(b); return err }, chat},
		{"completions", func(b []byte) error { _, err := NewCompletions().ParseResponse(b); return err }, text},
	} {
		a, b := tc.parse([]byte(tc.body[:len(tc.body)/2])), tc.parse([]byte(tc.body[:len(tc.body)/2+7]))
		if a == nil || b == nil {
			t.Fatalf("%s: truncated bodies parsed without error", tc.name)
		}
		if a.Error() != b.Error() || strings.Contains(a.Error(), "offset") {
			t.Errorf("%s: messages %q and %q; want one message without an offset", tc.name, a, b)
		}
	}
	// A semantic error wrapping a syntactic one loses both offsets.
	_, err := NewChat().ParseResponse([]byte(`{"object":"chat.completion","choices":[{"message":{"content":"a"}}, {"x":`))
	if err == nil || strings.Contains(err.Error(), "offset") {
		t.Errorf("error %v; want one without an offset", err)
	}
}
