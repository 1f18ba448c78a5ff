package experiment

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/aiperf-go/aiperf/internal/benchmark"
	"github.com/aiperf-go/aiperf/internal/clock"
	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/export"
	"github.com/aiperf-go/aiperf/internal/record"
	"github.com/aiperf-go/aiperf/internal/results"
	"github.com/aiperf-go/aiperf/internal/search"
)

// RunExperiment runs every variation of a sweep NumProfileRuns times (the
// first variation's Experiment options govern the experiment) and writes
// AIPerf's experiment artifacts under the first variation's artifact
// directory:
//
//	multi-run, no sweep:  profile_runs/run_NNNN/, aggregate/
//	sweep, one run each:  <variation>/, aggregate/<variation>/, sweep_aggregate/
//	sweep x runs, repeated (default):
//	                      profile_runs/trial_NNNN/<variation>/,
//	                      aggregate/<variation>/, aggregate/sweep_aggregate/
//	sweep x runs, independent:
//	                      <variation>/profile_runs/trial_NNNN/,
//	                      <variation>/aggregate/, sweep_aggregate/
//
// Each run is a complete Run with its own artifacts. Runs are separated by
// --profile-run-cooldown-seconds, variations by
// --parameter-sweep-cooldown-seconds. Seeds: an explicit --random-seed, or
// 42 with --set-consistent-seed (the default), is the base seed; variation
// i gets base+i unless --parameter-sweep-same-seed, and the trials of a
// variation share its seed. With --profile-run-disable-warmup-after-first
// (the default) only the first trial of each variation warms up.
//
// Cancelling ctx stops the experiment after the run in progress drains;
// the aggregates of the runs that finished are still written and the
// error carries exit code 130. Otherwise the experiment succeeds (nil)
// when at least two runs succeeded, as AIPerf; one variation run once is
// exactly Run.
func RunExperiment(ctx context.Context, variations []config.Variation, rio benchmark.IO) error {
	if len(variations) == 0 {
		return &config.ExitError{Code: config.ExitUsage, Err: errors.New("experiment: no variation to run")}
	}
	if len(variations) == 1 && variations[0].Config.Experiment.NumProfileRuns <= 1 {
		cfg := variations[0].Config
		return benchmark.Run(ctx, &cfg, rio)
	}
	x := newExperiment(variations, rio)
	return x.run(ctx)
}

// experiment is one RunExperiment call.
type experiment struct {
	vars    []config.Variation
	rio     benchmark.IO
	base    string // the experiment's artifact directory
	trials  int
	sweep   bool
	mode    config.SweepMode
	level   float64
	seeds   []*int64 // per variation; nil = each run draws its own
	dirs    []string // per variation directory name
	results [][]runResult
	table   *sweepTable
	live    bool   // the table is re-printed to stderr after each variation
	sweepID string // run_info.sweep_id, shared by every run of a sweep
	// conv stops a variation's runs early (--convergence-metric); nil
	// runs every trial. done marks the variations it stopped.
	conv *convergence
	done []bool
	// saturated lists the variations whose over-saturation stopped the
	// sweep's escalation (--over-saturation enforce), in run order.
	saturated []int
	// baseSeed is the experiment's base seed, for --vary-seed-per-trial;
	// nil without one.
	baseSeed *int64
	// base0 is the first variation's configuration: what a search's
	// points vary.
	base0 config.Config
	// plan is the search being run (RunSearch); nil for a sweep or a
	// multi-run. adaptive marks a planner's search (not a grid): its
	// points go to search_iter_NNNN/profile_runs/run_NNNN/.
	plan     *search.Plan
	adaptive bool

	// runStderr is the stderr the runs get: rio.Stderr before openTopLog
	// teed it into the experiment's log; nil before.
	runStderr io.Writer

	// run executes one benchmark (Run; replaced in tests).
	runOne func(ctx context.Context, cfg *config.Config, rio benchmark.IO) error
	// sleep waits d or until ctx is done.
	sleep func(ctx context.Context, d time.Duration) error
}

