package benchmark

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
)

// jsonObject is a JSON object that keeps its members in the order they
// were set: input_config lists the run's resolved sections in AIPerf's
// order, then the options' settings in the option table's order.
type jsonObject struct {
	keys []string
	vals map[string]any
}

func (o *jsonObject) get(k string) (any, bool) {
	v, ok := o.vals[k]
	return v, ok
}

func (o *jsonObject) set(k string, v any) {
	if o.vals == nil {
		o.vals = map[string]any{}
	}
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

// MarshalJSON writes the members in order, without HTML escaping (the
// caller's encoder decides that).
func (o *jsonObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := enc.Encode(k); err != nil {
			return nil, err
		}
		b.Truncate(b.Len() - 1) // Encode's newline
		b.WriteByte(':')
		if err := enc.Encode(o.vals[k]); err != nil {
			return nil, err
		}
		b.Truncate(b.Len() - 1)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// orderedTree returns v as JSON values whose objects keep their member
// order (*jsonObject, []any, json.Number, string, bool, nil).
func orderedTree(v any) (*jsonObject, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	t, err := decodeOrdered(dec)
	if err != nil {
		return nil, err
	}
	o, ok := t.(*jsonObject)
	if !ok {
		return nil, errors.New("not a JSON object")
	}
	return o, nil
}

func decodeOrdered(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		o := &jsonObject{}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := decodeOrdered(dec)
			if err != nil {
				return nil, err
			}
			o.set(k.(string), v)
		}
		_, err := dec.Token()
		return o, err
	case json.Delim('['):
		a := []any{}
		for dec.More() {
			v, err := decodeOrdered(dec)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err := dec.Token()
		return a, err
	}
	return tok, nil
}

// place sets v at the dot path under root unless something is already
// there: what the run resolved wins over the option's raw value. Inside a
// list, a segment is an index (datasets.0) or the kind of the element
// (phases.warmup); a path into an element that does not exist (a warmup
// phase the run does not have) is dropped.
func place(root *jsonObject, path string, v any) {
	segs := strings.Split(path, ".")
	var cur any = root
	for _, seg := range segs[:len(segs)-1] {
		switch c := cur.(type) {
		case *jsonObject:
			next, ok := c.get(seg)
			if !ok {
				next = &jsonObject{}
				c.set(seg, next)
			}
			cur = next
		case []any:
			cur = element(c, seg)
		default:
			return
		}
	}
	if o, ok := cur.(*jsonObject); ok {
		if _, taken := o.get(segs[len(segs)-1]); !taken {
			o.set(segs[len(segs)-1], v)
		}
	}
}

// element returns the list element a path segment names: by index, or the
// object whose kind is seg; nil when none.
func element(list []any, seg string) any {
	if i, err := strconv.Atoi(seg); err == nil {
		if i >= 0 && i < len(list) {
			return list[i]
		}
		return nil
	}
	for _, e := range list {
		if o, ok := e.(*jsonObject); ok {
			if k, _ := o.get("kind"); k == seg {
				return o
			}
		}
	}
	return nil
}
