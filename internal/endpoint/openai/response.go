package openai

import (
	"bytes"
	"errors"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/aiperf-go/aiperf/internal/record"
)

// decodeOptions make response decoding tolerant of server quirks that do
// not change the meaning: invalid UTF-8 (replaced) and duplicate names
// (last wins). Unknown members are ignored by default.
var decodeOptions = json.JoinOptions(
	jsontext.AllowInvalidUTF8(true),
	jsontext.AllowDuplicateNames(true),
)

var errNotObject = errors.New("not a JSON object")

// withoutOffsets returns err with the byte offsets of JSON syntax and
// semantic errors cleared, so that their messages leave them out. A
// response broken the same way at a different length (a body cut short,
// say) then gives the same message, and the run's error_summary, which
// groups by message as AIPerf does, keeps one row per kind of failure
// instead of one per request. The JSON pointer, which says where, stays.
func withoutOffsets(err error) error {
	switch e := err.(type) {
	case *jsontext.SyntacticError:
		c := *e
		c.ByteOffset = 0
		return &c
	case *json.SemanticError:
		c := *e
		c.ByteOffset = 0
		c.Err = withoutOffsets(c.Err)
		return &c
	}
	return err
}

// decodeEvent decodes one response body or SSE data payload into v, the
// steps every endpoint's ParseResponse shares: surrounding whitespace is
// ignored, the OpenAI stream terminator "[DONE]" is reported as done (v
// untouched), anything but a JSON object is rejected up front (so the error
// says what is wrong rather than how a struct failed to decode), and
// decoding errors lose their byte offsets (see withoutOffsets).
func decodeEvent(data []byte, v any) (done bool, err error) {
	data = bytes.TrimSpace(data)
	if string(data) == "[DONE]" {
		return true, nil
	}
	if len(data) == 0 || data[0] != '{' {
		return false, errNotObject
	}
	if err := json.Unmarshal(data, v, decodeOptions); err != nil {
		return false, withoutOffsets(err)
	}
	return false, nil
}

// objectType is the response's "object" member, decoded without
// allocating: only the values the endpoints branch on are recognised.
type objectType uint8

const (
	objOther objectType = iota
	objChatCompletion
	objChatChunk
	objCompletion // "completion" or "text_completion"
	objError
)

// UnmarshalJSONFrom implements json.UnmarshalerFrom.
func (o *objectType) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	v, err := dec.ReadValue()
	if err != nil {
		return err
	}
	switch string(v) {
	case `"chat.completion"`:
		*o = objChatCompletion
	case `"chat.completion.chunk"`:
		*o = objChatChunk
	case `"completion"`, `"text_completion"`:
		*o = objCompletion
	case `"error"`:
		*o = objError
	default:
		*o = objOther
	}
	return nil
}

// common holds the members every OpenAI response may carry: usage, an
// in-band error object, and the flat error shape vLLM and SGLang use
// ({"object":"error","message":..,"type":..,"code":..}).
type common struct {
	Usage   usage         `json:"usage"`
	Error   errorObject   `json:"error"`
	Message lenientString `json:"message"`
	Type    lenientString `json:"type"`
	Code    errorCode     `json:"code"`
}

// parsed converts the common members of a response whose object type is
// obj; the caller fills content.
func (c *common) parsed(obj objectType) record.Parsed {
	var p record.Parsed
	if c.Usage.present {
		u := c.Usage.u
		p.Usage = &record.Usage{
			PromptTokens:       u.PromptTokens.count(),
			CompletionTokens:   u.CompletionTokens.count(),
			TotalTokens:        u.TotalTokens.count(),
			ReasoningTokens:    u.CompletionTokensDetails.ReasoningTokens.count(),
			CachedPromptTokens: u.PromptTokensDetails.CachedTokens.count(),
		}
	}
	if c.Error.present {
		p.Error = errorDetails(c.Error.Code.n, c.Error.Type.s, c.Error.Message.s)
	} else if obj == objError {
		p.Error = errorDetails(c.Code.n, c.Type.s, c.Message.s)
	}
	return p
}

func errorDetails(code int, typ, msg string) *record.ErrorDetails {
	if typ == "" {
		typ = record.TypeServerReported
	}
	return &record.ErrorDetails{Code: code, Type: typ, Message: msg}
}

// usage is the "usage" member. present is set for a non-empty object only:
// AIPerf takes `usage or None`, so {} and null are no usage.
type usage struct {
	u       usageFields
	present bool
}

type usageFields struct {
	PromptTokens            optInt `json:"prompt_tokens"`
	CompletionTokens        optInt `json:"completion_tokens"`
	TotalTokens             optInt `json:"total_tokens"`
	CompletionTokensDetails struct {
		ReasoningTokens optInt `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
	PromptTokensDetails struct {
		CachedTokens optInt `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
}

// UnmarshalJSONFrom implements json.UnmarshalerFrom.
func (u *usage) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	if dec.PeekKind() != '{' {
		return dec.SkipValue()
	}
	v, err := dec.ReadValue()
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(v[1:len(v)-1])) == 0 {
		return nil
	}
	u.present = true
	return json.Unmarshal(v, &u.u, decodeOptions)
}

