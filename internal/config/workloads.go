package config

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Prompt corpora, random corpus styles and cache-bust targets (AIPerf's
// choices).
var (
	promptCorpora    = []string{"sonnet", "coding", "random"}
	corpusStyles     = []string{"vllm", "sglang"}
	cacheBustTargets = []string{"none", "system_prefix", "system_suffix", "first_turn_prefix", "first_turn_suffix",
		"warmup_isolation_system", "warmup_isolation_first_turn"}
)

// PromptCorpora lists the --prompt-corpus choices.
func PromptCorpora() []string { return append([]string(nil), promptCorpora...) }

// RandomCorpusStyles lists the --random-corpus-style choices.
func RandomCorpusStyles() []string { return append([]string(nil), corpusStyles...) }

// CacheBustTargets lists the --cache-bust choices.
func CacheBustTargets() []string { return append([]string(nil), cacheBustTargets...) }

// RangeRatio is --random-range-ratio: one ratio for both windows, or
// {"input": r1, "output": r2}.
type RangeRatio struct {
	Input  float64 `json:"input"`
	Output float64 `json:"output"`
	// Pair reports the JSON object form (two ratios given).
	Pair bool `json:"-"`
}

// ParseRangeRatio reads a --random-range-ratio value: a number, or a JSON
// object with exactly the keys input and output.
func ParseRangeRatio(s string) (*RangeRatio, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, fmt.Errorf("value cannot be empty")
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return &RangeRatio{Input: f, Output: f}, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return nil, fmt.Errorf("want a number or a JSON object with input and output, got %q", s)
	}
	r := &RangeRatio{Pair: true}
	for k, v := range m {
		var f float64
		if err := json.Unmarshal(v, &f); err != nil {
			return nil, fmt.Errorf("%s: want a number, got %s", k, v)
		}
		switch k {
		case "input":
			r.Input = f
		case "output":
			r.Output = f
		default:
			return nil, fmt.Errorf("unexpected key %q (want input and output)", k)
		}
	}
	if _, ok := m["input"]; !ok {
		return nil, fmt.Errorf("the JSON object needs an input key")
	}
	if _, ok := m["output"]; !ok {
		return nil, fmt.Errorf("the JSON object needs an output key")
	}
	return r, nil
}

// String renders the ratio as it is given on the command line.
func (r *RangeRatio) String() string {
	if !r.Pair {
		return strconv.FormatFloat(r.Input, 'g', -1, 64)
	}
	return fmt.Sprintf(`{"input": %s, "output": %s}`, strconv.FormatFloat(r.Input, 'g', -1, 64), strconv.FormatFloat(r.Output, 'g', -1, 64))
}

// CacheBustEnabled reports whether a cache-bust marker is injected.
func (p *Prompt) CacheBustEnabled() bool { return p.CacheBust != "" && p.CacheBust != "none" }

// validatePromptCorpus checks --prompt-corpus, the random corpus options,
// the verbatim system prompt and --cache-bust, with AIPerf's rules.
func (c *Config) validatePromptCorpus(p *problems) {
	pr := &c.Prompt
	if pr.Corpus != "" && !contains(promptCorpora, pr.Corpus) {
		p.add("--prompt-corpus", "invalid choice %q (want %s)", pr.Corpus, strings.Join(promptCorpora, ", "))
	}
	if pr.RandomCorpusStyle != "" && !contains(corpusStyles, pr.RandomCorpusStyle) {
		p.add("--random-corpus-style", "invalid choice %q (want %s)", pr.RandomCorpusStyle, strings.Join(corpusStyles, ", "))
	}
	if r := pr.RandomRangeRatio; r != nil {
		c.validateRandomRangeRatio(p, r)
	}
	pr.validateSystemPrompt(p)
	if pr.CacheBust != "" && !contains(cacheBustTargets, pr.CacheBust) {
		p.add("--cache-bust", "invalid choice %q (want %s)", pr.CacheBust, strings.Join(cacheBustTargets, ", "))
	}
	if pr.CacheBust == "warmup_isolation_system" && !c.Dataset.FromFile() &&
		pr.SharedSystemLength == nil && pr.SystemPrompt == "" && pr.SystemPromptFile == "" {
		p.add("--cache-bust", "warmup_isolation_system needs a system prompt on a synthetic dataset (--shared-system-prompt-length, --system-prompt or --system-prompt-file); "+
			"without one the marker would land on the user turn, as warmup_isolation_first_turn")
	}
}

// validateRandomRangeRatio checks --random-range-ratio: its bounds under
// the corpus style and the flags its window replaces.
func (c *Config) validateRandomRangeRatio(p *problems, r *RangeRatio) {
	pr := &c.Prompt
	sglang := pr.RandomCorpusStyle == "sglang"
	validateRangeRatioBounds(p, r, sglang)
	if sglang && r.Pair {
		p.add("--random-range-ratio", "the sglang style applies one ratio to ISL and OSL; give a plain number")
	}
	if len(pr.SequenceDistribution) > 0 {
		p.add("--random-range-ratio", "cannot be combined with --seq-dist")
	}
	if c.Input.OutputTokens.Mean == nil || *c.Input.OutputTokens.Mean < 1 {
		p.add("--random-range-ratio", "requires --osl >= 1 (the output window is drawn around it)")
	}
	if c.Input.InputTokens.Mean < 1 {
		p.add("--random-range-ratio", "requires --isl >= 1, got %d", c.Input.InputTokens.Mean)
	}
	if c.Input.InputTokens.Stddev != 0 || c.Input.OutputTokens.Stddev != 0 {
		p.add("--random-range-ratio", "cannot be combined with --isl-stddev or --osl-stddev (the window sets the spread)")
	}
	if c.Dataset.FromFile() {
		p.add("--random-range-ratio", "only shapes synthetic prompts; remove --input-file / --public-dataset")
	}
}

// validateRangeRatioBounds checks each ratio: [0, 1] for the sglang
// style, [0, 1) otherwise.
func validateRangeRatioBounds(p *problems, r *RangeRatio, sglang bool) {
	for _, v := range []float64{r.Input, r.Output} {
		switch {
		case math.IsNaN(v) || math.IsInf(v, 0) || v < 0:
			p.add("--random-range-ratio", "must be >= 0, got %v", v)
		case sglang && v > 1:
			p.add("--random-range-ratio", "must be in [0, 1] for --random-corpus-style sglang, got %v", v)
		case !sglang && v >= 1:
			p.add("--random-range-ratio", "must be in [0, 1), got %v", v)
		}
	}
}

// validateSystemPrompt checks the system prompt flags against each other
// and against the generated shared prefixes.
func (pr *Prompt) validateSystemPrompt(p *problems) {
	if pr.SystemPrompt != "" && strings.TrimSpace(pr.SystemPrompt) == "" {
		p.add("--system-prompt", "is whitespace only; omit it to run without a system prompt")
	}
	if pr.SystemPrompt != "" && pr.SystemPromptFile != "" {
		p.add("--system-prompt", "cannot be combined with --system-prompt-file")
	}
	if pr.SystemPrompt != "" || pr.SystemPromptFile != "" {
		flag := "--system-prompt"
		if pr.SystemPromptFile != "" {
			flag = "--system-prompt-file"
		}
		if pr.SharedSystemLength != nil {
			p.add(flag, "cannot be combined with --shared-system-prompt-length")
		}
		if pr.PrefixPoolSize > 0 || pr.PrefixLength > 0 {
			p.add(flag, "cannot be combined with --num-prefix-prompts / --prefix-prompt-length")
		}
	}
}
