package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
)

// LoadShape is how load changes within a phase: prefill
// concurrency, ramps, a request-rate series, user-centric users, the
// warmup phase's own load and the trace-replay pacing knobs. Every field
// is optional; nil or zero means "not given".
type LoadShape struct {
	// PrefillConcurrency caps requests sent and not yet answered with a
	// first content chunk (--prefill-concurrency; streaming only).
	PrefillConcurrency *int `json:"prefill_concurrency,omitempty"`
	// RequestConcurrency caps requests on the wire, sent and not yet
	// ended, whatever sent them (--request-concurrency): session
	// concurrency bounds conversations, and a conversation whose turns
	// fork (agentic subagents) can have several requests out at once.
	RequestConcurrency *int `json:"request_concurrency,omitempty"`
	// ConcurrencyRamp, PrefillRamp and RateRamp ramp the session
	// concurrency, the prefill concurrency and the request rate to their
	// targets (--concurrency-ramp-duration, ...; YAML concurrency_ramp,
	// prefill_ramp, rate_ramp with a strategy).
	ConcurrencyRamp *Ramp `json:"concurrency_ramp,omitempty"`
	PrefillRamp     *Ramp `json:"prefill_ramp,omitempty"`
	RateRamp        *Ramp `json:"rate_ramp,omitempty"`
	// RateSeries is a piecewise-linear request rate over time
	// (--request-rate-series FILE or YAML rate_series); it replaces
	// --request-rate, which it excludes.
	RateSeries []RatePoint `json:"rate_series,omitempty"`
	// RateSeriesFile is where RateSeries was read from (provenance).
	RateSeriesFile string `json:"rate_series_file,omitempty"`
	// UserCentricRate (QPS) with NumUsers selects user-centric mode.
	UserCentricRate *float64 `json:"user_centric_rate,omitempty"`
	NumUsers        *int     `json:"num_users,omitempty"`

	// TimingMode is the profiling phase's explicit timing strategy (a
	// config file's timing_mode; --scenario inferencex-agentx-mvp sets
	// it): "" follows the load flags, TimingAgenticReplay selects AIPerf's
	// agentic_replay.
	TimingMode string `json:"timing_mode,omitempty"`
	// Agentic-replay knobs (AIPerf's agentic_replay timing mode; see
	// docs/load-shapes.md).
	TrajectoryStartMinRatio  *float64 `json:"trajectory_start_min_ratio,omitempty"`
	TrajectoryStartMaxRatio  *float64 `json:"trajectory_start_max_ratio,omitempty"`
	BurstPhaseStarts         bool     `json:"burst_phase_starts,omitempty"`
	TraceIdleGapCapSeconds   *float64 `json:"trace_idle_gap_cap_seconds,omitempty"`
	SystemIdleGapCapSeconds  *float64 `json:"system_idle_gap_cap_seconds,omitempty"`
	AgenticCacheWarmup       *float64 `json:"agentic_cache_warmup_duration,omitempty"`
	AgenticWarmupGracePeriod *float64 `json:"agentic_warmup_grace_period,omitempty"`

	// Warmup is the warmup phase's own load.
	Warmup WarmupLoad `json:"warmup,omitzero"`
	// Replay is the trace-replay pacing (Conversation Input group).
	Replay TraceReplay `json:"trace_replay,omitzero"`
	// Adaptive is the profiling phase's adaptive-scale controller; nil
	// when it is off.
	Adaptive *AdaptiveScale `json:"adaptive_scale,omitempty"`
	// Phases are the named phases of a multi-phase run (config file only);
	// empty for the usual warmup + profiling run.
	Phases []NamedPhase `json:"phases,omitempty"`
	// SLA are the phase's own SLA filters (a config file's phase sla:),
	// which the adaptive-scale controller uses when its block names none;
	// each "metric:stat:op:threshold".
	SLA []string `json:"sla,omitempty"`
}

// Ramp is a ramp's duration and curve.
type Ramp struct {
	// Duration is in seconds (> 0).
	Duration float64 `json:"duration"`
	// Strategy is linear (the default), exponential or poisson.
	Strategy RampStrategy `json:"strategy,omitempty"`
}

