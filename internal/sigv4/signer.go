// Package sigv4 signs HTTP requests with AWS Signature Version 4 and finds
// the credentials to sign them with (the standard chain: environment,
// shared config and credentials files, credential_process, the container
// credentials endpoint).
//
// Signing happens at send time, once per attempt: a signature embeds
// X-Amz-Date and AWS rejects it outside a five-minute window, so a request
// built long before it is sent (a paced schedule, a retry) must not carry
// an old one.
package sigv4

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Algorithm is the signing algorithm named in every Authorization header.
const Algorithm = "AWS4-HMAC-SHA256"

// UnsignedPayload is the payload hash of a request whose body is not
// signed (S3 accepts it over TLS; SageMaker does not).
const UnsignedPayload = "UNSIGNED-PAYLOAD"

// amzDate is the X-Amz-Date layout (ISO 8601 basic, UTC).
const amzDate = "20060102T150405Z"

// Signer signs requests for one region and service with the credentials
// its Credentials source returns at each signing. It is safe for
// concurrent use.
type Signer struct {
	// Region and Service form the credential scope
	// (<date>/<region>/<service>/aws4_request).
	Region, Service string
	// Credentials returns the credentials of each signing; a cached chain
	// (NewCache) refreshes them before they expire.
	Credentials Provider
	// Now is the signing clock; nil is time.Now.
	Now func() time.Time
	// UnsignedPayload signs UNSIGNED-PAYLOAD instead of the body's hash.
	UnsignedPayload bool
	// ContentSHA256 sends the payload hash as X-Amz-Content-Sha256 (and
	// signs it), which S3 requires.
	ContentSHA256 bool
	// DisableURIPathEscaping signs the path as sent instead of escaping it
	// once more: S3's rule. Every other service escapes it twice.
	DisableURIPathEscaping bool

	keys sync.Map // scope key -> derived signing key (keyCache)
}

// ignoredHeaders are never signed: proxies and clients rewrite them
// (User-Agent, Expect, Transfer-Encoding), tracing systems add one
// (X-Amzn-Trace-Id), and Authorization carries the signature itself.
// The AWS SDKs ignore the same five.
var ignoredHeaders = map[string]bool{
	"authorization": true, "user-agent": true, "x-amzn-trace-id": true,
	"expect": true, "transfer-encoding": true,
}

// Sign adds X-Amz-Date, X-Amz-Security-Token (temporary credentials),
// X-Amz-Content-Sha256 (when ContentSHA256) and Authorization to h for a
// request of method to rawURL carrying body. Every other header in h is
// signed as it is, so h must hold exactly the headers that will be sent
// (besides Host, Content-Length and the ignored ones). A missing
// credential is an error; the caller records it on the request.
func (s *Signer) Sign(method, rawURL string, h http.Header, body []byte) error {
	creds, err := s.Credentials.Retrieve()
	if err != nil {
		return err
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return err
	}
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	t := now().UTC()
	payload := UnsignedPayload
	if !s.UnsignedPayload {
		payload = hashHex(body)
	}
	h.Set("X-Amz-Date", t.Format(amzDate))
	if creds.SessionToken != "" {
		h.Set("X-Amz-Security-Token", creds.SessionToken)
	} else {
		h.Del("X-Amz-Security-Token")
	}
	if s.ContentSHA256 {
		h.Set("X-Amz-Content-Sha256", payload)
	}
	signed, canonicalHeaders := canonicalHeaders(hostHeader(u), h, len(body))
	path := u.EscapedPath()
	if u.Opaque != "" {
		path = opaquePath(u.Opaque)
	}
	if path == "" {
		path = "/"
	}
	if !s.DisableURIPathEscaping {
		path = escapePath(path)
	}
	creq := strings.Join([]string{method, path, canonicalQuery(u), canonicalHeaders, signed, payload}, "\n")
	scope := t.Format("20060102") + "/" + s.Region + "/" + s.Service + "/aws4_request"
	sts := Algorithm + "\n" + t.Format(amzDate) + "\n" + scope + "\n" + hashHex([]byte(creq))
	sig := hex.EncodeToString(hmacSHA256(s.signingKey(creds.SecretAccessKey, t), []byte(sts)))
	h.Set("Authorization", fmt.Sprintf("%s Credential=%s/%s, SignedHeaders=%s, Signature=%s", Algorithm, creds.AccessKeyID, scope, signed, sig))
	return nil
}

// keyCache is one derived signing key: it depends only on the secret,
// the day, the region and the service, so it is derived once a day (and
// once per rotated secret) instead of four HMACs per request.
type keyCache struct {
	secret, day string
	key         []byte
}

