package adaptive

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/aiperf-go/aiperf/internal/sla"
)

// Config is one controller's settings (AIPerf's adaptive_scale block).
type Config struct {
	// Variable names the control variable in the artifacts.
	Variable string
	// Min is where discovery starts, Max the ceiling; Integer rounds
	// values down to whole numbers (all variables but request_rate).
	Min, Max float64
	Integer  bool
	// StepPolicy is "sla_margin" (BaseStep times 1..MaxStepMultiplier by
	// the least SLA headroom) or "fixed_percent_step" (StepPercent of the
	// current value, at least 1).
	StepPolicy        string
	BaseStep          int
	MaxStepMultiplier int
	StepPercent       float64
	// MinCompleted is the fewest successful requests a window needs.
	MinCompleted int
	// Sustain is how long the boundary is held once found.
	Sustain time.Duration
	// Filters are the SLA; the first is the primary one.
	Filters []sla.Filter
}

// Validate reports every problem of c.
func (c *Config) Validate() error {
	var errs []error
	if !(c.Min > 0) || !(c.Max > c.Min) {
		errs = append(errs, fmt.Errorf("adaptive scale: control needs 0 < min < max, got %v and %v", c.Min, c.Max))
	}
	if c.StepPolicy != "sla_margin" && c.StepPolicy != "fixed_percent_step" {
		errs = append(errs, fmt.Errorf("adaptive scale: unknown step policy %q", c.StepPolicy))
	}
	if c.BaseStep < 1 || c.MaxStepMultiplier < 1 || !(c.StepPercent > 0) || c.MinCompleted < 1 {
		errs = append(errs, errors.New("adaptive scale: base_step, max_step_multiplier, step_percent and min_completed_requests must be positive"))
	}
	if len(c.Filters) == 0 {
		errs = append(errs, errors.New("adaptive scale: at least one SLA filter is required"))
	}
	for _, f := range c.Filters {
		if !Supported(f) {
			errs = append(errs, fmt.Errorf("adaptive scale: SLA filter %s: supported are request_latency, time_to_first_token and inter_token_latency (any statistic) and throughput, output_token_throughput, goodput, goodput_ratio, success_rate, error_rate and cancellation_rate (avg, min or max)", f))
		}
	}
	return errors.Join(errs...)
}

// Controller phases.
const (
	PhaseDiscover = "discover"
	PhaseSustain  = "sustain"
	PhaseComplete = "complete"
)

// Controller is the ramp-until-fail state machine. It is not safe for
// concurrent use; the run's assessment loop owns it.
type Controller struct {
	cfg   Config
	phase string

	current                          float64
	lastGood, firstFailing, boundary *float64

	sustainStart   time.Duration // run offset; valid in sustain
	sustainStartNs int64         // wall clock
	recoveryUsed   bool
	sustainWindows int
	sustainPassed  int
	iteration      int

	reason, status string
	candidates     []Candidate
	last           Window // the last window assessed, for the summary's totals
}

// New returns a controller at the start of discovery, at cfg.Min.
func New(cfg Config) (*Controller, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	c := &Controller{cfg: cfg, phase: PhaseDiscover}
	c.current = c.clamp(cfg.Min)
	return c, nil
}

// Value is the control value now.
func (c *Controller) Value() float64 { return c.current }

// Phase is the controller phase: discover, sustain or complete.
func (c *Controller) Phase() string { return c.phase }

// Done reports whether the controller has finished (it then wants the
// phase to stop sending).
func (c *Controller) Done() bool { return c.phase == PhaseComplete }

// Decision is what one assessment decided.
type Decision struct {
	// Events are the artifacts' new lines, in order.
	Events []Event
	// Changed is true when Value moved; the run applies it.
	Changed bool
	// Stop asks the run to stop sending: the controller completed.
	Stop bool
}

