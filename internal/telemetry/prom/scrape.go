package prom

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"mime"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync"
	"time"
)

// MaxPageBytes bounds a metrics page; a larger body is an error rather than
// an unbounded read.
const MaxPageBytes = 64 << 20

// ErrIncompatible reports an endpoint that answers, but not with Prometheus
// exposition (a JSON content type, or a body that does not parse). AIPerf
// disables such an endpoint for the rest of the run with one warning.
var ErrIncompatible = errors.New("endpoint does not serve Prometheus metrics")

// Scrape is one successful fetch of a metrics page.
type Scrape struct {
	// URL is the endpoint as exports show it (credentials removed); after
	// the TRT-LLM fallback it is the /prometheus/metrics URL.
	URL string
	// Sent, FirstByte and End are when the request was sent, its first
	// response byte arrived (AIPerf's sample timestamp: the best estimate
	// of when the server rendered the page) and the body was read. They
	// carry a monotonic reading.
	Sent, FirstByte, End time.Time
	// Families are the parsed page.
	Families []Family
	// Duplicate reports a body byte-for-byte equal to the previous one
	// (Families is then the previous parse, shared: do not modify it).
	Duplicate bool
}

// Latency is the scrape's duration, request to last byte.
func (s *Scrape) Latency() time.Duration { return s.End.Sub(s.Sent) }

// Scraper fetches one metrics endpoint repeatedly. It remembers the last
// body to flag duplicates (skipping their parse), falls back once from
// <base>/metrics to <base>/prometheus/metrics when the first answers with
// something that is not Prometheus text (TRT-LLM serves JSON iteration
// statistics at /metrics), and disables itself for good after an
// incompatible answer. Safe for concurrent use, though scrapes of one
// endpoint are meant to be sequential.
type Scraper struct {
	client *http.Client

	mu       sync.Mutex
	url      string // what is fetched; may change once (fallback)
	display  string
	probed   bool
	disabled error
	lastHash uint64
	hasLast  bool
	last     []Family
	seed     maphash.Seed
}

// NewScraper returns a Scraper for rawURL using client (nil: a dedicated
// client that ignores proxy settings, since metrics endpoints are usually
// local and must not share the benchmark's connection pool).
func NewScraper(rawURL string, client *http.Client) *Scraper {
	if client == nil {
		client = &http.Client{Transport: &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 2, IdleConnTimeout: 30 * time.Second}}
	}
	return &Scraper{client: client, url: rawURL, display: RedactURL(rawURL), seed: maphash.MakeSeed()}
}

// URL returns the endpoint as exports show it (credentials removed).
func (s *Scraper) URL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.display
}

// Disabled returns why the endpoint was disabled, or nil.
func (s *Scraper) Disabled() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.disabled
}

// Reachable reports whether the endpoint answers 200, trying HEAD first and
// GET when HEAD is refused (AIPerf's probe). Unreachable endpoints are left
// out of a run silently.
func (s *Scraper) Reachable(ctx context.Context, timeout time.Duration) bool {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	s.mu.Lock()
	u := s.url
	s.mu.Unlock()
	for _, method := range []string{http.MethodHead, http.MethodGet} {
		req, err := http.NewRequestWithContext(ctx, method, u, nil)
		if err != nil {
			return false
		}
		resp, err := s.noRedirect().Do(req)
		if err != nil {
			return false
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, MaxPageBytes))
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			return true
		}
	}
	return false
}

func (s *Scraper) noRedirect() *http.Client {
	c := *s.client
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &c
}

