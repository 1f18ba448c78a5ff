package metrics

import (
	"time"

	"github.com/aiperf-go/aiperf/internal/record"
)

// Tags of the time-decomposition metrics.
const (
	TagServerQueue      = "server_queue_time"
	TagServerValidation = "server_validation_time"
	TagServerPrefill    = "server_prefill_time"
	TagServerDecode     = "server_decode_time"
	TagServerInference  = "server_inference_time"
	TagUnexplained      = "unexplained_time"
)

// serverMetrics are this port's time decomposition (AIPerf has none): the
// server's own account of each request (Record.Server: llama.cpp's
// timings, TGI's headers or vLLM's trace span), and the part of the
// request latency neither that account nor the client's trace explains
// (record.Decompose). Each applies only to records whose server reported
// the part, so a run against a server that reports nothing has none of
// them. They are in the per-record export and the summary, and the
// console shows them in its own decomposition block, not the main table.
func serverMetrics() []*Metric {
	part := func(tag, header string, order int, has record.ServerParts, f func(t *record.ServerTiming) time.Duration) *Metric {
		return &Metric{
			Tag: tag, Header: header,
			Kind: KindRecord, Unit: UnitNS, DisplayUnit: UnitMS, Integer: true,
			Group: GroupNone, Order: order,
			record: func(c *recordContext) (float64, bool) {
				t := &c.rec.Server
				if !t.Known() || t.Has&has == 0 {
					return 0, false
				}
				return float64(f(t)), true
			},
		}
	}
	return []*Metric{
		part(TagServerQueue, "Server Queue Time", 1300, record.HasQueue, func(t *record.ServerTiming) time.Duration { return t.Queue }),
		part(TagServerValidation, "Server Validation Time", 1301, record.HasValidation, func(t *record.ServerTiming) time.Duration { return t.Validation }),
		part(TagServerPrefill, "Server Prefill Time", 1302, record.HasPrefill, func(t *record.ServerTiming) time.Duration { return t.Prefill }),
		part(TagServerDecode, "Server Decode Time", 1303, record.HasDecode, func(t *record.ServerTiming) time.Duration { return t.Decode }),
		part(TagServerInference, "Server Inference Time", 1304, record.HasInference, func(t *record.ServerTiming) time.Duration { return t.Inference }),
		{
			Tag: TagUnexplained, Header: "Unexplained Time (network + client)",
			Kind: KindRecord, Unit: UnitNS, DisplayUnit: UnitMS, Integer: true,
			Group: GroupNone, Order: 1305,
			record: func(c *recordContext) (float64, bool) {
				d, ok := c.rec.Decompose()
				if !ok {
					return 0, false
				}
				return float64(d.Unexplained), true
			},
		},
	}
}
