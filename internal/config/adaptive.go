package config

import (
	"math"
	"slices"
	"strings"
)

// AdaptiveScale is a phase's adaptive-scale controller (AIPerf 0.12+
// adaptive_scale, YAML only): it moves one control variable while SLA
// windows pass, then holds the last passing value for SustainDuration.
type AdaptiveScale struct {
	// Variable is concurrency, prefill_concurrency, request_rate or users.
	Variable AdaptiveVariable `json:"control_variable"`
	// Min is the starting value (default 1); Max the ceiling, nil = the
	// phase's own target (concurrency, prefill_concurrency, rate, users).
	Min float64  `json:"control_min"`
	Max *float64 `json:"control_max,omitempty"`
	// AssessmentPeriod is the length of one SLA window in seconds (>= 1,
	// default 30).
	AssessmentPeriod float64 `json:"assessment_period"`
	// MinCompletedRequests is the fewest successful requests a window
	// needs to decide (default 1).
	MinCompletedRequests int `json:"min_completed_requests"`
	// SustainDuration is how long, in seconds, the boundary is held.
	SustainDuration float64 `json:"sustain_duration"`
	// StepPolicy is sla_margin (steps of BaseStep times up to
	// MaxStepMultiplier, by headroom) or fixed_percent_step (StepPercent
	// of the current value).
	StepPolicy        string  `json:"step_policy"`
	BaseStep          int     `json:"base_step"`
	MaxStepMultiplier int     `json:"max_step_multiplier"`
	StepPercent       float64 `json:"step_percent"`
	// SLA are the filters every window must pass, in declaration order
	// (the first is the primary one), each "metric:stat:op:threshold"
	// (internal/sla's Parse form).
	SLA []string `json:"sla"`
}

// AdaptiveVariable is an adaptive-scale control variable.
type AdaptiveVariable string

// The control variables.
const (
	AdaptiveConcurrency        AdaptiveVariable = "concurrency"
	AdaptivePrefillConcurrency AdaptiveVariable = "prefill_concurrency"
	AdaptiveRequestRate        AdaptiveVariable = "request_rate"
	AdaptiveUsers              AdaptiveVariable = "users"
)

// AdaptiveVariables lists the control variables.
func AdaptiveVariables() []AdaptiveVariable {
	return []AdaptiveVariable{AdaptiveConcurrency, AdaptivePrefillConcurrency, AdaptiveRequestRate, AdaptiveUsers}
}

// Adaptive-scale defaults, as AIPerf's.
const (
	DefaultAdaptiveAssessmentPeriod  = 30.0
	DefaultAdaptiveStepPolicy        = "sla_margin"
	DefaultAdaptiveBaseStep          = 10
	DefaultAdaptiveMaxStepMultiplier = 4
	DefaultAdaptiveStepPercent       = 25.0
)

// NewAdaptiveScale returns a controller block with AIPerf's defaults.
func NewAdaptiveScale() *AdaptiveScale {
	return &AdaptiveScale{
		Variable:             AdaptiveConcurrency,
		Min:                  1,
		AssessmentPeriod:     DefaultAdaptiveAssessmentPeriod,
		MinCompletedRequests: 1,
		StepPolicy:           DefaultAdaptiveStepPolicy,
		BaseStep:             DefaultAdaptiveBaseStep,
		MaxStepMultiplier:    DefaultAdaptiveMaxStepMultiplier,
		StepPercent:          DefaultAdaptiveStepPercent,
	}
}

// AdaptiveMax is the controller's ceiling: Max, else the phase's target
// for the variable; ok is false when neither exists.
func (c *Config) AdaptiveMax() (float64, bool) {
	a := c.Shape.Adaptive
	if a == nil {
		return 0, false
	}
	if a.Max != nil {
		return *a.Max, true
	}
	switch a.Variable {
	case AdaptiveConcurrency:
		if c.Load.Concurrency != nil {
			return float64(*c.Load.Concurrency), true
		}
	case AdaptivePrefillConcurrency:
		if c.Shape.PrefillConcurrency != nil {
			return float64(*c.Shape.PrefillConcurrency), true
		}
	case AdaptiveRequestRate:
		if c.Load.RequestRate != nil {
			return *c.Load.RequestRate, true
		}
	case AdaptiveUsers:
		if c.Shape.NumUsers != nil {
			return float64(*c.Shape.NumUsers), true
		}
	}
	return 0, false
}

// AdaptiveSLA is the controller's SLA filters: its own, else the phase's.
func (c *Config) AdaptiveSLA() []string {
	if a := c.Shape.Adaptive; a != nil && len(a.SLA) > 0 {
		return a.SLA
	}
	return c.Shape.SLA
}

// validateAdaptive checks the controller with AIPerf's rules.
func (c *Config) validateAdaptive(p *problems) {
	a := c.Shape.Adaptive
	if a == nil {
		return
	}
	c.validateAdaptiveControl(p, a)
	validateAdaptiveStrategy(p, a)
	const key = adaptiveKey
	if c.Replay.FixedSchedule {
		p.add(key, "cannot be combined with a fixed schedule")
	}
	if !(a.Min > 0) {
		p.add(key, "control.min must be > 0, got %v", a.Min)
	}
	max, ok := c.AdaptiveMax()
	c.validateAdaptiveVariable(p, a, max, ok)
	c.validateAdaptiveBounds(p, a, max, ok)
}

