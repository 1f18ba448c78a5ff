package experiment

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/aiperf-go/aiperf/internal/export"
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
		return appendJSONString(b, x)
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
			b = appendJSONString(b, kv.k)
			b = append(b, ':', ' ')
			b = appendJSON(b, kv.v, depth+1)
		}
		b = indent(b, depth)
		return append(b, '}')
	}
	panic("benchmark: unsupported JSON value") // only the types above are built
}

// appendJSONString quotes s as orjson does: UTF-8 kept, quotes,
// backslashes and control characters escaped.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r == '\n':
			b = append(b, '\\', 'n')
		case r == '\r':
			b = append(b, '\\', 'r')
		case r == '\t':
			b = append(b, '\\', 't')
		case r < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[r>>4], hex[r&0xf])
		default:
			b = utf8.AppendRune(b, r)
		}
	}
	return append(b, '"')
}

func indent(b []byte, depth int) []byte {
	b = append(b, '\n')
	for range depth {
		b = append(b, ' ', ' ')
	}
	return b
}

// pyStr is Python's str() of a parameter value, as AIPerf puts values
// into directory names, labels and CSV cells: "8", "20.0", "True", "abc".
func pyStr(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case bool:
		if x {
			return "True"
		}
		return "False"
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		if math.IsNaN(x) {
			return "nan"
		}
		if math.IsInf(x, 0) {
			if x > 0 {
				return "inf"
			}
			return "-inf"
		}
		return export.PyRepr(x)
	case string:
		return x
	}
	return "?"
}

// pyRepr is Python's repr() of metadata values written into the aggregate
// CSV: strings quoted with ', lists and dicts in Python syntax.
func pyRepr(v any) string {
	switch x := v.(type) {
	case string:
		return "'" + strings.ReplaceAll(x, "'", `\'`) + "'"
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = pyRepr(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case *jobj:
		parts := make([]string, len(x.keys))
		for i, kv := range x.keys {
			parts[i] = pyRepr(kv.k) + ": " + pyRepr(kv.v)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return pyStr(v)
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

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