// RampStrategy is a ramp curve.
type RampStrategy string

// Ramp strategies, as AIPerf's ramp plugins.
const (
	RampLinear      RampStrategy = "linear"
	RampExponential RampStrategy = "exponential"
	RampPoisson     RampStrategy = "poisson"
)

// RampStrategies lists the strategies in help order.
func RampStrategies() []RampStrategy {
	return []RampStrategy{RampLinear, RampExponential, RampPoisson}
}

// StrategyOrLinear is the strategy, linear when unset.
func (r *Ramp) StrategyOrLinear() RampStrategy {
	if r.Strategy == "" {
		return RampLinear
	}
	return r.Strategy
}

// RatePoint is one control point of a request-rate series.
type RatePoint struct {
	TimeS float64 `json:"time_s"`
	QPS   float64 `json:"qps"`
}

// WarmupLoad is the warmup phase's load when it differs from the
// profiling phase's (AIPerf's --warmup-* flags): each unset field falls
// back to the profiling value.
type WarmupLoad struct {
	Concurrency        *int           `json:"warmup_concurrency,omitempty"`
	PrefillConcurrency *int           `json:"warmup_prefill_concurrency,omitempty"`
	RequestConcurrency *int           `json:"warmup_request_concurrency,omitempty"`
	RequestRate        *float64       `json:"warmup_request_rate,omitempty"`
	ArrivalPattern     ArrivalPattern `json:"warmup_arrival_pattern,omitempty"`
	// GracePeriod bounds the wait for warmup responses after
	// --warmup-duration; nil = wait for all (AIPerf's default).
	GracePeriod     *Seconds `json:"warmup_grace_period,omitempty"`
	ConcurrencyRamp *Ramp    `json:"warmup_concurrency_ramp,omitempty"`
	PrefillRamp     *Ramp    `json:"warmup_prefill_ramp,omitempty"`
	RateRamp        *Ramp    `json:"warmup_rate_ramp,omitempty"`
}

// TraceReplay is how a timestamped trace is paced (AIPerf's Conversation
// Input replay flags). The baseten_trace loader honours them all, as in
// AIPerf; Speedup also paces every other trace replayed on a fixed
// schedule, and the rest are ignored elsewhere, with a warning (AIPerf's
// behaviour).
type TraceReplay struct {
	// Speedup divides every timestamp and inter-turn delay (10 = ten
	// times faster than recorded); nil = real time.
	Speedup *float64 `json:"replay_speedup,omitempty"`
	// ClosedLoop (--no-open-loop-replay) sends a later turn its recorded
	// think time after the previous response instead of at its recorded
	// timestamp.
	ClosedLoop bool `json:"closed_loop_replay,omitempty"`
	// Strict (--open-loop-strict) sends every trace row as its own
	// single-turn session at its recorded timestamp.
	Strict bool `json:"open_loop_strict,omitempty"`
	// OmitKVHints drops recorded KV-cache hints (hash_ids, block_size)
	// from replayed request bodies.
	OmitKVHints bool `json:"omit_kv_hints,omitempty"`
	// NoForceMinTokens (--no-force-min-tokens) stops pinning min_tokens to
	// the recorded output length.
	NoForceMinTokens bool `json:"no_force_min_tokens,omitempty"`
	// MaxIdleGapCapSeconds collapses idle gaps between consecutive
	// requests (across sessions, after Speedup) to at most this long.
	MaxIdleGapCapSeconds *float64 `json:"max_idle_gap_cap_seconds,omitempty"`
}

// UserCentric reports whether the run is in user-centric mode.
func (c *Config) UserCentric() bool { return c.Shape.UserCentricRate != nil }

// TimingAgenticReplay is AIPerf's agentic_replay timing strategy.
const TimingAgenticReplay = "agentic_replay"

// AgenticReplay reports that the profiling phase runs AIPerf's agentic
// replay.
func (c *Config) AgenticReplay() bool { return c.Shape.TimingMode == TimingAgenticReplay }

