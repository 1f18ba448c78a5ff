package cli

import (
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/aiperf-go/aiperf/internal/config"
)

// parsePromptFlags parses args with the profile flags and returns the
// resulting Prompt and any value problems.
func parsePromptFlags(t *testing.T, args string) (config.Prompt, string) {
	t.Helper()
	return parsePromptArgs(t, strings.Fields(args))
}

func parsePromptArgs(t *testing.T, args []string) (config.Prompt, string) {
	t.Helper()
	fs := pflag.NewFlagSet("profile", pflag.ContinueOnError)
	cfg := config.Defaults()
	var probs problemList
	registerProfileFlags(fs, &cfg, &probs)
	out, problems, _ := prepareProfileArgs(fs, args)
	if len(problems) > 0 {
		t.Fatalf("%q: %v", args, problems)
	}
	var ps []string
	if err := fs.Parse(out); err != nil {
		ps = append(ps, err.Error())
	}
	for _, e := range probs.errs {
		ps = append(ps, e.Error())
	}
	return cfg.Prompt, strings.Join(ps, "; ")
}

// promptWith is the default Prompt edited.
func promptWith(edit func(p *config.Prompt)) config.Prompt {
	p := config.Defaults().Prompt
	edit(&p)
	return p
}

func TestPromptFlags(t *testing.T) {
	t.Parallel()
	n := func(v int) *int { return &v }
	def, with := config.Defaults().Prompt, promptWith
	tests := []struct {
		args    string
		want    config.Prompt
		problem string
	}{
		{"", def, ""},
		{"-b 3", with(func(p *config.Prompt) { p.BatchSize = 3 }), ""},
		{"--batch-size 0", with(func(p *config.Prompt) { p.BatchSize = 0 }), ""},
		{"--batch-size-text 2", with(func(p *config.Prompt) { p.BatchSize = 2 }), ""},
		{"--prompt-batch-size=4", with(func(p *config.Prompt) { p.BatchSize = 4 }), ""},
		{"--num-prefix-prompts 3 --prefix-prompt-length 20", with(func(p *config.Prompt) { p.PrefixPoolSize, p.PrefixLength = 3, 20 }), ""},
		{"--prefix-prompt-pool-size 2 --prompt-prefix-length 5", with(func(p *config.Prompt) { p.PrefixPoolSize, p.PrefixLength = 2, 5 }), ""},
		{"--prompt-prefix-pool-size 7", with(func(p *config.Prompt) { p.PrefixPoolSize = 7 }), ""},
		{"--shared-system-prompt-length 100 --user-context-prompt-length 50",
			with(func(p *config.Prompt) { p.SharedSystemLength, p.UserContextLength = n(100), n(50) }), ""},
		{"--seq-dist 256,128:40;512|20,256:60", with(func(p *config.Prompt) {
			p.SequenceDistribution = []config.SeqDistEntry{{ISL: 256, OSL: 128, Probability: 40}, {ISL: 512, ISLStddev: 20, OSL: 256, Probability: 60}}
		}), ""},
		{"--sequence-distribution [(10,5):100]", with(func(p *config.Prompt) {
			p.SequenceDistribution = []config.SeqDistEntry{{ISL: 10, OSL: 5, Probability: 100}}
		}), ""},
		{"--seq-dist 10,5:50", def, "--seq-dist: invalid sequence distribution"},
		{"-b x", def, "--prompt-batch-size:"},
	}
	for _, tt := range tests {
		got, problem := parsePromptFlags(t, tt.args)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q: Prompt = %+v; want %+v", tt.args, got, tt.want)
		}
		if (tt.problem == "") != (problem == "") || !strings.Contains(problem, tt.problem) {
			t.Errorf("%q: problems %q; want %q", tt.args, problem, tt.problem)
		}
	}
}

func TestPromptSourceFlags(t *testing.T) {
	t.Parallel()
	def, with := config.Defaults().Prompt, promptWith
	tests := []struct {
		args    []string
		want    config.Prompt
		problem string
	}{
		{[]string{"--prompt-corpus", "coding"}, with(func(p *config.Prompt) { p.Corpus = "coding" }), ""},
		{[]string{"--prompt-corpus", "RANDOM", "--random-corpus-style", "sglang"}, with(func(p *config.Prompt) { p.Corpus, p.RandomCorpusStyle = "random", "sglang" }), ""},
		{[]string{"--prompt-corpus", "poems"}, with(func(p *config.Prompt) { p.Corpus = "poems" }), ""}, // config.Validate rejects it
		{[]string{"--random-range-ratio", "0.25"}, with(func(p *config.Prompt) { p.RandomRangeRatio = &config.RangeRatio{Input: 0.25, Output: 0.25} }), ""},
		{[]string{"--random-range-ratio", `{"input": 0.1, "output": 0.4}`}, with(func(p *config.Prompt) {
			p.RandomRangeRatio = &config.RangeRatio{Input: 0.1, Output: 0.4, Pair: true}
		}), ""},
		{[]string{"--random-range-ratio", "wide"}, def, "--random-range-ratio"},
		{[]string{"--system-prompt", "Be brief.\nNo lists."}, with(func(p *config.Prompt) { p.SystemPrompt = "Be brief.\nNo lists." }), ""},
		{[]string{"--system-prompt-file", "sys.txt"}, with(func(p *config.Prompt) { p.SystemPromptFile = "sys.txt" }), ""},
		{[]string{"--cache-bust", "first_turn_prefix"}, with(func(p *config.Prompt) { p.CacheBust = "first_turn_prefix" }), ""},
		{[]string{"--cache-bust", "System_Prefix"}, with(func(p *config.Prompt) { p.CacheBust = "system_prefix" }), ""},
	}
	for _, tt := range tests {
		got, problem := parsePromptArgs(t, tt.args)
		if tt.problem == "" && !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q: Prompt = %+v; want %+v", tt.args, got, tt.want)
		}
		if (tt.problem == "") != (problem == "") || !strings.Contains(problem, tt.problem) {
			t.Errorf("%q: problems %q; want %q", tt.args, problem, tt.problem)
		}
	}
}

func TestSynthesisFlags(t *testing.T) {
	t.Parallel()
	fs := pflag.NewFlagSet("profile", pflag.ContinueOnError)
	cfg := config.Defaults()
	var probs problemList
	registerProfileFlags(fs, &cfg, &probs)
	args := []string{"--synthesis-speedup-ratio", "2", "--synthesis-prefix-len-multiplier", "1.5", "--synthesis-prefix-root-multiplier", "3",
		"--synthesis-prompt-len-multiplier", "0.5", "--synthesis-output-len-multiplier", "0", "--synthesis-max-isl", "100", "--synthesis-max-osl", "20"}
	out, problems, _ := prepareProfileArgs(fs, args)
	if len(problems) > 0 || fs.Parse(out) != nil || len(probs.errs) > 0 {
		t.Fatalf("%v %v", problems, probs.errs)
	}
	s := cfg.Dataset.Synthesis
	if *s.SpeedupRatio != 2 || *s.PrefixLenMultiplier != 1.5 || *s.PrefixRootMultiplier != 3 || *s.PromptLenMultiplier != 0.5 ||
		*s.OutputLenMultiplier != 0 || *s.MaxISL != 100 || *s.MaxOSL != 20 {
		t.Errorf("Synthesis = %+v", s)
	}
}
