package experiment

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"iter"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aiperf-go/aiperf/internal/benchmark"
	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/configfile"
	"github.com/aiperf-go/aiperf/internal/metrics/stats"
	"github.com/aiperf-go/aiperf/internal/search"
	"github.com/aiperf-go/aiperf/internal/sla"
)

// searchHistoryName is the search trajectory AIPerf writes beside
// sweep_aggregate/.
const searchHistoryName = "search_history.json"

// RunSearch runs a search (--search-space, --search-recipe, or a YAML
// adaptive_search sweep): the plan's planner proposes points, each point
// becomes a variation of base (its values set at their dot paths, as a
// one-point sweep would set them) that runs --num-profile-runs times, and
// the planner is told the outcome: the objective averaged over the
// successful runs, and whether at least one of them met every SLA filter.
//
// Artifacts, as AIPerf's: an adaptive search writes each point under
// search_iter_NNNN/profile_runs/run_NNNN/ and search_history.json (after
// every point, so a crash keeps the trajectory); a grid plan (the grid
// recipes and styles) writes a sweep's layout. Both write
// sweep_aggregate/ with the SLA filters applied to best_configurations and
// pareto_optimal, and the recipe's post-process artifact there.
//
// The error carries the exit code as RunExperiment's; an interrupt stops
// after the point in progress with the artifacts of the points done.
func RunSearch(ctx context.Context, base config.Config, plan *search.Plan, rio benchmark.IO) error {
	planner, err := plan.NewPlanner()
	if err != nil {
		return &config.ExitError{Code: config.ExitUsage, Err: err}
	}
	x := newExperiment([]config.Variation{{Label: "base", Config: base}}, rio)
	x.vars, x.results, x.dirs, x.seeds, x.done = nil, nil, nil, nil, nil
	x.sweep, x.mode, x.plan = true, config.SweepIndependent, plan
	x.adaptive = plan.Planner != search.PlannerGrid
	if !base.Experiment.NoSweepTable {
		ph := make([]config.Param, len(plan.Space))
		for i, d := range plan.Space {
			ph[i] = config.Param{Path: d.Path}
		}
		x.table = newSweepTable([]config.Variation{{Params: ph}}, x.level)
	}
	if err := benchmark.PrepareArtifactDir(x.base); err != nil {
		return err
	}
	defer x.openTopLog()()
	budget := plan.MaxIter
	if plan.Planner == search.PlannerGrid {
		budget = len(plan.Points)
	}
	fmt.Fprintf(x.rio.Stderr, "Search: %s planner over %s, up to %d point(s) x %d run(s); artifacts in %s\n",
		plan.Planner, spaceLabel(plan.Space), budget, x.trials, x.base)
	stop := x.searchLoop(ctx, planner, budget)
	if x.table != nil && !x.live && len(x.table.rows) > 0 {
		x.table.render(x.rio.Stdout)
	}
	fmt.Fprint(x.rio.Stdout, x.saturationSummary())
	var errs []error
	if x.adaptive {
		if err := x.writeSearchHistory(planner); err != nil {
			errs = append(errs, err)
		}
	}
	if err := x.writeAggregates(); err != nil {
		errs = append(errs, err)
	}
	x.printSearchSummary(planner)
	var se *errStop
	switch {
	case errors.As(stop, &se):
		return se.err
	case len(errs) > 0:
		return &config.ExitError{Code: config.ExitFailure, Err: errors.Join(errs...)}
	case len(x.vars) == 0:
		return &config.ExitError{Code: config.ExitFailure, Err: errors.New("the search ran no point")}
	}
	return nil
}

// spaceLabel is "path [lo, hi]" per dimension.
func spaceLabel(space []search.Dim) string {
	parts := make([]string, len(space))
	for i, d := range space {
		parts[i] = fmt.Sprintf("%s [%s, %s]", d.Path, pyStr(d.Lo), pyStr(d.Hi))
	}
	return strings.Join(parts, ", ")
}

