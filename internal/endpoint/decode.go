package endpoint

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

// DecodeOptions make response decoding tolerant of server quirks that do
// not change the meaning: invalid UTF-8 (replaced) and duplicate names
// (last wins). Unknown members are ignored by default.
var DecodeOptions = json.JoinOptions(
	jsontext.AllowInvalidUTF8(true),
	jsontext.AllowDuplicateNames(true),
)

var errNotObject = errors.New("not a JSON object")

// ErrNotObject is returned for a response that is not a JSON object where
// the API promises one.
var ErrNotObject = errNotObject

// WithoutOffsets returns err with the byte offsets of JSON syntax and
// semantic errors cleared, so that their messages leave them out. A
// response broken the same way at a different length (a body cut short,
// say) then gives the same message, and the run's error_summary, which
// groups by message as AIPerf does, keeps one row per kind of failure
// instead of one per request. The JSON pointer, which says where, stays.
func WithoutOffsets(err error) error {
	switch e := err.(type) {
	case *jsontext.SyntacticError:
		c := *e
		c.ByteOffset = 0
		return &c
	case *json.SemanticError:
		c := *e
		c.ByteOffset = 0
		c.Err = WithoutOffsets(c.Err)
		return &c
	}
	return err
}

// DecodeEvent decodes one response body or SSE data payload into v, the
// steps every ParseResponse shares: surrounding whitespace is ignored, the
// OpenAI stream terminator "[DONE]" is reported as done (v untouched),
// anything but a JSON object is rejected up front (so the error says what
// is wrong rather than how a struct failed to decode), and decoding errors
// lose their byte offsets (see WithoutOffsets).
func DecodeEvent(data []byte, v any) (done bool, err error) {
	data = bytes.TrimSpace(data)
	if string(data) == "[DONE]" {
		return true, nil
	}
	if len(data) == 0 || data[0] != '{' {
		return false, errNotObject
	}
	if err := json.Unmarshal(data, v, DecodeOptions); err != nil {
		return false, WithoutOffsets(err)
	}
	return false, nil
}

// DecodeValue decodes any JSON value (an object or, for APIs that answer
// with one, an array) into v, with DecodeEvent's tolerance and error
// messages.
func DecodeValue(data []byte, v any) error {
	if err := json.Unmarshal(bytes.TrimSpace(data), v, DecodeOptions); err != nil {
		return WithoutOffsets(err)
	}
	return nil
}

// String is a string member that tolerates other JSON types (a multimodal
// content array, a number) by treating them as absent, the way AIPerf
// ignores content it cannot use.
type String struct {
	S string
}

// UnmarshalJSONFrom implements json.UnmarshalerFrom.
func (l *String) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	if dec.PeekKind() != '"' {
		return dec.SkipValue()
	}
	v, err := dec.ReadValue()
	if err != nil {
		return err
	}
	l.S = Unquote(v)
	return nil
}

// Unquote decodes a JSON string literal, allocating once for the result.
func Unquote(v jsontext.Value) string {
	inner := v[1 : len(v)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner)
	}
	out, _ := jsontext.AppendUnquote(make([]byte, 0, len(inner)), v) // invalid UTF-8 -> U+FFFD
	return string(out)
}

// Int is a count that may be absent or null. A number with a fraction or
// exponent (some servers send 12.0) is truncated; any other JSON type
// counts as absent. Present reports that the member was there at all,
// whatever its value, which is what AIPerf's "first key present wins"
// lookups go by.
type Int struct {
	N       int64
	OK      bool
	Present bool
}

// Count converts i to a record.Count.
func (i Int) Count() record.Count { return record.Count{N: i.N, OK: i.OK} }

// UnmarshalJSONFrom implements json.UnmarshalerFrom.
func (i *Int) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	i.Present = true
	if dec.PeekKind() != '0' {
		return dec.SkipValue()
	}
	v, err := dec.ReadValue()
	if err != nil {
		return err
	}
	i.N, i.OK = ParseCount(v)
	return nil
}

// Float is a number that may be absent or null.
type Float struct {
	V  float64
	OK bool
}

// UnmarshalJSONFrom implements json.UnmarshalerFrom.
func (f *Float) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	if dec.PeekKind() != '0' {
		return dec.SkipValue()
	}
	v, err := dec.ReadValue()
	if err != nil {
		return err
	}
	x, err := strconv.ParseFloat(string(v), 64)
	if err == nil && !math.IsNaN(x) && !math.IsInf(x, 0) {
		f.V, f.OK = x, true
	}
	return nil
}