func newExperiment(vars []config.Variation, rio benchmark.IO) *experiment {
	first := &vars[0].Config
	if rio.Stderr == nil {
		rio.Stderr = io.Discard
	}
	if rio.Stdout == nil {
		rio.Stdout = io.Discard
	}
	x := &experiment{
		vars:    vars,
		rio:     rio,
		base:    benchmark.ArtifactDir(first),
		trials:  max(first.Experiment.NumProfileRuns, 1),
		sweep:   len(vars) > 1,
		mode:    first.SweepOrder(),
		level:   first.Experiment.ConfidenceLevel,
		results: make([][]runResult, len(vars)),
		runOne:  benchmark.Run,
		sleep:   clock.Sleep,
	}
	x.seeds = variationSeeds(first, len(vars))
	x.baseSeed = baseSeed(first)
	x.base0 = *first
	x.conv = newConvergence(first)
	x.done = make([]bool, len(vars))
	x.dirs = make([]string, len(vars))
	for i := range vars {
		x.dirs[i] = VariationDirName(&vars[i])
	}
	// The comparison table is part of a sweep's results under every UI:
	// live on a terminal (one block per finished variation, the latest
	// being the truth), else, and under the dashboard, which owns the
	// terminal while runs are going, once at the end on stdout.
	if x.sweep && !first.Experiment.NoSweepTable {
		x.table = newSweepTable(vars, x.level)
		x.live = rio.IsTTY && first.UIType(rio.IsTTY) != config.UIDashboard
	}
	return x
}

// baseSeed is an explicit --random-seed, or DefaultConsistentSeed with
// --set-consistent-seed (the default); nil when runs draw their own.
func baseSeed(cfg *config.Config) *int64 {
	switch {
	case cfg.Input.RandomSeed != nil:
		v := *cfg.Input.RandomSeed
		return &v
	case cfg.SetConsistentSeed():
		v := int64(config.DefaultConsistentSeed)
		return &v
	}
	return nil
}

// variationSeeds gives each variation its seed: nil without a base seed,
// the base seed for every variation with --parameter-sweep-same-seed or a
// single variation, else base + index.
func variationSeeds(cfg *config.Config, n int) []*int64 {
	base := baseSeed(cfg)
	seeds := make([]*int64, n)
	for i := range seeds {
		if base == nil {
			continue
		}
		v := *base
		if n > 1 && !cfg.Experiment.ParameterSweepSameSeed {
			v += int64(i)
		}
		seeds[i] = &v
	}
	return seeds
}

var unsafeDirChars = regexp.MustCompile(`[/\\]|\.\.|[<>:"|?*]`)

// sanitizeDirSegment strips path separators, "..", and characters that
// are not portable in file names, as AIPerf; an all-dots result is empty.
func sanitizeDirSegment(s string) string {
	s = unsafeDirChars.ReplaceAllString(s, "")
	if strings.Trim(s, ".") == "" {
		return ""
	}
	return s
}

// VariationDirName is AIPerf's directory of a variation: "<last path
// segment>_<value>" per parameter joined by "__" (concurrency_8,
// isl_128__concurrency_8), else the sanitized label, else variation_<i>.
func VariationDirName(v *config.Variation) string {
	if len(v.Params) > 0 {
		parts := make([]string, len(v.Params))
		for i, p := range v.Params {
			parts[i] = lastSegment(p.Path) + "_" + pyStr(p.Value)
		}
		if s := sanitizeDirSegment(strings.Join(parts, "__")); s != "" {
			return s
		}
	}
	if s := sanitizeDirSegment(v.Label); s != "" {
		return s
	}
	return fmt.Sprintf("variation_%d", v.Index)
}

func lastSegment(path string) string {
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		return path[i+1:]
	}
	return path
}

// VariationLabel is the variation's label, or AIPerf's "path=value, ..."
// when it has none.
func VariationLabel(v *config.Variation) string {
	if v.Label != "" {
		return v.Label
	}
	parts := make([]string, len(v.Params))
	for i, p := range v.Params {
		parts[i] = p.Path + "=" + pyStr(p.Value)
	}
	if len(parts) == 0 {
		return "base"
	}
	return strings.Join(parts, ", ")
}