// Trajectory start ratios' defaults (AIPerf's).
const (
	DefaultTrajectoryStartMinRatio = 0.25
	DefaultTrajectoryStartMaxRatio = 0.75
)

// TrajectoryStartRatios returns the agentic replay's start ratios, with
// AIPerf's defaults.
func (c *Config) TrajectoryStartRatios() (lo, hi float64) {
	lo, hi = DefaultTrajectoryStartMinRatio, DefaultTrajectoryStartMaxRatio
	if v := c.Shape.TrajectoryStartMinRatio; v != nil {
		lo = *v
	}
	if v := c.Shape.TrajectoryStartMaxRatio; v != nil {
		hi = *v
	}
	return lo, hi
}

// AgenticOnlyFlags lists the agentic replay flags that are set; outside
// agentic replay they have no effect (AIPerf ignores them too, and the
// run warns).
func (c *Config) AgenticOnlyFlags() []string {
	s := &c.Shape
	var out []string
	for _, f := range []struct {
		flag string
		set  bool
	}{
		{"--trajectory-start-min-ratio", s.TrajectoryStartMinRatio != nil},
		{"--trajectory-start-max-ratio", s.TrajectoryStartMaxRatio != nil},
		{"--burst-phase-starts", s.BurstPhaseStarts},
		{"--system-idle-gap-cap-seconds", s.SystemIdleGapCapSeconds != nil},
		{"--agentic-warmup-grace-period", s.AgenticWarmupGracePeriod != nil},
	} {
		if f.set {
			out = append(out, f.flag)
		}
	}
	return out
}

// PrefillConcurrency returns the profiling phase's prefill concurrency,
// 0 when unlimited.
func (c *Config) PrefillConcurrency() int {
	if c.Shape.PrefillConcurrency != nil {
		return *c.Shape.PrefillConcurrency
	}
	return 0
}

// SeriesRate is the first rate of a request-rate series, which stands in
// for --request-rate; ok is false without a series.
func (c *Config) SeriesRate() (float64, bool) {
	if len(c.Shape.RateSeries) == 0 {
		return 0, false
	}
	return c.Shape.RateSeries[0].QPS, true
}

func (c *Config) validateShape(p *problems) {
	s := &c.Shape
	l := &c.Load
	if s.PrefillConcurrency != nil {
		atLeast1(p, "--prefill-concurrency", *s.PrefillConcurrency)
		if !c.Endpoint.Streaming {
			p.add("--prefill-concurrency", "requires --streaming: the prefill slot is released at the first streamed token")
		}
		if l.Concurrency != nil && *s.PrefillConcurrency > *l.Concurrency {
			p.add("--prefill-concurrency", "must be <= --concurrency (%d), got %d", *l.Concurrency, *s.PrefillConcurrency)
		}
	}
	if s.RequestConcurrency != nil {
		atLeast1(p, "--request-concurrency", *s.RequestConcurrency)
	}
	validateRamp(p, "--concurrency-ramp-duration", s.ConcurrencyRamp)
	validateRamp(p, "--prefill-concurrency-ramp-duration", s.PrefillRamp)
	validateRamp(p, "--request-rate-ramp-duration", s.RateRamp)
	// A prefill ramp without --prefill-concurrency has no effect, as in
	// AIPerf 0.13 (its ramping template sets one); the run log says so.
	if s.ConcurrencyRamp != nil && l.Concurrency == nil && !c.UserCentric() {
		p.add("--concurrency-ramp-duration", "requires --concurrency (the ramp's target)")
	}
	rated := l.RequestRate != nil || len(s.RateSeries) > 0 || c.UserCentric()
	if s.RateRamp != nil && !rated {
		p.add("--request-rate-ramp-duration", "requires rate-controlled scheduling (--request-rate, --request-rate-series or --user-centric-rate)")
	}
	if s.RateRamp != nil && c.UserCentric() {
		p.add("--request-rate-ramp-duration", "cannot be combined with --user-centric-rate: each user's turn gap is fixed")
	}
	if len(s.RateSeries) > 0 {
		if l.RequestRate != nil {
			p.add("--request-rate-series", "--request-rate and --request-rate-series are mutually exclusive")
		}
		if c.UserCentric() {
			p.add("--request-rate-series", "is not supported with --user-centric-rate")
		}
		validateSeries(p, s.RateSeries)
	}
	c.validateUserCentric(p)
	c.validateAgentic(p)
	c.validateWarmupLoad(p)
	c.validateTraceReplay(p)
	c.validateAdaptive(p)
	c.validatePhases(p)
}

