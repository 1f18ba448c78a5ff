package mockserver_test

import (
	"encoding/base64"
	"strings"
	"testing"
)

// imagePart and audioPart are OpenAI content parts as AIPerf sends them.
func imagePart(url string) map[string]any {
	return map[string]any{"type": "image_url", "image_url": map[string]any{"url": url}}
}

func audioPart(b64 string) map[string]any {
	return map[string]any{"type": "input_audio", "input_audio": map[string]any{"data": b64, "format": "wav"}}
}

func textPart(s string) map[string]any { return map[string]any{"type": "text", "text": s} }

// TestMultimodalContentParts: a chat request with large image and audio
// parts is answered normally; only its text parts count toward the
// prompt, streamed or not.
func TestMultimodalContentParts(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, fastConfig())
	img := "data:image/png;base64," + base64.StdEncoding.EncodeToString(make([]byte, 600<<10))
	wav := base64.StdEncoding.EncodeToString(append([]byte("RIFF"), make([]byte, 1<<20)...))
	body := map[string]any{"model": "m", "max_tokens": 3, "messages": []any{
		map[string]any{"role": "user", "content": []any{
			textPart("describe these two"), imagePart(img), imagePart("https://example.com/x.png"), audioPart(wav),
		}},
	}}
	got := postJSON(t, srv.URL+"/v1/chat/completions", body)
	if got.Usage.PromptTokens != 3 {
		t.Errorf("prompt_tokens = %d; want 3 (the text part only)", got.Usage.PromptTokens)
	}
	if c := got.Usage.CompletionTokens; c < 1 || c > 3 {
		t.Errorf("completion_tokens = %d; want 1..3 (max_tokens 3)", c)
	}
	body["stream"] = true
	body["stream_options"] = map[string]any{"include_usage": true}
	resp, data := post(t, srv.URL+"/v1/chat/completions", body)
	if resp.StatusCode != 200 || !strings.Contains(string(data), `"prompt_tokens":3`) || !strings.HasSuffix(strings.TrimSpace(string(data)), "data: [DONE]") {
		t.Errorf("stream: status %d, body %.400s", resp.StatusCode, data)
	}
}

// TestLongMultimodalHistory: a conversation of 150 turns, each user turn
// carrying an image and the assistant replies in between, is accepted;
// usage.prompt_tokens counts the whole history, replies included, as a
// real server does.
func TestLongMultimodalHistory(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, fastConfig())
	img := "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(make([]byte, 16<<10))
	var msgs []any
	const turns = 150
	for i := range turns {
		msgs = append(msgs, map[string]any{"role": "user", "content": []any{textPart("turn words here"), imagePart(img)}})
		if i < turns-1 {
			msgs = append(msgs, map[string]any{"role": "assistant", "content": "reply that is counted too"})
		}
	}
	got := postJSON(t, srv.URL+"/v1/chat/completions", map[string]any{"model": "m", "max_tokens": 2, "messages": msgs})
	if want := 3*turns + 5*(turns-1); got.Usage.PromptTokens != want {
		t.Errorf("prompt_tokens = %d; want %d", got.Usage.PromptTokens, want)
	}
}

// TestMalformedContentParts: parts that are not objects are a 400, not a
// crash; unknown part types are ignored like media.
func TestMalformedContentParts(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, fastConfig())
	resp, data := post(t, srv.URL+"/v1/chat/completions", map[string]any{"model": "m", "messages": []any{
		map[string]any{"role": "user", "content": []any{"just a string"}},
	}})
	if resp.StatusCode != 400 {
		t.Errorf("status %d (%s); want 400", resp.StatusCode, data)
	}
	got := postJSON(t, srv.URL+"/v1/chat/completions", map[string]any{"model": "m", "messages": []any{
		map[string]any{"role": "user", "content": []any{textPart("a b"), map[string]any{"type": "video_url", "video_url": map[string]any{"url": "v"}}}},
	}})
	if got.Usage.PromptTokens != 2 {
		t.Errorf("prompt_tokens = %d; want 2", got.Usage.PromptTokens)
	}
}
