package configfile

import (
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/config"
)

// decodeBody parses a config file whose benchmark: body is body.
func decodeBody(t *testing.T, body string) (config.Config, error) {
	t.Helper()
	cfg := config.Defaults()
	f, err := Parse("c.yaml", []byte("schemaVersion: '2.0'\nbenchmark:\n  model: m\n"+body), Options{})
	if err != nil {
		return cfg, err
	}
	return cfg, f.Apply(&cfg)
}

func TestLoadShapeKeys(t *testing.T) {
	t.Parallel()
	cfg, err := decodeBody(t, `  phases:
    type: poisson
    rate: 10
    concurrency: 8
    prefill_concurrency: 2
    concurrency_ramp: 5s
    prefill_ramp: {duration: 2, strategy: exponential}
    rate_ramp: {duration: 3, strategy: poisson}
    duration: 60
`)
	if err != nil {
		t.Fatal(err)
	}
	s := cfg.Shape
	if *s.PrefillConcurrency != 2 || s.ConcurrencyRamp.Duration != 5 || s.PrefillRamp.Strategy != config.RampExponential ||
		s.RateRamp.Strategy != config.RampPoisson || s.RateRamp.Duration != 3 {
		t.Errorf("shape %+v", s)
	}
	cfg, err = decodeBody(t, `  phases:
    type: user_centric
    rate: 12
    users: 4
    requests: 40
`)
	if err != nil || *cfg.Shape.UserCentricRate != 12 || *cfg.Shape.NumUsers != 4 || cfg.Load.RequestRate != nil {
		t.Errorf("user_centric: %v %+v %v", err, cfg.Shape, cfg.Load.RequestRate)
	}
	cfg, err = decodeBody(t, `  phases:
    concurrency: 4
    duration: 600
    timing_mode: agentic_replay
    trajectory_start_min_ratio: 0.1
    burst_phase_starts: true
    system_idle_gap_cap_seconds: 5
    agentic_cache_warmup_duration: 30
    agentic_warmup_grace_period: 60
`)
	if err != nil || !cfg.AgenticReplay() || *cfg.Shape.TrajectoryStartMinRatio != 0.1 || !cfg.Shape.BurstPhaseStarts ||
		*cfg.Shape.SystemIdleGapCapSeconds != 5 || *cfg.Shape.AgenticCacheWarmup != 30 || *cfg.Shape.AgenticWarmupGracePeriod != 60 {
		t.Errorf("agentic_replay: %v %+v", err, cfg.Shape)
	}
	cfg, err = decodeBody(t, `  phases:
    type: constant
    rate_series: [{time_s: 0, qps: 1}, {time_s: 10, qps: 5}]
    duration: 20
`)
	if err != nil || len(cfg.Shape.RateSeries) != 2 || cfg.Shape.RateSeries[1].QPS != 5 {
		t.Errorf("rate_series: %v %+v", err, cfg.Shape.RateSeries)
	}
	cfg, err = decodeBody(t, `  phases:
    concurrency: 16
    duration: 60
    adaptive_scale:
      control: {variable: concurrency, min: 2, max: 12}
      assessment_period: 5s
      sustain_duration: 30
      strategy: {type: ramp_until_fail, step_policy: fixed_percent_step, step_percent: 50}
      sla:
        time_to_first_token: {p95: {le: 500}}
        request_latency: {avg: {lt: 2000}}
`)
	if err != nil {
		t.Fatal(err)
	}
	a := cfg.Shape.Adaptive
	if a == nil || a.Min != 2 || *a.Max != 12 || a.AssessmentPeriod != 5 || a.SustainDuration != 30 || a.StepPolicy != "fixed_percent_step" ||
		a.StepPercent != 50 || len(a.SLA) != 2 || a.SLA[0] != "time_to_first_token:p95:le:500" {
		t.Errorf("adaptive_scale %+v", a)
	}
	for _, bad := range []string{
		"  phases: {concurrency_ramp: {duration: 5, shape: linear}, requests: 5}\n",
		"  phases: {concurrency_ramp: {duration: 5, strategy: cubic}, requests: 5}\n",
		"  phases: {adaptive_scale: {sla: {ttft: {p95: {around: 1}}}}, requests: 5}\n",
		"  phases: {adaptive_scale: {contrl: {}}, requests: 5}\n",
	} {
		if _, err := decodeBody(t, bad); err == nil {
			t.Errorf("%q decoded without error", bad)
		}
	}
}

func TestNamedPhases(t *testing.T) {
	t.Parallel()
	cfg, err := decodeBody(t, `  phases:
    - {name: warm, kind: warmup, concurrency: 1, requests: 4}
    - {name: baseline, kind: profiling, concurrency: 2, requests: 10}
    - {name: stress, kind: profiling, type: poisson, rate: 20, prefill_concurrency: 3, duration: 30}
`)
	if err != nil {
		t.Fatal(err)
	}
	ps := cfg.Shape.Phases
	if len(ps) != 3 || ps[0].Kind != "warmup" || ps[2].Name != "stress" || *ps[2].Phase.Load.RequestRate != 20 ||
		*ps[2].Phase.Shape.PrefillConcurrency != 3 || *ps[1].Phase.Load.Concurrency != 2 {
		t.Fatalf("phases %+v", ps)
	}
	// The first profiling phase is also the run's usual profiling fields.
	if *cfg.Load.Concurrency != 2 || *cfg.Warmup.RequestCount != 4 {
		t.Errorf("usual fields: concurrency %v warmup requests %v", cfg.Load.Concurrency, cfg.Warmup.RequestCount)
	}
	cfg.Endpoint.Streaming = true
	if err := cfg.Validate(); err != nil {
		t.Errorf("Validate() = %v", err)
	}
	// Duplicate names (case-insensitively), a phase without a stop
	// condition: reported by Validate, under the phase's name.
	cfg, err = decodeBody(t, `  phases:
    - {name: a, kind: profiling, concurrency: 2, requests: 10}
    - {name: A, kind: profiling, concurrency: 4}
`)
	if err != nil {
		t.Fatal(err)
	}
	err = cfg.Validate()
	if err == nil || !strings.Contains(err.Error(), "used twice") || !strings.Contains(err.Error(), "phases.A: requests: at least one of") {
		t.Errorf("Validate() = %v", err)
	}
	// Two warmup-or-profiling phases that are just warmup + profiling stay
	// the usual run.
	cfg, _ = decodeBody(t, "  phases:\n    - {name: warmup, requests: 3}\n    - {name: profiling, requests: 5}\n")
	if len(cfg.Shape.Phases) != 0 || *cfg.Warmup.RequestCount != 3 {
		t.Errorf("warmup + profiling became %d named phases", len(cfg.Shape.Phases))
	}
}
