// Package readiness probes an inference server until it is ready to be
// benchmarked (--wait-for-model-timeout, --wait-for-model-mode,
// --wait-for-model-interval): its model list, a one-token request, or
// both, for every URL and model.
package readiness

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/aiperf-go/aiperf/internal/clock"
	"github.com/aiperf-go/aiperf/internal/config"
)

// Readiness probes (--wait-for-model-timeout, --wait-for-model-mode,
// --wait-for-model-interval) run before the dataset is built and before
// any benchmark request, so that a server still loading its model fails
// (or passes) fast instead of turning the first requests into errors.
//
// As in AIPerf, the timeout applies to each probe (every URL, every model,
// every check) on its own; the probes run one after another.

// readinessPrompt is the one-word prompt of the inference probe: AIPerf's
// "Lo", the first message sent over ARPANET, a token or two on any
// tokenizer.
const readinessPrompt = "Lo"

// Per-request timeouts of the probes, as AIPerf's: at least this long (or
// the interval, if longer), and never past the probe's deadline. Loading a
// model can make even a one-token request take seconds.
const (
	minModelsProbeTimeout    = 5 * time.Second
	minInferenceProbeTimeout = 30 * time.Second
)

// readinessNoticeEvery is how often, at most, a probe still failing is
// reported at info level; every failure is logged at debug.
const readinessNoticeEvery = 30 * time.Second

// maxProbeBody bounds how much of a probe response is read.
const maxProbeBody = 1 << 20

// Options are what the probes need from a run.
type Options struct {
	Bases   []string // base URLs, normalised (for /v1/models)
	Targets []string // inference URLs (base URL + endpoint path), same order
	Models  []string
	Mode    config.WaitForModelMode // "" = config.DefaultWaitForModelMode
	Kind    config.EndpointType
	// Timeout applies to each probe on its own; Interval is the pause
	// between attempts.
	Timeout, Interval time.Duration
	Header            http.Header
	Client            *http.Client
	Log               *slog.Logger
	// Signed says the probes are SigV4-signed (Client signs them): a
	// 401 or 403 then means the signature, the IAM policy or the path
	// is wrong, which no retry fixes, so it stops the wait at once
	// instead of passing as "the server is up".
	Signed bool
}

// Prober probes every URL until each check passes or its deadline passes.
type Prober struct {
	bases   []string
	targets []string
	models  []string
	mode    config.WaitForModelMode
	kind    config.EndpointType

	timeout, interval time.Duration
	header            http.Header
	client            *http.Client
	log               *slog.Logger
	signed            bool
	// refused is set by a probe whose signed request was refused
	// (Signed): the wait stops with it.
	refused string

	// Now and Sleep are the clock the waits run on; tests replace them.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
}

// New returns the prober of o on the real clock.
func New(o Options) *Prober {
	pr := &Prober{
		bases: o.Bases, targets: o.Targets, models: o.Models, mode: o.Mode, kind: o.Kind,
		timeout: o.Timeout, interval: o.Interval, header: o.Header, client: o.Client, log: o.Log, signed: o.Signed,
		Now: time.Now, Sleep: clock.Sleep,
	}
	if pr.mode == "" {
		pr.mode = config.DefaultWaitForModelMode
	}
	return pr
}

// Mode is the probes' --wait-for-model-mode.
func (pr *Prober) Mode() config.WaitForModelMode { return pr.mode }

// check is one kind of probe against one URL and model: it reports whether
// the endpoint is ready and, when it is not, why.
type check struct {
	name  string // "models" or "inference"
	url   string // what is probed, for messages
	model string
	// minTimeout is the shortest per-request timeout.
	minTimeout time.Duration
	probe      func(ctx context.Context) (ready bool, why string)
}

// Wait runs every check in order: per URL, the models checks, then the
// inference checks, each for every model. It returns nil when every probe
// passed, a *config.ExitError with config.ExitFailure naming the URL, the
// mode and the last failure when a probe timed out, and one with
// config.ExitInterrupted when ctx was cancelled first.
func (pr *Prober) Wait(ctx context.Context) error {
	pr.log.Info("waiting for endpoint readiness", "mode", string(pr.mode), "timeout", pr.timeout,
		"interval", pr.interval, "urls", len(pr.bases), "models", len(pr.models))
	for i := range pr.bases {
		for _, c := range pr.checks(i) {
			if err := pr.run(ctx, c); err != nil {
				return err
			}
		}
	}
	return nil
}

