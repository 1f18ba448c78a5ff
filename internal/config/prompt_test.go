package config

import (
	"encoding/json"
	"testing"
)

func TestPromptDefaults(t *testing.T) {
	t.Parallel()
	c := Defaults()
	if c.Prompt.BatchSize != 1 || c.Prompt.PrefixPoolSize != 0 || c.Prompt.PrefixLength != 0 ||
		c.Prompt.SharedSystemLength != nil || c.Prompt.UserContextLength != nil || c.Prompt.SequenceDistribution != nil {
		t.Fatalf("default Prompt = %+v; want AIPerf's defaults (batch 1, nothing else)", c.Prompt)
	}
	if c.Prompt.PrefixPromptsEnabled() {
		t.Fatal("prefix prompts enabled by default")
	}
}

func TestValidatePrompt(t *testing.T) {
	t.Parallel()
	tests := []validateCase{
		{"batch 0", func(c *Config) { c.Prompt.BatchSize = 0 }, nil, ""},
		{"batch 4", func(c *Config) { c.Prompt.BatchSize = 4 }, nil, ""},
		{"negative batch", func(c *Config) { c.Prompt.BatchSize = -1 }, []string{"--prompt-batch-size"}, ">= 0"},
		{"prefix pool", func(c *Config) { c.Prompt.PrefixPoolSize, c.Prompt.PrefixLength = 3, 20 }, nil, ""},
		{"prefix length without pool", func(c *Config) { c.Prompt.PrefixLength = 20 }, []string{"--prompt-prefix-length"}, "--num-prefix-prompts"},
		{"pool without length", func(c *Config) { c.Prompt.PrefixPoolSize = 3 }, []string{"--prompt-prefix-pool-size"}, "--prefix-prompt-length"},
		{"negative pool", func(c *Config) { c.Prompt.PrefixPoolSize, c.Prompt.PrefixLength = -1, 5 },
			[]string{"--prompt-prefix-pool-size"}, ">= 0"},
		{"system and context", func(c *Config) { c.Prompt.SharedSystemLength, c.Prompt.UserContextLength = ptr(100), ptr(50) }, nil, ""},
		{"system 0", func(c *Config) { c.Prompt.SharedSystemLength = ptr(0) }, []string{"--shared-system-prompt-length"}, ">= 1"},
		{"context 0", func(c *Config) { c.Prompt.UserContextLength = ptr(0) }, []string{"--user-context-prompt-length"}, ">= 1"},
		{"pool with system", func(c *Config) {
			c.Prompt.PrefixPoolSize, c.Prompt.PrefixLength = 3, 20
			c.Prompt.SharedSystemLength = ptr(10)
		}, []string{"--shared-system-prompt-length"}, "cannot be combined"},
		{"prefix length with context", func(c *Config) {
			c.Prompt.PrefixPoolSize, c.Prompt.PrefixLength = 3, 20
			c.Prompt.UserContextLength = ptr(10)
		}, []string{"--user-context-prompt-length"}, "cannot be combined"},
		{"system on completions", func(c *Config) {
			c.Endpoint.Type = EndpointCompletions
			c.Prompt.SharedSystemLength = ptr(10)
		}, []string{"--shared-system-prompt-length"}, "--endpoint-type chat"},
		{"prefix on completions", func(c *Config) {
			c.Endpoint.Type = EndpointCompletions
			c.Prompt.PrefixPoolSize, c.Prompt.PrefixLength = 3, 20
		}, nil, ""},
		{"seq dist", func(c *Config) {
			c.Prompt.SequenceDistribution = []SeqDistEntry{{ISL: 10, OSL: 5, Probability: 50}, {ISL: 20, OSL: 5, Probability: 50}}
		}, nil, ""},
		{"file dataset", func(c *Config) {
			c.Dataset.InputFile = "data.jsonl"
			c.Prompt.PrefixPoolSize, c.Prompt.PrefixLength = 3, 20
			c.Prompt.SequenceDistribution = []SeqDistEntry{{ISL: 10, OSL: 5, Probability: 100}}
			c.Prompt.BatchSize = 2
		}, []string{"--prompt-prefix-pool-size", "--prompt-prefix-length", "--seq-dist", "--prompt-batch-size"}, "synthetic datasets"},
		{"batch with single_turn (only random_pool packs)", func(c *Config) {
			c.Dataset.InputFile, c.Dataset.CustomType = "data.jsonl", DatasetSingleTurn
			c.Prompt.BatchSize = 2
			c.Media.AudioBatchSize = ptr(2)
		}, []string{"--prompt-batch-size", "--audio-batch-size"}, "synthetic datasets"},
		{"context prompts with a file", func(c *Config) {
			c.Dataset.InputFile = "data.jsonl"
			c.Prompt.SharedSystemLength, c.Prompt.UserContextLength = ptr(3), ptr(4)
		}, []string{"--shared-system-prompt-length", "--user-context-prompt-length"}, "synthetic datasets"},
		{"bad seq dist from a config file", func(c *Config) {
			c.Prompt.SequenceDistribution = []SeqDistEntry{{ISL: 0, OSL: 5, Probability: 50}}
		}, []string{"--seq-dist"}, "ISL must be >= 1"},
	}
	checkValidate(t, tests)
}

func TestPromptJSONNames(t *testing.T) {
	t.Parallel()
	p := Prompt{BatchSize: 2, PrefixPoolSize: 3, PrefixLength: 4, SharedSystemLength: ptr(5), UserContextLength: ptr(6),
		SequenceDistribution: []SeqDistEntry{{ISL: 7, ISLStddev: 1, OSL: 8, Probability: 100}}}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"batch_size":2,"prefix_pool_size":3,"prefix_length":4,"shared_system_length":5,"user_context_length":6,` +
		`"sequence_distribution":[{"isl":7,"isl_stddev":1,"osl":8,"probability":100}]}`
	if string(b) != want {
		t.Fatalf("JSON = %s; want %s", b, want)
	}
}

// TestRandomPoolBatchSizes: as in AIPerf, random_pool takes -b and the
// media batch sizes (it packs them), from --input-file only.
func TestRandomPoolBatchSizes(t *testing.T) {
	t.Parallel()
	c := Defaults()
	c.Endpoint.ModelNames = []string{"m"}
	c.Dataset.InputFile, c.Dataset.CustomType = "pool.jsonl", DatasetRandomPool
	c.Prompt.BatchSize = 3
	c.Media.ImageBatchSize, c.Media.AudioBatchSize = ptr(2), ptr(0)
	if err := c.Validate(); err != nil {
		t.Fatalf("random_pool with batch sizes: %v", err)
	}
}
