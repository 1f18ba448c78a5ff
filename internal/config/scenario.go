package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/aiperf-go/aiperf/internal/pyfmt"
)

// ScenarioSpec declares the invariants a named benchmark scenario locks
// (AIPerf's --scenario): what the run must use and the defaults it fills in.
type ScenarioSpec struct {
	Name string
	// TimingMode is the timing mode every profiling phase must run with.
	TimingMode string
	// RequireStreaming turns --streaming on.
	RequireStreaming bool
	// RequireIgnoreEOS injects ignore_eos=true into the request body; an
	// explicit false is a violation.
	RequireIgnoreEOS bool
	// RequireLoaders are the dataset loaders accepted (any one).
	RequireLoaders []string
	// MinDurationSeconds is the floor on --benchmark-duration;
	// DefaultDurationSeconds fills it in when unset.
	MinDurationSeconds, DefaultDurationSeconds float64
	// ForbidInterTurnDelayCap rejects --inter-turn-delay-cap-seconds.
	ForbidInterTurnDelayCap bool
	// ForbidIgnoreTraceDelays rejects --ignore-trace-delays;
	// ForbidInputTruncation rejects --synthesis-max-isl;
	// ForbidTraceIdleGapCap rejects --trace-idle-gap-cap-seconds.
	ForbidIgnoreTraceDelays, ForbidInputTruncation, ForbidTraceIdleGapCap bool
	// RequireCacheBust is the --cache-bust target the run must use (filled
	// in when not given); "" for none.
	RequireCacheBust string
	// TrajectoryStartMinRatio and -MaxRatio fill in the agentic replay's
	// start ratios when not given.
	TrajectoryStartMinRatio, TrajectoryStartMaxRatio *float64
	// SystemIdleGapCapSeconds is the agentic replay's required global idle
	// cap (filled in when not given); nil for none.
	SystemIdleGapCapSeconds *float64
}

// ScenarioSpecs returns the registered scenarios by name: AIPerf 0.13's
// one, inferencex-agentx-mvp, which stamps the agentic_replay timing mode
// on the profiling phase and requires a Weka trace loader.
func ScenarioSpecs() map[string]ScenarioSpec {
	return map[string]ScenarioSpec{
		"inferencex-agentx-mvp": {
			Name:             "inferencex-agentx-mvp",
			TimingMode:       "agentic_replay",
			RequireStreaming: true,
			RequireIgnoreEOS: true,
			RequireLoaders: []string{
				"semianalysis_cc_traces_weka_with_subagents", "semianalysis_cc_traces_weka_with_subagents_256k",
				"semianalysis_cc_traces_weka_with_subagents_060226", "semianalysis_cc_traces_weka_with_subagents_060226_256k",
				"semianalysis_cc_traces_weka_with_subagents_060526", "semianalysis_cc_traces_weka_with_subagents_060526_256k",
				"semianalysis_cc_traces_weka_with_subagents_060826", "semianalysis_cc_traces_weka_with_subagents_060826_256k",
				"semianalysis_cc_traces_weka_061326", "semianalysis_cc_traces_weka_061326_256k",
				"semianalysis_cc_traces_weka_061526", "semianalysis_cc_traces_weka_061526_256k",
				"semianalysis_cc_traces_weka_062126", "semianalysis_cc_traces_weka_062126_256k",
				"weka_trace", "weka_hf",
			},
			MinDurationSeconds:      900,
			DefaultDurationSeconds:  1800,
			ForbidInterTurnDelayCap: true,
			ForbidIgnoreTraceDelays: true,
			ForbidInputTruncation:   true,
			ForbidTraceIdleGapCap:   true,
			RequireCacheBust:        "first_turn_prefix",
			TrajectoryStartMinRatio: ptrTo(0.0),
			TrajectoryStartMaxRatio: ptrTo(1.0),
			SystemIdleGapCapSeconds: ptrTo(10.0),
		},
	}
}

