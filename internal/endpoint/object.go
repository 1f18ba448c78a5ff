package endpoint

import (
	"fmt"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
)

// Object is a JSON object under construction with Python dict semantics,
// which is how AIPerf builds every body: setting an existing key replaces
// its value in place, a new key is appended. That keeps AIPerf's member
// order (its payload.update(extra) order) and rules out duplicate keys.
// Values are held as compact JSON. The zero value is an empty object.
//
// The chat and completions endpoints have their own allocation-free
// builder (their bodies are rebuilt per request for multi-turn history);
// everything else is built once per turn before the run and uses Object.
type Object struct {
	keys []string
	vals [][]byte
}

// Index returns the position of key, or -1.
func (o *Object) Index(key string) int {
	for i, k := range o.keys {
		if k == key {
			return i
		}
	}
	return -1
}

// Get returns the value of key.
func (o *Object) Get(key string) ([]byte, bool) {
	if i := o.Index(key); i >= 0 {
		return o.vals[i], true
	}
	return nil, false
}

// Has reports whether key is set.
func (o *Object) Has(key string) bool { return o.Index(key) >= 0 }

// Len returns the number of members.
func (o *Object) Len() int { return len(o.keys) }

// Keys returns the member names in order; the slice must not be modified.
func (o *Object) Keys() []string { return o.keys }

// Set sets key to the JSON value raw, which must be valid compact JSON.
func (o *Object) Set(key string, raw []byte) {
	if i := o.Index(key); i >= 0 {
		o.vals[i] = raw
		return
	}
	o.keys = append(o.keys, key)
	o.vals = append(o.vals, raw)
}

// SetString sets key to the JSON string s.
func (o *Object) SetString(key, s string) { o.Set(key, AppendString(nil, s)) }

// SetBool sets key to a JSON boolean.
func (o *Object) SetBool(key string, b bool) { o.Set(key, strconv.AppendBool(nil, b)) }

// SetInt sets key to a JSON integer.
func (o *Object) SetInt(key string, n int) { o.Set(key, strconv.AppendInt(nil, int64(n), 10)) }

// SetStrings sets key to a JSON array of strings.
func (o *Object) SetStrings(key string, ss []string) { o.Set(key, AppendStrings(nil, ss)) }

// SetObject sets key to the object sub.
func (o *Object) SetObject(key string, sub *Object) { o.Set(key, sub.AppendTo(nil)) }

// Delete removes key, keeping the order of the others.
func (o *Object) Delete(key string) {
	if i := o.Index(key); i >= 0 {
		o.keys = append(o.keys[:i], o.keys[i+1:]...)
		o.vals = append(o.vals[:i], o.vals[i+1:]...)
	}
}

// Merge sets every extra input in order (dict.update), compacting each
// value; the error names the key whose value is not valid JSON. skip, when
// non-nil, filters out keys the endpoint manages itself.
func (o *Object) Merge(extra []ExtraInput, skip func(ExtraInput) bool) error {
	for _, e := range extra {
		if skip != nil && skip(e) {
			continue
		}
		v, err := Compact(e.Value)
		if err != nil {
			return fmt.Errorf("extra input %q: %w", e.Key, err)
		}
		o.Set(e.Key, v)
	}
	return nil
}

// AppendTo appends the object's JSON to dst.
func (o *Object) AppendTo(dst []byte) []byte {
	dst = append(dst, '{')
	for i, k := range o.keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendString(dst, k)
		dst = append(dst, ':')
		dst = append(dst, o.vals[i]...)
	}
	return append(dst, '}')
}

// ParseObject reads a JSON object into an Object, keeping member order;
// a duplicate name keeps its first position and its last value, as a
// Python dict built from the document would.
func ParseObject(raw []byte) (*Object, error) {
	dec := jsontext.NewDecoder(bytesReader(raw), jsontext.AllowDuplicateNames(true))
	tok, err := dec.ReadToken()
	if err != nil {
		return nil, err
	}
	if tok.Kind() != '{' {
		return nil, errNotObject
	}
	o := &Object{}
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return nil, err
		}
		name := tok.String() // before the next read voids tok
		v, err := dec.ReadValue()
		if err != nil {
			return nil, err
		}
		c, err := Compact(v)
		if err != nil {
			return nil, err
		}
		o.Set(name, c)
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, err
	}
	return o, nil
}

// Compact returns raw as compact JSON with strings in their shortest
// escaping (raw UTF-8, as AIPerf's orjson writes them).
func Compact(raw []byte) ([]byte, error) {
	return jsontext.AppendFormat(nil, raw)
}

// AppendString appends s as a JSON string. Invalid UTF-8 becomes U+FFFD;
// U+2028 and U+2029 stay raw, as in AIPerf's orjson output, which is valid
// JSON.
func AppendString(dst []byte, s string) []byte {
	dst, _ = jsontext.AppendQuote(dst, s)
	return dst
}

// AppendStrings appends a JSON array of strings.
func AppendStrings(dst []byte, ss []string) []byte {
	dst = append(dst, '[')
	for i, s := range ss {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendString(dst, s)
	}
	return append(dst, ']')
}

// Truthy evaluates a JSON value as Python would after json.loads: false,
// null, 0, "", [] and {} are false.
func Truthy(raw []byte) (bool, error) {
	v := jsontext.Value(trimSpace(raw))
	if !v.IsValid() {
		return false, fmt.Errorf("invalid JSON value %q", raw)
	}
	switch v.Kind() {
	case 't':
		return true, nil
	case 'f', 'n':
		return false, nil
	case '"':
		return len(v) > 2, nil // `""` is the only empty string literal
	case '0':
		f, err := strconv.ParseFloat(string(v), 64)
		return f != 0, err
	case '[', '{':
		compact, err := jsontext.AppendFormat(nil, v)
		return len(compact) > 2, err
	}
	return false, fmt.Errorf("invalid JSON value %q", raw)
}
