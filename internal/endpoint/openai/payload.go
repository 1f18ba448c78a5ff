package openai

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/endpoint"
)

// kind says how a body member's value is produced.
type kind uint8

const (
	kindExtra         kind = iota // raw JSON from --extra-inputs
	kindMessages                  // chat messages array
	kindPrompt                    // completions prompt
	kindModel                     // model name
	kindStream                    // Options.Streaming
	kindMaxTokens                 // Turn.MaxTokens
	kindStreamOptions             // {"include_usage":true}
	kindMergedOptions             // an extra stream_options object plus include_usage
	kindTools                     // Turn.Tools, raw JSON
)

// member is one top-level body field, in output order.
type member struct {
	key   string
	kind  kind
	extra int // index into Options.Extra for kindExtra
}

// maxMembers covers the built-in fields plus a typical set of extras
// without the member list leaving the stack.
const maxMembers = 16

// appendBody writes a request body as an ordered JSON object: the base
// members, then Options.Extra merged with Python dict semantics (setting an
// existing key replaces its value in place, a new key is appended; that is
// how AIPerf's payload.update(extra) orders what it sends, and it rules out
// duplicate keys), then stream_options when the merged body streams.
//
// Members refer to extra values by index and are passed by value between
// the helpers below (never appended through a pointer), so the member
// array stays on the stack.
func appendBody(dst []byte, base []member, t *dataset.Turn, o *endpoint.Options, continuous bool) ([]byte, error) {
	var storage [maxMembers]member
	ms := append(storage[:0], base...)
	for i := range o.Extra {
		ms = setMember(ms, member{key: o.Extra[i].Key, kind: kindExtra, extra: i})
	}
	ms, merged, err := addStreamOptions(ms, o, continuous)
	if err != nil {
		return dst, err
	}
	return appendMembers(dst, ms, merged, t, o, continuous)
}

func index(ms []member, key string) int {
	for i := range ms {
		if ms[i].key == key {
			return i
		}
	}
	return -1
}

func setMember(ms []member, m member) []member {
	if i := index(ms, m.key); i >= 0 {
		ms[i] = m
		return ms
	}
	return append(ms, m)
}

// streaming reports whether the merged body asks for a stream: an extra
// "stream" value overrides Options.Streaming, judged by Python truthiness
// as AIPerf does (payload.get("stream")).
func streaming(ms []member, o *endpoint.Options) (bool, error) {
	i := index(ms, "stream")
	if i < 0 {
		return false, nil
	}
	if ms[i].kind == kindStream {
		return o.Streaming, nil
	}
	return endpoint.Truthy(o.Extra[ms[i].extra].Value)
}

// addStreamOptions asks a streaming server for a trailing usage chunk, as
// AIPerf does for every streaming chat and completions request, and with
// continuous (chat --per-chunk-usage) for cumulative usage on every chunk
// too: a missing or null stream_options becomes {"include_usage":true}
// (plus "continuous_usage_stats":true); an object lacking those members
// gets them appended (returned as merged, for a kindMergedOptions member),
// the author's own values kept; any other value is the author's choice
// and is left alone.
func addStreamOptions(ms []member, o *endpoint.Options, continuous bool) (_ []member, merged []byte, _ error) {
	on, err := streaming(ms, o)
	if err != nil || !on {
		return ms, nil, err
	}
	i := index(ms, "stream_options")
	if i < 0 {
		return append(ms, member{key: "stream_options", kind: kindStreamOptions}), nil, nil
	}
	if ms[i].kind != kindExtra {
		return ms, nil, nil
	}
	raw := bytes.TrimSpace(o.Extra[ms[i].extra].Value)
	switch {
	case string(raw) == "null":
		ms[i] = member{key: "stream_options", kind: kindStreamOptions}
	case len(raw) > 0 && raw[0] == '{':
		want := []string{"include_usage"}
		if continuous {
			want = append(want, "continuous_usage_stats")
		}
		var missing []string
		for _, k := range want {
			has, err := hasMember(raw, k)
			if err != nil {
				return ms, nil, fmt.Errorf("extra input stream_options: %w", err)
			}
			if !has {
				missing = append(missing, k)
			}
		}
		if len(missing) > 0 {
			merged, err = jsontext.AppendFormat(nil, raw)
			if err != nil {
				return ms, nil, fmt.Errorf("extra input stream_options: %w", err)
			}
			merged = merged[:len(merged)-1] // drop '}'
			for _, k := range missing {
				if len(merged) > 1 {
					merged = append(merged, ',')
				}
				merged = append(merged, `"`+k+`":true`...)
			}
			merged = append(merged, '}')
			ms[i].kind = kindMergedOptions
		}
	}
	return ms, merged, nil
}

