package export

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// SortKeys returns the JSON value b with every object's members sorted by
// name (code point order, as orjson's OPT_SORT_KEYS and Python's sorted()
// order them), 2-space indented. Numbers and strings keep their exact
// spelling, so a float written as orjson writes it stays so.
func SortKeys(b []byte) ([]byte, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(b))
	var w JSON
	if err := sortValue(dec, &w); err != nil {
		return nil, fmt.Errorf("sort json keys: %w", err)
	}
	return w.Indented()
}

// sortValue copies the next value from dec to w, objects sorted.
func sortValue(dec *jsontext.Decoder, w *JSON) error {
	switch dec.PeekKind() {
	case '{':
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		type member struct {
			name string
			val  JSON
		}
		var ms []member
		for dec.PeekKind() != '}' {
			tok, err := dec.ReadToken()
			if err != nil {
				return err
			}
			m := member{name: tok.String()}
			if err := sortValue(dec, &m.val); err != nil {
				return err
			}
			ms = append(ms, m)
		}
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		slices.SortStableFunc(ms, func(a, b member) int { return strings.Compare(a.name, b.name) })
		w.Open('{')
		for i := range ms {
			w.Key(ms[i].name)
			w.Raw(ms[i].val.Bytes())
		}
		w.Close('}')
	case '[':
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		w.Open('[')
		for dec.PeekKind() != ']' {
			var e JSON
			if err := sortValue(dec, &e); err != nil {
				return err
			}
			w.Raw(e.Bytes())
		}
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		w.Close(']')
	default:
		v, err := dec.ReadValue()
		if err != nil {
			return err
		}
		w.Raw(v)
	}
	return nil
}
