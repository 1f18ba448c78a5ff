package config

import (
	"strings"
	"unicode"
)

// LoadMode is how a run decides when to send: as fast as a concurrency cap
// allows, or on a request-rate schedule.
type LoadMode string

// Load modes. AIPerf names run directories after them
// ("...-concurrency2", "...-request_rate20.0").
const (
	// ModeConcurrency keeps Concurrency() requests in flight (AIPerf's
	// concurrency burst).
	ModeConcurrency LoadMode = "concurrency"
	// ModeRequestRate issues requests at Load.RequestRate per second, with
	// an optional concurrency cap.
	ModeRequestRate LoadMode = "request_rate"
)

// Mode returns ModeRequestRate when --request-rate was given, else
// ModeConcurrency.
func (c *Config) Mode() LoadMode {
	if c.rateControlled() {
		return ModeRequestRate
	}
	return ModeConcurrency
}

// Concurrency returns the concurrency cap: the explicit --concurrency, else
// 1 in concurrency mode, else 0, meaning unlimited (request-rate mode
// without a cap).
func (c *Config) Concurrency() int {
	switch {
	case c.Load.Concurrency != nil:
		return *c.Load.Concurrency
	case !c.rateControlled():
		return 1
	}
	return 0
}

// rateControlled reports whether a rate drives the arrivals: --request-rate,
// a --request-rate-series or --user-centric-rate.
func (c *Config) rateControlled() bool {
	return c.Load.RequestRate != nil || len(c.Shape.RateSeries) > 0 || c.UserCentric()
}

// RequestCount returns the profiling request budget: the explicit
// --request-count; else, when no --benchmark-duration bounds the run,
// max(10, 2*concurrency) as AIPerf derives it for synthetic data (using the
// explicit concurrency, or 1 in concurrency mode); else 0, meaning the
// duration alone stops the run.
func (c *Config) RequestCount() int {
	switch {
	case c.Load.RequestCount != nil:
		return *c.Load.RequestCount
	case c.Load.BenchmarkDuration != nil, c.Conversation.NumSessions != nil:
		return 0 // the duration or the session count stops the run
	}
	return max(MinDefaultRequestCount, 2*c.Concurrency())
}

// ArrivalPattern returns the resolved arrival pattern: concurrency_burst in
// concurrency mode; in request-rate mode the explicit --arrival-pattern,
// else gamma when --arrival-smoothness was given (smoothness is a gamma
// parameter), else poisson.
func (c *Config) ArrivalPattern() ArrivalPattern {
	switch {
	case c.Load.RequestRate == nil && len(c.Shape.RateSeries) == 0:
		return ArrivalConcurrencyBurst
	case c.Load.ArrivalPattern != "":
		return c.Load.ArrivalPattern
	case c.Load.ArrivalSmoothness != nil:
		return ArrivalGamma
	}
	return ArrivalPoisson
}

// ArrivalSmoothness returns the gamma shape parameter: the explicit
// --arrival-smoothness, else 1.0 (exponential gaps, Poisson-like).
func (c *Config) ArrivalSmoothness() float64 {
	if c.Load.ArrivalSmoothness != nil {
		return *c.Load.ArrivalSmoothness
	}
	return DefaultArrivalSmoothness
}

// GracePeriod returns the seconds to wait for in-flight responses after
// --benchmark-duration: the explicit value (possibly +Inf), else 30. It is
// meaningful only when Load.BenchmarkDuration is set.
func (c *Config) GracePeriod() float64 {
	if c.Load.BenchmarkGracePeriod != nil {
		return float64(*c.Load.BenchmarkGracePeriod)
	}
	return DefaultBenchmarkGracePeriod
}

// DatasetEntries returns the number of unique synthetic conversations: the
// explicit --num-dataset-entries, else --num-sessions, else the explicit
// --request-count (so `--request-count N` sends N distinct prompts), else
// 100, in AIPerf's order.
func (c *Config) DatasetEntries() int {
	switch {
	case c.Input.NumDatasetEntries != nil:
		return *c.Input.NumDatasetEntries
	case c.Conversation.NumSessions != nil:
		return *c.Conversation.NumSessions
	case c.Load.RequestCount != nil:
		return *c.Load.RequestCount
	}
	return DefaultNumDatasetEntries
}

// WarmupEnabled reports whether a warmup phase runs: it does when
// --warmup-request-count, --warmup-duration or --num-warmup-sessions was
// given.
func (c *Config) WarmupEnabled() bool {
	return c.Warmup.RequestCount != nil || c.Warmup.Duration != nil || c.Conversation.NumWarmupSessions != nil
}

// LogLevel returns the effective log level: TRACE with -vv, DEBUG with -v,
// else --log-level. The verbosity flags win over --log-level, as in AIPerf.
func (c *Config) LogLevel() LogLevel {
	switch {
	case c.Service.ExtraVerbose:
		return LogTrace
	case c.Service.Verbose:
		return LogDebug
	case c.Service.LogLevel == "":
		return DefaultLogLevel
	}
	return c.Service.LogLevel
}

// UIType returns the display to use, given whether stdout is a terminal.
// AIPerf's rules, in order: -v or -vv select simple (even over an explicit
// --ui-type, so log lines stay readable); an explicit --ui-type is used,
// except that a dashboard needs a terminal and falls back to simple
// without one; otherwise the default is dashboard on a terminal and none
// when output is piped or redirected.
func (c *Config) UIType(isTTY bool) UIType {
	switch {
	case c.Service.Verbose || c.Service.ExtraVerbose:
		return UISimple
	case c.Service.UIType == UIDashboard && !isTTY:
		return UISimple
	case c.Service.UIType != "":
		return c.Service.UIType
	case isTTY:
		return UIDashboard
	}
	return UINone
}

// NormalizeURL makes a --url value usable as a base URL: surrounding space
// is trimmed, "http://" is prepended when the value has no scheme (no
// "://", so "localhost:8000" becomes "http://localhost:8000"), and trailing
// slashes are removed so that endpoint paths can be appended.
func NormalizeURL(u string) string {
	u = strings.TrimSpace(u)
	if u == "" {
		return ""
	}
	if !strings.Contains(u, "://") {
		u = "http://" + u
	}
	// Trim trailing slashes (and the space they may uncover) after the
	// scheme only, so that the result normalizes to itself ("/" gives
	// "http://", not "http:").
	k := strings.Index(u, "://") + 3
	return u[:k] + strings.TrimRightFunc(u[k:], func(r rune) bool { return r == '/' || unicode.IsSpace(r) })
}
