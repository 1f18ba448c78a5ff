package config

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Redacted replaces a secret wherever a Config is written or echoed.
const Redacted = "<redacted>"

// Secret is a credential. Its String and JSON forms are Redacted (or empty
// when unset), so a secret cannot leak into an artifact or a log by
// accident; read it with string(s) where the real value is needed.
type Secret string

// String returns Redacted for a non-empty secret.
func (s Secret) String() string {
	if s == "" {
		return ""
	}
	return Redacted
}

// MarshalJSON writes Redacted for a non-empty secret.
func (s Secret) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// Header is one custom HTTP header (-H Name:Value).
type Header struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// MarshalJSON writes the header with its value redacted when the name looks
// credential-bearing (see IsSensitiveHeader).
func (h Header) MarshalJSON() ([]byte, error) {
	v := h.Value
	if IsSensitiveHeader(h.Name) {
		v = Redacted
	}
	return json.Marshal(struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	}{h.Name, v})
}

// sensitiveHeaderFragments are substrings of header names that carry
// credentials. Matching by fragment rather than by a fixed list is
// deliberately fail-safe: over-redacting a benign header costs readability,
// under-redacting leaks a credential into artifacts.
var sensitiveHeaderFragments = [...]string{
	"auth", "token", "key", "secret", "password", "passwd", "credential",
	"cookie", "session", "signature",
}

// IsSensitiveHeader reports whether a header's value should be redacted:
// its lower-cased name contains "auth", "token", "key", "secret",
// "password", "passwd", "credential", "cookie", "session" or "signature"
// (Authorization, X-API-Key, Api-Key, X-Auth-Token, Cookie, ...).
func IsSensitiveHeader(name string) bool {
	lower := strings.ToLower(name)
	for _, f := range sensitiveHeaderFragments {
		if strings.Contains(lower, f) {
			return true
		}
	}
	return false
}

// ExtraInput is one --extra-inputs entry: a request body field and its
// value as compact, valid JSON.
type ExtraInput struct {
	Key   string          `json:"key"`
	Value json.RawMessage `json:"value"`
}

// IsSensitiveField reports whether a request body field (an
// --extra-inputs key) holds a credential: its lower-cased name contains
// "key", "secret", "password", "passwd", "credential", "auth", "cookie" or
// "signature", or "token" but not "tokens" (api_key, access_token and
// client_secret are; max_tokens and min_tokens are not).
func IsSensitiveField(name string) bool {
	lower := strings.ToLower(name)
	for _, f := range [...]string{"key", "secret", "password", "passwd", "credential", "auth", "cookie", "signature"} {
		if strings.Contains(lower, f) {
			return true
		}
	}
	return strings.Contains(lower, "token") && !strings.Contains(lower, "tokens")
}

// MarshalJSON writes the entry with the value of a sensitive field (see
// IsSensitiveField) as "<redacted>", so a key passed in the body never
// reaches an artifact.
func (x ExtraInput) MarshalJSON() ([]byte, error) {
	v := x.Value
	if IsSensitiveField(x.Key) {
		v = json.RawMessage(`"` + Redacted + `"`)
	}
	return json.Marshal(struct {
		Key   string          `json:"key"`
		Value json.RawMessage `json:"value"`
	}{x.Key, v})
}

// Seconds is a duration in seconds that may be +Inf ("wait forever").
// JSON cannot carry infinities, so +Inf marshals as the string "inf" and
// both forms unmarshal; NaN and -Inf are refused.
type Seconds float64

// MarshalJSON writes finite values as numbers and +Inf as "inf".
func (s Seconds) MarshalJSON() ([]byte, error) {
	f := float64(s)
	switch {
	case math.IsInf(f, 1):
		return []byte(`"inf"`), nil
	case math.IsNaN(f) || math.IsInf(f, -1):
		return nil, fmt.Errorf("seconds: %v cannot be written as JSON", f)
	}
	return strconv.AppendFloat(nil, f, 'g', -1, 64), nil
}

// UnmarshalJSON reads a number, "inf" or "infinity".
func (s *Seconds) UnmarshalJSON(b []byte) error {
	var str string
	if err := json.Unmarshal(b, &str); err == nil {
		f, err := ParseSeconds(str, true)
		if err != nil {
			return err
		}
		*s = Seconds(f)
		return nil
	}
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return fmt.Errorf("seconds: want a number or \"inf\": %w", err)
	}
	*s = Seconds(f)
	return nil
}