// validateRamp checks one ramp.
func validateRamp(p *problems, flag string, r *Ramp) {
	if r == nil {
		return
	}
	positive(p, flag, r.Duration)
	if r.Strategy != "" && !slices.Contains(RampStrategies(), r.Strategy) {
		p.add(flag, "unknown ramp strategy %q (choose from %s)", r.Strategy, joinChoices(RampStrategies()))
	}
}

// validateSeries checks a request-rate series: two points or more,
// finite, times >= 0 strictly increasing, rates > 0.
func validateSeries(p *problems, pts []RatePoint) {
	const flag = "--request-rate-series"
	if len(pts) < 2 {
		p.add(flag, "needs at least two points, got %d", len(pts))
	}
	for i, pt := range pts {
		if !(pt.TimeS >= 0) || math.IsInf(pt.TimeS, 0) {
			p.add(flag, "point %d: time_s must be a finite number >= 0, got %v", i, pt.TimeS)
		}
		if !(pt.QPS > 0) || math.IsInf(pt.QPS, 0) {
			p.add(flag, "point %d: qps must be a finite number > 0, got %v", i, pt.QPS)
		}
		if i > 0 && !(pt.TimeS > pts[i-1].TimeS) {
			p.add(flag, "point %d: time_s %v is not after point %d's %v (times must strictly increase)", i, pt.TimeS, i-1, pts[i-1].TimeS)
		}
	}
}

// validateUserCentric checks --user-centric-rate and --num-users, with
// AIPerf's rules.
func (c *Config) validateUserCentric(p *problems) {
	s, l := &c.Shape, &c.Load
	if s.NumUsers != nil {
		atLeast1(p, "--num-users", *s.NumUsers)
		if s.UserCentricRate == nil {
			p.add("--num-users", "requires --user-centric-rate (without it the run uses concurrency or request-rate timing)")
		}
	}
	if s.UserCentricRate == nil {
		return
	}
	positive(p, "--user-centric-rate", *s.UserCentricRate)
	if s.NumUsers == nil {
		p.add("--user-centric-rate", "requires --num-users (the users sharing the rate)")
	}
	if l.RequestRate != nil {
		p.add("--user-centric-rate", "cannot be combined with --request-rate: the users' turn gaps set the rate")
	}
	if l.ArrivalPattern != "" {
		p.add("--user-centric-rate", "cannot be combined with --arrival-pattern: each user sends one turn per gap")
	}
	if c.Conversation.TurnsMean < 2 && !c.Dataset.FromFile() {
		p.add("--user-centric-rate", "needs multi-turn sessions: set --session-turns-mean >= 2 (got %d)", c.Conversation.TurnsMean)
	}
	if s.NumUsers != nil {
		if l.RequestCount != nil && *l.RequestCount < *s.NumUsers {
			p.add("--request-count", "must be >= --num-users (%d) in user-centric mode: each user needs at least one request, got %d", *s.NumUsers, *l.RequestCount)
		}
		if n := c.Conversation.NumSessions; n != nil && *n < *s.NumUsers {
			p.add("--num-sessions", "must be >= --num-users (%d) in user-centric mode: each user needs a session, got %d", *s.NumUsers, *n)
		}
	}
}

