package benchmark

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/aiperf-go/aiperf/internal/adaptive"
	"github.com/aiperf-go/aiperf/internal/clock"
	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/metrics"
	"github.com/aiperf-go/aiperf/internal/record"
	"github.com/aiperf-go/aiperf/internal/sla"
)

// Adaptive scale in a run: the thin loop around internal/adaptive's
// controller. The record consumer feeds it every finished profiling
// record (observe); every assessment period it takes the window, lets the
// controller decide, applies the new control value to the scheduler, the
// prefill gate or the rate, and appends the decision to
// phases/<phase>/adaptive_scale_events.jsonl. When the controller
// completes, the phase stops sending, as when its duration ends.

// adaptiveConfig turns the config's adaptive_scale block into the
// controller's, checking the SLA filters; nil when there is none.
func adaptiveConfig(cfg *config.Config) (*adaptive.Config, error) {
	a := cfg.Shape.Adaptive
	if a == nil {
		return nil, nil
	}
	var errs []error
	var filters []sla.Filter
	for _, s := range cfg.AdaptiveSLA() {
		f, err := sla.Parse(s)
		if err != nil {
			errs = append(errs, fmt.Errorf("adaptive_scale sla: %w", err))
			continue
		}
		filters = append(filters, f)
	}
	hi, _ := cfg.AdaptiveMax()
	c := &adaptive.Config{
		Variable: string(a.Variable), Min: a.Min, Max: hi, Integer: a.Variable != config.AdaptiveRequestRate,
		StepPolicy: a.StepPolicy, BaseStep: a.BaseStep, MaxStepMultiplier: a.MaxStepMultiplier, StepPercent: a.StepPercent,
		MinCompleted: a.MinCompletedRequests, Sustain: seconds(a.SustainDuration), Filters: filters,
	}
	if a.Variable == config.AdaptiveUsers {
		errs = append(errs, errors.New("adaptive_scale: control.variable users is not supported yet (concurrency, prefill_concurrency or request_rate)"))
	}
	if len(errs) == 0 {
		errs = append(errs, c.Validate())
	}
	if err := errors.Join(errs...); err != nil {
		return nil, usageError(err)
	}
	return c, nil
}

// adaptiveRun is one phase's controller at work.
type adaptiveRun struct {
	ctl    *adaptive.Controller
	ctx    adaptive.Context
	period time.Duration
	clk    *clock.Clock
	log    *slog.Logger
	dir    string // phases/<phase>
	root   string // the artifact directory

	// apply sets the control value on what it controls.
	apply func(v float64)
	// end stops the phase's sending.
	end func()

	mu          sync.Mutex // guards the window, filled by the record consumer
	win         adaptive.Window
	winStart    time.Duration
	sustainFrom time.Duration // records sent before it stay out of sustain windows; 0 before sustain

	events *os.File
	w      *bufio.Writer
	err    error
}

// newAdaptiveRun prepares the controller of the phase starting at start
// (run offset); apply is set by the caller once the controlled parts
// exist.
func newAdaptiveRun(p *Plan, ac *adaptive.Config, clk *clock.Clock, log *slog.Logger, runID string) (*adaptiveRun, error) {
	ctl, err := adaptive.New(*ac)
	if err != nil {
		return nil, usageError(err)
	}
	name := record.Profiling.String()
	a := &adaptiveRun{
		ctl: ctl, clk: clk, log: log, root: p.Paths.Dir,
		ctx:    adaptive.Context{RunID: runID, PhaseName: name, PhaseKind: name, StrategyType: "ramp_until_fail"},
		period: seconds(p.Config.Shape.Adaptive.AssessmentPeriod),
		dir:    filepath.Join(p.Paths.Dir, "phases", name),
	}
	if err := os.MkdirAll(a.dir, 0o755); err != nil {
		return nil, fmt.Errorf("adaptive scale artifacts: %w", err)
	}
	if a.events, err = os.Create(filepath.Join(a.dir, "adaptive_scale_events.jsonl")); err != nil {
		return nil, fmt.Errorf("adaptive scale artifacts: %w", err)
	}
	a.w = bufio.NewWriter(a.events)
	return a, nil
}

