package export

import (
	"fmt"
	"strconv"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// jsonw appends compact JSON with an explicit member order. Go maps and
// struct reflection cannot express AIPerf's key order (fixed fields
// interleaved with one key per metric), so the artifacts are built token by
// token. Callers open and close containers in matching pairs; jsonw inserts
// the commas. Strings with invalid UTF-8 get U+FFFD, as jsontext does.
type jsonw struct {
	b []byte
	// fresh has bit i set while the container at depth i (0 outermost)
	// has no member yet; deep holds the same for depths from 64, which no
	// artifact reaches. Bits, not a slice, so that a line allocates
	// nothing for its nesting.
	fresh    uint64
	deep     []bool
	depth    int
	afterKey bool // a member name was written; its value comes next
}

// sep writes the comma before a member or element when one is needed.
func (w *jsonw) sep() {
	if w.afterKey {
		w.afterKey = false
		return
	}
	switch i := w.depth - 1; {
	case i < 0:
	case i < 64:
		if w.fresh&(1<<i) == 0 {
			w.b = append(w.b, ',')
		}
		w.fresh &^= 1 << i
	default:
		if !w.deep[i-64] {
			w.b = append(w.b, ',')
		}
		w.deep[i-64] = false
	}
}

// open starts a container with '{' or '['.
func (w *jsonw) open(c byte) {
	w.sep()
	w.b = append(w.b, c)
	if w.depth < 64 {
		w.fresh |= 1 << w.depth
	} else {
		w.deep = append(w.deep, true)
	}
	w.depth++
}

// close ends the innermost container with '}' or ']'.
func (w *jsonw) close(c byte) {
	w.depth--
	if w.depth >= 64 {
		w.deep = w.deep[:w.depth-64]
	}
	w.b = append(w.b, c)
}

// key writes an object member name; the next call writes its value.
func (w *jsonw) key(k string) {
	w.sep()
	w.b = appendQuoted(w.b, k)
	w.b = append(w.b, ':')
	w.afterKey = true
}

// rawKey is key for a name given already quoted with its colon
// (`"value":`): the JSONL line's fixed names, which need no check.
func (w *jsonw) rawKey(quoted string) {
	w.sep()
	w.b = append(w.b, quoted...)
	w.afterKey = true
}

func (w *jsonw) str(s string) {
	w.sep()
	w.b = appendQuoted(w.b, s)
}

// appendQuoted appends s as a JSON string exactly as jsontext.AppendQuote
// does. Every JSONL line quotes some fifty member names and ids, all plain
// printable ASCII, which need no escape: those are copied between quotes;
// anything else (a control character, '"', '\\', any byte >= 0x80, which
// may be invalid UTF-8) goes to jsontext. FuzzAppendQuoted checks the two
// agree.
func appendQuoted(dst []byte, s string) []byte {
	if !plainASCII(s) {
		dst, _ = jsontext.AppendQuote(dst, s)
		return dst
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}

// plainASCII reports that every byte of s is in 0x20..0x7f and neither '"'
// nor '\\', eight bytes at a time: with no high bit set (checked first),
// a byte below 0x20 or equal to '"' or '\\' is found exactly by the
// classic has-zero-byte test on x-0x20.., x^0x22.. and x^0x5c...
func plainASCII(s string) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if x&highs != 0 {
			return false
		}
		q, b := x^(ones*'"'), x^(ones*'\\')
		if ((x-ones*' ')|(q-ones)&^q|(b-ones)&^b)&highs != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < ' ' || c == '"' || c == '\\' || c >= 0x80 {
			return false
		}
	}
	return true
}

// float writes a float the way AIPerf's orjson does ("10.0"). Callers
// leave non-finite values out first; one that slips through is null, never
// NaN or Infinity (see finite.go).
func (w *jsonw) float(f float64) {
	w.sep()
	w.b = appendJSONNumber(w.b, f)
}

func (w *jsonw) int(n int64) {
	w.sep()
	w.b = strconv.AppendInt(w.b, n, 10)
}

func (w *jsonw) bool(v bool) {
	w.sep()
	w.b = strconv.AppendBool(w.b, v)
}

// raw writes an already-encoded JSON value verbatim.
func (w *jsonw) raw(v []byte) {
	w.sep()
	w.b = append(w.b, v...)
}

// member writes key with v marshalled deterministically (struct field
// order, sorted map keys) as its value.
func (w *jsonw) member(key string, v any) error {
	b, err := json.Marshal(v, json.Deterministic(true))
	if err != nil {
		return fmt.Errorf("marshal %s: %w", key, err)
	}
	w.key(key)
	w.raw(b)
	return nil
}

// indented returns the document with AIPerf's 2-space indentation; what
// names it in an error.
func (w *jsonw) indented(what string) ([]byte, error) {
	v := jsontext.Value(w.b)
	if err := v.Indent(jsontext.WithIndent("  ")); err != nil {
		return nil, fmt.Errorf("format %s: %w", what, err)
	}
	return v, nil
}