// validateAgentic checks the agentic-replay knobs' ranges.
func (c *Config) validateAgentic(p *problems) {
	s := &c.Shape
	for _, r := range []struct {
		flag string
		v    *float64
	}{{"--trajectory-start-min-ratio", s.TrajectoryStartMinRatio}, {"--trajectory-start-max-ratio", s.TrajectoryStartMaxRatio}} {
		if r.v != nil && !(*r.v >= 0 && *r.v <= 1) {
			p.add(r.flag, "must be a fraction >= 0 and <= 1, got %v", *r.v)
		}
	}
	if lo, hi := s.TrajectoryStartMinRatio, s.TrajectoryStartMaxRatio; lo != nil && hi != nil && *lo > *hi {
		p.add("--trajectory-start-min-ratio", "must be <= --trajectory-start-max-ratio (%v), got %v", *hi, *lo)
	}
	for _, r := range []struct {
		flag string
		v    *float64
	}{
		{"--trace-idle-gap-cap-seconds", s.TraceIdleGapCapSeconds},
		{"--system-idle-gap-cap-seconds", s.SystemIdleGapCapSeconds},
		{"--agentic-warmup-grace-period", s.AgenticWarmupGracePeriod},
	} {
		if r.v != nil {
			nonNegative(p, r.flag, *r.v)
		}
	}
	if s.AgenticCacheWarmup != nil {
		positive(p, "--agentic-cache-warmup-duration", *s.AgenticCacheWarmup)
	}
	switch s.TimingMode {
	case "", TimingAgenticReplay:
	default:
		p.add("timing_mode", "only %q can be set explicitly (the other timing strategies follow the phase type), got %q", TimingAgenticReplay, s.TimingMode)
	}
	if s.AgenticCacheWarmup != nil && !c.AgenticReplay() && c.Compat.Scenario == "" {
		p.add("--agentic-cache-warmup-duration", "requires the agentic_replay timing mode (set today by --scenario inferencex-agentx-mvp, or a config file's timing_mode: agentic_replay); the profiling phase is not agentic_replay")
	}
	if !c.AgenticReplay() {
		return
	}
	for _, f := range []struct {
		flag string
		set  bool
	}{
		{"--request-rate", c.Load.RequestRate != nil},
		{"--request-rate-series", len(s.RateSeries) > 0},
		{"--user-centric-rate", c.UserCentric()},
		{"--fixed-schedule", c.Replay.FixedSchedule},
		{"--concurrency-ramp-duration", s.ConcurrencyRamp != nil},
		{"adaptive_scale", s.Adaptive != nil},
		{"--warmup-request-count / --warmup-duration / --num-warmup-sessions", c.WarmupEnabled()},
		{"--workers", c.Cluster.Workers > 0},
	} {
		if f.set {
			p.add(f.flag, "cannot be combined with the agentic_replay timing mode: the replay paces requests by the traces' own timing, one trajectory per --concurrency lane")
		}
	}
	if b := c.Prompt.CacheBust; b == "warmup_isolation_system" || b == "warmup_isolation_first_turn" {
		p.add("--cache-bust", "targets warmup_isolation_system and warmup_isolation_first_turn are not compatible with the agentic_replay timing mode: its sessions continue from the warmup into profiling; use a RID target (system_prefix, first_turn_prefix, ...) or none")
	}
	if len(s.Phases) > 0 {
		p.add("timing_mode", "agentic_replay runs one profiling phase (after its own synthesized warmup), not a list of named phases")
	}
}

// ValidateAgenticReplay checks the agentic replay's cross-option rules
// again once a scenario has set the timing mode (Validate runs before the
// scenario is applied).
func (c *Config) ValidateAgenticReplay() error {
	var p problems
	c.validateAgentic(&p)
	return errors.Join(p...)
}