// params turns a point into sweep parameters: whole numbers for int
// dimensions.
func pointParams(space []search.Dim, p search.Point) []config.Param {
	out := make([]config.Param, len(space))
	for i, d := range space {
		var v any = p[i]
		if d.Int {
			v = int64(math.Round(p[i]))
		}
		out[i] = config.Param{Path: d.Path, Value: v}
	}
	return out
}

// searchLoop asks, runs and tells until the planner is done or the
// experiment stops.
func (x *experiment) searchLoop(ctx context.Context, planner search.Planner, budget int) error {
	first := true
	n := 0
	for {
		pt, ok := planner.Next()
		if !ok {
			return nil
		}
		if ctx.Err() != nil {
			return &errStop{&config.ExitError{Code: config.ExitInterrupted, Err: errors.New("interrupted")}}
		}
		v := len(x.vars)
		params := pointParams(x.plan.Space, pt)
		cfg, err := configfile.Point(x.vars0(), params)
		if err != nil {
			return &errStop{&config.ExitError{Code: config.ExitUsage, Err: fmt.Errorf("search point %s: %w", describeParamsList(params), err)}}
		}
		vr := config.Variation{Index: v, Params: params, Config: cfg}
		if x.adaptive {
			vr.Label = fmt.Sprintf("search_iter_%04d", v)
		}
		x.vars = append(x.vars, vr)
		x.results = append(x.results, nil)
		x.done = append(x.done, false)
		x.dirs = append(x.dirs, x.searchDir(&vr))
		x.seeds = append(x.seeds, x.searchSeed(&vr))
		if !first {
			if err := x.pause(ctx, x.base0.Experiment.ParameterSweepCooldownSeconds); err != nil {
				return err
			}
		}
		first = false
		for t := 0; t < x.trials && !x.done[v]; t++ {
			if t > 0 {
				if err := x.pause(ctx, x.base0.ProfileRunCooldown()); err != nil {
					return err
				}
			}
			n++
			if err := x.runTrial(ctx, v, t, n, budget*x.trials); err != nil {
				return err
			}
		}
		obs := x.observe(v)
		planner.Observe(obs)
		verdict := "feasible"
		if !obs.Feasible {
			verdict = "infeasible: " + x.firstBreachText(v)
		}
		fmt.Fprintf(x.rio.Stderr, "Search: point %d (%s): %s %s = %s, %s\n", v, describeParamsList(params),
			x.plan.Objective.Metric, x.plan.Objective.Stat, strconv.FormatFloat(obs.Objective, 'g', 6, 64), verdict)
		if x.adaptive {
			if err := x.writeSearchHistory(planner); err != nil {
				fmt.Fprintf(x.rio.Stderr, "Search: writing %s: %v\n", searchHistoryName, err)
			}
		}
	}
}

// vars0 is the base configuration the points vary.
func (x *experiment) vars0() config.Config { return x.base0 }

// pause waits between runs or points; an interrupt stops the search.
func (x *experiment) pause(ctx context.Context, seconds float64) error {
	if seconds <= 0 {
		return nil
	}
	if err := x.sleep(ctx, time.Duration(seconds*float64(time.Second))); err != nil {
		return &errStop{&config.ExitError{Code: config.ExitInterrupted, Err: errors.New("interrupted")}}
	}
	return nil
}

// searchDir is a point's directory: search_iter_NNNN for an adaptive
// search, the sweep's name (concurrency_8) for a grid.
func (x *experiment) searchDir(v *config.Variation) string {
	if x.adaptive {
		return v.Label
	}
	return VariationDirName(v)
}

// searchSeed is a point's seed, as AIPerf: the base seed for the first
// point and, past it, SHA-256 of "<base>:variation:<label>" for an
// adaptive search (the same label always gets the same workload), base +
// index for a grid (unless --parameter-sweep-same-seed).
func (x *experiment) searchSeed(v *config.Variation) *int64 {
	b := baseSeed(&x.base0)
	if b == nil {
		return nil
	}
	s := *b
	switch {
	case v.Index == 0 || x.base0.Experiment.ParameterSweepSameSeed:
	case x.adaptive:
		sum := sha256.Sum256([]byte(strconv.FormatInt(s, 10) + ":variation:" + v.Label))
		s = int64(binary.BigEndian.Uint64(sum[:8]) & math.MaxInt64)
	default:
		s += int64(v.Index)
	}
	return &s
}

