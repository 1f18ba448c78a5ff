package hf

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"unicode/utf8"
)

// A BPE vocabulary and merge list are most of a tokenizer.json (up to
// 33 MB for Gemma 3), and encoding/json spends seconds on them. The two
// shapes are simple, so this file scans them directly; any input it does
// not understand falls back to encoding/json, which also words the error.

// errScan makes the caller fall back to encoding/json.
var errScan = errors.New("hf: fast JSON scan failed")

// jsonScanner reads one JSON value of a known shape.
type jsonScanner struct {
	b []byte
	i int
}

func (s *jsonScanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// peek returns the next non-space byte (0 at the end).
func (s *jsonScanner) peek() byte {
	s.space()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

func (s *jsonScanner) expect(c byte) error {
	if s.peek() != c {
		return errScan
	}
	s.i++
	return nil
}

// str reads a JSON string. One without escapes and with valid UTF-8 is
// copied as is; any other goes through encoding/json for exact semantics.
func (s *jsonScanner) str() (string, error) {
	if s.peek() != '"' {
		return "", errScan
	}
	start := s.i
	s.i++
	simple := true
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			body := s.b[start+1 : s.i-1]
			if simple && utf8.Valid(body) {
				return string(body), nil
			}
			var out string
			if err := json.Unmarshal(s.b[start:s.i], &out); err != nil {
				return "", errScan
			}
			return out, nil
		case c == '\\':
			simple = false
			s.i += 2
		case c < 0x20:
			return "", errScan
		default:
			s.i++
		}
	}
	return "", errScan
}

// integer reads a non-negative JSON integer.
func (s *jsonScanner) integer() (int, error) {
	s.space()
	start := s.i
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
	}
	if start == s.i || (s.b[start] == '0' && s.i-start > 1) {
		return 0, errScan
	}
	n, err := strconv.Atoi(string(s.b[start:s.i]))
	if err != nil {
		return 0, errScan
	}
	return n, nil
}

// end checks that nothing but space follows the value.
func (s *jsonScanner) end() error {
	if s.peek() != 0 || s.i != len(s.b) {
		return errScan
	}
	return nil
}

// scanVocab parses {"token": id, ...}.
func scanVocab(raw []byte) (map[string]int, error) {
	s := &jsonScanner{b: raw}
	if err := s.expect('{'); err != nil {
		return nil, err
	}
	m := make(map[string]int, len(raw)/16)
	if s.peek() == '}' {
		s.i++
		return m, s.end()
	}
	for {
		k, err := s.str()
		if err != nil {
			return nil, err
		}
		if err := s.expect(':'); err != nil {
			return nil, err
		}
		v, err := s.integer()
		if err != nil {
			return nil, err
		}
		m[k] = v // a repeated key keeps its last value, as encoding/json does
		switch s.peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			return m, s.end()
		default:
			return nil, errScan
		}
	}
}

// scanMerges parses ["a b", ...] or [["a", "b"], ...]. A string without a
// space, or a list that is not a pair, is an error for the caller to
// report, so such input falls back.
func scanMerges(raw []byte) ([][2]string, error) {
	s := &jsonScanner{b: raw}
	if err := s.expect('['); err != nil {
		return nil, err
	}
	out := make([][2]string, 0, len(raw)/12)
	if s.peek() == ']' {
		s.i++
		return out, s.end()
	}
	for {
		switch s.peek() {
		case '"':
			m, err := s.str()
			if err != nil {
				return nil, err
			}
			a, b, ok := cutSpace(m)
			if !ok {
				return nil, errScan
			}
			out = append(out, [2]string{a, b})
		case '[':
			s.i++
			a, err := s.str()
			if err != nil {
				return nil, err
			}
			if err := s.expect(','); err != nil {
				return nil, err
			}
			b, err := s.str()
			if err != nil {
				return nil, err
			}
			if err := s.expect(']'); err != nil {
				return nil, err
			}
			out = append(out, [2]string{a, b})
		default:
			return nil, errScan
		}
		switch s.peek() {
		case ',':
			s.i++
		case ']':
			s.i++
			return out, s.end()
		default:
			return nil, errScan
		}
	}
}

// cutSpace splits a legacy merge "a b" at its first space.
func cutSpace(m string) (string, string, bool) {
	for i := 0; i < len(m); i++ {
		if m[i] == ' ' {
			return m[:i], m[i+1:], true
		}
	}
	return "", "", false
}