// optInt is a token count that may be absent or null. A number with a
// fraction or exponent (some servers send 12.0) is truncated; any other
// JSON type counts as absent.
type optInt struct {
	n  int64
	ok bool
}

func (o optInt) count() record.Count { return record.Count{N: o.n, OK: o.ok} }

// UnmarshalJSONFrom implements json.UnmarshalerFrom.
func (o *optInt) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	if dec.PeekKind() != '0' {
		return dec.SkipValue()
	}
	v, err := dec.ReadValue()
	if err != nil {
		return err
	}
	o.n, o.ok = parseCount(v)
	return nil
}

func parseCount(v []byte) (int64, bool) {
	if n, err := strconv.ParseInt(string(v), 10, 64); err == nil {
		return n, true
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > math.MaxInt64/2 {
		return 0, false
	}
	return int64(f), true
}

// lenientString is a string member that tolerates other JSON types (a
// multimodal content array, a number) by treating them as absent, the way
// AIPerf ignores content it cannot use.
type lenientString struct {
	s string
}

// UnmarshalJSONFrom implements json.UnmarshalerFrom.
func (l *lenientString) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	if dec.PeekKind() != '"' {
		return dec.SkipValue()
	}
	v, err := dec.ReadValue()
	if err != nil {
		return err
	}
	l.s = unquote(v)
	return nil
}

// unquote decodes a JSON string literal, allocating once for the result.
func unquote(v jsontext.Value) string {
	inner := v[1 : len(v)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner)
	}
	out, _ := jsontext.AppendUnquote(make([]byte, 0, len(inner)), v) // invalid UTF-8 -> U+FFFD
	return string(out)
}

// errorCode is an error's code: a number, or a numeric string; other values
// (OpenAI's "context_length_exceeded") leave it 0.
type errorCode struct {
	n int
}

// UnmarshalJSONFrom implements json.UnmarshalerFrom.
func (c *errorCode) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	switch dec.PeekKind() {
	case '0':
		v, err := dec.ReadValue()
		if err != nil {
			return err
		}
		n, _ := parseCount(v)
		c.n = int(n)
		return nil
	case '"':
		var s lenientString
		if err := s.UnmarshalJSONFrom(dec); err != nil {
			return err
		}
		n, _ := strconv.Atoi(s.s)
		c.n = n
		return nil
	}
	return dec.SkipValue()
}

// errorObject is the "error" member: an object {message, type, code} or a
// bare string message. null is no error.
type errorObject struct {
	Message lenientString `json:"message"`
	Type    lenientString `json:"type"`
	Code    errorCode     `json:"code"`
	present bool
}

// UnmarshalJSONFrom implements json.UnmarshalerFrom.
func (e *errorObject) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	switch dec.PeekKind() {
	case '{':
		e.present = true
		type plain errorObject // without the method, to decode the fields
		return json.UnmarshalDecode(dec, (*plain)(e), decodeOptions)
	case '"':
		e.present = true
		return e.Message.UnmarshalJSONFrom(dec)
	case 'n':
		return dec.SkipValue()
	}
	// Any other value still says something went wrong.
	v, err := dec.ReadValue()
	if err != nil {
		return err
	}
	e.present = true
	e.Message.s = string(v)
	return nil
}

// chatChoices keeps choices[0] only, as AIPerf reads no other choice, and
// skips the rest without decoding them.
type chatChoices struct {
	first chatChoice
}

// UnmarshalJSONFrom implements json.UnmarshalerFrom.
func (c *chatChoices) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return firstElement(dec, &c.first)
}

// completionChoices keeps choices[0] only.
type completionChoices struct {
	first completionChoice
}

// UnmarshalJSONFrom implements json.UnmarshalerFrom.
func (c *completionChoices) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return firstElement(dec, &c.first)
}

// firstElement decodes the first element of an array into first and skips
// the others. null or an empty array leave first zero; a non-object first
// element is an error, as it would crash AIPerf's parser.
func firstElement[T any](dec *jsontext.Decoder, first *T) error {
	if dec.PeekKind() != '[' {
		return dec.SkipValue()
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	for i := 0; dec.PeekKind() != ']'; i++ {
		var err error
		if i == 0 {
			err = json.UnmarshalDecode(dec, first, decodeOptions)
		} else {
			err = dec.SkipValue()
		}
		if err != nil {
			return err
		}
	}
	_, err := dec.ReadToken()
	return err
}

// toolCallText is a tool_calls array reduced to what AIPerf counts as
// output: every call's function name then arguments, concatenated.
type toolCallText struct {
	text string
}

// UnmarshalJSONFrom implements json.UnmarshalerFrom.
func (t *toolCallText) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	if dec.PeekKind() != '[' {
		return dec.SkipValue()
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	for dec.PeekKind() != ']' {
		var call struct {
			Function struct {
				Name      lenientString `json:"name"`
				Arguments lenientString `json:"arguments"`
			} `json:"function"`
		}
		if err := json.UnmarshalDecode(dec, &call, decodeOptions); err != nil {
			return err
		}
		t.text += call.Function.Name.s + call.Function.Arguments.s
	}
	_, err := dec.ReadToken()
	return err
}
