package cli

import "github.com/aiperf-go/aiperf/internal/config"

// addPromptFlags registers the prompt-shaping flags bound to cfg.Prompt:
// --seq-dist (AIPerf's ISL group), -b/--prompt-batch-size ("Prompt") and
// the prefix-pool and context-prompt lengths ("Prefix Prompt"), with
// AIPerf's names, aliases and defaults.
func (b *flagBuilder) addPromptFlags(cfg *config.Config) {
	p := &cfg.Prompt
	b.group = groupISL
	b.add(&seqDistValue{recorder: b.rec("seq-dist"), p: &p.SequenceDistribution}, spec{
		name: "seq-dist", aliases: []string{"sequence-distribution"}, meta: "<dist>",
		usage: "Mixture of (ISL, OSL) pairs, drawn per request instead of --isl/--osl: ISL,OSL:PROB;ISL,OSL:PROB with percentages summing to 100, " +
			"e.g. 128,64:25;512,128:50;1024,256:25. ISL|STDDEV or OSL|STDDEV draws a length around the value (256|10,128|5:40;512|20,256|10:60). " +
			"Also accepts the bracket form [(256,128):40,(512,256):60] and JSON {\"pairs\":[{\"isl\":256,\"isl_stddev\":10,\"osl\":128,\"osl_stddev\":5,\"prob\":40},...]}.",
	})

	b.group = groupPrompt
	b.add(&intValue{recorder: b.rec("prompt-batch-size"), p: &p.BatchSize}, spec{
		name: "prompt-batch-size", short: "b", aliases: []string{"batch-size-text", "batch-size"}, meta: "<n>",
		def:   "1",
		usage: "Number of synthetic texts in each request, each drawn with its own length; chat sends them as text parts of one message and completions as a list of prompts. With --custom-dataset-type random_pool: the pooled texts packed into each request.",
	})

	b.group = groupPrefix
	b.add(&intValue{recorder: b.rec("prompt-prefix-pool-size"), p: &p.PrefixPoolSize}, spec{
		name: "prompt-prefix-pool-size", aliases: []string{"prefix-prompt-pool-size", "num-prefix-prompts"}, meta: "<n>",
		def:   "0",
		usage: "Number of distinct prefix prompts, for KV-cache testing: each conversation's first prompt starts with one of them, picked at random. 0 disables prefixes. Cannot be combined with --shared-system-prompt-length or --user-context-prompt-length.",
	})
	b.add(&intValue{recorder: b.rec("prompt-prefix-length"), p: &p.PrefixLength}, spec{
		name: "prompt-prefix-length", aliases: []string{"prefix-prompt-length"}, meta: "<tokens>",
		def:   "0",
		usage: "Length of each prefix prompt in tokens; needs --num-prefix-prompts. The prefix adds to --isl: prefix and prompt are joined at the token level, so the prompt has exactly prefix + ISL tokens.",
	})
	b.add(&intPtrValue{recorder: b.rec("shared-system-prompt-length"), p: &p.SharedSystemLength}, spec{
		name: "shared-system-prompt-length", meta: "<tokens>",
		usage: "Length in tokens of one synthetic system prompt, identical for every conversation and sent as a system message before its turns (chat only). Cannot be combined with the prefix pool.",
	})
	b.add(&intPtrValue{recorder: b.rec("user-context-prompt-length"), p: &p.UserContextLength}, spec{
		name: "user-context-prompt-length", meta: "<tokens>",
		usage: "Length in tokens of a synthetic user message unique to each conversation, sent after the system prompt and before the turns (chat only). Cannot be combined with the prefix pool.",
	})
}

// seqDistValue sets a --seq-dist mixture, parsed when the flag is read so
// that a malformed value is reported with the other flag problems.
type seqDistValue struct {
	recorder
	p *[]config.SeqDistEntry
}

func (v *seqDistValue) Set(s string) error {
	entries, err := config.ParseSequenceDistribution(s)
	if err != nil {
		v.fail(err)
		return nil
	}
	*v.p = entries
	return nil
}

func (v *seqDistValue) String() string { return config.FormatSequenceDistribution(*v.p) }
func (v *seqDistValue) Type() string   { return "distribution" }