// observe reduces point v's runs to the planner's observation: the mean
// objective over the successful runs, feasible when one of them met every
// filter (no filter: feasible when one succeeded).
func (x *experiment) observe(v int) search.Observation {
	o := search.Observation{Objective: math.NaN()}
	var m finiteMean
	for r := range x.succeededRuns(v) {
		if val, ok := r.Summary.Value(x.plan.Objective.Metric, x.plan.Objective.Stat); ok {
			m.add(val)
		}
		if sla.Evaluate(x.plan.Filters, r.Summary).Pass {
			o.Feasible = true
		}
	}
	if s, ok := overSaturated(x.results[v]); ok && s.Mode == config.OverSaturationEnforce {
		o.Feasible = false // past the server's capacity: no SLA holds there for long
	}
	o.Objective = m.value()
	if q, ok := percentileOf(x.plan.Objective.Stat); ok && x.plan.Pooled {
		if v, ok := x.pooledPercentile(v, q); ok {
			o.Objective = v
		}
	}
	return o
}

// percentileOf reads "p95" as 95.
func percentileOf(stat string) (float64, bool) {
	if len(stat) < 2 || stat[0] != 'p' {
		return 0, false
	}
	q, err := strconv.ParseFloat(stat[1:], 64)
	return q, err == nil && q > 0 && q < 100
}

// pooledPercentile is the q-th percentile (numpy linear) of the
// objective metric over every successful request of point v's runs;
// false without records.
func (x *experiment) pooledPercentile(v int, q float64) (float64, bool) {
	var all []float64
	for i := range x.results[v] {
		r := &x.results[v][i]
		if !r.ok() || r.Records == "" {
			continue
		}
		vals, err := recordValues(r, x.plan.Objective.Metric)
		if err != nil {
			continue
		}
		all = append(all, vals...)
	}
	if len(all) == 0 {
		return 0, false
	}
	slices.Sort(all)
	return stats.Percentile(all, q), true
}

// succeededRuns yields point v's runs that finished with a summary.
func (x *experiment) succeededRuns(v int) iter.Seq[*runResult] {
	return func(yield func(*runResult) bool) {
		for i := range x.results[v] {
			if r := &x.results[v][i]; r.ok() && !yield(r) {
				return
			}
		}
	}
}

// finiteMean averages the finite values added to it, summed in order;
// NaN when none was.
type finiteMean struct {
	sum float64
	n   int
}

func (m *finiteMean) add(v float64) {
	if stats.Finite(v) {
		m.sum += v
		m.n++
	}
}

func (m finiteMean) value() float64 {
	if m.n == 0 {
		return math.NaN()
	}
	return m.sum / float64(m.n)
}

// firstBreach is the first filter (in order) no successful run of point v
// met, and its value averaged over the runs that measured it (NaN when
// none did): AIPerf's first_breach.
func (x *experiment) firstBreach(v int) (sla.Filter, float64, bool) {
	for _, f := range x.plan.Filters {
		met := false
		var m finiteMean
		for r := range x.succeededRuns(v) {
			c := sla.Evaluate([]sla.Filter{f}, r.Summary).Checks[0]
			met = met || c.Pass
			if c.Found {
				m.add(c.Value)
			}
		}
		if !met {
			return f, m.value(), true
		}
	}
	return sla.Filter{}, 0, false
}

func (x *experiment) firstBreachText(v int) string {
	if s, ok := overSaturated(x.results[v]); ok && s.Mode == config.OverSaturationEnforce {
		return "over-saturated (--over-saturation enforce) " + saturationText(s)
	}
	f, obs, ok := x.firstBreach(v)
	if !ok {
		return "no successful run"
	}
	if math.IsNaN(obs) {
		return f.Describe() + " (not measured)"
	}
	return fmt.Sprintf("%s (got %s)", f.Describe(), strconv.FormatFloat(obs, 'g', 6, 64))
}

func describeParamsList(ps []config.Param) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = lastSegment(p.Path) + "=" + pyStr(p.Value)
	}
	return strings.Join(parts, ", ")
}