func (s *Signer) signingKey(secret string, t time.Time) []byte {
	day := t.Format("20060102")
	if v, ok := s.keys.Load("k"); ok {
		if k := v.(keyCache); k.secret == secret && k.day == day {
			return k.key
		}
	}
	k := hmacSHA256([]byte("AWS4"+secret), []byte(day))
	k = hmacSHA256(k, []byte(s.Region))
	k = hmacSHA256(k, []byte(s.Service))
	k = hmacSHA256(k, []byte("aws4_request"))
	s.keys.Store("k", keyCache{secret: secret, day: day, key: k})
	return k
}

// hostHeader is the Host the request is sent with: the URL's host
// without the scheme's default port, which clients leave out.
func hostHeader(u *url.URL) string {
	host := u.Host
	if p := u.Port(); (p == "443" && u.Scheme == "https") || (p == "80" && u.Scheme == "http") {
		host = strings.TrimSuffix(host, ":"+p)
	}
	return host
}

// canonicalHeaders returns the signed header names (sorted, joined by ';')
// and the canonical header block: host, content-length when the body is
// not empty, and every header of h but the ignored ones, lowercased, each
// value with its spaces trimmed and runs of spaces collapsed, several
// values of one name joined by commas.
func canonicalHeaders(host string, h http.Header, bodyLen int) (string, string) {
	vals := map[string][]string{"host": {host}}
	if bodyLen > 0 {
		vals["content-length"] = []string{strconv.Itoa(bodyLen)}
	}
	for k, v := range h {
		lk := strings.ToLower(k)
		if ignoredHeaders[lk] || lk == "content-length" || lk == "host" {
			continue
		}
		vals[lk] = append(vals[lk], v...)
	}
	names := make([]string, 0, len(vals))
	for k := range vals {
		names = append(names, k)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, k := range names {
		b.WriteString(k)
		b.WriteByte(':')
		for i, v := range vals[k] {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(collapseSpaces(v))
		}
		b.WriteByte('\n')
	}
	return strings.Join(names, ";"), b.String()
}

// collapseSpaces trims v and turns each run of spaces inside it into one.
func collapseSpaces(v string) string {
	v = strings.Trim(v, " ")
	if !strings.Contains(v, "  ") {
		return strings.TrimSpace(v)
	}
	var b strings.Builder
	prev := false
	for i := 0; i < len(v); i++ {
		if v[i] == ' ' {
			if prev {
				continue
			}
			prev = true
		} else {
			prev = false
		}
		b.WriteByte(v[i])
	}
	return strings.TrimSpace(b.String())
}

// canonicalQuery is the query with its keys and each key's values sorted,
// every name and value percent-encoded (spaces as %20).
func canonicalQuery(u *url.URL) string {
	q := u.Query()
	for k := range q {
		sort.Strings(q[k])
	}
	return strings.ReplaceAll(q.Encode(), "+", "%20")
}

// opaquePath is the path of an opaque URL ("//host/path?q").
func opaquePath(o string) string {
	if i := strings.IndexByte(o, '?'); i >= 0 {
		o = o[:i]
	}
	o = strings.TrimPrefix(o, "//")
	if i := strings.IndexByte(o, '/'); i >= 0 {
		return o[i:]
	}
	return ""
}

// escapePath percent-encodes every byte of p but the unreserved ones and
// '/': applied to the already escaped path, it escapes each '%' again,
// which is what every service but S3 signs.
func escapePath(p string) string {
	const hexd = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c == '/' || c == '-' || c == '_' || c == '.' || c == '~' ||
			('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9') {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hexd[c>>4])
		b.WriteByte(hexd[c&15])
	}
	return b.String()
}

func hashHex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func hmacSHA256(key, data []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write(data)
	return m.Sum(nil)
}

// ErrNoCredentials is returned when no source of the chain has
// credentials.
var ErrNoCredentials = errors.New("no AWS credentials found")

// RoundTripper returns a transport that signs each request with s before
// base sends it, for the calls made with net/http's client (readiness
// probes, control-plane hooks): each attempt is signed anew, as a retry
// after minutes would otherwise carry a stale date. The request is
// cloned, never modified.
func (s *Signer) RoundTripper(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return &signingTransport{s: s, base: base}
}

type signingTransport struct {
	s    *Signer
	base http.RoundTripper
}

func (t *signingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	var body []byte
	if r.Body != nil && r.Body != http.NoBody {
		b, err := io.ReadAll(r.Body)
		_ = r.Body.Close()
		if err != nil {
			return nil, err
		}
		body = b
	}
	r2 := r.Clone(r.Context())
	r2.Body, r2.ContentLength = http.NoBody, 0
	if len(body) > 0 {
		r2.Body, r2.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		r2.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	u := *r2.URL
	if r2.Host != "" {
		u.Host = r2.Host
	}
	if err := t.s.Sign(r2.Method, u.String(), r2.Header, body); err != nil {
		return nil, err
	}
	return t.base.RoundTrip(r2)
}

// CloseIdleConnections closes the idle connections of the transport
// below.
func (t *signingTransport) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}
