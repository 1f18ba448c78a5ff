package agenticcode

import (
	"bytes"
	"math"
	"strconv"
	"strings"

	"github.com/aiperf-go/aiperf/internal/pyfmt"
)

// The run directory's JSON files are written as AIPerf writes them with
// orjson: keys in the models' field order, floats as Python's repr
// (3500.0, 0.00001, 1e+16), compact for JSONL rows and indented by two
// spaces for documents, with no final newline.

// obj is a JSON object with ordered keys.
type obj []kv

type kv struct {
	k string
	v any
}

// pyFloat formats f as orjson does: the shortest repr that round-trips,
// with ".0" on integral values, exponent form (1e+16, 1e-6) from 1e16
// and below 1e-5; null for non-finite floats.
func pyFloat(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "null"
	}
	return string(pyfmt.AppendJSON(nil, f))
}

// pyRound is Python's round(x, digits) of a float: the correctly rounded
// decimal (ties to even on the exact binary value), as a float.
func pyRound(x float64, digits int) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'f', digits, 64), 64)
	return v
}

// encode appends v as JSON, indented by indent spaces per level (0 =
// compact, orjson's separators without spaces).
func encode(b *bytes.Buffer, v any, indent, depth int) {
	nl := func(d int) {
		if indent > 0 {
			b.WriteByte('\n')
			b.WriteString(strings.Repeat(" ", indent*d))
		}
	}
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case int:
		b.WriteString(strconv.Itoa(x))
	case float64:
		b.WriteString(pyFloat(x))
	case *float64:
		if x == nil {
			b.WriteString("null")
		} else {
			b.WriteString(pyFloat(*x))
		}
	case string:
		writeString(b, x)
	case []int:
		items := make([]any, len(x))
		for i, n := range x {
			items[i] = n
		}
		encode(b, items, indent, depth)
	case []any:
		if len(x) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			nl(depth + 1)
			encode(b, e, indent, depth+1)
		}
		nl(depth)
		b.WriteByte(']')
	case obj:
		if len(x) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteByte('{')
		for i, f := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			nl(depth + 1)
			writeString(b, f.k)
			b.WriteByte(':')
			if indent > 0 {
				b.WriteByte(' ')
			}
			encode(b, f.v, indent, depth+1)
		}
		nl(depth)
		b.WriteByte('}')
	default:
		panic("agenticcode: cannot encode a value of this type")
	}
}

// writeString writes s as orjson does.
func writeString(b *bytes.Buffer, s string) { b.Write(pyfmt.AppendJSONString(b.AvailableBuffer(), s)) }

// document returns v as an indented JSON document.
func document(v any) []byte {
	var b bytes.Buffer
	encode(&b, v, 2, 0)
	return b.Bytes()
}