// appendMembers writes the object; t and o supply the built-in values.
func appendMembers(dst []byte, ms []member, merged []byte, t *dataset.Turn, o *endpoint.Options, continuous bool) ([]byte, error) {
	dst = append(dst, '{')
	for i, m := range ms {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = endpoint.AppendString(dst, m.key)
		dst = append(dst, ':')
		switch m.kind {
		case kindMessages:
			dst = appendConversation(dst, o.History, t)
		case kindPrompt:
			dst = appendPrompt(dst, t.Texts)
		case kindModel:
			dst = endpoint.AppendString(dst, model(t, o))
		case kindStream:
			dst = strconv.AppendBool(dst, o.Streaming)
		case kindMaxTokens:
			dst = strconv.AppendInt(dst, int64(t.MaxTokens), 10)
		case kindTools:
			dst = append(dst, t.Tools...)
		case kindStreamOptions:
			if continuous {
				dst = append(dst, `{"include_usage":true,"continuous_usage_stats":true}`...)
			} else {
				dst = append(dst, `{"include_usage":true}`...)
			}
		case kindMergedOptions:
			dst = append(dst, merged...)
		case kindExtra:
			var err error
			if dst, err = jsontext.AppendFormat(dst, o.Extra[m.extra].Value); err != nil {
				return dst, fmt.Errorf("extra input %q: %w", m.key, err)
			}
		}
	}
	return append(dst, '}'), nil
}

// model is the turn's model override, else the run's model.
func model(t *dataset.Turn, o *endpoint.Options) string {
	if t.Model != "" {
		return t.Model
	}
	return o.Model
}

// appendMessages writes the chat messages for one turn: a single message
// whose content appendContent renders (the bare text for one text without
// media, else content parts).
func appendMessages(dst []byte, t *dataset.Turn) []byte {
	if t.Messages != nil {
		return append(dst, t.Messages...)
	}
	role := t.Role
	if role == "" {
		role = "user"
	}
	dst = append(dst, `[{"role":`...)
	dst = endpoint.AppendString(dst, role)
	dst = append(dst, `,"content":`...)
	dst = chatParts.AppendContent(dst, t)
	return append(dst, "}]"...)
}

// appendPrompt writes a completions prompt: the bare string for one
// non-empty text (the canonical form; some gateways reject a list), else a
// list of the non-empty texts.
func appendPrompt(dst []byte, texts []string) []byte {
	n, only := 0, ""
	for _, s := range texts {
		if s != "" {
			n++
			only = s
		}
	}
	if n == 1 {
		return endpoint.AppendString(dst, only)
	}
	dst = append(dst, '[')
	first := true
	for _, s := range texts {
		if s == "" {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = endpoint.AppendString(dst, s)
	}
	return append(dst, ']')
}

// hasMember reports whether the JSON object obj has the top-level key.
func hasMember(obj []byte, key string) (bool, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(obj))
	if _, err := dec.ReadToken(); err != nil {
		return false, err
	}
	for dec.PeekKind() == '"' {
		name, err := dec.ReadToken()
		if err != nil {
			return false, err
		}
		if name.String() == key {
			return true, nil
		}
		if err := dec.SkipValue(); err != nil {
			return false, err
		}
	}
	_, err := dec.ReadToken()
	return false, err
}
