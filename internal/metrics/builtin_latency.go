package metrics

// latencyMetrics are AIPerf's "core latency and streaming" metrics. All are
// measured from Record.Sent to the arrival of content responses, the chunks
// that carry text or reasoning.
func latencyMetrics() []*Metric {
	return []*Metric{
		{
			Tag: tagTTFT, Header: "Time to First Token", ShortHeader: "TTFT",
			Kind: KindRecord, Unit: UnitNS, DisplayUnit: UnitMS, Integer: true,
			Flags: FlagStreamingTokensOnly | FlagPercentileIncludesFailed,
			Order: 100,
			record: func(c *recordContext) (float64, bool) {
				if len(c.content) == 0 {
					return 0, false
				}
				d := c.content[0].at - c.rec.Sent
				if d < 0 {
					c.warn(tagTTFT, "first response before request start")
					return 0, false
				}
				return float64(d), true
			},
		},
		{
			Tag: tagTTST, Header: "Time to Second Token", ShortHeader: "TTST",
			Kind: KindRecord, Unit: UnitNS, DisplayUnit: UnitMS, Integer: true,
			Flags: FlagStreamingTokensOnly,
			Order: 200,
			record: func(c *recordContext) (float64, bool) {
				if len(c.content) < 2 {
					return 0, false
				}
				d := c.content[1].at - c.content[0].at
				if d < 0 {
					c.warn(tagTTST, "second response before the first")
					return 0, false
				}
				return float64(d), true
			},
		},
		{
			Tag: tagTTFO, Header: "Time to First Output Token", ShortHeader: "TTFO",
			Kind: KindRecord, Unit: UnitNS, DisplayUnit: UnitMS, Integer: true,
			Flags: FlagStreamingTokensOnly | FlagSupportsReasoning,
			Order: 210,
			record: func(c *recordContext) (float64, bool) {
				for _, r := range c.content {
					if r.output {
						return float64(r.at - c.rec.Sent), true
					}
				}
				return 0, false
			},
		},
		{
			Tag: tagRequestLatency, Header: "Request Latency", ShortHeader: "Req Latency",
			Kind: KindRecord, Unit: UnitNS, DisplayUnit: UnitMS, Integer: true,
			Flags: FlagPercentileIncludesFailed,
			Order: 300,
			record: func(c *recordContext) (float64, bool) {
				if len(c.content) == 0 {
					return 0, false
				}
				d := c.content[len(c.content)-1].at - c.rec.Sent
				if d < 0 {
					c.warn(tagRequestLatency, "final response before request start")
					return 0, false
				}
				return float64(d), true
			},
		},
		{
			Tag: "decode_duration", Header: "Decode Duration", ShortHeader: "Decode Duration",
			Kind: KindRecord, Unit: UnitNS, DisplayUnit: UnitMS, Integer: true,
			Flags: FlagStreamingTokensOnly | FlagPercentileIncludesFailed,
			Order: 350, Requires: []string{tagRequestLatency, tagTTFT},
			record: func(c *recordContext) (float64, bool) {
				v, ok := c.values(tagRequestLatency, tagTTFT)
				if !ok {
					return 0, false
				}
				d := v[0] - v[1]
				if d < 0 {
					c.warn("decode_duration", "request latency below time to first token")
					return 0, false
				}
				return d, true
			},
		},
		{
			// (latency - TTFT) spread over the tokens after the first chunk,
			// assumed to hold one token (AIPerf without --per-chunk-usage).
			Tag: tagITL, Header: "Inter Token Latency", ShortHeader: "ITL",
			Kind: KindRecord, Unit: UnitNS, DisplayUnit: UnitMS,
			Flags: FlagStreamingTokensOnly | FlagPercentileIncludesFailed,
			Order: 400, Requires: []string{tagRequestLatency, tagTTFT, tagOSL},
			record: func(c *recordContext) (float64, bool) {
				v, ok := c.values(tagRequestLatency, tagTTFT, tagOSL)
				if !ok || v[2] < 2 {
					return 0, false
				}
				return (v[0] - v[1]) / (v[2] - 1), true
			},
		},
		{
			Tag: tagICL, Header: "Inter Chunk Latency", ShortHeader: "ICL",
			Kind: KindRecord, List: true, Unit: UnitNS, DisplayUnit: UnitMS, Integer: true,
			Flags: FlagStreamingTokensOnly, Group: GroupNone,
			list: func(c *recordContext) ([]float64, bool) {
				if len(c.content) < 2 {
					return nil, false
				}
				gaps := make([]float64, len(c.content)-1)
				for i := 1; i < len(c.content); i++ {
					d := c.content[i].at - c.content[i-1].at
					if d < 0 {
						c.warn(tagICL, "each inter chunk latency must be non-negative", "gap_ns", int64(d))
						return nil, false
					}
					gaps[i-1] = float64(d)
				}
				return gaps, true
			},
		},
		{
			Tag: "output_token_throughput_per_user", Header: "Output Token Throughput Per User",
			ShortHeader: "Output TPS/User",
			Kind:        KindRecord, Unit: UnitTokensPerSecUser,
			Flags: FlagStreamingTokensOnly | FlagLargerIsBetter,
			Order: 500, Requires: []string{tagITL},
			record: func(c *recordContext) (float64, bool) {
				itl, ok := c.value(tagITL)
				if !ok || seconds(itl) == 0 {
					return 0, false
				}
				return 1 / seconds(itl), true
			},
		},
		{
			Tag: "e2e_output_token_throughput", Header: "E2E Output Token Throughput",
			ShortHeader: "E2E Output TPS/User",
			Kind:        KindRecord, Unit: UnitTokensPerSecUser,
			Flags: FlagProducesTokensOnly | FlagLargerIsBetter,
			Order: 510, Requires: []string{tagOSL, tagRequestLatency},
			record: func(c *recordContext) (float64, bool) {
				v, ok := c.values(tagOSL, tagRequestLatency)
				if !ok || seconds(v[1]) == 0 {
					return 0, false
				}
				return v[0] / seconds(v[1]), true
			},
		},
		{
			Tag: "prefill_throughput_per_user", Header: "Prefill Throughput Per User",
			ShortHeader: "Prefill TPS/User",
			Kind:        KindRecord, Unit: UnitTokensPerSecUser,
			Flags: FlagStreamingTokensOnly | FlagTokenizesInputOnly | FlagLargerIsBetter,
			Group: GroupNone, Requires: []string{tagISL, tagTTFT},
			record: func(c *recordContext) (float64, bool) {
				v, ok := c.values(tagISL, tagTTFT)
				if !ok || seconds(v[1]) == 0 {
					return 0, false
				}
				return v[0] / seconds(v[1]), true
			},
		},
		{
			// Time until the response headers arrived (Record.Ack).
			Tag: tagStreamSetup, Header: "Stream Setup Latency",
			Kind: KindRecord, Unit: UnitNS, DisplayUnit: UnitMS, Integer: true,
			Flags: FlagStreamingOnly | FlagExperimental,
			record: func(c *recordContext) (float64, bool) {
				if c.rec.Ack == 0 {
					return 0, false
				}
				d := c.rec.Ack - c.rec.Sent
				if d < 0 {
					c.warn(tagStreamSetup, "headers received before request start")
					return 0, false
				}
				return float64(d), true
			},
		},
		{
			Tag: "stream_prefill_latency", Header: "Stream Prefill Latency",
			Kind: KindRecord, Unit: UnitNS, DisplayUnit: UnitMS, Integer: true,
			Flags:    FlagStreamingTokensOnly | FlagExperimental,
			Requires: []string{tagStreamSetup, tagTTFT},
			record: func(c *recordContext) (float64, bool) {
				v, ok := c.values(tagStreamSetup, tagTTFT)
				if !ok {
					return 0, false
				}
				return v[1] - v[0], true
			},
		},
		{
			// AIPerf measures credit receipt to request start inside the
			// worker; our equivalent is how late the request left: Sent - Due.
			Tag: "credit_drop_latency", Header: "Credit Drop Latency", ShortHeader: "Credit Latency",
			Kind: KindRecord, Unit: UnitNS, DisplayUnit: UnitMS, Integer: true,
			Flags: FlagInternal, Group: GroupNone,
			record: func(c *recordContext) (float64, bool) {
				d := c.rec.Lag()
				if d == 0 {
					return 0, false
				}
				return float64(d), true
			},
		},
	}
}