// validateWarmupLoad checks the --warmup-* load flags.
func (c *Config) validateWarmupLoad(p *problems) {
	w := &c.Shape.Warmup
	if w.Concurrency != nil {
		atLeast1(p, "--warmup-concurrency", *w.Concurrency)
	}
	if w.PrefillConcurrency != nil {
		atLeast1(p, "--warmup-prefill-concurrency", *w.PrefillConcurrency)
		if !c.Endpoint.Streaming {
			p.add("--warmup-prefill-concurrency", "requires --streaming: the prefill slot is released at the first streamed token")
		}
	}
	if w.RequestConcurrency != nil {
		atLeast1(p, "--warmup-request-concurrency", *w.RequestConcurrency)
	}
	if w.RequestRate != nil {
		positive(p, "--warmup-request-rate", *w.RequestRate)
	}
	switch {
	case w.ArrivalPattern == "":
	case !slices.Contains(ArrivalPatterns(), w.ArrivalPattern) || w.ArrivalPattern == ArrivalConcurrencyBurst:
		p.add("--warmup-arrival-pattern", "invalid choice %q (choose from constant, gamma, poisson)", w.ArrivalPattern)
	case w.RequestRate == nil && c.Load.RequestRate == nil:
		p.add("--warmup-arrival-pattern", "requires --warmup-request-rate or --request-rate")
	}
	if g := w.GracePeriod; g != nil {
		if f := float64(*g); math.IsNaN(f) || f < 0 {
			p.add("--warmup-grace-period", "must be >= 0 seconds or inf, got %v", f)
		}
		if c.Warmup.Duration == nil {
			p.add("--warmup-grace-period", "requires --warmup-duration: the grace period only follows a duration-bounded warmup")
		}
	}
	validateRamp(p, "--warmup-concurrency-ramp-duration", w.ConcurrencyRamp)
	validateRamp(p, "--warmup-prefill-concurrency-ramp-duration", w.PrefillRamp)
	validateRamp(p, "--warmup-request-rate-ramp-duration", w.RateRamp)
	if w.RateRamp != nil && w.RequestRate == nil && c.Load.RequestRate == nil {
		p.add("--warmup-request-rate-ramp-duration", "requires warmup rate-controlled scheduling: pass --warmup-request-rate")
	}
	set := w.Concurrency != nil || w.PrefillConcurrency != nil || w.RequestConcurrency != nil || w.RequestRate != nil || w.ArrivalPattern != "" ||
		w.GracePeriod != nil || w.ConcurrencyRamp != nil || w.PrefillRamp != nil || w.RateRamp != nil
	if set && !c.WarmupEnabled() {
		p.add("--warmup-concurrency", "the --warmup-* load flags need a warmup: pass --warmup-request-count, --warmup-duration or --num-warmup-sessions")
	}
}

// validateTraceReplay checks the trace-replay pacing flags.
func (c *Config) validateTraceReplay(p *problems) {
	r := &c.Shape.Replay
	if r.Speedup != nil {
		positive(p, "--replay-speedup", *r.Speedup)
	}
	if r.MaxIdleGapCapSeconds != nil {
		positive(p, "--max-idle-gap-cap-seconds", *r.MaxIdleGapCapSeconds)
	}
	if r.Strict && r.ClosedLoop {
		p.add("--open-loop-strict", "cannot be combined with --no-open-loop-replay: strict replay is open loop")
	}
}

// ParseRateSeries reads a request-rate series document: a JSON array of
// {"time_s", "qps"} points, or an object with exactly one key, "points",
// holding that array (AIPerf's two shapes). name labels errors. The
// points' own checks are Validate's.
func ParseRateSeries(b []byte, name string) ([]RatePoint, error) {
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: not valid JSON: %w", name, err)
	}
	if m, ok := doc.(map[string]any); ok {
		if len(m) != 1 || m["points"] == nil {
			return nil, fmt.Errorf("%s: a request-rate series object must have exactly one key, points", name)
		}
		doc = m["points"]
	}
	list, ok := doc.([]any)
	if !ok {
		return nil, fmt.Errorf("%s: a request-rate series is an array of {time_s, qps} points or {\"points\": [...]}", name)
	}
	out := make([]RatePoint, 0, len(list))
	var errs []error
	for i, item := range list {
		raw, _ := json.Marshal(item)
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		var pt struct {
			TimeS *float64 `json:"time_s"`
			QPS   *float64 `json:"qps"`
		}
		if err := dec.Decode(&pt); err != nil {
			errs = append(errs, fmt.Errorf("%s: point %d: %w", name, i, err))
			continue
		}
		if pt.TimeS == nil || pt.QPS == nil {
			errs = append(errs, fmt.Errorf("%s: point %d: needs both time_s and qps", name, i))
			continue
		}
		out = append(out, RatePoint{TimeS: *pt.TimeS, QPS: *pt.QPS})
	}
	return out, errors.Join(errs...)
}