// Event is one line of adaptive_scale_events.jsonl: what happened and the
// controller state right after it.
type Event struct {
	Name, Phase, Reason string
	AtNs                int64 // wall clock
	SLAValue            *float64
	SLAValues           map[string]float64
	Throughput          float64
	Samples, Errors     int
	Cancelled           int
	Before              float64 // the control value before the event
	Passed              *bool
	StepSize            *float64
	Binding             string // key of the filter with the least margin; "" when none

	// State after the event.
	Value                            float64
	Boundary, LastGood, FirstFailing *float64
	Iteration                        int
}

// Key names a filter in sla_values, as AIPerf keys them:
// "metric:stat:op:threshold" with the threshold in %g form.
func Key(f sla.Filter) string {
	return f.Metric + ":" + f.Stat + ":" + string(f.Op) + ":" + strconv.FormatFloat(f.Threshold, 'g', 6, 64)
}

// Start is the first event: discovery begins at Min.
func (c *Controller) Start(nowNs int64) Event {
	return c.event("adaptive_phase_started", "adaptive scale discover phase started", nowNs, nil, nil, c.current)
}

// Assess evaluates window w, which ended at run offset now (wall clock
// nowNs), and advances the state machine, as AIPerf's ramp_until_fail:
//
//   - a window with failures and no successes (that the filters cannot
//     judge) counts as failing; one with fewer than MinCompleted
//     successes is inconclusive and changes nothing;
//   - discovering, a passing window records the value as the last good
//     one and steps up (Max reached: complete, incomplete status); a
//     failing one with no good value yet ends the search (failed), else
//     enters sustain at the last good value;
//   - sustaining, a failing window steps back once (to the last good
//     value, or a step down), a second failure ends the run (failed); a
//     passing window once Sustain has elapsed completes it.
func (c *Controller) Assess(w Window, now time.Duration, nowNs int64) (d Decision) {
	if c.Done() {
		return Decision{}
	}
	before := c.current
	defer func() {
		c.iteration++
		c.last = w
		d.Changed = c.current != before
		d.Stop = c.Done()
	}()
	zeroOK := len(w.Samples) == 0 && (w.Errors > 0 || w.Cancelled > 0) && decidableWithoutSuccesses(c.cfg.Filters, &w)
	if len(w.Samples) == 0 && (w.Errors > 0 || w.Cancelled > 0) && !zeroOK {
		passed := false
		d.Events = append(d.Events, c.windowEvent("no successful requests in assessment window", nowNs, &w, nil, nil, &passed))
		c.candidate(&w, false, "error_threshold")
		c.failedWindow(&d, &w, now, nowNs)
		return d
	}
	if len(w.Samples) < c.cfg.MinCompleted && !zeroOK {
		d.Events = append(d.Events, c.windowEvent("inconclusive: completed request count below minimum", nowNs, &w, nil, nil, nil))
		c.candidate(&w, false, "insufficient_samples")
		return d
	}
	res := sla.Evaluate(c.cfg.Filters, windowSource{w: &w, filters: c.cfg.Filters})
	values := make(map[string]float64, len(res.Checks))
	for _, ch := range res.Checks {
		values[Key(ch.Filter)] = ch.Value
	}
	primary := res.Checks[0].Value
	passing := res.Pass
	d.Events = append(d.Events, c.windowEvent("SLA window evaluated", nowNs, &w, &primary, values, &passing))
	c.candidate(&w, passing, "sla_miss")
	switch c.phase {
	case PhaseDiscover:
		c.discover(&d, &w, now, nowNs, primary, passing, values)
	case PhaseSustain:
		c.sustain(&d, &w, nowNs, &primary, passing, values, "", now)
	}
	return d
}

// Stop completes a controller the phase ended around ("phase_stopped",
// or the reason given); it returns the terminal event, if any.
func (c *Controller) Stop(reason, event string, nowNs int64) []Event {
	if c.Done() {
		return nil
	}
	return []Event{c.complete(reason, event, nowNs, nil, &c.last)}
}