// printSearchSummary tells the outcome on stdout: the best point, the SLA
// boundary of a one-dimensional search, and why the search ended.
func (x *experiment) printSearchSummary(planner search.Planner) {
	hist := planner.History()
	var b strings.Builder
	rule := strings.Repeat("=", 80)
	fmt.Fprintf(&b, "\n%s\nSEARCH SUMMARY\n%s\n", rule, rule)
	reason := planner.Reason()
	if reason == "" {
		reason = "stopped"
	}
	fmt.Fprintf(&b, "Planner: %s   Points run: %d   Ended: %s\n", x.plan.Planner, len(hist), reason)
	if len(x.plan.Filters) > 0 {
		var fs []string
		for _, f := range x.plan.Filters {
			fs = append(fs, f.Describe())
		}
		fmt.Fprintf(&b, "SLA: %s\n", strings.Join(fs, " and "))
	}
	if best, feasible, ok := search.Best(hist, x.plan.Objective.Direction); ok {
		tag := "feasible"
		if feasible == 0 {
			tag = "no point was feasible; best of all"
		}
		fmt.Fprintf(&b, "Best point: %s (%s %s = %s; %s)\n", describeParamsList(pointParams(x.plan.Space, best.Point)),
			x.plan.Objective.Metric, x.plan.Objective.Stat, strconv.FormatFloat(best.Observation.Objective, 'g', 6, 64), tag)
	}
	if bs := x.boundary(planner); bs != nil {
		leaf := lastSegment(bs.path)
		if bs.feasibleMax != nil {
			fmt.Fprintf(&b, "Highest passing %s: %s\n", leaf, pyStr(x.dimValue(bs.feasibleMax.value)))
		} else {
			fmt.Fprintf(&b, "No %s passed the SLA\n", leaf)
		}
		if bs.infeasibleMin != nil {
			fmt.Fprintf(&b, "Lowest failing %s: %s (%s)\n", leaf, pyStr(x.dimValue(bs.infeasibleMin.value)), x.firstBreachText(bs.infeasibleMin.iter))
		}
	}
	fmt.Fprintf(&b, "%s\n", rule)
	fmt.Fprint(x.rio.Stdout, b.String())
}

// boundaryPoint is one side of the SLA boundary.
type boundaryPoint struct {
	value     float64
	iter      int
	objective float64
}

// boundarySummary is the SLA boundary of a one-dimensional search.
type boundarySummary struct {
	path                       string
	feasibleMax, infeasibleMin *boundaryPoint
}

// boundary is the highest feasible and the lowest infeasible value of the
// swept dimension, nil for a search of several dimensions or none run.
func (x *experiment) boundary(planner search.Planner) *boundarySummary {
	hist := planner.History()
	if len(x.plan.Space) != 1 || len(hist) == 0 {
		return nil
	}
	bs := &boundarySummary{path: x.plan.Space[0].Path}
	if m, ok := planner.(*search.MonotonicPlanner); ok {
		if m.FeasibleMax >= 0 {
			it := hist[m.FeasibleIter]
			bs.feasibleMax = &boundaryPoint{float64(m.FeasibleMax), it.Index, it.Observation.Objective}
		}
		if m.InfeasibleMin >= 0 {
			it := hist[m.InfeasibleIter]
			bs.infeasibleMin = &boundaryPoint{float64(m.InfeasibleMin), it.Index, it.Observation.Objective}
		}
		return bs
	}
	for _, it := range hist {
		v := it.Point[0]
		if it.Observation.Feasible {
			if bs.feasibleMax == nil || v > bs.feasibleMax.value {
				bs.feasibleMax = &boundaryPoint{v, it.Index, it.Observation.Objective}
			}
		} else if bs.infeasibleMin == nil || v < bs.infeasibleMin.value {
			bs.infeasibleMin = &boundaryPoint{v, it.Index, it.Observation.Objective}
		}
	}
	return bs
}

// writeSearchHistoryFile writes the history document into the base dir.
func (x *experiment) writeSearchHistoryFile(doc []byte) error {
	return os.WriteFile(filepath.Join(x.base, searchHistoryName), doc, 0o644)
}