// checks lists the checks of URL i for the mode.
func (pr *Prober) checks(i int) []check {
	models := pr.models
	if len(models) == 0 {
		models = []string{"default"}
	}
	var out []check
	if pr.mode == config.WaitForModels || pr.mode == config.WaitForBoth {
		for _, m := range models {
			base := pr.bases[i]
			out = append(out, check{name: "models", url: config.RedactURL(base + "/v1/models"), model: m, minTimeout: minModelsProbeTimeout,
				probe: func(ctx context.Context) (bool, string) { return pr.probeModels(ctx, base, m) }})
		}
	}
	if pr.mode == config.WaitForInference || pr.mode == config.WaitForBoth {
		for _, m := range models {
			target := pr.targets[min(i, len(pr.targets)-1)]
			out = append(out, check{name: "inference", url: config.RedactURL(target), model: m, minTimeout: minInferenceProbeTimeout,
				probe: func(ctx context.Context) (bool, string) { return pr.probeInference(ctx, target, m) }})
		}
	}
	return out
}

// run repeats one check every interval until it passes or its deadline
// passes.
func (pr *Prober) run(ctx context.Context, c check) error {
	start := pr.Now()
	deadline := start.Add(pr.timeout)
	lastNotice := start
	var why string
	for attempt := 1; ; attempt++ {
		remaining := deadline.Sub(pr.Now())
		if remaining <= 0 {
			return &config.ExitError{Code: config.ExitFailure, Err: fmt.Errorf(
				"endpoint not ready: the %s probe of %s for model %q did not pass within %gs (--wait-for-model-mode %s, %d attempts); last failure: %s",
				c.name, c.url, c.model, pr.timeout.Seconds(), pr.mode, attempt-1, why)}
		}
		reqCtx, cancel := context.WithTimeout(ctx, min(max(pr.interval, c.minTimeout), remaining))
		var ready bool
		ready, why = c.probe(reqCtx)
		cancel()
		if pr.refused != "" {
			return &config.ExitError{Code: config.ExitFailure, Err: fmt.Errorf("endpoint not ready: the %s probe of %s: %s", c.name, c.url, pr.refused)}
		}
		if ready {
			pr.log.Info("endpoint ready", "probe", c.name, "url", c.url, "model", c.model, "attempts", attempt,
				"waited", pr.Now().Sub(start).Round(time.Millisecond))
			return nil
		}
		if ctx.Err() != nil {
			return &config.ExitError{Code: config.ExitInterrupted, Err: fmt.Errorf("interrupted while waiting for %s to be ready", c.url)}
		}
		pr.log.Debug("readiness probe failed", "probe", c.name, "url", c.url, "model", c.model, "attempt", attempt, "failure", why)
		if now := pr.Now(); now.Sub(lastNotice) >= readinessNoticeEvery {
			lastNotice = now
			pr.log.Info("still waiting for the endpoint", "probe", c.name, "url", c.url, "model", c.model,
				"attempts", attempt, "waited", now.Sub(start).Round(time.Second), "last_failure", why)
		}
		if err := pr.Sleep(ctx, min(pr.interval, max(0, deadline.Sub(pr.Now())))); err != nil {
			return &config.ExitError{Code: config.ExitInterrupted, Err: fmt.Errorf("interrupted while waiting for %s to be ready", c.url)}
		}
	}
}

// probeModels passes when GET {base}/v1/models lists the model in data[].
// A server without the route (404) passes when its base URL answers 2xx,
// as in AIPerf.
func (pr *Prober) probeModels(ctx context.Context, base, model string) (bool, string) {
	status, body, err := pr.do(ctx, http.MethodGet, base+"/v1/models", nil)
	switch {
	case err != nil:
		return false, err.Error()
	case status == http.StatusNotFound:
		st, _, err := pr.do(ctx, http.MethodGet, base, nil)
		switch {
		case err != nil:
			return false, "/v1/models: HTTP 404; base URL: " + err.Error()
		case st >= 200 && st <= 299:
			return true, ""
		}
		return false, fmt.Sprintf("/v1/models: HTTP 404; base URL: HTTP %d", st)
	case pr.authRefused(status, body):
		return false, pr.refused
	case status != http.StatusOK:
		return false, httpFailure(status, body)
	}
	ids, ok := modelIDs(body)
	if !ok {
		return false, "the /v1/models response is not a model list: " + snippet(body)
	}
	if slices.Contains(ids, model) {
		return true, ""
	}
	return false, fmt.Sprintf("model %q is not listed (listed: %s)", model, strings.Join(ids, ", "))
}

