package experiment

import (
	"math"
	"strconv"
	"strings"

	"github.com/aiperf-go/aiperf/internal/export"
	"github.com/aiperf-go/aiperf/internal/pyfmt"
)

// The aggregate artifacts are small documents whose key order matters (it
// is AIPerf's), so they are built as ordered trees and written the way
// AIPerf's orjson writes them: two-space indent, floats in Python's
// spelling ("5.0", "1e-7"), non-finite numbers as null.

// jobj is an ordered JSON object.
type jobj struct{ keys []jkv }

type jkv struct {
	k string
	v any // string, float64, int, bool, nil, *jobj, []any
}

// set appends k: v (keys are never repeated by the callers).
func (o *jobj) set(k string, v any) *jobj {
	o.keys = append(o.keys, jkv{k, v})
	return o
}

// get returns the value of k.
func (o *jobj) get(k string) (any, bool) {
	for _, kv := range o.keys {
		if kv.k == k {
			return kv.v, true
		}
	}
	return nil, false
}

// marshalIndent writes v as orjson.dumps(v, option=OPT_INDENT_2) does.
func marshalIndent(v any) []byte {
	var b []byte
	b = appendJSON(b, v, 0)
	return b
}

func appendJSON(b []byte, v any, depth int) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case string:
		return pyfmt.AppendJSONString(b, x)
	case bool:
		return strconv.AppendBool(b, x)
	case int:
		return strconv.AppendInt(b, int64(x), 10)
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return append(b, "null"...)
		}
		return export.AppendJSONFloat(b, x)
	case []any:
		if len(x) == 0 {
			return append(b, "[]"...)
		}
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = indent(b, depth+1)
			b = appendJSON(b, e, depth+1)
		}
		b = indent(b, depth)
		return append(b, ']')
	case *jobj:
		if len(x.keys) == 0 {
			return append(b, "{}"...)
		}
		b = append(b, '{')
		for i, kv := range x.keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = indent(b, depth+1)
			b = pyfmt.AppendJSONString(b, kv.k)
			b = append(b, ':', ' ')
			b = appendJSON(b, kv.v, depth+1)
		}
		b = indent(b, depth)
		return append(b, '}')
	}
	panic("benchmark: unsupported JSON value") // only the types above are built
}

// indent starts a new line at depth levels of two spaces.
func indent(b []byte, depth int) []byte {
	b = append(b, '\n')
	for range depth {
		b = append(b, ' ', ' ')
	}
	return b
}

// pyStr is Python's str() of a parameter value, as AIPerf puts values
// into directory names, labels and CSV cells: "8", "20.0", "True", "abc".
func pyStr(v any) string { return pyfmt.Str(v) }

// pyRepr is Python's repr() of metadata values written into the aggregate
// CSV: strings quoted, lists and dicts (in their key order) in Python
// syntax.
func pyRepr(v any) string { return pyfmt.Repr(pyValue(v)) }

// pyValue is v with its ordered objects as pyfmt dicts.
func pyValue(v any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = pyValue(e)
		}
		return out
	case *jobj:
		d := make(pyfmt.Dict, len(x.keys))
		for i, kv := range x.keys {
			d[i] = pyfmt.Item{Key: kv.k, Value: pyValue(kv.v)}
		}
		return d
	}
	return v
}

// pyTitle is Python's str.title() after replacing "_" by " ", as AIPerf
// names metadata rows: "cooldown_seconds" -> "Cooldown Seconds",
// "best_latency_p99" -> "Best Latency P99".
func pyTitle(s string) string {
	s = strings.ReplaceAll(s, "_", " ")
	var b strings.Builder
	prevLetter := false
	for _, r := range s {
		isLetter := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
		switch {
		case isLetter && !prevLetter:
			b.WriteString(strings.ToUpper(string(r)))
		case isLetter:
			b.WriteString(strings.ToLower(string(r)))
		default:
			b.WriteRune(r)
		}
		prevLetter = isLetter
	}
	return b.String()
}

// fixed formats f with decimals digits as Python's f"{f:.Nf}"; non-finite
// values are "" (absent), as AIPerf's sweep CSV writes them.
func fixed(f float64, decimals int) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return ""
	}
	return strconv.FormatFloat(f, 'f', decimals, 64)
}
