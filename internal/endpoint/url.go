package endpoint

import (
	"net/url"
	"strings"
)

// JoinURL appends an endpoint path to a server's base URL as AIPerf's HTTP
// transport does: the join happens on the URL's path only (a query string
// or fragment in the base URL is kept), and an overlap between the two is
// collapsed rather than doubled:
//
//   - an empty path leaves the base URL as it is (raw and template
//     endpoints, which have none);
//   - a base whose path already ends with the whole endpoint path (the
//     user gave the full address) is kept;
//   - a base ending in /v1 drops the endpoint path's leading v1/, so
//     http://h/v1 + /v1/chat/completions is http://h/v1/chat/completions.
//
// A base without a scheme gets http://.
func JoinURL(base, path string) string {
	if !strings.Contains(strings.ToLower(base), "://") {
		base = "http://" + base
	}
	u, err := url.Parse(base)
	if err != nil {
		// Validation rejects malformed URLs before a plan is made; join
		// textually so the transport reports the problem per request.
		return strings.TrimRight(base, "/") + "/" + strings.TrimLeft(path, "/")
	}
	sub := strings.TrimLeft(path, "/")
	basePath := strings.TrimRight(u.EscapedPath(), "/")
	switch {
	case sub == "":
	case strings.HasSuffix(basePath, "/"+sub):
	default:
		if strings.HasSuffix(basePath, "/v1") {
			sub = strings.TrimPrefix(sub, "v1/")
		}
		basePath += "/" + sub
	}
	if basePath == "" && u.RawQuery == "" && u.Fragment == "" {
		return u.Scheme + "://" + u.Host
	}
	joined := *u
	if err := setEscapedPath(&joined, basePath); err != nil {
		return strings.TrimRight(base, "/") + "/" + sub
	}
	return joined.String()
}

func setEscapedPath(u *url.URL, p string) error {
	unescaped, err := url.PathUnescape(p)
	if err != nil {
		return err
	}
	u.Path, u.RawPath = unescaped, p
	if u.EscapedPath() != p {
		u.RawPath = ""
	}
	return nil
}
