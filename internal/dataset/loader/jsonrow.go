package loader

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// row is one JSON object of a dataset file with its members in file order.
// Members whose value is null count as absent, as in AIPerf's optional
// fields.
type row struct {
	fields []dataset.Field
}

// parseRow parses one JSON object. Duplicate member names and invalid
// UTF-8 are errors; anything after the object is too.
func parseRow(data []byte) (row, error) {
	fs, err := parseObject(data)
	return row{fields: fs}, err
}

// parseObject returns the members of the JSON object in data, in order,
// each value compacted.
func parseObject(data []byte) ([]dataset.Field, error) {
	if !utf8.Valid(data) {
		return nil, errors.New("not valid UTF-8")
	}
	dec := jsontext.NewDecoder(bytes.NewReader(data))
	if k := dec.PeekKind(); k != '{' {
		// The kind is peeked from the first byte only ("nonsense" peeks
		// as null), so the value is read to tell bad JSON from a value
		// that is not an object.
		if _, err := dec.ReadValue(); err != nil {
			return nil, jsonErr(err)
		}
		return nil, fmt.Errorf("want a JSON object, got %s", kindName(k))
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, jsonErr(err)
	}
	var out []dataset.Field
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return nil, jsonErr(err)
		}
		name := tok.String()
		v, err := dec.ReadValue()
		if err != nil {
			return nil, jsonErr(err)
		}
		v = v.Clone()
		if err := v.Compact(); err != nil {
			return nil, jsonErr(err)
		}
		out = append(out, dataset.Field{Key: name, Value: []byte(v)})
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, jsonErr(err)
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		return nil, errors.New("unexpected data after the JSON object")
	}
	return out, nil
}

func jsonErr(err error) error {
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("truncated JSON")
	}
	return fmt.Errorf("invalid JSON: %w", err)
}

func kindName(k jsontext.Kind) string {
	switch k {
	case 'n':
		return "null"
	case 'f', 't':
		return "a boolean"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case '{':
		return "an object"
	case '[':
		return "an array"
	}
	return "nothing"
}

// raw returns the value of key, or nil when it is absent or null.
func (r row) raw(key string) []byte {
	for _, f := range r.fields {
		if f.Key == key {
			if string(f.Value) == "null" {
				return nil
			}
			return f.Value
		}
	}
	return nil
}

// has reports whether key is present and not null.
func (r row) has(key string) bool { return r.raw(key) != nil }

// typeErr says what a field should have been.
func typeErr(v []byte, want string) error {
	return fmt.Errorf("want %s, got %s", want, kindName(jsontext.Value(v).Kind()))
}

// str decodes key as a string.
func (r row) str(key string) (string, bool, error) {
	v := r.raw(key)
	if v == nil {
		return "", false, nil
	}
	if jsontext.Value(v).Kind() != '"' {
		return "", true, typeErr(v, "a string")
	}
	var s string
	err := json.Unmarshal(v, &s)
	return s, true, err
}

// num decodes key as a finite number.
func (r row) num(key string) (float64, bool, error) {
	v := r.raw(key)
	if v == nil {
		return 0, false, nil
	}
	x, err := number(v)
	return x, true, err
}

func number(v []byte) (float64, error) {
	if jsontext.Value(v).Kind() != '0' {
		return 0, typeErr(v, "a number")
	}
	x, err := strconv.ParseFloat(string(v), 64)
	if err != nil || math.IsInf(x, 0) || math.IsNaN(x) {
		return 0, fmt.Errorf("number %s is out of range", v)
	}
	return x, nil
}

// integer decodes v as a whole number (10 and 10.0 both), as pydantic's
// lax int does.
func integer(v []byte) (int, error) {
	x, err := number(v)
	if err != nil {
		return 0, typeErr(v, "an integer")
	}
	if x != math.Trunc(x) || math.Abs(x) > math.MaxInt32 {
		return 0, fmt.Errorf("want an integer, got %s", v)
	}
	return int(x), nil
}

// int decodes key as a whole number.
func (r row) int(key string) (int, bool, error) {
	v := r.raw(key)
	if v == nil {
		return 0, false, nil
	}
	n, err := integer(v)
	return n, true, err
}

// strs decodes key as an array of strings.
func (r row) strs(key string) ([]string, bool, error) {
	v := r.raw(key)
	if v == nil {
		return nil, false, nil
	}
	if jsontext.Value(v).Kind() != '[' {
		return nil, true, typeErr(v, "an array of strings")
	}
	var raws []jsontext.Value
	if err := json.Unmarshal(v, &raws); err != nil {
		return nil, true, err
	}
	out := make([]string, len(raws))
	for i, e := range raws {
		if e.Kind() != '"' {
			return nil, true, fmt.Errorf("element %d: %w", i, typeErr(e, "a string"))
		}
		if err := json.Unmarshal(e, &out[i]); err != nil {
			return nil, true, err
		}
	}
	return out, true, nil
}

// ints decodes key as an array of whole numbers.
func (r row) ints(key string) ([]int, bool, error) {
	v := r.raw(key)
	if v == nil {
		return nil, false, nil
	}
	if jsontext.Value(v).Kind() != '[' {
		return nil, true, typeErr(v, "an array of integers")
	}
	var raws []jsontext.Value
	if err := json.Unmarshal(v, &raws); err != nil {
		return nil, true, err
	}
	out := make([]int, len(raws))
	for i, e := range raws {
		n, err := integer(e)
		if err != nil {
			return nil, true, fmt.Errorf("element %d: %w", i, err)
		}
		out[i] = n
	}
	return out, true, nil
}

// object returns key's members when it is a JSON object.
func (r row) object(key string) ([]dataset.Field, bool, error) {
	v := r.raw(key)
	if v == nil {
		return nil, false, nil
	}
	if jsontext.Value(v).Kind() != '{' {
		return nil, true, typeErr(v, "an object")
	}
	fs, err := parseObject(v)
	return fs, true, err
}