// ParseCount reads a JSON number as a count: integers exactly, other
// finite numbers truncated.
func ParseCount(v []byte) (int64, bool) {
	if n, err := strconv.ParseInt(string(v), 10, 64); err == nil {
		return n, true
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > math.MaxInt64/2 {
		return 0, false
	}
	return int64(f), true
}

// ErrorCode is an error's code: a number, or a numeric string; other values
// (OpenAI's "context_length_exceeded") leave it 0.
type ErrorCode struct {
	N int
}

// UnmarshalJSONFrom implements json.UnmarshalerFrom.
func (c *ErrorCode) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	switch dec.PeekKind() {
	case '0':
		v, err := dec.ReadValue()
		if err != nil {
			return err
		}
		n, _ := ParseCount(v)
		c.N = int(n)
		return nil
	case '"':
		var s String
		if err := s.UnmarshalJSONFrom(dec); err != nil {
			return err
		}
		n, _ := strconv.Atoi(s.S)
		c.N = n
		return nil
	}
	return dec.SkipValue()
}

// ErrorObject is an "error" member: an object {message, type, code} or a
// bare string message. null is no error.
type ErrorObject struct {
	Message String    `json:"message"`
	Type    String    `json:"type"`
	Code    ErrorCode `json:"code"`
	Present bool      `json:"-"`
}

// UnmarshalJSONFrom implements json.UnmarshalerFrom.
func (e *ErrorObject) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	switch dec.PeekKind() {
	case '{':
		e.Present = true
		type plain ErrorObject // without the method, to decode the fields
		return json.UnmarshalDecode(dec, (*plain)(e), DecodeOptions)
	case '"':
		e.Present = true
		return e.Message.UnmarshalJSONFrom(dec)
	case 'n':
		return dec.SkipValue()
	}
	// Any other value still says something went wrong.
	v, err := dec.ReadValue()
	if err != nil {
		return err
	}
	e.Present = true
	e.Message.S = string(v)
	return nil
}

// Details converts the error to the record's error, typed as a server
// report when the server named no type.
func (e *ErrorObject) Details() *record.ErrorDetails {
	return ErrorDetails(e.Code.N, e.Type.S, e.Message.S)
}

// ErrorDetails builds an in-band error, typed as a server report when typ
// is empty.
func ErrorDetails(code int, typ, msg string) *record.ErrorDetails {
	if typ == "" {
		typ = record.TypeServerReported
	}
	return &record.ErrorDetails{Code: code, Type: typ, Message: msg}
}

// Envelope holds the members any OpenAI-compatible response may carry:
// usage, an in-band error object, and the members of the flat error shape
// vLLM and SGLang use ({"object":"error","message":..,"type":..,"code":..}).
// Endpoints embed it inline in their response types and decode "object"
// themselves.
type Envelope struct {
	Usage   Usage       `json:"usage"`
	Error   ErrorObject `json:"error"`
	Message String      `json:"message"`
	Type    String      `json:"type"`
	Code    ErrorCode   `json:"code"`
}

// Parsed converts the envelope's usage and error; flatError says the
// response's object was "error", so its message, type and code are the
// error. The caller fills the content.
func (e *Envelope) Parsed(flatError bool) record.Parsed {
	var p record.Parsed
	p.Usage = e.Usage.Record()
	switch {
	case e.Error.Present:
		p.Error = e.Error.Details()
	case flatError:
		p.Error = ErrorDetails(e.Code.N, e.Type.S, e.Message.S)
	}
	return p
}

// FirstElement decodes the first element of an array into first and skips
// the others. null or an empty array leave first zero; a non-object first
// element is an error, as it would crash AIPerf's parser.
func FirstElement[T any](dec *jsontext.Decoder, first *T) error {
	if dec.PeekKind() != '[' {
		return dec.SkipValue()
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	for i := 0; dec.PeekKind() != ']'; i++ {
		var err error
		if i == 0 {
			err = json.UnmarshalDecode(dec, first, DecodeOptions)
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

// Present records whether a member is there with a non-empty value
// (AIPerf's truthiness: not null, false, 0, "", [] or {}), without
// decoding it.
type Present struct {
	Set bool
}

// UnmarshalJSONFrom implements json.UnmarshalerFrom.
func (p *Present) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	v, err := dec.ReadValue()
	if err != nil {
		return err
	}
	p.Set, _ = Truthy(v)
	return nil
}

func trimSpace(b []byte) []byte { return bytes.TrimSpace(b) }

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
