package benchmark

import (
	"fmt"
	"log/slog"
	"reflect"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/clock"
	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/record"
	"github.com/aiperf-go/aiperf/internal/timing"
)

// shapedLoad is what a test reads of a phaseLoad.
type shapedLoad struct {
	Executors []string // the executors that shaped it, in order
	Arrivals  string   // the arrivals' type; "" for a closed loop
	Sleeper   string   // the sleeper's type; "" for the scheduler's default
	Limit     int
	Steps     bool // a concurrency ramp
	Gate      int  // the prefill gate's limit; 0 without one
	GateSteps bool // a prefill ramp
	Count     int
	Budget    bool
	Fixed     bool
	Drive     bool
	Control   bool // a control moves the load while the phase runs
}

// TestExecutorsShapeTheLoad: each load mode of the registry turns its
// phase spec into the load the scheduler and the pool run, on top of what
// the modes before it built.
func TestExecutorsShapeTheLoad(t *testing.T) {
	ramp := &config.Ramp{Duration: 10}
	replay := []timing.ReplayEntry{{Index: 1, Due: 0}, {Index: 0, Due: time.Second}}
	for _, tc := range []struct {
		name     string
		spec     PhaseSpec
		sessions sessionPlan
		want     shapedLoad
		adaptive *config.AdaptiveScale // a config file's adaptive_scale; nil without one
	}{
		{"closed loop", PhaseSpec{Phase: record.Profiling, Concurrency: 4, Count: 10},
			sessionPlan{}, shapedLoad{Executors: []string{"rate"}, Limit: 4, Count: 10}, nil},
		{"request rate", PhaseSpec{Phase: record.Profiling, Rate: 100, Pattern: config.ArrivalConstant, Count: 10},
			sessionPlan{}, shapedLoad{Executors: []string{"rate"}, Arrivals: "*timing.constantArrivals", Sleeper: "*timing.Coarse", Count: 10}, nil},
		{"concurrency and prefill ramps", PhaseSpec{Phase: record.Profiling, Concurrency: 8, ConcurrencyRamp: ramp, Prefill: 4, PrefillRamp: ramp},
			sessionPlan{}, shapedLoad{Executors: []string{"rate"}, Limit: 1, Steps: true, Gate: 1, GateSteps: true}, nil},
		{"prefill gate", PhaseSpec{Phase: record.Profiling, Concurrency: 8, Prefill: 2},
			sessionPlan{}, shapedLoad{Executors: []string{"rate"}, Limit: 8, Gate: 2}, nil},
		{"multi-turn request budget", PhaseSpec{Phase: record.Profiling, Concurrency: 2, Count: 10},
			sessionPlan{MultiTurn: true}, shapedLoad{Executors: []string{"rate"}, Limit: 2, Budget: true}, nil},
		{"sessions bound the credits", PhaseSpec{Phase: record.Profiling, Concurrency: 2, Count: 10, Sessions: 3},
			sessionPlan{MultiTurn: true}, shapedLoad{Executors: []string{"rate"}, Limit: 2, Count: 3, Budget: true}, nil},
		{"fixed schedule", PhaseSpec{Phase: record.Profiling, Sessions: 2},
			sessionPlan{Fixed: true, Replay: replay}, shapedLoad{Executors: []string{"rate", "fixed"}, Arrivals: "*timing.fixedArrivals", Sleeper: "*timing.Precise", Count: 2, Fixed: true}, nil},
		{"a warmup keeps the load mode", PhaseSpec{Phase: record.Warmup, Concurrency: 1, Count: 2},
			sessionPlan{Fixed: true, Replay: replay}, shapedLoad{Executors: []string{"rate"}, Limit: 1, Count: 2}, nil},
		{"user-centric", PhaseSpec{Phase: record.Profiling, Users: 2, UserRate: 10, Duration: time.Minute},
			sessionPlan{MultiTurn: true}, shapedLoad{Executors: []string{"rate", "user"}, Arrivals: "*timing.UserCentric", Sleeper: "*timing.Coarse"}, nil},
		{"agentic replay", PhaseSpec{Phase: record.Profiling, Concurrency: 4},
			sessionPlan{Agentic: &agenticPlan{}}, shapedLoad{Executors: []string{"agentic"}, Drive: true}, nil},
		{"adaptive concurrency", PhaseSpec{Phase: record.Profiling, Concurrency: 12, Duration: time.Minute},
			sessionPlan{}, shapedLoad{Executors: []string{"rate", "adaptive"}, Limit: 3, Control: true},
			adaptiveScale(config.AdaptiveConcurrency, 3)},
		{"adaptive request rate", PhaseSpec{Phase: record.Profiling, Rate: 20, Pattern: config.ArrivalConstant, Duration: time.Minute},
			sessionPlan{}, shapedLoad{Executors: []string{"rate", "adaptive"}, Arrivals: "*timing.AdjustableRate", Sleeper: "*timing.Coarse", Control: true},
			adaptiveScale(config.AdaptiveRequestRate, 5)},
		{"adaptive prefill concurrency", PhaseSpec{Phase: record.Profiling, Concurrency: 12, Prefill: 8, Duration: time.Minute},
			sessionPlan{}, shapedLoad{Executors: []string{"rate", "adaptive"}, Limit: 12, Gate: 2, Control: true},
			adaptiveScale(config.AdaptivePrefillConcurrency, 2)},
		{"adaptive scale leaves the warmup alone", PhaseSpec{Phase: record.Warmup, Concurrency: 12, Count: 5},
			sessionPlan{}, shapedLoad{Executors: []string{"rate"}, Limit: 12, Count: 5},
			adaptiveScale(config.AdaptiveConcurrency, 3)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds := &dataset.Dataset{Conversations: []dataset.Conversation{{ID: "a", Turns: make([]dataset.Turn, 2)}, {ID: "b", Turns: make([]dataset.Turn, 4)}}}
			sampler, err := dataset.NewSampler("sequential", ds.Len(), 1)
			if err != nil {
				t.Fatal(err)
			}
			r := &phaseRunner{plan: &Plan{Dataset: ds, Sessions: tc.sessions}, sampler: sampler, clk: clock.New(), log: slog.New(slog.DiscardHandler), pl: &pipeline{}}
			if tc.adaptive != nil {
				cfg := config.Defaults()
				r.plan.Config = &cfg
				r.plan.Config.Load.Concurrency = ptr(12)
				r.plan.Config.Shape.Adaptive = tc.adaptive
				if r.plan.Adaptive, err = adaptiveConfig(r.plan.Config); err != nil {
					t.Fatal(err)
				}
				r.plan.Paths.Dir = t.TempDir()
			}
			l, err := r.load(&tc.spec, 1)
			if err != nil {
				t.Fatal(err)
			}
			if l.control != nil {
				if err := l.control.finish(false); err != nil {
					t.Error(err)
				}
			}
			got := shapedLoad{Limit: l.limit, Steps: len(l.steps) > 0, GateSteps: len(l.gateSteps) > 0,
				Count: l.count, Budget: l.budget != nil, Fixed: l.fixed, Drive: l.drive != nil, Control: l.control != nil}
			for _, e := range executors {
				if e.applies(r.plan, &tc.spec) {
					got.Executors = append(got.Executors, executorName(e))
					if l.drive != nil {
						break
					}
				}
			}
			if l.arrivals != nil {
				got.Arrivals = fmt.Sprintf("%T", l.arrivals)
			}
			if l.sleeper != nil {
				got.Sleeper = fmt.Sprintf("%T", l.sleeper)
			}
			if l.gate != nil {
				got.Gate = l.gate.Limit()
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("load\n got %+v\nwant %+v", got, tc.want)
			}
			if l.drive == nil && l.pick == nil {
				t.Error("no pick")
			}
		})
	}
}

// adaptiveScale is an adaptive_scale block moving variable from min.
func adaptiveScale(variable config.AdaptiveVariable, min float64) *config.AdaptiveScale {
	a := config.NewAdaptiveScale()
	a.Variable, a.Min, a.Max = variable, min, ptr(10.0)
	a.SLA = []string{"error_rate:avg:le:50"}
	return a
}

// executorName is an executor's short name: its type less "Executor".
func executorName(e executor) string {
	n := fmt.Sprintf("%T", e)
	n = n[len("benchmark."):]
	return n[:len(n)-len("Executor")]
}
