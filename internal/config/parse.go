package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ErrSweep reports a comma-separated "magic list" value (--concurrency
// 8,16), which AIPerf turns into a parameter sweep. Sweeps are not
// implemented; the value is refused instead of silently using one element.
var ErrSweep = errors.New("parameter sweeps are not supported yet")

// The parsers below turn one command-line value into typed data. They are
// pure, never panic, and return errors without the flag name, which the
// caller prefixes.

// ParseInt parses a base-10 integer, allowing surrounding space.
func ParseInt(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return 0, fmt.Errorf("invalid integer %q", s)
	}
	return n, nil
}

// ParseInt64 parses a base-10 64-bit integer, allowing surrounding space.
func ParseInt64(s string) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("invalid integer %q", s)
	}
	return n, nil
}

// ParseFloat parses a finite number; NaN and infinities are refused because
// no option accepts them and they must never reach an artifact.
func ParseFloat(s string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("invalid number %q", s)
	}
	return f, nil
}

// ParseSeconds parses a finite number of seconds, or, when allowInf is true,
// "inf"/"infinity" (any case) for +Inf. NaN and -Inf are always refused.
func ParseSeconds(s string, allowInf bool) (float64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	if allowInf && (t == "inf" || t == "+inf" || t == "infinity" || t == "+infinity") {
		return math.Inf(1), nil
	}
	f, err := ParseFloat(s)
	if err != nil {
		if allowInf {
			return 0, fmt.Errorf("invalid number of seconds %q (a number or inf)", s)
		}
		return 0, fmt.Errorf("invalid number of seconds %q", s)
	}
	return f, nil
}

// isList reports whether s is a comma list with more than one non-empty
// element, i.e. a sweep. "8," and ",8" are single values.
func isList(s string) bool {
	n := 0
	for _, p := range strings.Split(s, ",") {
		if strings.TrimSpace(p) != "" {
			n++
		}
	}
	return n > 1
}

// singleOfList strips the empty elements a single-valued comma list may
// carry ("8," -> "8").
func singleOfList(s string) string {
	for _, p := range strings.Split(s, ",") {
		if t := strings.TrimSpace(p); t != "" {
			return t
		}
	}
	return s
}

// ParseMagicInt parses an integer option that AIPerf also accepts as a
// comma list for a sweep; a list returns ErrSweep.
func ParseMagicInt(s string) (int, error) {
	if isList(s) {
		return 0, fmt.Errorf("%w (got %q)", ErrSweep, s)
	}
	return ParseInt(singleOfList(s))
}

// ParseMagicFloat parses a finite number that AIPerf also accepts as a
// comma list for a sweep; a list returns ErrSweep.
func ParseMagicFloat(s string) (float64, error) {
	if isList(s) {
		return 0, fmt.Errorf("%w (got %q)", ErrSweep, s)
	}
	return ParseFloat(singleOfList(s))
}

// SplitList splits a comma-separated list value (-m a,b; -u x,y) into its
// trimmed elements. Empty elements are kept so that validation can report
// them.
func SplitList(s string) []string {
	parts := strings.Split(s, ",")
	for i, p := range parts {
		parts[i] = strings.TrimSpace(p)
	}
	return parts
}

// ParseExtraInputs parses one --extra-inputs value: either a JSON object
// ('{"temperature": 0.7}') or comma-separated key:value pairs
// ("temperature:0.7,ignore_eos:true"). Commas inside brackets, braces or
// quotes do not split, so "stop:[\"a\",\"b\"]" is one pair.
//
// A value that is valid JSON keeps its JSON type (0.7, true, null,
// {"x":1}, [1,2]); True/False/None/Null in any case become booleans and
// null, as AIPerf coerces them; anything else is a string (so "007" and
// "gpt-4" stay strings).
func ParseExtraInputs(s string) ([]ExtraInput, error) {
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, "{") {
		pairs, err := parseJSONObject(t)
		if err != nil {
			return nil, err
		}
		out := make([]ExtraInput, len(pairs))
		for i, p := range pairs {
			out[i] = ExtraInput{Key: p.key, Value: p.value}
		}
		return out, nil
	}
	var out []ExtraInput
	for _, item := range splitTopLevel(s) {
		key, val, ok := strings.Cut(item, ":")
		key = strings.TrimSpace(key)
		if !ok || key == "" {
			return nil, fmt.Errorf("%q is not key:value or a JSON object", item)
		}
		out = append(out, ExtraInput{Key: key, Value: coerceJSON(strings.TrimSpace(val))})
	}
	return out, nil
}

