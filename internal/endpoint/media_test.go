package endpoint

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestCountImageParts(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		body string
		want int
	}{
		{"none", `{"messages":[{"role":"user","content":"hi"}]}`, 0},
		{"compact", `{"messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AA"}},{"type":"image_url","image_url":{"url":"u"}}]}]}`, 2},
		{"spaced", `{"content": [ {"type" : "image_url", "image_url": {"url": "u"}} ]}`, 1},
		{"key only", `{"image_url":{"url":"u"}}`, 0},
		{"inside text", `{"type":"text","text":"say \"type\":\"image_url\" please"}`, 0},
		{"history counts", `{"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"a"}}]},{"role":"assistant","content":"ok"},{"role":"user","content":[{"type":"image_url","image_url":{"url":"b"}}]}]}`, 2},
		{"audio is not an image", `{"content":[{"type":"input_audio","input_audio":{"data":"AA","format":"wav"}}]}`, 0},
	} {
		if got := CountImageParts([]byte(tt.body)); got != tt.want {
			t.Errorf("%s: CountImageParts = %d, want %d", tt.name, got, tt.want)
		}
	}
}

// FuzzCountImageParts: a text, whatever it holds, never counts as an image
// once it is JSON-encoded into a body.
func FuzzCountImageParts(f *testing.F) {
	f.Add(`"type":"image_url"`)
	f.Add(`{"type" : "image_url"}`)
	f.Fuzz(func(t *testing.T, text string) {
		enc, _ := json.Marshal(text)
		body := `{"messages":[{"role":"user","content":[{"type":"text","text":` + string(enc) + `},{"type":"image_url","image_url":{"url":"x"}}]}]}`
		if got := CountImageParts([]byte(body)); got != 1 {
			t.Fatalf("CountImageParts = %d for text %q, want 1", got, text)
		}
		if !strings.Contains(body, "image_url") {
			t.Fatal("unreachable")
		}
	})
}
