package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// FieldError is one configuration problem, attributed to the command-line
// flag a user would change to fix it.
type FieldError struct {
	// Flag is the canonical flag name with dashes, e.g. "--concurrency".
	Flag string
	// Problem says what is wrong, e.g. "must be >= 1, got 0".
	Problem string
	// Err is an underlying error such as ErrSweep, if any.
	Err error
}

// Error returns "flag: problem".
func (e *FieldError) Error() string { return e.Flag + ": " + e.Problem }

// Unwrap returns the underlying error.
func (e *FieldError) Unwrap() error { return e.Err }

// problems accumulates FieldErrors so Validate can report all of them.
type problems []error

// add records a problem with flag.
func (p *problems) add(flag, format string, args ...any) {
	*p = append(*p, &FieldError{Flag: flag, Problem: fmt.Sprintf(format, args...)})
}

// Validate checks every option and every cross-option rule and returns all
// problems at once, joined with errors.Join (nil when the configuration is
// usable). Each problem is a *FieldError naming the flag to change.
//
// It does not modify c. Comma-separated sweep values never reach a Config;
// the parser rejects them with ErrSweep.
func (c *Config) Validate() error {
	var p problems
	c.validateEndpoint(&p)
	c.validateInput(&p)
	c.validateLoad(&p)
	c.validateWarmup(&p)
	c.validateShape(&p)
	c.validateOutput(&p)
	c.validateService(&p)
	c.validateConversation(&p)
	c.validateReplay(&p)
	c.validateDataset(&p)
	c.validateExperiment(&p)
	c.validateAnalysis(&p)
	c.validateSearch(&p)
	c.validatePrompt(&p)
	c.validateMedia(&p)
	c.validateVisuals(&p)
	c.validateReliability(&p)
	c.validateFidelity(&p)
	c.validateCompat(&p)
	c.validateArtifacts(&p)
	c.validateEndpointOptions(&p)
	c.validateRankings(&p)
	c.validateVideo(&p)
	c.validateTelemetry(&p)
	c.validateIntegrations(&p)
	c.validateCluster(&p)
	c.validateNetwork(&p)
	c.validateAWS(&p)
	return errors.Join(p...)
}

func (c *Config) validateEndpoint(p *problems) {
	e := &c.Endpoint
	if len(e.ModelNames) == 0 {
		p.add("--model-names", "at least one model name is required (-m NAME)")
	}
	for _, m := range e.ModelNames {
		if strings.TrimSpace(m) == "" {
			p.add("--model-names", "model names must not be empty")
			break
		}
	}
	if e.MockServer {
		if !slices.Equal(e.URLs, []string{DefaultURL}) && len(e.URLs) > 0 {
			p.add("--mock-server", "cannot be combined with --url: the run targets the embedded mock server")
		}
	} else {
		if len(e.URLs) == 0 {
			p.add("--url", "at least one URL is required")
		}
		for _, u := range e.URLs {
			if err := checkURL(u); err != nil {
				p.add("--url", "%v", err)
			}
		}
	}
	if !e.Type.Supported() {
		p.add("--endpoint-type", "invalid choice %q (choose from %s)",
			e.Type, joinChoices(SupportedEndpointTypes()))
	}
	if strings.ContainsAny(e.CustomEndpoint, " \t\r\n") {
		p.add("--custom-endpoint", "path %q must not contain whitespace", e.CustomEndpoint)
	}
	positive(p, "--request-timeout-seconds", e.TimeoutSeconds)
	c.validateReadiness(p)
}

// validateReadiness checks the --wait-for-model-* options with AIPerf's
// bounds (timeout >= 0, interval > 0) and its coherence rule: a
// non-default mode or interval without a positive timeout would silently do
// nothing, so it is rejected.
func (c *Config) validateReadiness(p *problems) {
	e := &c.Endpoint
	nonNegative(p, "--wait-for-model-timeout", e.WaitForModelTimeout)
	positive(p, "--wait-for-model-interval", e.WaitForModelInterval)
	if e.WaitForModelMode != "" && !contains(WaitForModelModes(), e.WaitForModelMode) {
		p.add("--wait-for-model-mode", "invalid choice %q (choose from %s)", e.WaitForModelMode, joinChoices(WaitForModelModes()))
	}
	if e.WaitForModelTimeout > 0 || math.IsNaN(e.WaitForModelTimeout) {
		return
	}
	if e.WaitForModelInterval > 0 && e.WaitForModelInterval != DefaultWaitForModelInterval {
		p.add("--wait-for-model-interval", "has no effect unless --wait-for-model-timeout is set to a positive value")
	}
	if e.WaitForModelMode != "" && e.WaitForModelMode != DefaultWaitForModelMode && contains(WaitForModelModes(), e.WaitForModelMode) {
		p.add("--wait-for-model-mode", "has no effect unless --wait-for-model-timeout is set to a positive value")
	}
}

