package config

// DefaultPromptBatchSize is the number of texts per request (-b), as in
// AIPerf.
const DefaultPromptBatchSize = 1

// Prompt holds the options of --num-prefix-prompts, --prefix-prompt-length, --shared-system-prompt-length, --user-context-prompt-length, --seq-dist, --batch-size.
//
// They shape synthetic prompts (AIPerf's "Prompt", "Prefix Prompt" and
// --seq-dist options). The prefix pool (PrefixPoolSize, PrefixLength) and
// the two-part context (SharedSystemLength, UserContextLength) are mutually
// exclusive, as in AIPerf. Start from defaultPrompt.
type Prompt struct {
	// BatchSize is the number of synthetic texts per request (-b); each is
	// drawn on its own. 0 sends an empty prompt.
	BatchSize int `json:"batch_size"`
	// PrefixPoolSize is the number of distinct prefix prompts
	// (--num-prefix-prompts); 0 = no prefixes.
	PrefixPoolSize int `json:"prefix_pool_size,omitempty"`
	// PrefixLength is each prefix's length in tokens
	// (--prefix-prompt-length). Prefixes are prepended to the first turn's
	// prompt at the token level and add to its ISL.
	PrefixLength int `json:"prefix_length,omitempty"`
	// SharedSystemLength, when set, is the token length of one system
	// prompt shared by every conversation (--shared-system-prompt-length).
	SharedSystemLength *int `json:"shared_system_length,omitempty"`
	// UserContextLength, when set, is the token length of a user message
	// unique to each conversation, sent before its turns
	// (--user-context-prompt-length).
	UserContextLength *int `json:"user_context_length,omitempty"`
	// SequenceDistribution, when set, replaces --isl/--osl: each turn draws
	// an (ISL, OSL) pair from it (--seq-dist). Parse values with
	// ParseSequenceDistribution.
	SequenceDistribution []SeqDistEntry `json:"sequence_distribution,omitempty"`

	// Corpus is the text synthetic prompts and trace blocks are cut from
	// (--prompt-corpus); "" means the dataset's default (sonnet, or coding
	// for the agentic-coding traces).
	Corpus string `json:"corpus,omitempty"`
	// RandomRangeRatio draws each request's ISL and OSL uniformly from a
	// window around --isl and --osl (--random-range-ratio); nil = off.
	RandomRangeRatio *RangeRatio `json:"random_range_ratio,omitempty"`
	// RandomCorpusStyle is vllm or sglang (--random-corpus-style); "" means
	// vllm. It picks the random corpus's tokens and the ratio window.
	RandomCorpusStyle string `json:"random_corpus_style,omitempty"`
	// SystemPrompt is verbatim system text sent ahead of every
	// conversation (--system-prompt); SystemPromptFile names a file
	// holding it (--system-prompt-file).
	SystemPrompt     string `json:"system_prompt,omitempty"`
	SystemPromptFile string `json:"system_prompt_file,omitempty"`
	// CacheBust is where a cache-bust marker goes (--cache-bust); "" and
	// "none" mean nowhere.
	CacheBust string `json:"cache_bust,omitempty"`
}

// defaultPrompt is Prompt with AIPerf's defaults.
func defaultPrompt() Prompt { return Prompt{BatchSize: DefaultPromptBatchSize} }

// PrefixPromptsEnabled reports whether requests carry a prefix from the
// pool.
func (p *Prompt) PrefixPromptsEnabled() bool { return p.PrefixPoolSize > 0 && p.PrefixLength > 0 }

// validatePrompt checks the prompt-shaping options: bounds, the two
// settings of the prefix pool that only work together, AIPerf's exclusivity
// of the prefix pool with the system/user-context prompts, and that those
// context messages can be sent by the endpoint type (only chat has roles).
func (c *Config) validatePrompt(p *problems) {
	pr := &c.Prompt
	if pr.BatchSize < 0 {
		p.add("--prompt-batch-size", "must be >= 0, got %d", pr.BatchSize)
	}
	if pr.PrefixPoolSize < 0 {
		p.add("--prompt-prefix-pool-size", "must be >= 0, got %d", pr.PrefixPoolSize)
	}
	if pr.PrefixLength < 0 {
		p.add("--prompt-prefix-length", "must be >= 0, got %d", pr.PrefixLength)
	}
	if pr.PrefixLength > 0 && pr.PrefixPoolSize == 0 {
		p.add("--prompt-prefix-length", "requires --num-prefix-prompts > 0 (the pool the prefixes are drawn from)")
	}
	if pr.PrefixPoolSize > 0 && pr.PrefixLength == 0 {
		p.add("--prompt-prefix-pool-size", "requires --prefix-prompt-length > 0 (prefixes of 0 tokens add nothing)")
	}
	if pr.SharedSystemLength != nil {
		atLeast1(p, "--shared-system-prompt-length", *pr.SharedSystemLength)
	}
	if pr.UserContextLength != nil {
		atLeast1(p, "--user-context-prompt-length", *pr.UserContextLength)
	}
	pool := pr.PrefixPoolSize > 0 || pr.PrefixLength > 0
	if pool && pr.SharedSystemLength != nil {
		p.add("--shared-system-prompt-length", "cannot be combined with --num-prefix-prompts/--prefix-prompt-length")
	}
	if pool && pr.UserContextLength != nil {
		p.add("--user-context-prompt-length", "cannot be combined with --num-prefix-prompts/--prefix-prompt-length")
	}
	if c.Endpoint.Type != EndpointChat {
		if pr.SharedSystemLength != nil {
			p.add("--shared-system-prompt-length", "needs --endpoint-type chat: %s requests have no system message", c.Endpoint.Type)
		}
		if pr.UserContextLength != nil {
			p.add("--user-context-prompt-length", "needs --endpoint-type chat: %s requests have no separate context message", c.Endpoint.Type)
		}
	}
	if len(pr.SequenceDistribution) > 0 {
		if err := checkSeqDist(pr.SequenceDistribution); err != nil {
			p.add("--seq-dist", "%v", err)
		}
	}
	c.validatePromptSource(p)
	c.validatePromptCorpus(p)
}

// validatePromptSource rejects synthetic-only prompt shaping with a file or
// public dataset, whose prompts are given, as AIPerf does. As in AIPerf,
// -b is accepted with --custom-dataset-type random_pool, which packs that
// many texts per request.
func (c *Config) validatePromptSource(p *problems) {
	if !c.Dataset.FromFile() {
		return
	}
	pr := &c.Prompt
	const only = "is only supported with synthetic datasets; remove --input-file / --public-dataset to shape synthetic prompts"
	if pr.PrefixPoolSize > 0 {
		p.add("--prompt-prefix-pool-size", only)
	}
	if pr.PrefixLength > 0 {
		p.add("--prompt-prefix-length", only)
	}
	if pr.SharedSystemLength != nil {
		p.add("--shared-system-prompt-length", only)
	}
	if pr.UserContextLength != nil {
		p.add("--user-context-prompt-length", only)
	}
	if len(pr.SequenceDistribution) > 0 {
		p.add("--seq-dist", only)
	}
	if pr.BatchSize != DefaultPromptBatchSize && !c.Dataset.packsPool() {
		p.add("--prompt-batch-size", "is only supported with synthetic datasets (and --custom-dataset-type random_pool)")
	}
}