// coerceJSON returns v as compact JSON: itself when it is valid JSON, a
// boolean or null for AIPerf's case-insensitive literals, else a string.
func coerceJSON(v string) json.RawMessage {
	if v != "" && json.Valid([]byte(v)) {
		var buf bytes.Buffer
		if json.Compact(&buf, []byte(v)) == nil {
			return buf.Bytes()
		}
	}
	switch strings.ToLower(v) {
	case "true":
		return json.RawMessage("true")
	case "false":
		return json.RawMessage("false")
	case "none", "null":
		return json.RawMessage("null")
	}
	b, _ := json.Marshal(v) // a string always marshals
	return b
}

// splitTopLevel splits s on commas that are outside brackets, braces and
// double-quoted strings.
func splitTopLevel(s string) []string {
	var out []string
	depth, start := 0, 0
	inString, escaped := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case inString:
		case c == '[' || c == '{':
			depth++
		case (c == ']' || c == '}') && depth > 0:
			depth--
		case c == ',' && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// jsonPair is one member of a JSON object, in document order.
type jsonPair struct {
	key   string
	value json.RawMessage
}

// parseJSONObject decodes a JSON object into its members in document order
// (a map would lose the order users wrote). Its errors quote s unless s
// may hold a credential (see showable).
func parseJSONObject(s string) ([]jsonPair, error) {
	pairs, err := decodeJSONObject(s)
	if err != nil && !showable(s) {
		// The message would repeat the value, credential included.
		return nil, errors.New("not a valid JSON object (value not shown: it may hold a credential)")
	}
	return pairs, err
}

// decodeJSONObject is parseJSONObject without the redaction.
func decodeJSONObject(s string) ([]jsonPair, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("%q is not a valid JSON object", s)
	}
	var out []jsonPair
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("%q is not a valid JSON object: %w", s, err)
		}
		key, _ := tok.(string) // object keys are always strings
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("%q is not a valid JSON object: %w", s, err)
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, raw); err != nil {
			return nil, fmt.Errorf("%q is not a valid JSON object: %w", s, err)
		}
		out = append(out, jsonPair{key: key, value: buf.Bytes()})
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return nil, fmt.Errorf("%q is not a valid JSON object", s)
	}
	if rest := strings.TrimSpace(s[dec.InputOffset():]); rest != "" {
		return nil, fmt.Errorf("%q has data after the JSON object", s)
	}
	return out, nil
}

// ParseHeaders parses one -H/--header value: "Name:Value" (split at the
// first colon, both sides trimmed; the value may contain commas and colons)
// or a JSON object of names to values. JSON numbers and booleans become
// their text; objects, arrays and null are refused.
func ParseHeaders(s string) ([]Header, error) {
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, "{") {
		pairs, err := parseJSONObject(t)
		if err != nil {
			return nil, err
		}
		out := make([]Header, 0, len(pairs))
		for _, p := range pairs {
			var v any
			dec := json.NewDecoder(bytes.NewReader(p.value))
			dec.UseNumber()
			if err := dec.Decode(&v); err != nil {
				return nil, fmt.Errorf("header %q: %w", p.key, err)
			}
			switch v := v.(type) {
			case string:
				out = append(out, Header{Name: p.key, Value: v})
			case json.Number, bool:
				out = append(out, Header{Name: p.key, Value: fmt.Sprint(v)})
			default:
				return nil, fmt.Errorf("header %q: value must be a string, number or boolean", p.key)
			}
		}
		return out, nil
	}
	name, value, ok := strings.Cut(t, ":")
	if !ok {
		if !showable(t) {
			return nil, errors.New("not Name:Value or a JSON object (value not shown: it may hold a credential)")
		}
		return nil, fmt.Errorf("%q is not Name:Value or a JSON object", s)
	}
	return []Header{{Name: strings.TrimSpace(name), Value: strings.TrimSpace(value)}}, nil
}

// GoodputSLO is one --goodput objective: a metric tag and its threshold in
// the metric's display unit.
type GoodputSLO struct {
	Metric string
	Value  float64
}

// ParseGoodput parses a --goodput value: whitespace-separated metric:value
// pairs ("request_latency:250 inter_token_latency:10"), in order. Values
// must be finite numbers.
func ParseGoodput(s string) ([]GoodputSLO, error) {
	fields := strings.Fields(s)
	if len(fields) == 0 {
		return nil, errors.New("expected space-separated metric:value pairs, got an empty value")
	}
	out := make([]GoodputSLO, 0, len(fields))
	for _, f := range fields {
		key, val, ok := strings.Cut(f, ":")
		if !ok {
			return nil, fmt.Errorf("%q is not metric:value", f)
		}
		if key == "" {
			return nil, fmt.Errorf("%q has an empty metric tag", f)
		}
		v, err := ParseFloat(val)
		if err != nil {
			return nil, fmt.Errorf("%q: value must be a finite number", f)
		}
		out = append(out, GoodputSLO{Metric: key, Value: v})
	}
	return out, nil
}
