package loader

import (
	"strings"
	"testing"
)

// TestParseRowErrors: a line that is not a JSON object says whether it is
// bad JSON or another kind of value (the first byte alone would read
// "nonsense" as null).
func TestParseRowErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ line, want string }{
		{`nonsense`, "invalid JSON"},
		{`nul`, "truncated JSON"},
		{`null`, "want a JSON object, got null"},
		{`true`, "want a JSON object, got a boolean"},
		{`[1]`, "want a JSON object, got an array"},
		{`{"a": 1`, "truncated JSON"},
		{"\xff", "not valid UTF-8"},
	} {
		if _, err := parseRow([]byte(c.line)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("parseRow(%q) = %v; want %q", c.line, err, c.want)
		}
	}
	if r, err := parseRow([]byte(`{"a": 1}`)); err != nil || !r.has("a") {
		t.Errorf("object: %v", err)
	}
}