// Scrape fetches and parses the page once. An HTTP or network failure is
// returned as is (the next scrape may succeed); an incompatible answer
// triggers the one-time TRT-LLM fallback, and if that fails too the
// Scraper disables itself and returns an error wrapping ErrIncompatible;
// later calls return that same error at once.
func (s *Scraper) Scrape(ctx context.Context) (*Scrape, error) {
	s.mu.Lock()
	if s.disabled != nil {
		err := s.disabled
		s.mu.Unlock()
		return nil, err
	}
	u := s.url
	s.mu.Unlock()

	sc, err := s.fetch(ctx, u)
	if err == nil || !errors.Is(err, ErrIncompatible) {
		return sc, err
	}
	s.mu.Lock()
	alt, probe := fallbackURL(u)
	probe = probe && !s.probed
	s.probed = true
	s.mu.Unlock()
	if probe {
		if sc, perr := s.fetch(ctx, alt); perr == nil {
			s.mu.Lock()
			s.url, s.display = alt, RedactURL(alt)
			s.mu.Unlock()
			sc.URL = RedactURL(alt)
			return sc, nil
		} else {
			err = fmt.Errorf("%w; the TRT-LLM path %s did not serve Prometheus text either (%v); for TRT-LLM set return_perf_metrics: true", err, RedactURL(alt), perr)
		}
	}
	s.mu.Lock()
	s.disabled = err
	s.mu.Unlock()
	return nil, err
}

// fallbackURL is <base>/prometheus/metrics for a URL ending in /metrics
// (not already the fallback).
func fallbackURL(u string) (string, bool) {
	if !strings.HasSuffix(u, "/metrics") || strings.HasSuffix(u, "/prometheus/metrics") {
		return "", false
	}
	return strings.TrimSuffix(u, "/metrics") + "/prometheus/metrics", true
}

func (s *Scraper) fetch(ctx context.Context, u string) (*Scrape, error) {
	display := RedactURL(u)
	sc := &Scrape{URL: display}
	var firstByte time.Time
	trace := &httptrace.ClientTrace{GotFirstResponseByte: func() { firstByte = time.Now() }}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, trace), http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", display, err)
	}
	req.Header.Set("Accept", "text/plain;version=0.0.4;q=0.9,application/openmetrics-text;version=1.0.0;q=0.5,*/*;q=0.1")
	sc.Sent = time.Now()
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("scraping %s: %w", display, redactErr(err, u, display))
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
		return nil, fmt.Errorf("scraping %s: HTTP %d", display, resp.StatusCode)
	}
	ct := strings.ToLower(resp.Header.Get("Content-Type"))
	if mt, _, _ := mime.ParseMediaType(ct); mt == "application/json" {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
		return nil, fmt.Errorf("%w: %s answered with content type %q, not Prometheus text", ErrIncompatible, display, ct)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxPageBytes+1))
	sc.End = time.Now()
	if err != nil {
		return nil, fmt.Errorf("scraping %s: %w", display, redactErr(err, u, display))
	}
	if len(body) > MaxPageBytes {
		return nil, fmt.Errorf("scraping %s: page larger than %d bytes", display, MaxPageBytes)
	}
	sc.FirstByte = firstByte
	if sc.FirstByte.IsZero() {
		sc.FirstByte = sc.End
	}
	h := maphash.Bytes(s.seed, body)
	s.mu.Lock()
	if s.hasLast && h == s.lastHash && u == s.url {
		sc.Families, sc.Duplicate = s.last, true
		s.mu.Unlock()
		return sc, nil
	}
	s.mu.Unlock()
	fams, err := Parse(body, ct)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v; body starts %q", ErrIncompatible, display, err, preview(body))
	}
	s.mu.Lock()
	s.lastHash, s.hasLast, s.last = h, true, fams
	s.mu.Unlock()
	sc.Families = fams
	return sc, nil
}

func preview(b []byte) string {
	if len(b) > 120 {
		b = b[:120]
	}
	return string(b)
}

// RedactURL removes credentials from a URL for display and exports.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	u.User = nil
	return u.String()
}

// redactErr keeps a URL's credentials out of an error message.
func redactErr(err error, raw, display string) error {
	if raw == display {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), raw, display))
}

// EndpointDisplay is AIPerf's short name of a metrics URL: host:port and
// path without scheme or a trailing /metrics ("localhost:8000",
// "node1:9400/api").
func EndpointDisplay(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return u.Host + strings.TrimSuffix(u.Path, "/metrics")
}

// NormalizeURL turns a user's metrics endpoint into a URL: http:// is added
// when there is no scheme and /metrics when there is no path, as AIPerf
// accepts "node1:8081" for http://node1:8081/metrics.
func NormalizeURL(raw string) string {
	s := strings.TrimSpace(raw)
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return s
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/metrics"
	}
	return u.String()
}
