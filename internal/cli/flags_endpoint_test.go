package cli

import (
	"context"
	"strings"
	"testing"
)

// TestTextFlagsRefusedForNonTextEndpoints: as in AIPerf, prompt shaping
// and tokenizer options are refused with an endpoint that neither
// tokenizes its input nor produces tokens, and accepted with others.
func TestTextFlagsRefusedForNonTextEndpoints(t *testing.T) {
	t.Parallel()
	for _, typ := range []string{"audio_transcription", "image_retrieval"} {
		r := runMain(t, context.Background(), nil, "profile", "-m", "m", "--endpoint-type", typ,
			"--tokenizer", "gpt2", "--isl", "10", "--seq-dist", "10,5:1")
		if r.code != 2 {
			t.Fatalf("%s: exit %d, stderr %s", typ, r.code, r.stderr)
		}
		for _, want := range []string{"--tokenizer", "--isl (--prompt-input-tokens-mean)", "sequence-distribution", "cannot be used with --endpoint-type " + typ} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("%s: stderr lacks %q:\n%s", typ, want, r.stderr)
			}
		}
	}
	for _, typ := range []string{"embeddings", "nim_rankings", "video_generation", "chat"} {
		profile(t, "-m", "m", "--endpoint-type", typ, "--tokenizer", "gpt2", "--isl", "10")
	}
	profile(t, "-m", "m", "--endpoint-type", "audio_transcription", "--audio-length-mean", "2")
}
