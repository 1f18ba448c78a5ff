package endpoint

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/go-json-experiment/json"
	jmespath "github.com/jmespath-community/go-jmespath"

	"github.com/aiperf-go/aiperf/internal/record"
)

// Extractor reads the responses of APIs whose shape only the user knows
// (the raw and template endpoints): an optional JMESPath expression (the
// response_field option) picks the value, and AIPerf's auto-detection
// (embeddings, then rankings, then text) reads whatever it did not pick.
// It is AIPerf's JMESPath response mixin. Safe for concurrent use.
type Extractor struct {
	expr  string
	query jmespath.JMESPath
	// strict: a query that picks nothing gives no data instead of falling
	// back to auto-detection (the template endpoint, where a typo in
	// response_field must not pass silently).
	strict bool
}

// NewExtractor compiles expr ("" = auto-detection only). A malformed
// expression is an error naming it, reported before the run (AIPerf logs
// it and falls back to auto-detection, which hides the typo).
func NewExtractor(expr string, strict bool) (*Extractor, error) {
	x := &Extractor{expr: expr, strict: strict}
	if expr == "" {
		return x, nil
	}
	q, err := jmespath.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("response_field %q is not a valid JMESPath expression: %w", expr, err)
	}
	x.query = q
	return x, nil
}

// Expr returns the JMESPath expression, "" for none.
func (x *Extractor) Expr() string { return x.expr }

// ParseResponse reads one body or SSE data payload:
//
//  1. a body that is not JSON is output text as it is (AIPerf's raw text
//     fallback); "[DONE]" ends a stream;
//  2. the query, when there is one, runs on the JSON; a truthy result is
//     converted by its shape (a list of vectors or a vector: embeddings; a
//     list of objects: rankings; a string: text);
//  3. otherwise the document is auto-detected: OpenAI-style embeddings
//     data, "embeddings"/"embedding" vectors, "rankings"/"results" lists,
//     then text in "text", "content", "response", "output" or "result"
//     (a string, or a list of strings joined), or choices[0]'s text,
//     message.content or delta.content.
//
// An in-band "error" object is reported as the record's error.
func (x *Extractor) ParseResponse(data []byte) (record.Parsed, error) {
	trimmed := bytes.TrimSpace(data)
	if string(trimmed) == "[DONE]" {
		return record.Parsed{Done: true}, nil
	}
	var doc any
	if len(trimmed) == 0 {
		return record.Parsed{}, nil
	}
	if err := json.Unmarshal(trimmed, &doc, DecodeOptions); err != nil {
		return record.Parsed{Text: string(data)}, nil
	}
	var p record.Parsed
	if obj, ok := doc.(map[string]any); ok {
		var env Envelope
		_ = json.Unmarshal(trimmed, &env, DecodeOptions) // it decoded as an object already
		p = env.Parsed(obj["object"] == "error")
	}
	if x.query != nil {
		v, err := x.query.Search(doc)
		if err == nil && truthyValue(v) {
			if text, out, ok := convert(v); ok {
				p.Text, p.Output = text, out
				return p, nil
			}
		}
		if x.strict {
			return p, nil
		}
	}
	if text, out, ok := detect(doc); ok {
		p.Text, p.Output = text, out
	}
	return p, nil
}

// detect is AIPerf's auto_detect_and_extract. ok is false when nothing
// was recognised; out reports embeddings or rankings (output without
// text).
func detect(doc any) (text string, out, ok bool) {
	obj, isObj := doc.(map[string]any)
	if !isObj {
		return convert(doc)
	}
	if hasEmbeddings(obj) {
		return "", true, true
	}
	for _, f := range []string{"rankings", "results"} {
		if _, isList := obj[f].([]any); isList {
			return "", true, true
		}
	}
	return detectText(obj)
}

// hasEmbeddings recognises {"data":[{"object":"embedding","embedding":..}]}
// and "embeddings"/"embedding" holding a vector or a list of vectors.
func hasEmbeddings(obj map[string]any) bool {
	if data, ok := obj["data"].([]any); ok && len(data) > 0 {
		if first, ok := data[0].(map[string]any); ok && first["object"] == "embedding" {
			for _, item := range data {
				if m, ok := item.(map[string]any); ok {
					if _, has := m["embedding"]; has {
						return true
					}
				}
			}
		}
	}
	for _, f := range []string{"embeddings", "embedding"} {
		list, ok := obj[f].([]any)
		if !ok || len(list) == 0 {
			continue
		}
		switch list[0].(type) {
		case float64, []any:
			return true
		}
	}
	return false
}

// detectText is AIPerf's try_extract_text. An empty string in the first
// matching field ends the search with no text, as there.
func detectText(obj map[string]any) (string, bool, bool) {
	for _, f := range []string{"text", "content", "response", "output", "result"} {
		switch v := obj[f].(type) {
		case string:
			return v, false, v != ""
		case []any:
			if s, ok := joinStrings(v); ok {
				return s, false, s != ""
			}
		}
	}
	choices, ok := obj["choices"].([]any)
	if !ok || len(choices) == 0 {
		return "", false, false
	}
	choice, ok := choices[0].(map[string]any)
	if !ok {
		return "", false, false
	}
	if s, ok := choice["text"].(string); ok && s != "" {
		return s, false, true
	}
	for _, k := range []string{"message", "delta"} {
		if m, ok := choice[k].(map[string]any); ok {
			if s, ok := m["content"].(string); ok && s != "" {
				return s, false, true
			}
		}
	}
	return "", false, false
}

// joinStrings joins a non-empty list of strings; ok is false for anything
// else.
func joinStrings(v []any) (string, bool) {
	if len(v) == 0 {
		return "", false
	}
	var b strings.Builder
	for _, e := range v {
		s, ok := e.(string)
		if !ok {
			return "", false
		}
		b.WriteString(s)
	}
	return b.String(), true
}

// convert is AIPerf's convert_to_response_data: a list whose first
// element is a vector or a number is embeddings, one whose first element
// is an object is rankings, a non-empty string is text.
func convert(v any) (text string, out, ok bool) {
	switch v := v.(type) {
	case []any:
		if len(v) == 0 {
			return "", false, false
		}
		switch first := v[0].(type) {
		case []any:
			if len(first) > 0 {
				if _, num := first[0].(float64); num {
					return "", true, true
				}
			}
		case float64, map[string]any:
			return "", true, true
		}
	case string:
		return v, false, v != ""
	}
	return "", false, false
}

// truthyValue is Python truthiness of a decoded JSON value.
func truthyValue(v any) bool {
	switch v := v.(type) {
	case nil:
		return false
	case bool:
		return v
	case float64:
		return v != 0
	case string:
		return v != ""
	case []any:
		return len(v) > 0
	case map[string]any:
		return len(v) > 0
	}
	return true
}