// checkURL reports why u cannot be a base URL: it must be absolute http or
// https with a host.
func checkURL(u string) error {
	parsed, err := url.Parse(u)
	if err != nil {
		return fmt.Errorf("%q is not a valid URL: %w", RedactURL(u), urlProblem(err))
	}
	if parsed.Scheme != "http" && parsed.Scheme != "https" {
		return fmt.Errorf("%q: scheme must be http or https", RedactURL(u))
	}
	if parsed.Host == "" || parsed.Hostname() == "" {
		return fmt.Errorf("%q has no host", RedactURL(u))
	}
	if strings.HasSuffix(parsed.Host, ":") {
		// net/url accepts "host:" and Go would dial port 80 (or 443)
		// silently, which is not what the user typed.
		return fmt.Errorf("%q has an empty port: give one (host:8000) or leave out the colon", RedactURL(u))
	}
	if port := parsed.Port(); port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("%q: port %s is not in 1-65535", RedactURL(u), port)
		}
	}
	return nil
}

func (c *Config) validateInput(p *problems) {
	in := &c.Input
	for _, x := range in.Extra {
		if x.Key == "" {
			p.add("--extra-inputs", "keys must not be empty")
		}
		if !json.Valid(x.Value) {
			p.add("--extra-inputs", "value of %q is not valid JSON", x.Key)
		}
	}
	for _, h := range in.Headers {
		if !isToken(h.Name) {
			p.add("--header", "%q is not a valid header name", h.Name)
		}
		if strings.ContainsAny(h.Value, "\r\n\x00") {
			p.add("--header", "value of %q must not contain CR, LF or NUL", h.Name)
		}
	}
	if in.RandomSeed != nil && *in.RandomSeed < 0 {
		p.add("--random-seed", "must be >= 0, got %d", *in.RandomSeed)
	}
	for _, m := range slices.Sorted(maps.Keys(in.Goodput)) {
		v := in.Goodput[m]
		if m == "" {
			p.add("--goodput", "metric tags must not be empty")
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			p.add("--goodput", "value of %q must be a finite number", m)
		}
	}
	if in.NumDatasetEntries != nil {
		atLeast1(p, "--num-dataset-entries", *in.NumDatasetEntries)
	}
	atLeast1(p, "--prompt-input-tokens-mean", in.InputTokens.Mean)
	nonNegative(p, "--prompt-input-tokens-stddev", in.InputTokens.Stddev)
	if in.OutputTokens.Mean != nil {
		atLeast1(p, "--prompt-output-tokens-mean", *in.OutputTokens.Mean)
	}
	nonNegative(p, "--prompt-output-tokens-stddev", in.OutputTokens.Stddev)
}

