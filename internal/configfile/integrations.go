package configfile

import (
	"fmt"
	"slices"
	"strings"

	"github.com/aiperf-go/aiperf/internal/config"
)

// integrationFields are the rows of the integration sections no flag
// sets: otel's stream switches and the runtime keys of AIPerf's process
// model, not supported here. The flags' keys are in the option table.
func integrationFields() []field {
	otel := func(t target) *config.OTel { return &t.cfg.Integrations.OTel }
	rows := []field{
		{path: "benchmark.otel.stream_metrics_enabled", bind: func(t target) any { return &otel(t).StreamMetricsEnabled },
			doc: "Stream each request's metrics (default true)."},
		{path: "benchmark.otel.stream_timing_enabled", bind: func(t target) any { return &otel(t).StreamTimingEnabled },
			doc: "Stream the phase timing counters (default true)."},
	}
	for _, k := range []string{"ui", "workers", "record_processors", "service_run_type", "communication",
		"dataset_api_base_url", "workers_per_pod", "record_processors_per_pod", "workers_min", "stats_interval"} {
		rows = append(rows, field{path: "benchmark.runtime." + k, unsupported: true})
	}
	return rows
}

var (
	otelURLConv = conv{
		decode: func(n *Node, dst any) string {
			s, ok := stringOf(n)
			if !ok {
				return "must be a URL string, not " + describe(n)
			}
			u, err := config.NormalizeOTelURL(s)
			if err != nil {
				return err.Error()
			}
			*dst.(*config.CredURL) = config.CredURL(u)
			return ""
		},
		schema: map[string]any{"type": "string"},
	}
	accuracyNameConv = conv{
		decode: func(n *Node, dst any) string {
			s, ok := stringOf(n)
			if !ok {
				return "must be a string, not " + describe(n)
			}
			*dst.(*string) = config.NormalizeAccuracyName(s)
			return ""
		},
		schema: map[string]any{"type": "string"},
	}
	// pairsConv decodes a mapping of key: value (or a list of "k:v" /
	// "k=v" strings) into ordered pairs, keys sorted for a mapping.
	pairsConv = conv{
		decode: func(n *Node, dst any) string {
			p := dst.(*[]config.KeyValue)
			*p = nil
			switch n.Kind {
			case Null:
				return ""
			case Map:
				keys := make([]string, 0, len(n.Keys))
				for _, k := range n.Keys {
					keys = append(keys, k.Name)
				}
				slices.Sort(keys)
				for _, k := range keys {
					v := n.Get(k)
					if v == nil || v.Kind != Scalar {
						return fmt.Sprintf("%s: must be a plain value", k)
					}
					*p = append(*p, config.KeyValue{Key: k, Value: scalarText(v.Value)})
				}
				return ""
			case Scalar, Seq:
				items := n.Items
				if n.Kind == Scalar {
					items = []*Node{n}
				}
				for _, it := range items {
					s, ok := stringOf(it)
					if !ok {
						return "each entry must be a key:value string"
					}
					sep := ":"
					if !strings.ContainsRune(s, ':') {
						sep = "="
					}
					kvs, err := config.ParseKeyValues([]string{s}, sep, false)
					if err != nil {
						return err.Error()
					}
					*p = append(*p, kvs...)
				}
				return ""
			}
			return "must be a mapping of key: value, not " + describe(n)
		},
		schema: map[string]any{"anyOf": []any{
			map[string]any{"type": "object", "additionalProperties": map[string]any{"type": []any{"string", "number", "boolean"}}},
			map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
			map[string]any{"type": "string"},
		}},
	}
)
