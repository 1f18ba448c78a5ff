package mockserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// maxOutputTokens bounds the output length a request may ask for, so that a
// typo such as max_tokens=1e9 cannot make the mock generate gigabytes.
const maxOutputTokens = 1 << 20

// apiKind tells the two OpenAI APIs apart.
type apiKind int

const (
	chatAPI       apiKind = iota // /v1/chat/completions
	completionAPI                // /v1/completions
)

// completionRequest is the part of an OpenAI chat or text completion
// request body the mock reads. Unknown fields are ignored, as vLLM does.
type completionRequest struct {
	Model               string          `json:"model"`
	Messages            []chatMessage   `json:"messages"`
	Prompt              json.RawMessage `json:"prompt"`
	Stream              bool            `json:"stream"`
	StreamOptions       *streamOptions  `json:"stream_options"`
	MaxTokens           *int            `json:"max_tokens"`
	MaxCompletionTokens *int            `json:"max_completion_tokens"`
	MinTokens           *int            `json:"min_tokens"`
	IgnoreEOS           bool            `json:"ignore_eos"`
}

// streamOptions is the OpenAI stream_options object.
type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// chatMessage is one chat message; Content is a string, an array of
// content parts, or null.
type chatMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// contentPart is one element of array-form message content.
type contentPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// prompt is what a request asks the model to continue.
type prompt struct {
	// Text is the prompt as one string: the user messages' text joined
	// with "\n", or the completions prompt(s).
	Text string
	// TokenIDs holds the ids of a pre-tokenized completions prompt; when
	// non-nil, its length is the ISL and Text is the ids joined by spaces.
	TokenIDs []int
	// Context is the text of every message of a chat request (system,
	// assistant and user, joined with "\n"): the whole conversation, which
	// a real server's usage.prompt_tokens counts, where Text (AIPerf's
	// mock) keeps only the user turns for the output plan. Empty when it
	// is Text.
	Context string
}

// parsedRequest is a validated request: its options and its prompt.
type parsedRequest struct {
	completionRequest
	Prompt prompt
}

// errBadRequest marks a request the client must fix (HTTP 400).
var errBadRequest = errors.New("invalid request")

// parseRequest decodes and validates a request body for api. Every failure
// wraps errBadRequest.
func parseRequest(api apiKind, body []byte) (parsedRequest, error) {
	var r parsedRequest
	if err := json.Unmarshal(body, &r.completionRequest); err != nil {
		return r, fmt.Errorf("%w: body is not a valid JSON request: %v", errBadRequest, err)
	}
	var err error
	switch api {
	case chatAPI:
		if r.Messages == nil {
			return r, fmt.Errorf("%w: 'messages' is required", errBadRequest)
		}
		r.Prompt.Text, r.Prompt.Context, err = chatPromptText(r.Messages)
	case completionAPI:
		if len(r.completionRequest.Prompt) == 0 {
			return r, fmt.Errorf("%w: 'prompt' is required", errBadRequest)
		}
		r.Prompt, err = completionPrompt(r.completionRequest.Prompt)
	}
	if err != nil {
		return r, err
	}
	for _, f := range []struct {
		name string
		v    *int
	}{
		{"max_tokens", r.MaxTokens},
		{"max_completion_tokens", r.MaxCompletionTokens},
		{"min_tokens", r.MinTokens},
	} {
		if f.v != nil && (*f.v < 0 || *f.v > maxOutputTokens) {
			return r, fmt.Errorf("%w: '%s' must be in [0, %d], got %d", errBadRequest, f.name, maxOutputTokens, *f.v)
		}
	}
	return r, nil
}

// maxOutput is the requested output cap: max_completion_tokens, else
// max_tokens. Like AIPerf's mock (Python `a or b`), a 0 counts as unset.
func (r *parsedRequest) maxOutput() *int {
	if r.MaxCompletionTokens != nil && *r.MaxCompletionTokens > 0 {
		return r.MaxCompletionTokens
	}
	if r.MaxTokens != nil && *r.MaxTokens > 0 {
		return r.MaxTokens
	}
	return nil
}

// includeUsage reports whether a stream must end with a usage chunk.
func (r *parsedRequest) includeUsage() bool {
	return r.StreamOptions != nil && r.StreamOptions.IncludeUsage
}

// chatPromptText joins the text of the user messages with "\n". As in
// AIPerf's mock, system and assistant messages do not count toward the ISL,
// which matches the client's ISL (the user turn texts). Non-text parts of
// array content (images, audio) are skipped. context is the text of every
// message, whatever its role (the conversation a server's usage counts),
// or "" when that is user.
func chatPromptText(msgs []chatMessage) (user, context string, err error) {
	var texts, all []string
	for i, m := range msgs {
		c := bytes.TrimSpace(m.Content)
		switch {
		case len(c) == 0 || bytes.Equal(c, []byte("null")):
			continue
		case c[0] == '"':
			var s string
			if err := json.Unmarshal(c, &s); err != nil {
				return "", "", fmt.Errorf("%w: messages[%d].content: %v", errBadRequest, i, err)
			}
			all = append(all, s)
			if m.Role == "user" {
				texts = append(texts, s)
			}
		case c[0] == '[':
			var parts []contentPart
			if err := json.Unmarshal(c, &parts); err != nil {
				return "", "", fmt.Errorf("%w: messages[%d].content: %v", errBadRequest, i, err)
			}
			for _, p := range parts {
				if p.Type != "text" {
					continue
				}
				all = append(all, p.Text)
				if m.Role == "user" {
					texts = append(texts, p.Text)
				}
			}
		default:
			return "", "", fmt.Errorf("%w: messages[%d].content must be a string or an array", errBadRequest, i)
		}
	}
	if len(all) > len(texts) {
		context = strings.Join(all, "\n")
	}
	return strings.Join(texts, "\n"), context, nil
}

// completionPrompt decodes a completions prompt: a string, an array of
// strings (joined with "\n", empty ones skipped, as AIPerf's mock does), or
// token ids (an array of integers or of integer arrays, flattened).
func completionPrompt(raw json.RawMessage) (prompt, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return prompt{Text: s}, nil
	}
	var strs []string
	if err := json.Unmarshal(raw, &strs); err == nil {
		kept := strs[:0:0]
		for _, p := range strs {
			if p != "" {
				kept = append(kept, p)
			}
		}
		return prompt{Text: strings.Join(kept, "\n")}, nil
	}
	var ids []int
	if err := json.Unmarshal(raw, &ids); err != nil {
		var nested [][]int
		if err := json.Unmarshal(raw, &nested); err != nil {
			return prompt{}, fmt.Errorf("%w: 'prompt' must be a string, an array of strings or token ids", errBadRequest)
		}
		ids = []int{}
		for _, n := range nested {
			ids = append(ids, n...)
		}
	}
	if ids == nil {
		ids = []int{}
	}
	text := make([]string, len(ids))
	for i, id := range ids {
		text[i] = strconv.Itoa(id)
	}
	return prompt{Text: strings.Join(text, " "), TokenIDs: ids}, nil
}