func (c *Controller) discover(d *Decision, w *Window, now time.Duration, nowNs int64, primary float64, passing bool, values map[string]float64) {
	if passing {
		c.lastGood = ptr(c.current)
		if c.current >= c.cfg.Max {
			d.Events = append(d.Events, c.complete("max_control_value_reached_without_saturation", "adaptive_incomplete", nowNs, &primary, w))
			return
		}
		before := c.current
		c.current = c.clamp(c.current + c.step(c.current, values))
		step := c.current - before
		e := c.event("adaptive_decision", fmt.Sprintf("SLA value %.3f passes configured filters", primary), nowNs, &primary, values, before)
		e.StepSize = &step
		fillWindow(&e, w)
		d.Events = append(d.Events, e)
		return
	}
	c.firstFailing = ptr(c.current)
	if c.lastGood == nil {
		d.Events = append(d.Events, c.complete("no_sustainable_concurrency_found", "adaptive_failed", nowNs, &primary, w))
		return
	}
	c.enterSustain(d, w, now, nowNs, &primary, fmt.Sprintf("SLA value %.3f breaches configured filters", primary))
}

// failedWindow handles a window in which every request failed.
func (c *Controller) failedWindow(d *Decision, w *Window, now time.Duration, nowNs int64) {
	const reason = "all requests failed in assessment window"
	switch c.phase {
	case PhaseDiscover:
		c.firstFailing = ptr(c.current)
		if c.lastGood == nil {
			d.Events = append(d.Events, c.complete("no_sustainable_concurrency_found", "adaptive_failed", nowNs, nil, w))
			return
		}
		c.enterSustain(d, w, now, nowNs, nil, reason)
	case PhaseSustain:
		c.sustain(d, w, nowNs, nil, false, nil, reason, now)
	}
}

func (c *Controller) enterSustain(d *Decision, w *Window, now time.Duration, nowNs int64, primary *float64, reason string) {
	boundary := max(c.cfg.Min, *c.lastGood)
	before := c.current
	c.boundary = ptr(boundary)
	c.current = c.clamp(boundary)
	c.phase = PhaseSustain
	c.sustainStart, c.sustainStartNs = now, nowNs
	e := c.event("sustain_started", "holding boundary_value="+formatValue(boundary), nowNs, primary, nil, before)
	fillWindow(&e, w)
	f := c.event("boundary_discovered", reason, nowNs, primary, nil, boundary)
	fillWindow(&f, w)
	d.Events = append(d.Events, e, f)
}

func (c *Controller) sustain(d *Decision, w *Window, nowNs int64, primary *float64, passing bool, values map[string]float64, reason string, now time.Duration) {
	c.sustainWindows++
	if passing {
		c.sustainPassed++
		c.lastGood = ptr(c.current)
		c.recoveryUsed = false
		e := c.event("adaptive_decision", fmt.Sprintf("SLA value %.3f passes configured filters during sustain", deref(primary)), nowNs, primary, nil, c.current)
		fillWindow(&e, w)
		d.Events = append(d.Events, e)
		if now-c.sustainStart >= c.cfg.Sustain {
			d.Events = append(d.Events, c.complete("sustain_duration_completed", "adaptive_complete", nowNs, primary, w))
		}
		return
	}
	if c.recoveryUsed {
		d.Events = append(d.Events, c.complete("sustain_failed_after_recovery", "adaptive_failed", nowNs, primary, w))
		return
	}
	c.recoveryUsed = true
	before := c.current
	target := c.cfg.Min
	if c.lastGood != nil {
		target = max(target, *c.lastGood)
	}
	if target >= before {
		target = max(c.cfg.Min, before-c.step(before, values))
	}
	if target == before && before == c.cfg.Min {
		d.Events = append(d.Events, c.complete("sustain_failed_sla_unrecoverable", "adaptive_failed", nowNs, primary, w))
		return
	}
	c.current = c.clamp(target)
	if reason == "" {
		reason = fmt.Sprintf("SLA value %.3f breaches configured filters during sustain", deref(primary))
	}
	e := c.event("adaptive_decision", reason, nowNs, primary, values, before)
	step := math.Abs(before - c.current)
	e.StepSize = &step
	fillWindow(&e, w)
	d.Events = append(d.Events, e)
}