// runDir is where trial t (0-based) of variation v writes its artifacts.
func (x *experiment) runDir(v, t int) string {
	switch {
	case x.adaptive:
		return filepath.Join(x.base, x.dirs[v], "profile_runs", runLabel(t))
	case !x.sweep:
		return filepath.Join(x.base, "profile_runs", runLabel(t))
	case x.trials == 1:
		return filepath.Join(x.base, x.dirs[v])
	case x.mode == config.SweepIndependent:
		return filepath.Join(x.base, x.dirs[v], "profile_runs", trialLabel(t))
	}
	return filepath.Join(x.base, "profile_runs", trialLabel(t), x.dirs[v])
}

// variationAggregateDir is where variation v's confidence aggregate goes.
func (x *experiment) variationAggregateDir(v int) string {
	if !x.sweep {
		return filepath.Join(x.base, "aggregate")
	}
	if x.mode == config.SweepIndependent {
		return filepath.Join(x.base, x.dirs[v], "aggregate")
	}
	return filepath.Join(x.base, "aggregate", x.dirs[v])
}

// sweepAggregateDir is where the sweep aggregate goes.
func (x *experiment) sweepAggregateDir() string {
	if x.trials > 1 && x.mode == config.SweepRepeated {
		return filepath.Join(x.base, "aggregate", "sweep_aggregate")
	}
	return filepath.Join(x.base, "sweep_aggregate")
}

func runLabel(t int) string   { return fmt.Sprintf("run_%04d", t+1) }
func trialLabel(t int) string { return fmt.Sprintf("trial_%04d", t+1) }

// errStop ends the experiment loop: interrupted, or a configuration that
// cannot run.
type errStop struct{ err error }

func (e *errStop) Error() string { return e.err.Error() }

// run executes the experiment and writes its aggregates.
func (x *experiment) run(ctx context.Context) error {
	if err := benchmark.PrepareArtifactDir(x.base); err != nil {
		return err
	}
	defer x.openTopLog()()
	total := len(x.vars) * x.trials
	fmt.Fprintf(x.rio.Stderr, "Experiment: %d variation(s) x %d run(s) = %d benchmarks; artifacts in %s\n",
		len(x.vars), x.trials, total, x.base)
	stop := x.loop(ctx, total)
	if x.table != nil && !x.live && len(x.table.rows) > 0 {
		x.table.render(x.rio.Stdout)
	}
	fmt.Fprint(x.rio.Stdout, x.saturationSummary())
	aggErr := x.writeAggregates()
	var se *errStop
	switch {
	case errors.As(stop, &se):
		return se.err
	case aggErr != nil:
		return &config.ExitError{Code: config.ExitFailure, Err: aggErr}
	}
	ok := x.succeeded()
	if ok < 2 {
		return &config.ExitError{Code: config.ExitFailure,
			Err: fmt.Errorf("%d of %d runs succeeded; at least 2 are needed for aggregate statistics", ok, total)}
	}
	return nil
}

// succeeded counts the runs that finished with a summary.
func (x *experiment) succeeded() int {
	n := 0
	for _, rs := range x.results {
		for i := range rs {
			if rs[i].ok() {
				n++
			}
		}
	}
	return n
}

