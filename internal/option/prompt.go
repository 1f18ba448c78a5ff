package option

import (
	"github.com/aiperf-go/aiperf/internal/config"
)

// seqDistOptions lists the options from --seq-dist on, in help order.
func seqDistOptions() []Option {
	return []Option{
		{Name: "seq-dist",
			Aliases: []string{"sequence-distribution"},
			Group:   GroupISL,
			Meta:    "<dist>",
			Usage: "Mixture of (ISL, OSL) pairs, drawn per request instead of --isl/--osl: ISL,OSL:PROB;ISL,OSL:PROB with percentages summing to 100, " +
				"e.g. 128,64:25;512,128:50;1024,256:25. ISL|STDDEV or OSL|STDDEV draws a length around the value (256|10,128|5:40;512|20,256|10:60). " +
				"Also accepts the bracket form [(256,128):40,(512,256):60] and JSON {\"pairs\":[{\"isl\":256,\"isl_stddev\":10,\"osl\":128,\"osl_stddev\":5,\"prob\":40},...]}.",
			Bind: func(c *config.Config) any { return &c.Prompt.SequenceDistribution },
			Keys: []Key{{Path: "benchmark.datasets.0.prompts.sequence_distribution", Conv: ConvSeqDist, Doc: "Mixed workloads: [{isl, osl, probability}], isl and osl a number or {mean, stddev}, probabilities percentages summing to 100; replaces isl and osl."}}},
		{Name: "prompt-batch-size",
			Short:   "b",
			Aliases: []string{"batch-size-text", "batch-size"},
			Group:   GroupPrompt,
			Meta:    "<n>",
			Default: "1",
			Usage:   "Number of synthetic texts in each request, each drawn with its own length; chat sends them as text parts of one message and completions as a list of prompts. With --custom-dataset-type random_pool: the pooled texts packed into each request.",
			Bind:    func(c *config.Config) any { return &c.Prompt.BatchSize },
			Keys:    []Key{{Path: "benchmark.datasets.0.prompts.batch_size", Doc: "Prompts per request (embeddings and rankings endpoints)."}}},
		{Name: "prompt-prefix-pool-size",
			Aliases: []string{"prefix-prompt-pool-size", "num-prefix-prompts"},
			Group:   GroupPrefix,
			Meta:    "<n>",
			Default: "0",
			Usage:   "Number of distinct prefix prompts, for KV-cache testing: each conversation's first prompt starts with one of them, picked at random. 0 disables prefixes. Cannot be combined with --shared-system-prompt-length or --user-context-prompt-length.",
			Bind:    func(c *config.Config) any { return &c.Prompt.PrefixPoolSize },
			Keys:    []Key{{Path: "benchmark.datasets.0.prefix_prompts.pool_size"}}},
		{Name: "prompt-prefix-length",
			Aliases: []string{"prefix-prompt-length"},
			Group:   GroupPrefix,
			Meta:    "<tokens>",
			Default: "0",
			Usage:   "Length of each prefix prompt in tokens; needs --num-prefix-prompts. The prefix adds to --isl: prefix and prompt are joined at the token level, so the prompt has exactly prefix + ISL tokens.",
			Bind:    func(c *config.Config) any { return &c.Prompt.PrefixLength },
			Keys:    []Key{{Path: "benchmark.datasets.0.prefix_prompts.length"}}},
		{Name: "shared-system-prompt-length",
			Group: GroupPrefix,
			Meta:  "<tokens>",
			Usage: "Length in tokens of one synthetic system prompt, identical for every conversation and sent as a system message before its turns (chat only). Cannot be combined with the prefix pool.",
			Bind:  func(c *config.Config) any { return &c.Prompt.SharedSystemLength },
			Keys:  []Key{{Path: "benchmark.datasets.0.prefix_prompts.shared_system_length"}}},
		{Name: "user-context-prompt-length",
			Group: GroupPrefix,
			Meta:  "<tokens>",
			Usage: "Length in tokens of a synthetic user message unique to each conversation, sent after the system prompt and before the turns (chat only). Cannot be combined with the prefix pool.",
			Bind:  func(c *config.Config) any { return &c.Prompt.UserContextLength },
			Keys:  []Key{{Path: "benchmark.datasets.0.prefix_prompts.user_context_length"}}},
	}
}
