package chattemplate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ardanlabs/jinja"
)

// jsonValue decodes one JSON value into a template value, keeping object
// keys in document order (Python dicts keep insertion order, and tojson
// prints them in that order) and whole numbers as integers (as Python's
// json.loads does), so that tool schemas print as HF prints them.
func jsonValue(data []byte) (jinja.Value, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return jinja.Undefined(), err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return jinja.Undefined(), errors.New("trailing data after the JSON value")
	}
	return v, nil
}

// decodeValue reads the next JSON value from dec.
func decodeValue(dec *json.Decoder) (jinja.Value, error) {
	tok, err := dec.Token()
	if err != nil {
		return jinja.Undefined(), fmt.Errorf("invalid JSON: %w", err)
	}
	switch t := tok.(type) {
	case nil:
		return jinja.None(), nil
	case bool:
		return jinja.NewBool(t), nil
	case string:
		return jinja.NewString(t), nil
	case json.Number:
		return number(t)
	case json.Delim:
		switch t {
		case '[':
			var items []jinja.Value
			for dec.More() {
				v, err := decodeValue(dec)
				if err != nil {
					return jinja.Undefined(), err
				}
				items = append(items, v)
			}
			if _, err := dec.Token(); err != nil {
				return jinja.Undefined(), fmt.Errorf("invalid JSON: %w", err)
			}
			return jinja.NewList(items), nil
		case '{':
			d := jinja.NewDict()
			dict := d.AsDict()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return jinja.Undefined(), fmt.Errorf("invalid JSON: %w", err)
				}
				key, _ := kt.(string) // the decoder guarantees a string key here
				v, err := decodeValue(dec)
				if err != nil {
					return jinja.Undefined(), err
				}
				dict.Set(key, v)
			}
			if _, err := dec.Token(); err != nil {
				return jinja.Undefined(), fmt.Errorf("invalid JSON: %w", err)
			}
			return d, nil
		}
	}
	return jinja.Undefined(), fmt.Errorf("invalid JSON: unexpected %v", tok)
}

// number converts a JSON number: an integer literal that fits in int64
// becomes an int, anything else a float.
func number(n json.Number) (jinja.Value, error) {
	if !strings.ContainsAny(string(n), ".eE") {
		if i, err := n.Int64(); err == nil {
			return jinja.NewInt(i), nil
		}
	}
	f, err := n.Float64()
	if err != nil {
		return jinja.Undefined(), fmt.Errorf("invalid JSON number %s: %w", n, err)
	}
	return jinja.NewFloat(f), nil
}
