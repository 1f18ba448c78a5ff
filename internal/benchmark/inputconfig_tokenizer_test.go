package benchmark

import (
	"encoding/json"
	"testing"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/tokenizer"
)

// namedTokenizer is a tokenizer that only has a name.
type namedTokenizer struct{ tokenizer.Tokenizer }

func (n namedTokenizer) Name() string { return "Qwen/Qwen3-0.6B" }

func TestInputConfigTokenizer(t *testing.T) {
	builtin, err := tokenizer.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		tok      tokenizer.Tokenizer
		revision string
		trust    bool
		want     string
	}{
		{"builtin", builtin, config.DefaultTokenizerRevision, false, `{"name":"builtin"}`},
		{"hub defaults", namedTokenizer{}, config.DefaultTokenizerRevision, false, `{"name":"Qwen/Qwen3-0.6B"}`},
		{"hub revision and trust", namedTokenizer{}, "v1.0", true, `{"name":"Qwen/Qwen3-0.6B","revision":"v1.0","trust_remote_code":true}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := config.Defaults()
			cfg.Tokenizer.Revision, cfg.Tokenizer.TrustRemoteCode = tt.revision, tt.trust
			got, err := json.Marshal(tokenizerDoc(&Plan{Config: &cfg, Tokenizer: tt.tok}))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("tokenizer section = %s; want %s", got, tt.want)
			}
		})
	}
}
