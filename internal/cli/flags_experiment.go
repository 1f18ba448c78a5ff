package cli

import (
	"fmt"
	"strconv"

	"github.com/spf13/pflag"

	"github.com/aiperf-go/aiperf/internal/config"
)

// groupMultiRun is AIPerf's help panel of the experiment flags.
const groupMultiRun = "Multi-Run"

// addExperimentFlags registers the profile flags of config.Experiment
// (AIPerf's "Multi-Run" group). It sets b.group itself.
func (b *flagBuilder) addExperimentFlags(cfg *config.Config) {
	e := &cfg.Experiment
	b.group = groupMultiRun
	b.add(&intValue{recorder: b.rec("num-profile-runs"), p: &e.NumProfileRuns}, spec{
		name: "num-profile-runs", meta: "<n>", def: strconv.Itoa(config.DefaultNumProfileRuns),
		usage: "Run each benchmark this many times (1-10) and report, per metric statistic, the mean, sample standard deviation, coefficient of variation and a Student-t confidence interval across the runs, in aggregate/profile_export_aiperf_aggregate.json and .csv. Each run writes its own artifacts under profile_runs/.",
	})
	b.add(&floatPtrValue{recorder: b.rec("profile-run-cooldown-seconds"), p: &e.ProfileRunCooldownSeconds}, spec{
		name: "profile-run-cooldown-seconds", meta: "<seconds>", def: "0",
		usage: "Pause between profile runs, to let the server settle (caches, GPU clocks). Requires --num-profile-runs > 1.",
	})
	b.add(&floatValue{recorder: b.rec("confidence-level"), p: &e.ConfidenceLevel}, spec{
		name: "confidence-level", meta: "<level>", def: formatFloat(config.DefaultConfidenceLevel),
		usage: "Confidence level of the intervals across profile runs, between 0 and 1 (0.90, 0.95, 0.99); higher levels give wider intervals.",
	})
	b.addBoolPair(&e.DisableWarmupAfterFirst, "profile-run-disable-warmup-after-first", "true",
		"Run the warmup only before the first profile run, so later runs measure the warmed-up server; the negative form warms up before every run (cold-start testing, long cooldowns). Requires --num-profile-runs > 1.")
	b.addBoolPair(&e.SetConsistentSeed, "set-consistent-seed", "true",
		fmt.Sprintf("Seed a multi-run or sweep experiment that has no --random-seed with %d, so every run sends the same workload and the spread across runs is the server's, not the prompts'. An explicit --random-seed always wins. Requires --num-profile-runs > 1.", config.DefaultConsistentSeed))
	b.add(&floatValue{recorder: b.rec("parameter-sweep-cooldown-seconds"), p: &e.ParameterSweepCooldownSeconds}, spec{
		name: "parameter-sweep-cooldown-seconds", meta: "<seconds>", def: "0",
		usage: "Pause between the variations of a parameter sweep (e.g. between --concurrency 8 and --concurrency 16).",
	})
	b.addBoolPair(nil, "parameter-sweep-same-seed", "false",
		"Give every sweep variation the same random seed (correlated comparisons) instead of the base seed plus the variation's index.", &e.ParameterSweepSameSeed)
	b.add(&choiceValue[config.SweepMode]{recorder: b.rec("parameter-sweep-mode"), p: &e.ParameterSweepMode, normalize: normalizeChoice[config.SweepMode]}, spec{
		name: "parameter-sweep-mode", meta: "<mode>", def: string(config.SweepRepeated),
		choices: strs(config.SweepModes()),
		usage:   "Order of a sweep with several profile runs: repeated runs every variation once per trial (trials outer, artifacts in profile_runs/trial_NNNN/<variation>/); independent runs all trials of a variation before the next (<variation>/profile_runs/trial_NNNN/).",
	})
	b.add(&choiceValue[config.SweepType]{recorder: b.rec("sweep-type"), p: &e.SweepType, normalize: normalizeChoice[config.SweepType]}, spec{
		name: "sweep-type", meta: "<type>", def: string(config.SweepGrid),
		choices: strs(config.SweepTypes()),
		usage:   "How several comma-separated sweep flags (--concurrency 8,16 --isl 128,512) combine: grid takes every combination, zip pairs them element by element (the lists must have the same length).",
	})
	b.addConvergenceFlags(cfg)
	b.addSearchFlags(cfg)
	b.group = groupMultiRun
	b.add(&boolValue{recorder: b.rec("no-sweep-table"), p: &e.NoSweepTable}, spec{
		name:  "no-sweep-table",
		usage: "Do not print the live sweep table (one row per finished variation). It is also left out when stdout is not a terminal, with the dashboard UI, and for a single variation.",
	})
}

// addBoolPair registers --name and --no-name. With p set, they set the
// optional *p (nil = not given) to true and false; with plain set, they
// set *plain. def is the default shown in help.
func (b *flagBuilder) addBoolPair(p **bool, name, def, usage string, plain ...*bool) {
	var pos, neg pflag.Value
	if p != nil {
		pos = &boolPtrValue{recorder: b.rec(name), p: p}
		neg = &boolPtrValue{recorder: b.rec("no-" + name), p: p, invert: true}
	} else {
		pos = &boolValue{recorder: b.rec(name), p: plain[0]}
		neg = &negBoolValue{boolValue{recorder: b.rec("no-" + name), p: plain[0]}}
	}
	f := b.add(pos, spec{name: name, def: def, usage: usage})
	f.NoOptDefVal = "true"
	g := b.add(neg, spec{name: "no-" + name, usage: "Opposite of --" + name + "."})
	g.NoOptDefVal = "true"
}

// boolPtrValue sets an optional bool; invert makes it the --no- form.
type boolPtrValue struct {
	recorder
	p      **bool
	invert bool
}

func (v *boolPtrValue) Set(s string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		v.fail(fmt.Errorf("invalid boolean %q (use true or false)", s))
		return nil
	}
	b = b != v.invert
	*v.p = &b
	return nil
}

func (v *boolPtrValue) String() string {
	if *v.p == nil {
		return ""
	}
	return strconv.FormatBool(**v.p != v.invert)
}
func (v *boolPtrValue) Type() string     { return "bool" }
func (v *boolPtrValue) IsBoolFlag() bool { return true }

// negBoolValue is the --no- form of a plain bool.
type negBoolValue struct{ boolValue }

func (v *negBoolValue) Set(s string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		v.fail(fmt.Errorf("invalid boolean %q (use true or false)", s))
		return nil
	}
	*v.p = !b
	return nil
}
func (v *negBoolValue) String() string { return strconv.FormatBool(!*v.p) }
