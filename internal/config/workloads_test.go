package config

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseRangeRatio(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want *RangeRatio
		err  string
	}{
		{"0.3", &RangeRatio{Input: 0.3, Output: 0.3}, ""},
		{" 0 ", &RangeRatio{}, ""},
		{`{"input": 0.2, "output": 0.5}`, &RangeRatio{Input: 0.2, Output: 0.5, Pair: true}, ""},
		{`{"output": 0.5, "input": 0}`, &RangeRatio{Output: 0.5, Pair: true}, ""},
		{"", nil, "empty"},
		{"x", nil, "want a number or a JSON object"},
		{`{"input": 0.2}`, nil, "needs an output key"},
		{`{"output": 0.2}`, nil, "needs an input key"},
		{`{"input": 0.2, "output": 0.1, "isl": 1}`, nil, `unexpected key "isl"`},
		{`{"input": "a", "output": 0.1}`, nil, "input: want a number"},
	}
	for _, tt := range tests {
		got, err := ParseRangeRatio(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseRangeRatio(%q) = %v, %v; want error with %q", tt.in, got, err, tt.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseRangeRatio(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}
	if s := (&RangeRatio{Input: 0.2, Output: 0.5, Pair: true}).String(); s != `{"input": 0.2, "output": 0.5}` {
		t.Errorf("String() = %s", s)
	}
	if s := (&RangeRatio{Input: 0.25, Output: 0.25}).String(); s != "0.25" {
		t.Errorf("String() = %s", s)
	}
}

func TestValidatePromptCorpus(t *testing.T) {
	t.Parallel()
	ratio := func(c *Config, r RangeRatio) {
		c.Input.InputTokens.Mean, c.Input.OutputTokens.Mean = 100, ptr(50)
		c.Prompt.RandomRangeRatio = &r
	}
	tests := []validateCase{
		{"corpora", func(c *Config) { c.Prompt.Corpus = "coding" }, nil, ""},
		{"random corpus sglang", func(c *Config) { c.Prompt.Corpus, c.Prompt.RandomCorpusStyle = "random", "sglang" }, nil, ""},
		{"bad corpus", func(c *Config) { c.Prompt.Corpus = "poems" }, []string{"--prompt-corpus"}, "invalid choice"},
		{"bad style", func(c *Config) { c.Prompt.RandomCorpusStyle = "tgi" }, []string{"--random-corpus-style"}, "invalid choice"},
		{"ratio", func(c *Config) { ratio(c, RangeRatio{Input: 0.3, Output: 0.9}) }, nil, ""},
		{"ratio 1 vllm", func(c *Config) { ratio(c, RangeRatio{Input: 1, Output: 1}) }, []string{"--random-range-ratio", "--random-range-ratio"}, "[0, 1)"},
		{"ratio 1 sglang", func(c *Config) {
			ratio(c, RangeRatio{Input: 1, Output: 1})
			c.Prompt.RandomCorpusStyle = "sglang"
		}, nil, ""},
		{"pair with sglang", func(c *Config) {
			ratio(c, RangeRatio{Input: 0.5, Output: 0.5, Pair: true})
			c.Prompt.RandomCorpusStyle = "sglang"
		}, []string{"--random-range-ratio"}, "plain number"},
		{"negative ratio", func(c *Config) { ratio(c, RangeRatio{Input: -0.1, Output: 0.1, Pair: true}) }, []string{"--random-range-ratio"}, ">= 0"},
		{"ratio without osl", func(c *Config) {
			ratio(c, RangeRatio{Input: 0.3, Output: 0.3})
			c.Input.OutputTokens.Mean = nil
		}, []string{"--random-range-ratio"}, "requires --osl"},
		{"ratio with stddev", func(c *Config) {
			ratio(c, RangeRatio{Input: 0.3, Output: 0.3})
			c.Input.InputTokens.Stddev = 5
		}, []string{"--random-range-ratio"}, "--isl-stddev"},
		{"ratio with seq dist", func(c *Config) {
			ratio(c, RangeRatio{Input: 0.3, Output: 0.3})
			c.Prompt.SequenceDistribution = []SeqDistEntry{{ISL: 10, OSL: 5, Probability: 100}}
		}, []string{"--random-range-ratio"}, "--seq-dist"},
		{"ratio with a file", func(c *Config) {
			ratio(c, RangeRatio{Input: 0.3, Output: 0.3})
			c.Dataset.InputFile = "data.jsonl"
		}, []string{"--random-range-ratio"}, "synthetic prompts"},
		{"system prompt", func(c *Config) { c.Prompt.SystemPrompt = "Be brief." }, nil, ""},
		{"system prompt with a file", func(c *Config) {
			c.Prompt.SystemPrompt = "Be brief."
			c.Dataset.InputFile = "data.jsonl"
		}, nil, ""},
		{"blank system prompt", func(c *Config) { c.Prompt.SystemPrompt = " \n" }, []string{"--system-prompt"}, "whitespace only"},
		{"both system prompts", func(c *Config) { c.Prompt.SystemPrompt, c.Prompt.SystemPromptFile = "a", "b.txt" }, []string{"--system-prompt"}, "--system-prompt-file"},
		{"system prompt and shared system", func(c *Config) {
			c.Prompt.SystemPromptFile = "b.txt"
			c.Prompt.SharedSystemLength = ptr(10)
		}, []string{"--system-prompt-file"}, "--shared-system-prompt-length"},
		{"system prompt and prefix pool", func(c *Config) {
			c.Prompt.SystemPrompt = "a"
			c.Prompt.PrefixPoolSize, c.Prompt.PrefixLength = 2, 5
		}, []string{"--system-prompt"}, "--num-prefix-prompts"},
		{"cache bust", func(c *Config) { c.Prompt.CacheBust = "first_turn_suffix" }, nil, ""},
		{"warmup isolation system without a system prompt", func(c *Config) { c.Prompt.CacheBust = "warmup_isolation_system" },
			[]string{"--cache-bust"}, "needs a system prompt"},
		{"warmup isolation system", func(c *Config) {
			c.Prompt.CacheBust, c.Prompt.SharedSystemLength = "warmup_isolation_system", ptr(20)
		}, nil, ""},
		{"bad cache bust", func(c *Config) { c.Prompt.CacheBust = "everywhere" }, []string{"--cache-bust"}, "invalid choice"},
	}
	checkValidate(t, tests)
	p := Prompt{CacheBust: "none"}
	if p.CacheBustEnabled() {
		t.Error("--cache-bust none is enabled")
	}
	p.CacheBust = "system_prefix"
	if !p.CacheBustEnabled() {
		t.Error("--cache-bust system_prefix is not enabled")
	}
}

func TestValidateSynthesis(t *testing.T) {
	t.Parallel()
	f := func(v float64) *float64 { return &v }
	trace := func(c *Config) { c.Dataset.InputFile = "trace.jsonl" }
	checkValidate(t, []validateCase{
		{"trace", func(c *Config) {
			trace(c)
			c.Dataset.Synthesis = Synthesis{SpeedupRatio: f(2), PrefixRootMultiplier: ptr(3), OutputLenMultiplier: f(0), MaxISL: ptr(100), MaxOSL: ptr(10)}
		}, nil, ""},
		{"weka public", func(c *Config) {
			c.Dataset.Public = "semianalysis_cc_traces_weka"
			c.Dataset.Synthesis.MaxOSL = ptr(10)
		}, nil, ""},
		{"defaults are no synthesis", func(c *Config) { c.Dataset.Synthesis.SpeedupRatio = f(1) }, nil, ""},
		{"synthetic", func(c *Config) { c.Dataset.Synthesis.PromptLenMultiplier = f(2) }, []string{"--synthesis-prompt-len-multiplier"}, "trace datasets"},
		{"not a trace type", func(c *Config) {
			trace(c)
			c.Dataset.CustomType = DatasetSingleTurn
			c.Dataset.Synthesis.MaxISL = ptr(5)
		}, []string{"--synthesis-max-isl"}, "single_turn"},
		{"not a trace public dataset", func(c *Config) {
			c.Dataset.Public = "aimo"
			c.Dataset.Synthesis.MaxOSL = ptr(5)
		}, []string{"--synthesis-max-osl"}, "aimo"},
		{"ranges", func(c *Config) {
			trace(c)
			c.Dataset.Synthesis = Synthesis{SpeedupRatio: f(0), PrefixLenMultiplier: f(-1), OutputLenMultiplier: f(-0.5), PrefixRootMultiplier: ptr(0), MaxISL: ptr(0)}
		}, []string{"--synthesis-speedup-ratio", "--synthesis-prefix-len-multiplier", "--synthesis-output-len-multiplier", "--synthesis-prefix-root-multiplier", "--synthesis-max-isl"}, "> 0"},
	})
}