// loop runs the benchmarks in the configured order with the cooldowns
// between them. It returns an *errStop when the experiment ended early.
func (x *experiment) loop(ctx context.Context, total int) error {
	done := 0
	step := func(v, t int) error {
		if ctx.Err() != nil {
			return &errStop{&config.ExitError{Code: config.ExitInterrupted, Err: errors.New("interrupted")}}
		}
		done++
		return x.runTrial(ctx, v, t, done, total)
	}
	pause := func(seconds float64) error {
		if seconds <= 0 {
			return nil
		}
		if err := x.sleep(ctx, time.Duration(seconds*float64(time.Second))); err != nil {
			return &errStop{&config.ExitError{Code: config.ExitInterrupted, Err: errors.New("interrupted")}}
		}
		return nil
	}
	first := &x.vars[0].Config
	runCooldown, varCooldown := first.ProfileRunCooldown(), first.Experiment.ParameterSweepCooldownSeconds
	if x.mode == config.SweepIndependent || !x.sweep {
		for v := range x.vars {
			if v > 0 {
				if err := pause(varCooldown); err != nil {
					return err
				}
			}
			for t := 0; t < x.trials && !x.done[v]; t++ {
				if t > 0 {
					if err := pause(runCooldown); err != nil {
						return err
					}
				}
				if err := step(v, t); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for t := 0; t < x.trials && slices.Contains(x.done, false); t++ {
		if t > 0 {
			if err := pause(runCooldown); err != nil {
				return err
			}
		}
		ran := false
		for v := range x.vars {
			if x.done[v] { // converged: its later trials are not run
				continue
			}
			if ran {
				if err := pause(varCooldown); err != nil {
					return err
				}
			}
			ran = true
			if err := step(v, t); err != nil {
				return err
			}
		}
	}
	return nil
}

// sweepRun is variation v's identity in run_info, as AIPerf writes it.
func (x *experiment) sweepRun(v int) *export.SweepRun {
	if x.sweepID == "" {
		var b [16]byte
		_, _ = rand.Read(b[:])
		x.sweepID = record.UUIDv4(b)
	}
	vr := &x.vars[v]
	run := &export.SweepRun{ID: x.sweepID, Label: VariationLabel(vr), Index: v}
	for _, p := range vr.Params {
		var val []byte
		if f, ok := p.Value.(float64); ok && !math.IsNaN(f) && !math.IsInf(f, 0) {
			val = export.AppendJSONFloat(nil, f)
		} else if b, err := json.Marshal(p.Value); err == nil {
			val = b
		} else {
			val = []byte("null")
		}
		run.Values = append(run.Values, export.SweepValue{Path: p.Path, Value: val})
	}
	return run
}

// runTrial runs trial t of variation v and records its result.
func (x *experiment) runTrial(ctx context.Context, v, t, n, total int) error {
	cfg := x.vars[v].Config // a copy: slices inside are shared but never written
	dir := x.runDir(v, t)
	cfg.Output.ArtifactDir, cfg.Output.ArtifactDirExplicit = dir, true
	if s := x.seeds[v]; s != nil {
		seed := *s
		cfg.Input.RandomSeed = &seed
	}
	if cfg.Experiment.VarySeedPerTrial && x.baseSeed != nil {
		seed := trialSeed(*x.baseSeed, VariationLabel(&x.vars[v]), t)
		cfg.Input.RandomSeed = &seed
	}
	if t > 0 && cfg.DisableWarmupAfterFirst() {
		cfg.Warmup = config.Warmup{}
		cfg.Conversation.NumWarmupSessions = nil
	}
	rio := x.rio
	if x.runStderr != nil {
		rio.Stderr = x.runStderr // the experiment's log keeps its own lines only
	}
	rio.Trial, rio.RunLabel = t, runLabel(t)
	if x.sweep {
		rio.Sweep = x.sweepRun(v)
	}
	err := x.runOne(ctx, &cfg, rio)
	res := runResult{Label: runLabel(t), Variation: v, Trial: t, Dir: dir, Err: err}
	paths := benchmark.ResultPaths(&cfg, dir)
	if paths.WritesRecords() {
		res.Records = paths.JSONL
	}
	if err == nil {
		if s, rerr := results.ReadSummary(paths.JSON); rerr != nil {
			res.Err = fmt.Errorf("reading the run's results: %w", rerr)
		} else {
			res.Summary = s
		}
	}
	x.results[v] = append(x.results[v], res)
	status := "ok"
	if res.Err != nil {
		status = "failed: " + res.Err.Error()
	}
	fmt.Fprintf(x.rio.Stderr, "Experiment: run %d/%d (%s, %s) %s\n", n, total, VariationLabel(&x.vars[v]), res.Label, status)
	x.noteSaturation(v, &res)
	if x.conv != nil {
		if ok, why := x.conv.check(x.results[v]); ok {
			x.done[v] = true
			fmt.Fprintf(x.rio.Stderr, "Experiment: %s converged after %d run(s): %s\n", VariationLabel(&x.vars[v]), len(x.results[v]), why)
		} else if len(x.results[v]) == x.trials {
			fmt.Fprintf(x.rio.Stderr, "Experiment: %s did not converge in %d runs: %s\n", VariationLabel(&x.vars[v]), x.trials, why)
		}
	}
	if x.table != nil && (len(x.results[v]) == x.trials || x.done[v]) {
		x.table.add(&x.vars[v], x.results[v])
		if x.live {
			x.table.render(x.rio.Stderr)
		}
	}
	var ee *config.ExitError
	switch {
	case ctx.Err() != nil:
		return &errStop{&config.ExitError{Code: config.ExitInterrupted, Err: errors.New("interrupted: the aggregates cover the runs that finished")}}
	case errors.As(err, &ee) && ee.Code == config.ExitUsage:
		return &errStop{err} // the configuration cannot run; neither will the next runs
	}
	return nil
}

// writeAggregates writes the per-variation confidence aggregates and, for
// a sweep, the sweep aggregate, from the runs that finished. A run cut
// short by an interrupt does not count.
func (x *experiment) writeAggregates() error {
	ok := x.succeeded()
	if ok < 2 {
		fmt.Fprintf(x.rio.Stderr, "Experiment: %d successful run(s); at least 2 are needed for aggregate statistics, none written\n", ok)
		return nil
	}
	var errs []error
	cells := make([]sweepCell, 0, len(x.vars))
	for v := range x.vars {
		rs := x.results[v]
		if len(rs) == 0 {
			continue
		}
		cells = append(cells, sweepCell{Params: displayParams(x.vars, v), Results: rs})
		a, ok := aggregateConfidence(rs, x.level)
		if !ok {
			fmt.Fprintf(x.rio.Stderr, "Experiment: no successful run of %s; no aggregate for it\n", VariationLabel(&x.vars[v]))
			continue
		}
		meta := aggregateMeta{ConfidenceLevel: x.level, CooldownSeconds: x.vars[0].Config.ProfileRunCooldown()}
		if x.sweep {
			meta.Variation = &variationMeta{
				Label: VariationLabel(&x.vars[v]), Values: paramValues(&x.vars[v]),
				Mode: string(x.mode), Model: firstModel(&x.vars[v].Config),
			}
		}
		if err := writeConfidenceAggregate(x.variationAggregateDir(v), x.rio.Version, a, meta); err != nil {
			errs = append(errs, err)
		}
		if x.conv != nil {
			if err := writeCollated(x.variationAggregateDir(v), rs, x.rio.Version, meta.CooldownSeconds); err != nil {
				errs = append(errs, err)
			}
		}
		if !x.sweep {
			printAggregateSummary(x.rio.Stdout, a, x.level)
		}
	}
	if x.sweep {
		s := aggregateSweep(cells, x.level, string(x.mode), x.sweepFilters()...)
		if len(s.Combos) > 0 {
			if err := writeSweepAggregate(x.sweepAggregateDir(), s); err != nil {
				errs = append(errs, err)
			}
			if err := x.postProcess(s); err != nil {
				errs = append(errs, err)
			}
			if err := x.sweepVerdicts(s); err != nil {
				errs = append(errs, err)
			}
			printSweepSummary(x.rio.Stdout, s)
		}
	}
	if len(errs) == 0 {
		fmt.Fprintf(x.rio.Stderr, "Experiment: aggregates written under %s\n", x.base)
	}
	return errors.Join(errs...)
}

// paramValues is a variation's {dot path: value}.
func paramValues(v *config.Variation) *jobj {
	o := &jobj{}
	for _, p := range v.Params {
		o.set(p.Path, jsonValue(p.Value))
	}
	return o
}

// displayParams names variation v's parameters as AIPerf's sweep
// aggregate does: the last path segment, or the whole path when two
// parameters of the sweep share a last segment.
func displayParams(vars []config.Variation, v int) []sweepParam {
	count := map[string]map[string]bool{}
	for i := range vars {
		for _, p := range vars[i].Params {
			leaf := lastSegment(p.Path)
			if count[leaf] == nil {
				count[leaf] = map[string]bool{}
			}
			count[leaf][p.Path] = true
		}
	}
	out := make([]sweepParam, len(vars[v].Params))
	for i, p := range vars[v].Params {
		name := lastSegment(p.Path)
		if len(count[name]) > 1 {
			name = p.Path
		}
		out[i] = sweepParam{Name: name, Value: p.Value}
	}
	return out
}

func firstModel(cfg *config.Config) string {
	if len(cfg.Endpoint.ModelNames) == 0 {
		return ""
	}
	return cfg.Endpoint.ModelNames[0]
}