// adaptiveKey names the controller in its problems.
const adaptiveKey = "adaptive_scale"

// validateAdaptiveControl checks the controlled variable, the phase
// duration, the SLA and the assessment cadence.
func (c *Config) validateAdaptiveControl(p *problems, a *AdaptiveScale) {
	const key = adaptiveKey
	if !slices.Contains(AdaptiveVariables(), a.Variable) {
		p.add(key, "control.variable: unknown %q (choose from %s)", a.Variable, joinChoices(AdaptiveVariables()))
	}
	if c.Load.BenchmarkDuration == nil {
		p.add(key, "requires the phase's duration")
	}
	if !(a.SustainDuration > 0) || math.IsInf(a.SustainDuration, 0) {
		p.add(key, "requires sustain_duration > 0 seconds, got %v", a.SustainDuration)
	}
	if len(c.AdaptiveSLA()) == 0 {
		p.add(key, "requires sla filters, e.g. sla: {time_to_first_token: {p95: {le: 500}}}")
	}
	if !(a.AssessmentPeriod >= 1) || math.IsInf(a.AssessmentPeriod, 0) {
		p.add(key, "assessment_period must be >= 1 second, got %v", a.AssessmentPeriod)
	}
	if a.MinCompletedRequests < 1 {
		p.add(key, "min_completed_requests must be >= 1, got %d", a.MinCompletedRequests)
	}
}

// validateAdaptiveStrategy checks the step policy and its sizes.
func validateAdaptiveStrategy(p *problems, a *AdaptiveScale) {
	const key = adaptiveKey
	switch a.StepPolicy {
	case "sla_margin", "fixed_percent_step":
	default:
		p.add(key, "strategy.step_policy: unknown %q (sla_margin or fixed_percent_step)", a.StepPolicy)
	}
	if a.BaseStep < 1 {
		p.add(key, "strategy.base_step must be >= 1, got %d", a.BaseStep)
	}
	if a.MaxStepMultiplier < 1 {
		p.add(key, "strategy.max_step_multiplier must be >= 1, got %d", a.MaxStepMultiplier)
	}
	if !(a.StepPercent > 0) || math.IsInf(a.StepPercent, 0) {
		p.add(key, "strategy.step_percent must be > 0, got %v", a.StepPercent)
	}
}

// validateAdaptiveVariable checks that the phase can carry the controlled
// variable; max and ok are c.AdaptiveMax().
func (c *Config) validateAdaptiveVariable(p *problems, a *AdaptiveScale, max float64, ok bool) {
	const key = adaptiveKey
	switch a.Variable {
	case AdaptiveConcurrency:
		if c.Shape.ConcurrencyRamp != nil {
			p.add(key, "cannot be combined with concurrency_ramp: control.variable=concurrency already adjusts concurrency")
		}
		if c.Load.RequestRate != nil || len(c.Shape.RateSeries) > 0 || c.UserCentric() {
			p.add(key, "control.variable=concurrency needs a concurrency phase (no rate)")
		}
	case AdaptivePrefillConcurrency:
		if c.Shape.PrefillRamp != nil {
			p.add(key, "control.variable=prefill_concurrency cannot be combined with prefill_ramp")
		}
		if c.Load.Concurrency == nil {
			p.add(key, "control.variable=prefill_concurrency requires concurrency")
		} else if ok && max > float64(*c.Load.Concurrency) {
			p.add(key, "prefill_concurrency control.max must be <= concurrency (%d)", *c.Load.Concurrency)
		}
		if !c.Endpoint.Streaming {
			p.add(key, "control.variable=prefill_concurrency requires streaming")
		}
	case AdaptiveRequestRate:
		if c.Shape.RateRamp != nil || len(c.Shape.RateSeries) > 0 {
			p.add(key, "control.variable=request_rate cannot be combined with rate_ramp or rate_series")
		}
		if c.Load.RequestRate == nil {
			p.add(key, "control.variable=request_rate requires a rate-controlled phase")
		}
	case AdaptiveUsers:
		if !c.UserCentric() {
			p.add(key, "control.variable=users is only valid on user_centric phases")
		}
	}
}

// validateAdaptiveBounds checks control.min and control.max (max and ok
// are c.AdaptiveMax()) and the form of the SLA filters; nothing more is
// said when max cannot be inferred.
func (c *Config) validateAdaptiveBounds(p *problems, a *AdaptiveScale, max float64, ok bool) {
	const key = adaptiveKey
	integer := a.Variable != AdaptiveRequestRate
	if !ok {
		p.add(key, "control.max could not be inferred: set control.max or the phase's %s", a.Variable)
		return
	}
	if max <= a.Min {
		p.add(key, "control.max (%v) must be > control.min (%v)", max, a.Min)
	}
	if integer && (a.Min != math.Trunc(a.Min) || max != math.Trunc(max)) {
		p.add(key, "control.min and control.max must be integers for %s", a.Variable)
	}
	if a.Variable == AdaptiveConcurrency && c.Load.Concurrency != nil && a.Min > float64(*c.Load.Concurrency) {
		p.add(key, "control.min must be <= concurrency")
	}
	for _, f := range c.AdaptiveSLA() {
		if strings.Count(f, ":") < 3 {
			p.add(key, "sla filter %q is not metric:stat:op:threshold", f)
		}
	}
}