// complete ends the controller with reason and returns the terminal event.
func (c *Controller) complete(reason, event string, nowNs int64, primary *float64, w *Window) Event {
	c.phase = PhaseComplete
	c.reason = reason
	c.status = statusOf(reason)
	e := c.event(event, reason, nowNs, primary, nil, c.current)
	fillWindow(&e, w)
	return e
}

// statusOf is the summary status of a terminal reason, as AIPerf's.
func statusOf(reason string) string {
	switch reason {
	case "max_control_value_reached_without_saturation":
		return "incomplete"
	case "phase_cancelled", "no_sustainable_concurrency_found", "sustain_failed_sla_unrecoverable", "sustain_failed_after_recovery":
		return "failed"
	}
	if len(reason) > 13 && (reason[:13] == "phase_failed:" || (len(reason) > 18 && reason[:18] == "assessment_failed:")) {
		return "failed"
	}
	return "completed"
}

// step is the increase from current: a fixed percentage, or the base
// step times a multiplier that grows with the least SLA headroom.
func (c *Controller) step(current float64, values map[string]float64) float64 {
	if c.cfg.StepPolicy == "fixed_percent_step" {
		return max(1, math.Ceil(current*c.cfg.StepPercent/100))
	}
	base := float64(c.cfg.BaseStep)
	least, found := 0.0, false
	for _, f := range c.cfg.Filters {
		v, ok := values[Key(f)]
		if !ok {
			continue
		}
		m, ok := f.Margin(v)
		if !ok {
			continue
		}
		if !found || m < least {
			least, found = m, true
		}
	}
	if !found {
		return base
	}
	mult := max(1, min(c.cfg.MaxStepMultiplier, int(max(0, least)*float64(c.cfg.MaxStepMultiplier))))
	return base * float64(mult)
}

// clamp keeps v within [Min, Max], whole when the variable is.
func (c *Controller) clamp(v float64) float64 {
	v = max(c.cfg.Min, min(v, c.cfg.Max))
	if c.cfg.Integer {
		v = math.Trunc(v)
	}
	return v
}

// binding is the key of the filter with the least margin in values.
func (c *Controller) binding(values map[string]float64) string {
	best, key := 0.0, ""
	for _, f := range c.cfg.Filters {
		v, ok := values[Key(f)]
		if !ok {
			continue
		}
		if m, ok := f.Margin(v); ok && (key == "" || m < best) {
			best, key = m, Key(f)
		}
	}
	return key
}

// event snapshots the controller into an event.
func (c *Controller) event(name, reason string, nowNs int64, primary *float64, values map[string]float64, before float64) Event {
	return Event{
		Name: name, Phase: c.phase, Reason: reason, AtNs: nowNs,
		SLAValue: primary, SLAValues: values, Before: before, Binding: c.binding(values),
		Value: c.current, Boundary: c.boundary, LastGood: c.lastGood, FirstFailing: c.firstFailing,
		Iteration: c.iteration,
	}
}

// windowEvent is the adaptive_window event of w.
func (c *Controller) windowEvent(reason string, nowNs int64, w *Window, primary *float64, values map[string]float64, passed *bool) Event {
	e := c.event("adaptive_window", reason, nowNs, primary, values, c.current)
	e.Passed = passed
	fillWindow(&e, w)
	return e
}

// fillWindow copies a window's counts into e.
func fillWindow(e *Event, w *Window) {
	e.Throughput, e.Samples, e.Errors, e.Cancelled = w.Throughput(), len(w.Samples), w.Errors, w.Cancelled
}

func ptr(v float64) *float64 { return &v }

func deref(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// formatValue writes a control value as AIPerf prints it in reasons.
func formatValue(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// Config returns the controller's settings.
func (c *Controller) Config() Config { return c.cfg }