func (c *Config) validateLoad(p *problems) {
	l := &c.Load
	if l.Concurrency != nil {
		atLeast1(p, "--concurrency", *l.Concurrency)
	}
	if l.RequestRate != nil {
		positive(p, "--request-rate", *l.RequestRate)
	}
	if l.RequestCount != nil {
		atLeast1(p, "--request-count", *l.RequestCount)
	}
	if l.BenchmarkDuration != nil {
		positive(p, "--benchmark-duration", *l.BenchmarkDuration)
	}
	if l.BenchmarkGracePeriod != nil {
		g := float64(*l.BenchmarkGracePeriod)
		if math.IsNaN(g) || g < 0 {
			p.add("--benchmark-grace-period", "must be >= 0 seconds or inf, got %v", g)
		}
		if l.BenchmarkDuration == nil {
			p.add("--benchmark-grace-period", "requires --benchmark-duration: the grace period only follows a duration-bounded run")
		}
	}
	switch {
	case l.ArrivalPattern == "":
	case !contains(ArrivalPatterns(), l.ArrivalPattern):
		p.add("--arrival-pattern", "invalid choice %q (choose from %s)", l.ArrivalPattern, joinChoices(ArrivalPatterns()))
	case l.ArrivalPattern == ArrivalConcurrencyBurst && l.RequestRate != nil:
		p.add("--arrival-pattern", "concurrency_burst cannot be combined with --request-rate; use constant, poisson or gamma")
	case l.ArrivalPattern != ArrivalConcurrencyBurst && l.RequestRate == nil && len(c.Shape.RateSeries) == 0 && !c.UserCentric():
		p.add("--arrival-pattern", "requires --request-rate (without it requests are sent as fast as --concurrency allows)")
	}
	if r := l.RequestCancellationRate; r != nil && !(*r > 0 && *r <= 100) {
		p.add("--request-cancellation-rate", "must be a percentage > 0 and <= 100, got %v", *r)
	}
	nonNegative(p, "--request-cancellation-delay", l.RequestCancellationDelay)
	if l.RequestCancellationDelay != 0 && l.RequestCancellationRate == nil {
		p.add("--request-cancellation-delay", "requires --request-cancellation-rate (without a rate no request is cancelled)")
	}
	if f := l.FailedRequestThreshold; f != nil && !(*f >= 0 && *f <= 1) {
		p.add("--failed-request-threshold", "must be a fraction >= 0 and <= 1, got %v", *f)
	}
	if l.ArrivalSmoothness != nil {
		positive(p, "--arrival-smoothness", *l.ArrivalSmoothness)
		switch {
		case l.RequestRate == nil && len(c.Shape.RateSeries) == 0:
			p.add("--arrival-smoothness", "requires --request-rate with --arrival-pattern gamma")
		case l.ArrivalPattern != "" && l.ArrivalPattern != ArrivalGamma:
			p.add("--arrival-smoothness", "is only supported with --arrival-pattern gamma, got %q", l.ArrivalPattern)
		}
	}
}

func (c *Config) validateWarmup(p *problems) {
	w := &c.Warmup
	if w.RequestCount != nil {
		atLeast1(p, "--warmup-request-count", *w.RequestCount)
	}
	if w.Duration != nil {
		positive(p, "--warmup-duration", *w.Duration)
	}
}

func (c *Config) validateOutput(p *problems) {
	o := &c.Output
	if strings.TrimSpace(o.ArtifactDir) == "" {
		p.add("--output-artifact-dir", "must not be empty")
	}
	if !contains(ExportLevels(), o.ExportLevel) {
		p.add("--export-level", "invalid choice %q (choose from %s)", o.ExportLevel, joinChoices(ExportLevels()))
	}
	if strings.ContainsAny(o.ProfileExportPrefix, `/\`) {
		p.add("--profile-export-prefix", "%q must be a file name prefix, not a path (use --output-artifact-dir for the directory)", o.ProfileExportPrefix)
	}
}

func (c *Config) validateService(p *problems) {
	s := &c.Service
	if s.LogLevel != "" && !contains(LogLevels(), s.LogLevel) {
		p.add("--log-level", "invalid choice %q (choose from %s)", s.LogLevel, joinChoices(LogLevels()))
	}
	if s.UIType != "" && !contains(UITypes(), s.UIType) {
		p.add("--ui-type", "invalid choice %q (choose from %s)", s.UIType, joinChoices(UITypes()))
	}
}

// atLeast1 records a problem unless n >= 1.
func atLeast1(p *problems, flag string, n int) {
	if n < 1 {
		p.add(flag, "must be >= 1, got %d", n)
	}
}

// positive records a problem unless f is finite and > 0.
func positive(p *problems, flag string, f float64) {
	if !(f > 0) || math.IsInf(f, 0) {
		p.add(flag, "must be a finite number > 0, got %v", f)
	}
}

// nonNegative records a problem unless f is finite and >= 0.
func nonNegative(p *problems, flag string, f float64) {
	if !(f >= 0) || math.IsInf(f, 0) {
		p.add(flag, "must be a finite number >= 0, got %v", f)
	}
}

// isToken reports whether s is a valid HTTP header name (an RFC 9110
// token).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}
