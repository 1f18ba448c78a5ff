package pyfmt

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// Item is one entry of a Dict.
type Item struct {
	Key   string
	Value any
}

// Dict is a Python dict with its insertion order, which repr() keeps (a
// Go map has none: Repr writes a map[string]any's keys sorted).
type Dict []Item

// Quote is Python's repr() of a str: single quotes unless the text holds a
// single quote and no double quote; the backslash, the chosen quote, \t,
// \n and \r escaped, and every other character Python does not print
// (controls, separators but the space, format characters, unassigned
// code points) as \xNN, \uNNNN or \UNNNNNNNN.
func Quote(s string) string {
	q := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		q = '"'
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte(q)
	for _, r := range s {
		switch {
		case r == rune(q) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case unicode.IsPrint(r):
			b.WriteRune(r)
		case r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < 0x10000:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
	}
	b.WriteByte(q)
	return b.String()
}

// Repr is Python's repr() of a JSON-shaped value: None, True/False,
// integers, floats as Float, strings as Quote, lists ([]any) and dicts
// (Dict in its order, map[string]any by sorted key) with ", " and ": "
// between items. Any other value is written as fmt.Sprint does.
func Repr(v any) string {
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
		return Float(x)
	case string:
		return Quote(x)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = Repr(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case Dict:
		parts := make([]string, len(x))
		for i, it := range x {
			parts[i] = Quote(it.Key) + ": " + Repr(it.Value)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		d := make(Dict, len(keys))
		for i, k := range keys {
			d[i] = Item{k, x[k]}
		}
		return Repr(d)
	}
	return fmt.Sprint(v)
}

// Str is Python's str(): a string as it is, anything else as Repr.
func Str(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return Repr(v)
}
