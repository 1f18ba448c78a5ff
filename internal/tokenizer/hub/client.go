// Package hub downloads files of HuggingFace hub model repositories into
// the standard hub cache and finds them there again, offline.
//
// The cache layout is the one huggingface_hub (and so transformers, vLLM
// and AIPerf) uses, so a cache filled by `huggingface-cli download` serves
// this package and the other way round:
//
//	<cache>/models--<org>--<name>/
//	    blobs/<etag>                         file contents, named by ETag
//	    snapshots/<commit>/<filename>        relative symlink to ../../blobs/<etag>
//	    refs/<revision>                      commit hash of a branch or tag
//	    .no_exist/<commit>/<filename>        empty marker: the file is absent
//
// The package uses only the standard library.
package hub

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/aiperf-go/aiperf/internal/environ"
)

// DefaultEndpoint is the hub's address when HF_ENDPOINT is not set.
const DefaultEndpoint = "https://huggingface.co"

// DefaultRevision is the revision used when none is given.
const DefaultRevision = "main"

// Client reads from and writes to one hub cache, fetching from one hub
// endpoint. The zero value is not usable; build one with FromEnv or fill
// in Endpoint and CacheDir. A Client is safe for concurrent use, and
// several processes may share a cache: every file is written to a
// temporary name and renamed into place.
type Client struct {
	// Endpoint is the hub's base URL, without a trailing slash.
	Endpoint string
	// CacheDir is the hub cache directory (the one holding models--*).
	CacheDir string
	// Token, when set, is sent as "Authorization: Bearer <token>" to the
	// hub (never to a CDN it redirects to). It appears in no error text
	// and no log.
	Token string
	// TokenFrom names where Token came from ("HF_TOKEN", a token file),
	// for error messages.
	TokenFrom string
	// Offline forbids all network access: files come from the cache or
	// not at all (HF_HUB_OFFLINE).
	Offline bool
	// HTTP makes the requests; nil means a client with sane timeouts.
	// Its redirect policy is not used: redirects are followed here, so
	// that the token never leaves the hub.
	HTTP *http.Client

	// symlink creates snapshot pointers; nil means os.Symlink. Tests
	// replace it to exercise the copy fallback.
	symlink func(oldname, newname string) error
}

// FromEnv builds a Client from the HuggingFace environment variables, read
// through getenv (nil means environ.Getenv), with huggingface_hub's precedence:
//
//   - cache: HF_HUB_CACHE, else HUGGINGFACE_HUB_CACHE, else $HF_HOME/hub,
//     else $XDG_CACHE_HOME/huggingface/hub, else ~/.cache/huggingface/hub
//     ("~" and $VARS are expanded);
//   - endpoint: HF_ENDPOINT, else DefaultEndpoint;
//   - token: HF_TOKEN, else HUGGING_FACE_HUB_TOKEN, else the file at
//     HF_TOKEN_PATH, else $HF_HOME/token (written by `huggingface-cli
//     login`);
//   - offline: HF_HUB_OFFLINE (or, when empty, TRANSFORMERS_OFFLINE) is
//     1, ON, YES or TRUE, in any case.
//
// httpClient is stored as HTTP; nil means a new client with sane
// timeouts.
func FromEnv(getenv func(string) string, httpClient *http.Client) *Client {
	if getenv == nil {
		getenv = environ.Getenv
	}
	if httpClient == nil {
		httpClient = defaultHTTPClient()
	}
	c := &Client{HTTP: httpClient}
	c.Endpoint = strings.TrimRight(getenv("HF_ENDPOINT"), "/")
	if c.Endpoint == "" {
		c.Endpoint = DefaultEndpoint
	}

	expand := func(p string) string { return expandPath(p, getenv) }
	home := expand(getenv("HF_HOME"))
	if home == "" {
		xdg := expand(getenv("XDG_CACHE_HOME"))
		if xdg == "" {
			xdg = filepath.Join(userHome(getenv), ".cache")
		}
		home = filepath.Join(xdg, "huggingface")
	}
	c.CacheDir = firstNonEmpty(expand(getenv("HF_HUB_CACHE")), expand(getenv("HUGGINGFACE_HUB_CACHE")), filepath.Join(home, "hub"))

	switch {
	case cleanToken(getenv("HF_TOKEN")) != "":
		c.Token, c.TokenFrom = cleanToken(getenv("HF_TOKEN")), "HF_TOKEN"
	case cleanToken(getenv("HUGGING_FACE_HUB_TOKEN")) != "":
		c.Token, c.TokenFrom = cleanToken(getenv("HUGGING_FACE_HUB_TOKEN")), "HUGGING_FACE_HUB_TOKEN"
	default:
		path := firstNonEmpty(expand(getenv("HF_TOKEN_PATH")), filepath.Join(home, "token"))
		if data, err := os.ReadFile(path); err == nil && cleanToken(string(data)) != "" {
			c.Token, c.TokenFrom = cleanToken(string(data)), "the token file "+path
		}
	}

	offline := getenv("HF_HUB_OFFLINE")
	if offline == "" {
		offline = getenv("TRANSFORMERS_OFFLINE")
	}
	c.Offline = IsTrue(offline)
	return c
}

// IsTrue reports whether an environment value means "on", as
// huggingface_hub reads its boolean variables: 1, ON, YES or TRUE, in any
// case. Anything else, "0" and "" included, is false.
func IsTrue(v string) bool {
	switch strings.ToUpper(v) {
	case "1", "ON", "YES", "TRUE":
		return true
	}
	return false
}

// cleanToken drops line breaks and surrounding spaces, as huggingface_hub
// does; an empty result means "no token".
func cleanToken(t string) string {
	return strings.TrimSpace(strings.NewReplacer("\r", "", "\n", "").Replace(t))
}

// expandPath expands a leading "~" and $VARS in p, as os.path.expanduser
// and os.path.expandvars do. Unknown variables expand to "".
func expandPath(p string, getenv func(string) string) string {
	if p == "" {
		return ""
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		p = userHome(getenv) + p[1:]
	}
	return os.Expand(p, getenv)
}

// userHome is $HOME, else the operating system's idea of it, else ".".
func userHome(getenv func(string) string) string {
	if h := getenv("HOME"); h != "" {
		return h
	}
	if h, err := os.UserHomeDir(); err == nil {
		return h
	}
	return "."
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// Timeouts for hub requests. The metadata request is short, as
// huggingface_hub's 10 s ETag timeout, so that a dead network falls back
// to the cache quickly; a download may take longer but must keep moving.
const (
	metadataTimeout = 10 * time.Second
	downloadTimeout = 10 * time.Minute
	headerTimeout   = 30 * time.Second
)

// httpClient returns the client to send requests with: a shallow copy of
// c.HTTP (or a default one) that never follows redirects by itself.
func (c *Client) httpClient() *http.Client {
	base := c.HTTP
	if base == nil {
		base = defaultHTTPClient()
	}
	hc := *base
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &hc
}

// defaultHTTPClient is a client whose transport gives up on a server that
// accepts the connection but never answers.
func defaultHTTPClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.ResponseHeaderTimeout = headerTimeout
	return &http.Client{Transport: t}
}
