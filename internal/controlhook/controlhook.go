// Package controlhook makes a run's control-plane calls to the inference
// server, as AIPerf 0.13's endpoint control hooks: a KV-cache reset before
// the run (--reset-kv-cache: vLLM's POST /reset_prefix_cache) and a server
// profiler around the profiling phase (--server-profiler: POST
// /start_profile before it, /stop_profile after it).
//
// Each hook POSTs an empty body to a path relative to every unique origin
// of the run's URLs, with the run's authorisation headers, on a client of
// its own (no proxy, not the benchmark's connection pool); any 2xx is
// success. Only the reset retries: on a connection error or a 409, 423,
// 429 or 503 answer, with exponential backoff from 1 s (doubling, at most
// 8 s) for up to 60 s.
package controlhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Options configure the hooks.
type Options struct {
	// URLs are the run's base URLs; each unique scheme://host is called.
	URLs []string
	// Header is sent with every call (the endpoint's Authorization).
	Header http.Header

	Reset        bool
	ResetPath    string        // default /reset_prefix_cache
	ResetTimeout time.Duration // per attempt; default 30 s
	// ResetRetry bounds the retries of a retryable failure; 0 = 60 s, a
	// negative value = no retry.
	ResetRetry time.Duration

	Profiler        bool
	StartPath       string        // default /start_profile
	StopPath        string        // default /stop_profile
	ProfilerTimeout time.Duration // default 30 s

	// Backoff is the first retry delay (default 1 s, doubling to at most
	// 8 s, as AIPerf's); tests shorten it.
	Backoff time.Duration
	Client  *http.Client
}

// Defaults, as AIPerf's.
const (
	DefaultResetPath = "/reset_prefix_cache"
	DefaultStartPath = "/start_profile"
	DefaultStopPath  = "/stop_profile"
	DefaultTimeout   = 30 * time.Second
	DefaultRetry     = 60 * time.Second
	defaultBackoff   = time.Second
	backoffCap       = 8 * time.Second
)

// retryable are the statuses a reset is retried on: the server is busy
// with other control-plane work.
var retryable = []int{http.StatusConflict, http.StatusLocked, http.StatusTooManyRequests, http.StatusServiceUnavailable}

// Hooks are the prepared control calls of a run.
type Hooks struct {
	o      Options
	resets []string
	starts []string
	stops  []string
}

// New prepares the hooks: absolute URLs per unique origin, defaults filled
// in. Paths must be relative (start with "/"); the caller validates them.
func New(o Options) *Hooks {
	if o.ResetPath == "" {
		o.ResetPath = DefaultResetPath
	}
	if o.StartPath == "" {
		o.StartPath = DefaultStartPath
	}
	if o.StopPath == "" {
		o.StopPath = DefaultStopPath
	}
	for _, d := range []*time.Duration{&o.ResetTimeout, &o.ProfilerTimeout} {
		if *d <= 0 {
			*d = DefaultTimeout
		}
	}
	switch {
	case o.ResetRetry == 0:
		o.ResetRetry = DefaultRetry
	case o.ResetRetry < 0:
		o.ResetRetry = 0 // no retry
	}
	if o.Backoff <= 0 {
		o.Backoff = defaultBackoff
	}
	if o.Client == nil {
		o.Client = &http.Client{Transport: &http.Transport{Proxy: nil}}
	}
	h := &Hooks{o: o}
	for _, origin := range origins(o.URLs) {
		if o.Reset {
			h.resets = append(h.resets, origin+o.ResetPath)
		}
		if o.Profiler {
			h.starts = append(h.starts, origin+o.StartPath)
			h.stops = append(h.stops, origin+o.StopPath)
		}
	}
	return h
}

// origins returns the unique scheme://host of urls, in order.
func origins(urls []string) []string {
	var out []string
	for _, raw := range urls {
		if !strings.Contains(raw, "://") {
			raw = "http://" + raw
		}
		u, err := url.Parse(raw)
		if err != nil {
			continue
		}
		o := u.Scheme + "://" + u.Host
		if !slices.Contains(out, o) {
			out = append(out, o)
		}
	}
	return out
}

// Profiling reports whether the profiler hook is on.
func (h *Hooks) Profiling() bool { return len(h.starts) > 0 }

// Error is a failed control call. Retryable marks a connection failure or
// timeout (Status 0) or a status the server uses for "busy".
type Error struct {
	URL       string
	Status    int
	Err       error
	Retryable bool
}

func (e *Error) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("POST %s failed with status %d", e.URL, e.Status)
	}
	return fmt.Sprintf("POST %s failed: %v", e.URL, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// post sends one control call.
func (h *Hooks) post(ctx context.Context, u string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(nil))
	if err != nil {
		return &Error{URL: u, Err: err}
	}
	for k, vs := range h.o.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	resp, err := h.o.Client.Do(req)
	if err != nil {
		return &Error{URL: u, Err: redact(err), Retryable: true}
	}
	// Drain without keeping the body: it may carry secrets.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	if resp.StatusCode/100 == 2 {
		return nil
	}
	return &Error{URL: u, Status: resp.StatusCode, Retryable: slices.Contains(retryable, resp.StatusCode)}
}

// redact drops the URL a transport error repeats (Error names it, without
// its query).
func redact(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// ResetKVCache calls every reset URL in turn, retrying retryable failures
// with backoff within the retry budget; it returns the first failure.
func (h *Hooks) ResetKVCache(ctx context.Context) error {
	for _, u := range h.resets {
		deadline := time.Now().Add(h.o.ResetRetry)
		backoff := h.o.Backoff
		for {
			err := h.post(ctx, u, h.o.ResetTimeout)
			if err == nil {
				break
			}
			var ce *Error
			if !errors.As(err, &ce) || !ce.Retryable || !time.Now().Add(backoff).Before(deadline) {
				return err
			}
			t := time.NewTimer(backoff)
			select {
			case <-ctx.Done():
				t.Stop()
				return err
			case <-t.C:
			}
			backoff = min(backoff*2, max(backoffCap, h.o.Backoff))
		}
	}
	return nil
}

// StartProfiler calls every start URL; if one fails, the profilers already
// started are stopped again (in reverse) and the failure returned.
func (h *Hooks) StartProfiler(ctx context.Context) error {
	for i, u := range h.starts {
		if err := h.post(ctx, u, h.o.ProfilerTimeout); err != nil {
			for j := i - 1; j >= 0; j-- {
				_ = h.post(context.WithoutCancel(ctx), h.stops[j], h.o.ProfilerTimeout)
			}
			return err
		}
	}
	return nil
}

// StopProfiler calls every stop URL, also after a failure, and returns the
// failures joined.
func (h *Hooks) StopProfiler(ctx context.Context) error {
	var errs []error
	for _, u := range h.stops {
		if err := h.post(ctx, u, h.o.ProfilerTimeout); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