// skip moves past one JSON value without checking it beyond its
// brackets and strings; whatever is skipped is parsed strictly later.
func (s *jsonScanner) skip() error {
	depth := 0
	for {
		switch c := s.peek(); c {
		case 0:
			return errScan
		case '"':
			if _, err := s.rawStr(); err != nil {
				return err
			}
		case '{', '[':
			depth++
			s.i++
		case '}', ']':
			depth--
			s.i++
			if depth < 0 {
				return errScan
			}
		case ',', ':':
			if depth == 0 {
				return errScan
			}
			s.i++
		default:
			for s.i < len(s.b) {
				c := s.b[s.i]
				if c == ',' || c == '}' || c == ']' || c == ' ' || c == '\t' || c == '\n' || c == '\r' {
					break
				}
				s.i++
			}
		}
		if depth == 0 {
			return nil
		}
	}
}

// rawStr moves past a string and returns its bytes, quotes included.
func (s *jsonScanner) rawStr() ([]byte, error) {
	start := s.i
	s.i++
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case '"':
			s.i++
			return s.b[start:s.i], nil
		case '\\':
			s.i += 2
		default:
			s.i++
		}
	}
	return nil, errScan
}

// splitObject returns the raw value of every key of a JSON object, in
// order, so a huge document is sliced in one pass rather than decoded
// twice. Keys with escapes are not expected in a tokenizer.json and make
// the caller fall back.
func splitObject(raw []byte) (keys []string, vals []json.RawMessage, err error) {
	s := &jsonScanner{b: raw}
	if err := s.expect('{'); err != nil {
		return nil, nil, err
	}
	if s.peek() == '}' {
		s.i++
		return nil, nil, s.end()
	}
	for {
		k, err := s.str()
		if err != nil {
			return nil, nil, err
		}
		if err := s.expect(':'); err != nil {
			return nil, nil, err
		}
		s.space()
		start := s.i
		if err := s.skip(); err != nil {
			return nil, nil, err
		}
		keys = append(keys, k)
		vals = append(vals, json.RawMessage(s.b[start:s.i]))
		switch s.peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			return keys, vals, s.end()
		default:
			return nil, nil, errScan
		}
	}
}

// decodeLarge is decodeStrict for a spec with huge members (a model's
// vocab and merges, a file's model): the members named in big are cut out
// in one pass and returned raw; the rest is decoded strictly into v, which
// must not declare the big members.
func decodeLarge(path, typ string, raw json.RawMessage, v any, big ...string) (map[string]json.RawMessage, error) {
	keys, vals, err := splitObject(raw)
	if err != nil {
		var probe any
		if jerr := json.Unmarshal(raw, &probe); jerr != nil {
			return nil, fmt.Errorf("%s (%s): %w", path, typ, jerr)
		}
		return nil, fmt.Errorf("%s (%s): not a JSON object", path, typ)
	}
	out := map[string]json.RawMessage{}
	rest := map[string]json.RawMessage{}
	for i, k := range keys {
		if slices.Contains(big, k) {
			out[k] = vals[i]
		} else {
			rest[k] = vals[i]
		}
	}
	small, err := json.Marshal(rest)
	if err != nil {
		return nil, fmt.Errorf("%s (%s): %w", path, typ, err)
	}
	if err := decodeStrict(path, typ, small, v); err != nil {
		return nil, err
	}
	return out, nil
}

// componentType reads the "type" of a component spec without decoding the
// rest (a model spec is tens of megabytes): members are skipped only up to
// "type", which HuggingFace writes first.
func componentType(raw json.RawMessage) (component, error) {
	var c component
	s := &jsonScanner{b: raw}
	if s.expect('{') == nil {
		for s.peek() == '"' {
			k, err := s.str()
			if err != nil || s.expect(':') != nil {
				break
			}
			s.space()
			start := s.i
			if s.skip() != nil {
				break
			}
			if k == "type" {
				if err := json.Unmarshal(s.b[start:s.i], &c.Type); err != nil {
					return c, fmt.Errorf("type: %w", err)
				}
				return c, nil
			}
			if s.peek() != ',' {
				break
			}
			s.i++
		}
	}
	// No "type" found by scanning: let encoding/json decide (and describe
	// what is wrong, if anything).
	err := json.Unmarshal(raw, &c)
	return c, err
}
