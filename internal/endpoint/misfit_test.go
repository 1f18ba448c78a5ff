package endpoint

import "testing"

func TestShape(t *testing.T) {
	tests := []struct{ body, want string }{
		{`{"object":"chat.completion","id":"x","choices":[]}`, `a JSON object with "object": "chat.completion" and members choices, id, object`},
		{`{"type":"message","content":[]}`, `a JSON object with "type": "message" and members content, type`},
		{`{"rankings":[]}`, `a JSON object with members rankings`},
		{`{}`, `a JSON object with no members`},
		{`{"a":1,"b":1,"c":1,"d":1,"e":1,"f":1,"g":1,"h":1,"i":1}`, `a JSON object with members a, b, c, d, e, f, g, h, ...`},
		{`[{"index":0}]`, `a JSON array of objects`},
		{`[1,2]`, `a JSON array`},
		{`"text"`, `a JSON string`},
		{`12`, `a JSON number`},
		{`null`, `JSON null`},
		{` `, `empty`},
		{`<html>`, `not JSON`},
	}
	for _, tc := range tests {
		if got := Shape([]byte(tc.body)); got != tc.want {
			t.Errorf("Shape(%s) = %q, want %q", tc.body, got, tc.want)
		}
	}
}

// FuzzShape: any body gets a description, the same each time.
func FuzzShape(f *testing.F) {
	for _, s := range []string{`{"object":"x","choices":[{"text":"t"}]}`, `[1]`, `"s"`, `{`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got := Shape(data)
		if got == "" || got != Shape(data) {
			t.Fatalf("Shape(%q) = %q, not a stable description", data, got)
		}
	})
}
