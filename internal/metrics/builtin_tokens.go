package metrics

// tokenMetrics are AIPerf's per-request token counts and their run totals.
// Counts come from the client tokenizer, or from the server's usage with
// --use-server-token-count (see Processor).
func tokenMetrics() []*Metric {
	return []*Metric{
		{
			Tag: tagISL, Header: "Input Sequence Length", ShortHeader: "ISL",
			Kind: KindRecord, Unit: UnitTokens, Integer: true,
			Flags: FlagTokenizesInputOnly | FlagLargerIsBetter,
			Order: 700,
			record: func(c *recordContext) (float64, bool) {
				return float64(c.tokens.input.n), c.tokens.input.ok
			},
		},
		{
			// Zero output tokens is "no value", as in AIPerf.
			Tag: tagOutputTokens, Header: "Output Token Count", ShortHeader: "Output Tokens",
			Kind: KindRecord, Unit: UnitTokens, Integer: true,
			Flags: FlagProducesTokensOnly | FlagLargerIsBetter, Group: GroupNone,
			record: func(c *recordContext) (float64, bool) {
				o := c.tokens.output
				return float64(o.n), o.ok && o.n != 0
			},
		},
		{
			Tag: tagReasoningTokens, Header: "Reasoning Token Count", ShortHeader: "Reasoning Tokens",
			Kind: KindRecord, Unit: UnitTokens, Integer: true,
			Flags: FlagProducesTokensOnly | FlagLargerIsBetter | FlagSupportsReasoning, Group: GroupNone,
			record: func(c *recordContext) (float64, bool) {
				return float64(c.tokens.reasoning.n), c.tokens.reasoning.ok
			},
		},
		{
			Tag: tagOSL, Header: "Output Sequence Length", ShortHeader: "OSL",
			Kind: KindRecord, Unit: UnitTokens, Integer: true,
			Flags: FlagProducesTokensOnly | FlagLargerIsBetter,
			Order: 600,
			record: func(c *recordContext) (float64, bool) {
				t := c.tokens
				if !t.output.ok && !t.reasoning.ok {
					return 0, false
				}
				return float64(t.output.n + t.reasoning.n), true
			},
		},
		{
			Tag: tagErrorISL, Header: "Error Input Sequence Length", ShortHeader: "Error ISL",
			Kind: KindRecord, Unit: UnitTokens, Integer: true,
			Flags: FlagTokenizesInputOnly | FlagLargerIsBetter | FlagErrorOnly, Group: GroupNone,
			Order: 700, // inherited from input_sequence_length in AIPerf
			record: func(c *recordContext) (float64, bool) {
				return float64(c.tokens.input.n), c.tokens.input.ok
			},
		},
		{
			Tag: "thinking_efficiency", Header: "Thinking Efficiency",
			Kind: KindRecord, Unit: UnitRatio,
			Flags:    FlagProducesTokensOnly | FlagSupportsReasoning | FlagExperimental,
			Requires: []string{tagReasoningTokens, tagOutputTokens},
			record: func(c *recordContext) (float64, bool) {
				v, ok := c.values(tagReasoningTokens, tagOutputTokens)
				if !ok || v[1] == 0 {
					return 0, false
				}
				return v[0] / v[1], true
			},
		},
		sumOf(tagTotalISL, "Total Input Sequence Length", "Total ISL", tagISL,
			FlagTokenizesInputOnly|FlagLargerIsBetter, GroupNone, 0),
		sumOf(tagTotalOutputTokens, "Total Output Tokens", "Total Output", tagOutputTokens,
			FlagProducesTokensOnly|FlagLargerIsBetter, GroupNone, 0),
		sumOf(tagTotalReasoning, "Total Reasoning Tokens", "Total Reasoning", tagReasoningTokens,
			FlagProducesTokensOnly|FlagLargerIsBetter, GroupNone, 0),
		sumOf(tagTotalOSL, "Total Output Sequence Length", "Total OSL", tagOSL,
			FlagProducesTokensOnly|FlagLargerIsBetter, GroupNone, 0),
		sumOf("total_error_isl", "Total Error Input Sequence Length", "Total Error ISL", tagErrorISL,
			FlagTokenizesInputOnly|FlagLargerIsBetter|FlagErrorOnly, GroupNone, 0),
		{
			Tag: "overall_thinking_efficiency", Header: "Overall Thinking Efficiency",
			ShortHeader: "Overall Eff.",
			Kind:        KindDerived, Unit: UnitRatio,
			Flags:    FlagProducesTokensOnly | FlagSupportsReasoning | FlagExperimental,
			Requires: []string{tagTotalOutputTokens, tagTotalReasoning},
			derive: func(c *deriveContext) (float64, bool) {
				out, ok1 := c.value(tagTotalOutputTokens)
				reas, ok2 := c.value(tagTotalReasoning)
				if !ok1 || !ok2 || out == 0 {
					return 0, false
				}
				return reas / out, true
			},
		},
	}
}

// sumOf defines a derived metric that totals a record metric over the run
// (AIPerf DerivedSumMetric). Every summed source here counts tokens.
func sumOf(tag, header, short, source string, flags Flags, group Group, order int) *Metric {
	return &Metric{
		Tag: tag, Header: header, ShortHeader: short,
		Kind: KindDerived, Unit: UnitTokens, Integer: true,
		Flags: flags, Group: group, Order: order,
		Requires: []string{source},
		derive: func(c *deriveContext) (float64, bool) {
			return c.value(source)
		},
	}
}
