package metrics

import (
	"math"

	"github.com/aiperf-go/aiperf/internal/record"
)

// usageMetrics are the server-reported token counts (the OpenAI "usage"
// object of the last chunk that had one), their totals, and how far they
// differ from the client's own counts. They are recorded whenever the server
// sends usage, in either token-counting mode.
func usageMetrics() []*Metric {
	return []*Metric{
		usageField(tagUsagePrompt, "Usage Prompt Tokens", "Usage Prompt", 1000,
			FlagTokenizesInputOnly|FlagLargerIsBetter, func(u *record.Usage) record.Count { return u.PromptTokens }),
		usageField(tagUsageCacheRead, "Usage Prompt Cache Read Tokens", "Usage Prompt Cache Read", 1010,
			FlagLargerIsBetter, func(u *record.Usage) record.Count { return u.CachedPromptTokens }),
		// Cache writes (Anthropic's cache_creation_input_tokens) and misses
		// (DeepSeek's prompt_cache_miss_tokens), for the vendors that report them.
		usageField("usage_prompt_cache_write_tokens", "Usage Prompt Cache Write Tokens", "Usage Prompt Cache Write", 1015,
			FlagNone, func(u *record.Usage) record.Count { return u.CacheWriteTokens }),
		usageField("usage_prompt_cache_miss_tokens", "Usage Prompt Cache Miss Tokens", "Usage Prompt Cache Miss", 1017,
			FlagNone, func(u *record.Usage) record.Count { return u.CacheMissTokens }),
		usageField(tagUsageCompletion, "Usage Completion Tokens", "Usage Completion", 1100,
			FlagProducesTokensOnly|FlagLargerIsBetter, func(u *record.Usage) record.Count { return u.CompletionTokens }),
		usageField(tagUsageReasoning, "Usage Reasoning Tokens", "Usage Reasoning", 1110,
			FlagProducesTokensOnly|FlagLargerIsBetter, func(u *record.Usage) record.Count { return u.ReasoningTokens }),
		usageField(tagUsageTotal, "Usage Total Tokens", "Usage Total", 1200,
			FlagProducesTokensOnly|FlagLargerIsBetter, func(u *record.Usage) record.Count { return u.TotalTokens }),

		sumOf(tagTotalUsagePrompt, "Total Usage Prompt Tokens", "Total Usage Prompt", tagUsagePrompt,
			FlagTokenizesInputOnly|FlagLargerIsBetter, GroupUsage, 2000),
		sumOf(tagTotalUsageCacheRead, "Total Usage Prompt Cache Read Tokens", "Total Usage Prompt Cache Read",
			tagUsageCacheRead, FlagLargerIsBetter, GroupUsage, 2010),
		sumOf("total_usage_prompt_cache_write_tokens", "Total Usage Prompt Cache Write Tokens", "Total Usage Prompt Cache Write",
			"usage_prompt_cache_write_tokens", FlagNone, GroupUsage, 2015),
		sumOf("total_usage_prompt_cache_miss_tokens", "Total Usage Prompt Cache Miss Tokens", "Total Usage Prompt Cache Miss",
			"usage_prompt_cache_miss_tokens", FlagNone, GroupUsage, 2017),
		sumOf("total_usage_completion_tokens", "Total Usage Completion Tokens", "Total Usage Completion",
			tagUsageCompletion, FlagProducesTokensOnly|FlagLargerIsBetter, GroupUsage, 2100),
		sumOf("total_usage_reasoning_tokens", "Total Usage Reasoning Tokens", "Total Usage Reasoning",
			tagUsageReasoning, FlagProducesTokensOnly|FlagLargerIsBetter, GroupUsage, 2110),
		sumOf("total_usage_total_tokens", "Total Usage Total Tokens", "Total Usage Total",
			tagUsageTotal, FlagProducesTokensOnly|FlagLargerIsBetter, GroupUsage, 2200),
		{
			Tag: "overall_usage_prompt_cache_read_pct", Header: "Overall Usage Prompt Cache Read %",
			ShortHeader: "Overall Cache Read %",
			Kind:        KindDerived, Unit: UnitPercent,
			Flags: FlagLargerIsBetter, Group: GroupUsage, Order: 2012,
			Requires: []string{tagTotalUsageCacheRead, tagTotalUsagePrompt},
			derive: func(c *deriveContext) (float64, bool) {
				read, ok1 := c.value(tagTotalUsageCacheRead)
				prompt, ok2 := c.value(tagTotalUsagePrompt)
				if !ok1 || !ok2 || prompt == 0 {
					return 0, false
				}
				return read / prompt * 100, true
			},
		},

		usageDiff(tagUsagePromptDiff, "Usage Prompt Diff %", "Prompt Diff",
			FlagTokenizesInputOnly|FlagUsageDiffOnly, tagUsagePrompt, tagISL),
		usageDiff(tagUsageCompletionDiff, "Usage Completion Diff %", "Completion Diff",
			FlagProducesTokensOnly|FlagUsageDiffOnly, tagUsageCompletion, tagOSL),
		usageDiff(tagUsageReasoningDiff, "Usage Reasoning Diff %", "Reasoning Diff",
			FlagProducesTokensOnly|FlagSupportsReasoning|FlagUsageDiffOnly, tagUsageReasoning, tagReasoningTokens),
		{
			// 1 when any diff exceeds the threshold (10 % by default). The
			// prompt and completion diffs must exist; the reasoning diff is
			// checked when present.
			Tag: "usage_discrepancy_count", Header: "Usage Discrepancy Count", ShortHeader: "Discrepancies",
			Kind: KindAggregate, Agg: AggSum, Unit: UnitRequests, Integer: true,
			Flags: FlagUsageDiffOnly | FlagNoIndividualRecord, Group: GroupNone,
			Requires: []string{tagUsagePromptDiff, tagUsageCompletionDiff},
			Optional: []string{tagUsageReasoningDiff},
			record: func(c *recordContext) (float64, bool) {
				v, ok := c.values(tagUsagePromptDiff, tagUsageCompletionDiff)
				if !ok {
					return 0, false
				}
				if r, ok := c.value(tagUsageReasoningDiff); ok {
					v = append(v, r)
				}
				for _, d := range v {
					if d > c.thresholds.UsageDiffPct {
						return 1, true
					}
				}
				return 0, true
			},
		},
	}
}

// usageField defines a record metric read from one usage field; absent
// usage or an absent field is no value.
func usageField(tag, header, short string, order int, flags Flags, field func(*record.Usage) record.Count) *Metric {
	return &Metric{
		Tag: tag, Header: header, ShortHeader: short,
		Kind: KindRecord, Unit: UnitTokens, Integer: true,
		Flags: flags, Group: GroupUsage, Order: order,
		record: func(c *recordContext) (float64, bool) {
			if c.usage == nil {
				return 0, false
			}
			n := field(c.usage)
			return float64(n.N), n.OK
		},
	}
}

// usageDiff defines |usage - client| / client * 100; no value when the
// client count is zero.
func usageDiff(tag, header, short string, flags Flags, usageTag, clientTag string) *Metric {
	return &Metric{
		Tag: tag, Header: header, ShortHeader: short,
		Kind: KindRecord, Unit: UnitPercent,
		Flags: flags, Group: GroupNone,
		Requires: []string{usageTag, clientTag},
		record: func(c *recordContext) (float64, bool) {
			v, ok := c.values(usageTag, clientTag)
			if !ok || v[1] == 0 {
				return 0, false
			}
			return math.Abs(v[0]-v[1]) / v[1] * 100, true
		},
	}
}
