package metrics

// Tags of the speculative-decoding metrics the derived ones read.
const (
	tagSpecSteps         = "spec_decode_steps"
	tagSpecAccepted      = "spec_decode_accepted_draft_tokens"
	tagSpecDrafted       = "spec_decode_draft_tokens"
	tagTotalSpecSteps    = "total_spec_decode_steps"
	tagTotalSpecAccepted = "total_accepted_draft_tokens"
	tagTotalSpecDrafted  = "total_draft_tokens"
)

// specDecodeMetrics are AIPerf 0.14's speculative-decoding acceptance
// metrics. Each reads only the record's engine-neutral SpecDecode (filled
// from vLLM's, TensorRT-LLM's or llama.cpp's payload, record.SpecDecode)
// and has no value when the server reported none, so a run without
// speculative decoding shows and exports nothing of it.
//
// Per request: the acceptance length 1 + accepted / steps (the bonus token
// included), the draft acceptance rate accepted / drafted (%), the
// accepted-per-verified ratio (accepted + steps) / (drafted + steps), the
// verify steps, and the accepted and drafted token counts. Per run: their
// totals, the token-weighted acceptance length 1 + sum(accepted) /
// sum(steps) (every verify step weighs the same, where the per-request
// mean weighs every request the same), the overall draft acceptance rate
// sum(accepted) / sum(drafted), and the count of requests whose server
// reported speculation that never ran a verify step.
func specDecodeMetrics() []*Metric {
	rec := func(tag, header, short string, unit Unit, flags Flags, group Group, order int, integer bool,
		v func(c *recordContext) float64) *Metric {
		return &Metric{
			Tag: tag, Header: header, ShortHeader: short,
			Kind: KindRecord, Unit: unit, Integer: integer,
			Flags: flags, Group: group, Order: order,
			record: func(c *recordContext) (float64, bool) {
				if !c.rec.SpecDecode.Known() {
					return 0, false
				}
				return v(c), true
			},
		}
	}
	total := func(tag, header, short, source string, unit Unit, order int) *Metric {
		return &Metric{
			Tag: tag, Header: header, ShortHeader: short,
			Kind: KindDerived, Unit: unit, Integer: true,
			Group: GroupNone, Order: order,
			Requires: []string{source},
			derive:   func(c *deriveContext) (float64, bool) { return c.value(source) },
		}
	}
	ratio := func(tag, header, short string, unit Unit, order int, num, den string, f func(num, den float64) float64) *Metric {
		return &Metric{
			Tag: tag, Header: header, ShortHeader: short,
			Kind: KindDerived, Unit: unit,
			Flags: FlagLargerIsBetter, Group: GroupSpecDecode, Order: order,
			Requires: []string{num, den},
			derive: func(c *deriveContext) (float64, bool) {
				n, _ := c.value(num)
				d, _ := c.value(den)
				if d == 0 {
					return 0, false
				}
				return f(n, d), true
			},
		}
	}
	return []*Metric{
		rec("spec_decode_acceptance_length", "Acceptance Length", "Acceptance Length", UnitRatio,
			FlagLargerIsBetter, GroupSpecDecode, 5000, false,
			func(c *recordContext) float64 { return c.rec.SpecDecode.MeanAcceptanceLength }),
		rec("spec_decode_draft_acceptance_rate", "Draft Acceptance Rate", "Draft Accept Rate", UnitPercent,
			FlagLargerIsBetter, GroupSpecDecode, 5020, false,
			func(c *recordContext) float64 { return c.rec.SpecDecode.DraftAcceptanceRate * 100 }),
		{
			Tag: "spec_decode_accepted_per_verified", Header: "Accepted per Verified", ShortHeader: "Accepted / Verified",
			Kind: KindRecord, Unit: UnitRatio,
			Flags: FlagLargerIsBetter, Group: GroupSpecDecode, Order: 5030,
			record: func(c *recordContext) (float64, bool) {
				s := &c.rec.SpecDecode
				den := s.Drafted + s.Steps
				if !s.Known() || den == 0 {
					return 0, false
				}
				return float64(s.Accepted+s.Steps) / float64(den), true
			},
		},
		rec(tagSpecSteps, "Spec Decode Steps", "Spec Decode Steps", UnitCount,
			FlagNone, GroupSpecDecode, 5040, true,
			func(c *recordContext) float64 { return float64(c.rec.SpecDecode.Steps) }),
		{
			Tag: "spec_decode_zero_step_requests", Header: "Zero-Step Requests", ShortHeader: "Zero-Step Requests",
			Kind: KindAggregate, Unit: UnitRequests, Integer: true,
			Flags: FlagNoIndividualRecord, Group: GroupSpecDecode, Order: 5045,
			record: func(c *recordContext) (float64, bool) {
				return 1, c.rec.SpecDecode.ZeroStep
			},
		},
		rec(tagSpecAccepted, "Accepted Draft Tokens", "Accepted Draft", UnitTokens,
			FlagNone, GroupNone, 5050, true,
			func(c *recordContext) float64 { return float64(c.rec.SpecDecode.Accepted) }),
		rec(tagSpecDrafted, "Draft Tokens", "Draft Tokens", UnitTokens,
			FlagNone, GroupNone, 5060, true,
			func(c *recordContext) float64 { return float64(c.rec.SpecDecode.Drafted) }),
		total(tagTotalSpecSteps, "Total Spec Decode Steps", "Total Spec Decode Steps", tagSpecSteps, UnitCount, 5140),
		total(tagTotalSpecAccepted, "Total Accepted Draft Tokens", "Total Accepted Draft", tagSpecAccepted, UnitTokens, 5150),
		total(tagTotalSpecDrafted, "Total Draft Tokens", "Total Draft", tagSpecDrafted, UnitTokens, 5160),
		ratio("spec_decode_token_weighted_acceptance_length", "Token-Weighted Acceptance Length", "Token-Wtd Accept Len",
			UnitRatio, 5010, tagTotalSpecAccepted, tagTotalSpecSteps,
			func(acc, steps float64) float64 { return 1 + acc/steps }),
		ratio("spec_decode_overall_draft_acceptance_rate", "Overall Draft Acceptance Rate", "Overall Draft Accept Rate",
			UnitPercent, 5025, tagTotalSpecAccepted, tagTotalSpecDrafted,
			func(acc, drafted float64) float64 { return acc / drafted * 100 }),
	}
}

// pool adds the histogram h into into, element by element, growing it as
// needed (requests may report different draft lengths).
func pool(into, h []int64) []int64 {
	for len(into) < len(h) {
		into = append(into, 0)
	}
	for j, c := range h {
		into[j] += c
	}
	return into
}