// probeInference passes when a one-token request gets any status below
// 500: a 4xx means the server is up but rejects the request, which the
// benchmark's own requests will show (AIPerf's rule). Only 5xx and
// connection failures are retried.
func (pr *Prober) probeInference(ctx context.Context, target, model string) (bool, string) {
	status, body, err := pr.do(ctx, http.MethodPost, target, readinessPayload(pr.kind, model))
	switch {
	case err != nil:
		return false, err.Error()
	case status >= 500:
		return false, httpFailure(status, body)
	case pr.authRefused(status, body):
		return false, pr.refused
	case status >= 400:
		pr.log.Warn("the readiness request was rejected; the server is up, but benchmark requests may fail the same way",
			"url", config.RedactURL(target), "status", status, "body", snippet(body))
	}
	return true, ""
}

// do sends one probe request with the run's headers and reads the start
// of the response.
func (pr *Prober) do(ctx context.Context, method, target string, body []byte) (status int, respBody []byte, err error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, target, rd)
	if err != nil {
		return 0, nil, err
	}
	req.Header = pr.header.Clone()
	if req.Header == nil {
		req.Header = http.Header{}
	}
	if body == nil {
		req.Header.Del("Content-Type")
	}
	resp, err := pr.client.Do(req)
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err // drop net/http's `Get "URL":` prefix
		}
		return 0, nil, err
	}
	defer resp.Body.Close()
	respBody, err = io.ReadAll(io.LimitReader(resp.Body, maxProbeBody))
	if err != nil {
		return 0, nil, fmt.Errorf("HTTP %d, reading the body: %w", resp.StatusCode, err)
	}
	return resp.StatusCode, respBody, nil
}

// readinessPayload is the canned one-token request for the endpoint type,
// the same fields AIPerf sends (no streaming, no extra inputs).
func readinessPayload(kind config.EndpointType, model string) []byte {
	var v any
	if kind == config.EndpointCompletions {
		v = struct {
			Prompt    string `json:"prompt"`
			MaxTokens int    `json:"max_tokens"`
			Model     string `json:"model"`
		}{readinessPrompt, 1, model}
	} else {
		type message struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		}
		v = struct {
			Messages  []message `json:"messages"`
			MaxTokens int       `json:"max_tokens"`
			Model     string    `json:"model"`
		}{[]message{{"user", readinessPrompt}}, 1, model}
	}
	b, _ := json.Marshal(v) // fixed shapes of strings and ints cannot fail
	return b
}

// modelIDs reads the ids of an OpenAI model list, {"data": [{"id": ...}]}.
func modelIDs(body []byte) ([]string, bool) {
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &list); err != nil || list.Data == nil {
		return nil, false
	}
	ids := make([]string, 0, len(list.Data))
	for _, d := range list.Data {
		ids = append(ids, d.ID)
	}
	return ids, true
}

// httpFailure describes a failed probe response.
func httpFailure(status int, body []byte) string {
	s := fmt.Sprintf("HTTP %d %s", status, http.StatusText(status))
	if b := snippet(body); b != "" {
		s += ": " + b
	}
	return s
}

// snippet is the start of a body, on one line, for messages.
func snippet(b []byte) string {
	const n = 200
	s := strings.Join(strings.Fields(strings.ToValidUTF8(string(b), "\uFFFD")), " ")
	if len(s) > n {
		s = strings.ToValidUTF8(s[:n], "") + "..."
	}
	return s
}

// authRefused reports a 401 or 403 to a signed probe, noting on pr why
// the wait stops: API Gateway's "Missing Authentication Token" names an
// unrouted path (check the URL), anything else the signature or the
// policy.
func (pr *Prober) authRefused(status int, body []byte) bool {
	if !pr.signed || (status != http.StatusUnauthorized && status != http.StatusForbidden) {
		return false
	}
	cause := "check --aws-region and --aws-service against the endpoint, the credentials, the IAM policy and the clock (AWS refuses a signature more than 5 minutes off)"
	if strings.Contains(string(body), "Missing Authentication Token") {
		cause = "API Gateway answers an unrouted path with 403 Missing Authentication Token, on a valid signature too: check the URL and --endpoint path rather than the credentials"
	}
	pr.refused = fmt.Sprintf("the signed request was refused (%s); %s; not retried", httpFailure(status, body), cause)
	return true
}
