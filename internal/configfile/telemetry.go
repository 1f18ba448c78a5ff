package configfile

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/aiperf-go/aiperf/internal/config"
)

// The telemetry sections: benchmark.server_metrics and
// benchmark.gpu_telemetry, and the endpoint's control hooks
// reset_kv_cache and server_profiler, in AIPerf 0.13's shapes.

func telemetryFields() []field {
	return []field{
		{path: "benchmark.server_metrics.discovery", ignored: true, conv: &anyMappingConv,
			doc: "Kubernetes discovery of metrics endpoints is not implemented; the endpoint URLs and server_metrics.urls are scraped."},
	}
}

// normalizeTelemetry rewrites AIPerf's shorthands of the telemetry
// sections in a benchmark body: server_metrics or gpu_telemetry as a URL
// string is {enabled: true, urls: [URL]}; url is urls; a false or true
// control hook is left for its conv.
func normalizeTelemetry(b *Node, ps *problems) {
	for _, key := range []string{"server_metrics", "gpu_telemetry"} {
		n := b.Get(key)
		if n == nil {
			continue
		}
		if s, ok := stringOf(n); ok {
			m := newMap(n.Pos)
			m.Set("enabled", &Node{Kind: Scalar, Value: true, Pos: n.Pos})
			m.Set("urls", &Node{Kind: Seq, Pos: n.Pos, Items: []*Node{{Kind: Scalar, Value: s, Pos: n.Pos}}})
			b.Set(key, m)
			continue
		}
		if n.Kind == Map && n.Get("url") != nil {
			if n.Get("urls") != nil {
				ps.add(n.KeyPos("url"), "benchmark."+key+".url", "cannot be used together with \"urls\"; keep one")
			} else {
				n.Set("urls", n.Delete("url"))
			}
		}
	}
}

var (
	// anyMappingConv accepts a mapping it does not read.
	anyMappingConv = conv{
		decode: func(n *Node, _ any) string {
			if n.Kind != Map && n.Kind != Null {
				return "must be a mapping, not " + describe(n)
			}
			return ""
		},
		schema: map[string]any{"type": "object"},
	}
	// enabledConv binds AIPerf's "enabled" to a Disabled field.
	enabledConv = conv{
		decode: func(n *Node, dst any) string {
			b, ok := n.Value.(bool)
			if n.Kind != Scalar || !ok {
				return "must be true or false, not " + describe(n)
			}
			*dst.(*bool) = !b
			return ""
		},
		encode: func(dst any) (any, bool) { return !*dst.(*bool), true },
		schema: map[string]any{"type": "boolean"},
	}
	metricsURLsConv = normalizedURLsConv(config.NormalizeMetricsURL)
	gpuModeConv     = conv{
		decode: func(n *Node, dst any) string {
			s, ok := stringOf(n)
			if !ok {
				return "must be summary or realtime_dashboard, not " + describe(n)
			}
			switch strings.ToLower(s) {
			case "summary":
				*dst.(*bool) = false
			case "realtime_dashboard":
				*dst.(*bool) = true
			default:
				return fmt.Sprintf("unknown mode %q (summary or realtime_dashboard)", s)
			}
			return ""
		},
		encode: func(dst any) (any, bool) {
			if *dst.(*bool) {
				return "realtime_dashboard", true
			}
			return "summary", true
		},
		schema: map[string]any{"type": "string", "enum": []any{"summary", "realtime_dashboard"}},
	}
	resetKVCacheConv = hookConv(func(c *config.ResetKVCache) map[string]any {
		return map[string]any{"path": &c.Path, "timeout_seconds": &c.TimeoutSeconds, "max_retry_seconds": &c.MaxRetrySeconds}
	}, "path", "timeout_seconds", "max_retry_seconds")
	serverProfilerConv = hookConv(func(c *config.ServerProfiler) map[string]any {
		return map[string]any{"start_path": &c.StartPath, "stop_path": &c.StopPath, "timeout_seconds": &c.TimeoutSeconds}
	}, "start_path", "stop_path", "timeout_seconds")
)

// hookConv decodes AIPerf's "false | true | {keys...}" control hooks.
func hookConv[T any](keys func(*T) map[string]any, order ...string) conv {
	props := map[string]any{}
	for _, k := range order {
		props[k] = map[string]any{"type": "string"}
		if strings.HasSuffix(k, "_seconds") {
			props[k] = map[string]any{"type": "number", "minimum": 0}
		}
	}
	return conv{
		decode: func(n *Node, dst any) string {
			p := dst.(**T)
			switch n.Kind {
			case Null:
				*p = nil
				return ""
			case Scalar:
				b, ok := n.Value.(bool)
				if !ok {
					return "must be false, true or a mapping of " + strings.Join(order, ", ") + "; not " + describe(n)
				}
				*p = nil
				if b {
					*p = new(T)
				}
				return ""
			case Map:
				*p = new(T)
				fields := keys(*p)
				for _, k := range n.Keys {
					ptr, ok := fields[k.Name]
					if !ok {
						msg := fmt.Sprintf("unknown key %q (%s)", k.Name, strings.Join(order, ", "))
						if s := suggest(k.Name, order); s != "" {
							msg += fmt.Sprintf("; did you mean %q?", s)
						}
						return msg
					}
					if msg := decodeValue(k.Value, reflect.ValueOf(ptr).Elem()); msg != "" {
						return k.Name + ": " + msg
					}
				}
				return ""
			}
			return "must be false, true or a mapping, not " + describe(n)
		},
		encode: func(dst any) (any, bool) {
			c := *dst.(**T)
			if c == nil {
				return false, true
			}
			out := map[string]any{}
			for k, ptr := range keys(c) {
				if reflect.ValueOf(ptr).Elem().IsZero() {
					continue
				}
				x, _ := encodeValue(ptr)
				out[k] = x
			}
			if len(out) == 0 {
				return true, true
			}
			return out, true
		},
		schema: map[string]any{"anyOf": []any{
			map[string]any{"type": "boolean"},
			map[string]any{"type": "object", "properties": props, "additionalProperties": false},
		}},
	}
}
