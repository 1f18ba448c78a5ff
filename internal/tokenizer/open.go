package tokenizer

import "net/http"

// Options are the settings that choose and fetch a tokenizer besides its
// name: AIPerf's --tokenizer-revision and --tokenizer-trust-remote-code, and
// the HuggingFace hub environment.
type Options struct {
	// Revision is the hub revision (branch, tag or commit); "" means "main".
	Revision string
	// TrustRemoteCode is accepted for AIPerf compatibility. No remote code
	// ever runs: a tokenizer.json is data.
	TrustRemoteCode bool
	// Getenv reads HF_HOME, HF_HUB_CACHE, HF_ENDPOINT, HF_TOKEN and
	// HF_HUB_OFFLINE; nil means os.Getenv. Tests pass their own.
	Getenv func(string) string
	// Client fetches from the hub; nil means a client with sane timeouts.
	Client *http.Client
}

// Resolved is an opened tokenizer and what came with it.
type Resolved struct {
	// Tokenizer encodes and counts.
	Tokenizer Tokenizer
	// ConfigJSON is the raw tokenizer_config.json that sits next to the
	// tokenizer.json (chat template, bos/eos tokens), or nil when there is
	// none (the built-in tokenizer, a lone tokenizer.json file).
	ConfigJSON []byte
	// Source says where the tokenizer came from, for logs and the summary:
	// "builtin", a local path, or the hub id, revision and cache path.
	Source string
}

// SpecialEncoder is implemented by tokenizers that can add the special
// tokens a model's post-processor adds (BOS/EOS, [CLS]/[SEP]). Counting
// never uses it; `aiperf tokenize --add-special-tokens` does.
type SpecialEncoder interface {
	EncodeWithSpecialTokens(text string) []int
}

// Open resolves --tokenizer name (or, when empty, --model model) to a
// tokenizer, as AIPerf does: "builtin" and placeholder model names select the
// built-in o200k_base; otherwise a local tokenizer.json, a local directory
// holding one, or a HuggingFace hub id fetched into the standard hub cache.
func Open(name, model string, opts Options) (*Resolved, error) {
	tok, err := Resolve(name, model)
	if err != nil {
		return nil, err
	}
	return &Resolved{Tokenizer: tok, Source: tok.Name()}, nil
}
