package configfile

import (
	"encoding/json"
	"fmt"

	"github.com/aiperf-go/aiperf/internal/config"
)

// rangeRatioConv decodes prompts.random_range_ratio: a number for both
// windows, or {input: r1, output: r2} (AIPerf also takes the JSON text of
// either).
var rangeRatioConv = conv{
	decode: func(n *Node, dst any) string {
		p := dst.(**config.RangeRatio)
		var text string
		switch n.Kind {
		case Null:
			*p = nil
			return ""
		case Scalar:
			if _, isBool := n.Value.(bool); isBool {
				return "must be a number or {input: ..., output: ...}, not " + describe(n)
			}
			text = fmt.Sprint(n.Value)
		case Map:
			b, err := json.Marshal(n.Interface())
			if err != nil {
				return err.Error()
			}
			text = string(b)
		default:
			return "must be a number or {input: ..., output: ...}, not " + describe(n)
		}
		r, err := config.ParseRangeRatio(text)
		if err != nil {
			return err.Error()
		}
		*p = r
		return ""
	},
	encode: func(dst any) (any, bool) {
		r := *dst.(**config.RangeRatio)
		switch {
		case r == nil:
			return nil, false
		case r.Pair:
			return map[string]any{"input": r.Input, "output": r.Output}, true
		}
		return r.Input, true
	},
	schema: map[string]any{"oneOf": []any{
		map[string]any{"type": "number", "minimum": 0},
		map[string]any{"type": "object", "required": []any{"input", "output"}, "additionalProperties": false,
			"properties": map[string]any{"input": map[string]any{"type": "number", "minimum": 0}, "output": map[string]any{"type": "number", "minimum": 0}}},
	}},
}
