package config

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/url"
	"slices"
	"strings"
)

// RedactURL replaces the userinfo of a URL ("user:pass@") with
// "<redacted>@" so that a password in --url never reaches an artifact, a
// log or an error message. It works on the text, so a URL that does not
// parse is redacted too; one without userinfo is returned unchanged.
func RedactURL(u string) string {
	scheme, rest := "", u
	if k := strings.Index(u, "://"); k >= 0 {
		scheme, rest = u[:k+3], u[k+3:]
	}
	host := rest
	if k := strings.IndexAny(rest, "/?#"); k >= 0 {
		host = rest[:k]
	}
	at := strings.LastIndex(host, "@")
	if at < 0 {
		return u
	}
	return scheme + Redacted + rest[at:]
}

// RedactURLs applies RedactURL to each of us, in a new slice.
func RedactURLs(us []string) []string {
	out := make([]string, len(us))
	for i, u := range us {
		out[i] = RedactURL(u)
	}
	return out
}

// urlProblem is why u did not parse, without u itself: url.Parse's error
// repeats the whole URL, password included.
func urlProblem(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// showable reports whether a flag value may be echoed in an error message:
// not when it mentions anything credential-like (see IsSensitiveHeader).
func showable(v string) bool { return !IsSensitiveHeader(v) }

// MinSecretLen is the shortest credential scrubbed from free text (server
// replies, serialised configurations): shorter values would redact
// ordinary words.
const MinSecretLen = 4

// Secrets lists the run's credentials as they may appear in text: the API
// key, the values of credential-bearing headers (and the token after
// "Bearer "), credential-like --extra-inputs fields, and the userinfo of
// every URL (the endpoint's, the OTel collector's, the MLflow server's).
// Values shorter than MinSecretLen are left out.
func (c *Config) Secrets() []string {
	var out []string
	add := func(s string) {
		if s = strings.TrimSpace(s); len(s) >= MinSecretLen && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	add(string(c.Endpoint.APIKey))
	for _, h := range c.Input.Headers {
		if IsSensitiveHeader(h.Name) {
			add(h.Value)
			if _, tok, ok := strings.Cut(h.Value, " "); ok { // "Bearer <token>"
				add(tok)
			}
		}
	}
	for _, x := range c.Input.Extra {
		if IsSensitiveField(x.Key) {
			add(strings.Trim(string(x.Value), `"`))
		}
	}
	urls := append(slices.Clone(c.Endpoint.URLs), string(c.Integrations.OTel.URL), string(c.Integrations.MLflow.TrackingURI))
	for _, u := range urls {
		if p, err := url.Parse(u); err == nil && p.User != nil {
			add(p.User.String())
			pw, ok := p.User.Password()
			if ok {
				add(pw)
			}
			// The Basic credential the client sends for it, which a
			// server may echo.
			add(base64.StdEncoding.EncodeToString([]byte(p.User.Username() + ":" + pw)))
		}
	}
	// Longest first, so a token is replaced whole before a part of it.
	slices.SortStableFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out
}

// Scrub replaces every secret in s with Redacted.
func Scrub(s string, secrets []string) string {
	for _, x := range secrets {
		s = strings.ReplaceAll(s, x, Redacted)
	}
	return s
}

// RedactedJSON is the configuration as JSON with every credential
// redacted: the typed secrets by their own MarshalJSON, and any other
// occurrence of a credential (a URL's userinfo) scrubbed from the text.
// This is what the HTTP API serves and the integrations upload.
func (c *Config) RedactedJSON() ([]byte, error) {
	b, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	return []byte(Scrub(string(b), c.Secrets())), nil
}
