package config

import (
	"errors"
	"net/url"
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