// ScenarioNames returns the registered scenario names, sorted.
func ScenarioNames() []string {
	var names []string
	for n := range ScenarioSpecs() {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// ScenarioViolation is one conflict between the configuration and a
// scenario's locks.
type ScenarioViolation struct {
	Flag     string `json:"flag"`
	Current  any    `json:"current_value"`
	Required any    `json:"required_value"`
	Message  string `json:"message"`
	// hard violations cannot be downgraded by --unsafe-override.
	hard bool
}

func (v ScenarioViolation) String() string {
	return fmt.Sprintf("%s: got %s, required %s (%s)", v.Flag, pyfmt.Repr(v.Current), pyfmt.Repr(v.Required), v.Message)
}

// ScenarioOutcome is the result of applying a scenario: AIPerf's
// ScenarioOutcome. SubmissionValid is nil without a scenario.
type ScenarioOutcome struct {
	ScenarioName             string              `json:"scenario_name,omitempty"`
	AppliedLocks             []string            `json:"applied_locks,omitempty"`
	Violations               []ScenarioViolation `json:"violations,omitempty"`
	SubmissionValid          *bool               `json:"submission_valid,omitempty"`
	SubmissionInvalidReasons []string            `json:"submission_invalid_reasons,omitempty"`
}

// ErrScenarioLock is the sentinel of a scenario whose invariants are
// violated; the error lists the violations.
var ErrScenarioLock = errors.New("scenario invariants violated")

// ApplyScenario applies the locks of c.Compat.Scenario, as AIPerf's
// apply_scenario does: it fills in the scenario's defaults (streaming,
// ignore_eos, the benchmark duration, a random seed) and collects every
// conflict. Conflicts are an ErrScenarioLock error unless
// --unsafe-override is set, which turns them into the returned outcome's
// violations with submission_valid=false; a synthetic dataset under a
// scenario that requires a trace loader is an error even then. Without a
// scenario it does nothing.
func (c *Config) ApplyScenario() (ScenarioOutcome, error) {
	name := c.Compat.Scenario
	if name == "" {
		return ScenarioOutcome{}, nil
	}
	spec, ok := ScenarioSpecs()[name]
	if !ok {
		return ScenarioOutcome{}, fmt.Errorf("--scenario: unknown scenario %q (valid: %s)", name, strings.Join(ScenarioNames(), ", "))
	}
	l := &scenarioLocks{spec: spec}
	for _, step := range scenarioSteps {
		step(c, l)
	}
	out := ScenarioOutcome{ScenarioName: spec.Name, AppliedLocks: l.applied}
	hard := slices.ContainsFunc(l.vs, func(v ScenarioViolation) bool { return v.hard })
	switch {
	case hard:
		return out, scenarioLockError(l.vs, "These violations cannot be bypassed with --unsafe-override. Provide --public-dataset (e.g. semianalysis_cc_traces_weka_062126) or --hf-weka-dataset semianalysisai/cc-traces-weka-062126.")
	case len(l.vs) > 0 && !c.Compat.UnsafeOverride:
		return out, scenarioLockError(l.vs, "Pass --unsafe-override to convert to warnings (run will be marked submission_valid=false).")
	case len(l.vs) > 0:
		invalid := false
		out.Violations, out.SubmissionValid, out.SubmissionInvalidReasons = l.vs, &invalid, []string{"unsafe_override"}
		return out, nil
	}
	valid := true
	out.SubmissionValid = &valid
	return out, nil
}

// scenarioLocks collects what ApplyScenario's steps do: the violations
// and the names of the locks applied, in order.
type scenarioLocks struct {
	spec    ScenarioSpec
	vs      []ScenarioViolation
	applied []string
}

func (l *scenarioLocks) add(v ScenarioViolation) { l.vs = append(l.vs, v) }
func (l *scenarioLocks) lock(name string)        { l.applied = append(l.applied, name) }

// scenarioSteps are ApplyScenario's locks in AIPerf's order, which is the
// order of the applied locks and of the violations.
var scenarioSteps = []func(*Config, *scenarioLocks){
	(*Config).lockTimingMode, (*Config).lockStreamingAndEOS, (*Config).lockReplayFidelity,
	(*Config).lockLoader, (*Config).lockCacheBust, (*Config).lockDuration,
	(*Config).lockReplayTiming, (*Config).lockSeed,
}

// lockTimingMode applies the timing mode: an explicit rate or fixed
// schedule conflicts; the default concurrency phase is switched to the
// scenario's mode (its concurrency becomes the number of lanes), as
// AIPerf stamps it.
func (c *Config) lockTimingMode(l *scenarioLocks) {
	switch {
	case c.Load.RequestRate != nil || c.Replay.FixedSchedule || c.UserCentric():
		l.add(ScenarioViolation{Flag: "--request-rate / --user-centric-rate / --fixed-schedule", Current: c.timingModeName(), Required: l.spec.TimingMode,
			Message: fmt.Sprintf("scenario '%s' requires timing_mode=%s; do not pass --request-rate / --arrival-pattern / --user-centric-rate / --fixed-schedule (or declare a rate-shaped phase) alongside --scenario", l.spec.Name, l.spec.TimingMode)})
	default:
		c.Shape.TimingMode = l.spec.TimingMode
	}
	l.lock("timing_mode")
}

// lockStreamingAndEOS applies streaming and ignore_eos, which the scenario forces on.
func (c *Config) lockStreamingAndEOS(l *scenarioLocks) {
	if l.spec.RequireStreaming {
		c.Endpoint.Streaming = true
		l.lock("streaming")
	}
	if l.spec.RequireIgnoreEOS {
		i := slices.IndexFunc(c.Input.Extra, func(e ExtraInput) bool { return e.Key == "ignore_eos" })
		switch {
		case i < 0:
			c.Input.Extra = append(c.Input.Extra, ExtraInput{Key: "ignore_eos", Value: json.RawMessage("true")})
			l.lock("ignore_eos")
		case falsyJSON(c.Input.Extra[i].Value):
			l.add(ScenarioViolation{Flag: "extra_inputs.ignore_eos", Current: string(c.Input.Extra[i].Value), Required: true,
				Message: fmt.Sprintf("scenario '%s' requires ignore_eos=true", l.spec.Name)})
		default:
			l.lock("ignore_eos")
		}
	}
}

// lockReplayFidelity applies the trace options that would falsify the recorded workload:
// ignored delays and truncated inputs.
func (c *Config) lockReplayFidelity(l *scenarioLocks) {
	if l.spec.ForbidIgnoreTraceDelays {
		if c.Dataset.IgnoreTraceDelays {
			l.add(ScenarioViolation{Flag: "--ignore-trace-delays", Current: true, Required: false,
				Message: fmt.Sprintf("scenario '%s' replays recorded trace timing; --ignore-trace-delays would null every per-turn timestamp/delay and dispatch all turns back-to-back, falsifying the workload", l.spec.Name)})
		} else {
			l.lock("forbid_ignore_trace_delays")
		}
	}
	if l.spec.ForbidInputTruncation {
		if v := c.Dataset.Synthesis.MaxISL; v != nil {
			l.add(ScenarioViolation{Flag: "--synthesis-max-isl", Current: *v, Required: nil,
				Message: fmt.Sprintf("scenario '%s' forbids client-side input truncation; --synthesis-max-isl drops traces whose input length exceeds the cap, falsifying the workload", l.spec.Name)})
		} else {
			l.lock("forbid_input_truncation")
		}
	}
}

// lockLoader applies the dataset loader; a synthetic dataset is a hard violation.
func (c *Config) lockLoader(l *scenarioLocks) {
	if len(l.spec.RequireLoaders) > 0 {
		loader := c.datasetLoader()
		if !slices.Contains(l.spec.RequireLoaders, loader) {
			display := "any of [" + strings.Join(sortedQuoted(l.spec.RequireLoaders), ", ") + "]"
			if loader == "synthetic" {
				l.add(ScenarioViolation{Flag: "--input-file (loader)", Current: "synthetic", Required: display, hard: true,
					Message: fmt.Sprintf("scenario '%s' requires loader=%s; got synthetic (CLI default when --public-dataset / --input-file is omitted). --unsafe-override cannot bypass a missing weka loader", l.spec.Name, display)})
			} else {
				l.add(ScenarioViolation{Flag: "--input-file (loader)", Current: loader, Required: display,
					Message: fmt.Sprintf("scenario '%s' requires loader=%s", l.spec.Name, display)})
			}
		} else {
			l.lock("require_loader")
		}
	}
}

// lockCacheBust applies the cache-bust target, filled in when unset.
func (c *Config) lockCacheBust(l *scenarioLocks) {
	if t := l.spec.RequireCacheBust; t != "" {
		switch c.Prompt.CacheBust {
		case t:
			l.lock("cache_bust")
		case "":
			c.Prompt.CacheBust = t
			l.lock("cache_bust")
		default:
			l.add(ScenarioViolation{Flag: "--cache-bust", Current: c.Prompt.CacheBust, Required: t,
				Message: fmt.Sprintf("scenario '%s' requires cache_bust.target=%s; got %s", l.spec.Name, t, c.Prompt.CacheBust)})
		}
	}
}

// lockDuration applies the benchmark duration: the default, then the minimum.
func (c *Config) lockDuration(l *scenarioLocks) {
	if l.spec.DefaultDurationSeconds > 0 {
		if c.Load.BenchmarkDuration == nil {
			d := l.spec.DefaultDurationSeconds
			c.Load.BenchmarkDuration = &d
		}
		l.lock("default_benchmark_duration")
	}
	if d := *c.Load.BenchmarkDuration; d < l.spec.MinDurationSeconds {
		l.add(ScenarioViolation{Flag: "--benchmark-duration", Current: d, Required: fmt.Sprintf(">=%g", l.spec.MinDurationSeconds),
			Message: fmt.Sprintf("scenario '%s' requires duration >= %gs to reach steady state and trigger KV offloading", l.spec.Name, l.spec.MinDurationSeconds)})
	} else {
		l.lock("min_benchmark_duration")
	}
}

// lockReplayTiming applies the per-turn and per-trace timing caps and the trajectory start
// ratios.
func (c *Config) lockReplayTiming(l *scenarioLocks) {
	if l.spec.ForbidInterTurnDelayCap && c.Conversation.InterTurnDelayCapSeconds != nil {
		l.add(ScenarioViolation{Flag: "--inter-turn-delay-cap-seconds", Current: *c.Conversation.InterTurnDelayCapSeconds, Required: nil,
			Message: fmt.Sprintf("scenario '%s' preserves original inter-turn timing and forbids a per-turn delay cap", l.spec.Name)})
	}
	if l.spec.TrajectoryStartMinRatio != nil || l.spec.TrajectoryStartMaxRatio != nil {
		if c.Shape.TrajectoryStartMinRatio == nil && l.spec.TrajectoryStartMinRatio != nil {
			c.Shape.TrajectoryStartMinRatio = ptrTo(*l.spec.TrajectoryStartMinRatio)
		}
		if c.Shape.TrajectoryStartMaxRatio == nil && l.spec.TrajectoryStartMaxRatio != nil {
			c.Shape.TrajectoryStartMaxRatio = ptrTo(*l.spec.TrajectoryStartMaxRatio)
		}
		l.lock("trajectory_start_ratios")
	}
	if l.spec.ForbidTraceIdleGapCap && c.Shape.TraceIdleGapCapSeconds != nil {
		l.add(ScenarioViolation{Flag: "--trace-idle-gap-cap-seconds", Current: *c.Shape.TraceIdleGapCapSeconds, Required: nil,
			Message: fmt.Sprintf("scenario '%s' preserves original per-trace request timing and forbids timeline compression", l.spec.Name)})
	}
	if req := l.spec.SystemIdleGapCapSeconds; req != nil {
		switch v := c.Shape.SystemIdleGapCapSeconds; {
		case v == nil:
			c.Shape.SystemIdleGapCapSeconds = ptrTo(*req)
			l.lock("system_idle_gap_cap")
		case *v != *req:
			l.add(ScenarioViolation{Flag: "--system-idle-gap-cap-seconds", Current: *v, Required: *req,
				Message: fmt.Sprintf("scenario '%s' limits only globally idle replay time to %g seconds", l.spec.Name, *req)})
		default:
			l.lock("system_idle_gap_cap")
		}
	}
}

// lockSeed applies the random seed: a submission must be reproducible, so a missing
// seed is drawn and recorded (run_info.random_seed).
func (c *Config) lockSeed(l *scenarioLocks) {
	if c.Input.RandomSeed == nil {
		seed := int64(rand.Uint64() >> 1)
		c.Input.RandomSeed = &seed
	}
	l.lock("random_seed")
}

func ptrTo[T any](v T) *T { return &v }

func scenarioLockError(vs []ScenarioViolation, hint string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%d conflict", len(vs))
	if len(vs) != 1 {
		b.WriteString("s")
	}
	b.WriteString("):")
	for _, v := range vs {
		b.WriteString("\n  - " + v.String())
	}
	return fmt.Errorf("%w (%s\n%s", ErrScenarioLock, b.String(), hint)
}

// timingModeName is the timing mode the load options select, in AIPerf's
// names.
func (c *Config) timingModeName() string {
	switch {
	case c.Replay.FixedSchedule:
		return "fixed_schedule"
	case c.Load.RequestRate != nil:
		return "request_rate"
	case c.UserCentric():
		return "user_centric_rate"
	}
	return "concurrency"
}

// datasetLoader names the dataset loader a scenario sees: the public
// dataset, the file's format, or "synthetic".
func (c *Config) datasetLoader() string {
	switch {
	case c.Dataset.Public != "":
		return string(c.Dataset.Public)
	case c.Dataset.CustomType != "":
		return string(c.Dataset.CustomType)
	case c.Dataset.HasFile():
		return "file"
	}
	return "synthetic"
}

// falsyJSON reports whether an extra-input value is false, 0 or a string
// spelling false, as AIPerf's _is_falsy_extra_input.
func falsyJSON(raw json.RawMessage) bool {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return false
	}
	switch x := v.(type) {
	case bool:
		return !x
	case float64:
		return x == 0
	case string:
		s := strings.ToLower(strings.TrimSpace(x))
		return s == "false" || s == "0" || s == "no"
	}
	return false
}

func sortedQuoted(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = "'" + s + "'"
	}
	slices.Sort(out)
	return out
}