// observe folds one finished profiling record into the current window.
// It is called by the record consumer.
func (a *adaptiveRun) observe(p *metrics.Processed) {
	rec := p.Record
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.sustainFrom > 0 && rec.Sent < a.sustainFrom {
		return // sent before the boundary was set: not the sustained load
	}
	switch {
	case rec.Cancelled:
		a.win.Cancelled++
	case rec.Error != nil || !p.Valid:
		a.win.Errors++
	default:
		s := adaptive.Sample{LatencyMs: math.NaN(), TTFTMs: math.NaN(), ITLMs: math.NaN(), OSL: -1}
		for _, v := range p.Values {
			if v.Metric == nil || v.Metric.List {
				continue
			}
			switch v.Metric.Tag {
			case "request_latency":
				s.LatencyMs = v.Scalar
			case "time_to_first_token":
				s.TTFTMs = v.Scalar
			case "inter_token_latency":
				s.ITLMs = v.Scalar
			case "output_sequence_length":
				s.OSL = int(v.Scalar)
			}
		}
		if math.IsNaN(s.LatencyMs) {
			a.win.Errors++ // no latency: AIPerf counts it as an error
			return
		}
		a.win.Samples = append(a.win.Samples, s)
	}
}

// take closes the current window at now and opens the next.
func (a *adaptiveRun) take(now time.Duration) adaptive.Window {
	a.mu.Lock()
	defer a.mu.Unlock()
	w := a.win
	w.Elapsed = (now - a.winStart).Seconds()
	w.StartNs, w.EndNs = a.clk.Wall(a.winStart).UnixNano(), a.clk.Wall(now).UnixNano()
	a.win, a.winStart = adaptive.Window{}, now
	return w
}

// write appends events to the JSONL file.
func (a *adaptiveRun) write(es []adaptive.Event) {
	for _, e := range es {
		b, err := a.ctl.EventJSON(e, a.ctx)
		if err == nil {
			_, err = a.w.Write(append(b, '\n'))
		}
		if err != nil && a.err == nil {
			a.err = err
		}
	}
	if err := a.w.Flush(); err != nil && a.err == nil {
		a.err = err
	}
}

// run assesses a window every period from start until the controller
// completes (then it ends the phase) or ctx is done.
func (a *adaptiveRun) run(ctx context.Context, start time.Duration) {
	a.mu.Lock()
	a.winStart = start
	a.mu.Unlock()
	a.apply(a.ctl.Value())
	a.write([]adaptive.Event{a.ctl.Start(a.clk.Wall(start).UnixNano())})
	t := time.NewTicker(a.period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		now := a.clk.Now()
		d := a.ctl.Assess(a.take(now), now, a.clk.Wall(now).UnixNano())
		for _, e := range d.Events {
			if e.Name == "sustain_started" {
				a.mu.Lock()
				a.sustainFrom = now
				a.mu.Unlock()
			}
			a.log.Info("adaptive scale", "event", e.Name, "reason", e.Reason, "control_value", e.Value)
		}
		if d.Changed {
			a.apply(a.ctl.Value())
		}
		a.write(d.Events)
		if d.Stop {
			a.end()
			return
		}
	}
}

// finish completes the controller if the phase ended first, and writes the
// summary and the manifest. It returns the first artifact error.
func (a *adaptiveRun) finish(interrupted bool) error {
	now := a.clk.Wall(a.clk.Now()).UnixNano()
	reason, event := "phase_stopped", "adaptive_complete"
	if interrupted {
		reason, event = "phase_cancelled", "adaptive_failed"
	}
	a.write(a.ctl.Stop(reason, event, now))
	errs := []error{a.err, a.events.Close()}
	sum, err := a.ctl.SummaryJSON(a.ctx)
	if err == nil {
		err = os.WriteFile(filepath.Join(a.dir, "adaptive_scale_summary.json"), sum, 0o644)
	}
	errs = append(errs, err)
	rel := func(file string) func(adaptive.Context) string {
		return func(c adaptive.Context) string { return "phases/" + c.PhaseName + "/" + file }
	}
	man, err := adaptive.ManifestJSON([]adaptive.Context{a.ctx}, rel("adaptive_scale_events.jsonl"), rel("adaptive_scale_summary.json"))
	if err == nil {
		err = os.WriteFile(filepath.Join(a.root, "adaptive_scale_manifest.json"), man, 0o644)
	}
	errs = append(errs, err)
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("adaptive scale artifacts: %w", err)
	}
	return nil
}
