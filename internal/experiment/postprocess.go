package experiment

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/sla"
	"github.com/aiperf-go/aiperf/internal/verdict"
)

// postProcess runs the search recipe's post-process handler on the sweep
// aggregate and writes its artifact beside it (AIPerf's grid recipes:
// degradation_knee.json, sla_breach.json, prefill_curve.json,
// decode_itl_surface.json, pareto_sweep.json).
func (x *experiment) postProcess(s *sweepAggregate) error {
	if x.plan == nil || x.plan.PostProcess == nil {
		return nil
	}
	pp := x.plan.PostProcess
	str := func(k string) string { v, _ := pp.Params[k].(string); return v }
	var doc *jobj
	var err error
	switch pp.Handler {
	case "degradation_knee_detect":
		th, _ := pp.Params["threshold_pct"].(float64)
		doc, err = degradationKnee(s, str("swept_param"), str("metric_tag"), str("stat"), th)
	case "sla_breach_knee":
		doc, err = slaBreachKnee(s, str("swept_param"), x.plan.Filters)
	case "ttft_curve_fit":
		doc, err = ttftCurveFit(s, str("swept_param"), str("metric_tag"), str("stat"))
	case "itl_surface_fit":
		doc, err = itlSurface(s, str("concurrency_param"), str("osl_param"), str("metric_tag"), str("stat"))
	case "pareto_sweep_export":
		doc, err = paretoExport(s, str("x_metric"), str("x_stat"), str("y_metric"), str("y_stat"))
	default:
		err = fmt.Errorf("unknown post-process handler %q", pp.Handler)
	}
	if err != nil {
		return fmt.Errorf("post-process %s: %w", pp.Handler, err)
	}
	path := filepath.Join(x.sweepAggregateDir(), pp.OutputFile)
	if err := os.WriteFile(path, marshalIndent(doc), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(x.rio.Stderr, "Search: %s written to %s\n", pp.Handler, path)
	return nil
}

// xy is one (swept value, metric value) point of a sweep.
type xy struct {
	x, y float64
	c    *sweepCombo
}

// paramOf reads a swept parameter of a combination by its dot path or
// its last segment (the sweep aggregate's display name).
func paramOf(c *sweepCombo, path string) (float64, bool) {
	leaf := lastSegment(path)
	for _, p := range c.Params {
		if p.Name == path || p.Name == leaf {
			return number(p.Value)
		}
	}
	return 0, false
}

// extract is AIPerf's _extract_points: (swept value, stat of metric) per
// combination that has both, sorted by the swept value.
func extract(s *sweepAggregate, swept, metric, stat string) ([]xy, error) {
	var pts []xy
	for i := range s.Combos {
		c := &s.Combos[i]
		xv, ok1 := paramOf(c, swept)
		yv, ok2 := c.Value(metric, stat)
		if ok1 && ok2 {
			pts = append(pts, xy{xv, yv, c})
		}
	}
	if len(pts) == 0 {
		return nil, fmt.Errorf("the sweep has no point with parameter %s and metric %s %s (is the metric measured? TTFT needs --streaming)", swept, metric, stat)
	}
	slices.SortStableFunc(pts, func(a, b xy) int { return cmp.Compare(a.x, b.x) })
	return pts, nil
}

// whole writes a number as an int when it is one.
func whole(v float64) any { return intIfWhole(v) }

// degradationKnee finds the first swept value whose metric exceeds the
// lowest swept value's by more than threshold (fraction).
func degradationKnee(s *sweepAggregate, swept, metric, stat string, threshold float64) (*jobj, error) {
	pts, err := extract(s, swept, metric, stat)
	if err != nil {
		return nil, err
	}
	base := pts[0]
	if !(base.y > 0) || math.IsInf(base.y, 0) {
		return nil, fmt.Errorf("baseline %s %s is %v; a latency baseline must be positive and finite", metric, stat, base.y)
	}
	cutoff := base.y * (1 + threshold)
	var kneeX, kneeY any
	for _, p := range pts[1:] {
		if p.y > cutoff {
			kneeX, kneeY = whole(p.x), p.y
			break
		}
	}
	leaf := lastSegment(swept)
	all := make([]any, len(pts))
	for i, p := range pts {
		all[i] = (&jobj{}).set(leaf, whole(p.x)).set(stat, p.y)
	}
	return (&jobj{}).set("baseline_"+leaf, whole(base.x)).set("baseline_"+stat, base.y).
		set("knee_"+leaf, kneeX).set("knee_"+stat, kneeY).set("threshold_pct", threshold).
		set("swept_metric", metric).set("stat", stat).set("swept_param", swept).set("all_points", all), nil
}

// slaBreachKnee reports, per swept value, whether every filter held and
// which broke: the highest passing value and the first failing one.
func slaBreachKnee(s *sweepAggregate, swept string, filters []sla.Filter) (*jobj, error) {
	leaf := lastSegment(swept)
	type row struct {
		x        float64
		feasible bool
		breaches []any
	}
	var rows []row
	for i := range s.Combos {
		c := &s.Combos[i]
		xv, ok := paramOf(c, swept)
		if !ok {
			continue
		}
		r := row{x: xv, feasible: true}
		for _, ch := range sla.Evaluate(filters, c).Checks {
			if !ch.Pass {
				r.feasible = false
				var obs any
				if ch.Found {
					obs = finite(ch.Value)
				}
				r.breaches = append(r.breaches, slaFilterObj(ch.Filter).set("observed", obs))
			}
		}
		rows = append(rows, r)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("the sweep has no point with parameter %s", swept)
	}
	slices.SortStableFunc(rows, func(a, b row) int { return cmp.Compare(a.x, b.x) })
	var maxPass, firstFail, firstBreach any
	monotonic, seenFail := true, false
	all := make([]any, len(rows))
	for i, r := range rows {
		br := r.breaches
		if br == nil {
			br = []any{}
		}
		all[i] = (&jobj{}).set(leaf, whole(r.x)).set("feasible", r.feasible).set("breaches", br)
		if r.feasible {
			maxPass = whole(r.x)
			if seenFail {
				monotonic = false
			}
		} else if !seenFail {
			seenFail, firstFail, firstBreach = true, whole(r.x), r.breaches[0]
		}
	}
	fs := make([]any, len(filters))
	for i, f := range filters {
		fs[i] = slaFilterObj(f)
	}
	return (&jobj{}).set("swept_param", swept).set("max_passing_"+leaf, maxPass).set("first_failing_"+leaf, firstFail).
		set("first_failing_breach", firstBreach).set("all_points", all).set("monotonicity_check", monotonic).set("filters", fs), nil
}

// ttftR2Floor is the r^2 below which the TTFT fit tries a quadratic, as
// AIPerf's prefill-ttft-curve.
const ttftR2Floor = 0.85

// ttftCurveFit fits TTFT = a*ISL + b, or a quadratic when the line
// explains less than 85 % of the variance and the quadratic does better.
// Coefficients are highest degree first, as numpy.polyfit.
func ttftCurveFit(s *sweepAggregate, swept, metric, stat string) (*jobj, error) {
	pts, err := extract(s, swept, metric, stat)
	if err != nil {
		return nil, err
	}
	var xs, ys []float64
	raw := make([]any, len(pts))
	for i, p := range pts {
		raw[i] = (&jobj{}).set("isl", whole(p.x)).set("ttft_ms", p.y)
		if !math.IsNaN(p.y) && !math.IsInf(p.y, 0) {
			xs, ys = append(xs, p.x), append(ys, p.y)
		}
	}
	doc := &jobj{}
	if len(xs) < 2 {
		return doc.set("fit_form", "linear").set("coefficients", []any{}).set("r_squared", 0.0).set("below_floor", true).
			set("r_squared_floor", ttftR2Floor).set("error_reason", "fewer than 2 finite points").set("raw_points", raw).
			set("swept_metric", metric).set("stat", stat).set("swept_param", swept), nil
	}
	form, coef, r2 := "linear", polyfit(xs, ys, 1), 0.0
	r2 = rSquared(xs, ys, coef)
	if r2 < ttftR2Floor && len(xs) >= 3 {
		if q := polyfit(xs, ys, 2); rSquared(xs, ys, q) > r2 {
			form, coef, r2 = "quadratic", q, rSquared(xs, ys, q)
		}
	}
	below := math.IsNaN(r2) || r2 < ttftR2Floor
	cs := make([]any, len(coef))
	for i, c := range coef {
		below = below || math.IsNaN(c) || math.IsInf(c, 0)
		cs[i] = finite(c)
	}
	return doc.set("fit_form", form).set("coefficients", cs).set("r_squared", finite(r2)).set("below_floor", below).
		set("r_squared_floor", ttftR2Floor).set("raw_points", raw).set("swept_metric", metric).set("stat", stat).set("swept_param", swept), nil
}

// polyfit is the least-squares polynomial of degree 1 or 2 through the
// points, highest degree first. x is scaled to [0, 1] first so that the
// normal equations stay well conditioned for ISLs in the tens of
// thousands.
func polyfit(xs, ys []float64, deg int) []float64 {
	scale := 0.0
	for _, x := range xs {
		scale = max(scale, math.Abs(x))
	}
	if scale == 0 {
		scale = 1
	}
	n := deg + 1
	// a[i][j] = sum t^(i+j), b[i] = sum y t^i
	a := make([][]float64, n)
	b := make([]float64, n)
	for i := range a {
		a[i] = make([]float64, n)
	}
	for k, x := range xs {
		t := x / scale
		for i := range n {
			b[i] += ys[k] * math.Pow(t, float64(i))
			for j := range n {
				a[i][j] += math.Pow(t, float64(i+j))
			}
		}
	}
	c := solve(a, b) // c[i] multiplies t^i
	out := make([]float64, n)
	for i := range n {
		out[deg-i] = c[i] / math.Pow(scale, float64(i))
	}
	return out
}

// solve solves a x = b by Gaussian elimination with partial pivoting;
// NaN for a singular system.
func solve(a [][]float64, b []float64) []float64 {
	n := len(b)
	for col := range n {
		p := col
		for r := col + 1; r < n; r++ {
			if math.Abs(a[r][col]) > math.Abs(a[p][col]) {
				p = r
			}
		}
		a[col], a[p] = a[p], a[col]
		b[col], b[p] = b[p], b[col]
		if a[col][col] == 0 {
			out := make([]float64, n)
			for i := range out {
				out[i] = math.NaN()
			}
			return out
		}
		for r := col + 1; r < n; r++ {
			f := a[r][col] / a[col][col]
			for c := col; c < n; c++ {
				a[r][c] -= f * a[col][c]
			}
			b[r] -= f * b[col]
		}
	}
	x := make([]float64, n)
	for i := n - 1; i >= 0; i-- {
		s := b[i]
		for j := i + 1; j < n; j++ {
			s -= a[i][j] * x[j]
		}
		x[i] = s / a[i][i]
	}
	return x
}

// rSquared is 1 - SS_res/SS_tot of the polynomial (highest degree first).
func rSquared(xs, ys, coef []float64) float64 {
	mean := 0.0
	for _, y := range ys {
		mean += y
	}
	mean /= float64(len(ys))
	var res, tot float64
	for i, x := range xs {
		f := 0.0
		for _, c := range coef {
			f = f*x + c
		}
		res += (ys[i] - f) * (ys[i] - f)
		tot += (ys[i] - mean) * (ys[i] - mean)
	}
	if tot == 0 {
		return math.NaN()
	}
	return 1 - res/tot
}

// itlSurface lays the measured ITL out on the concurrency x OSL grid.
func itlSurface(s *sweepAggregate, concParam, oslParam, metric, stat string) (*jobj, error) {
	type tri struct{ c, o, v float64 }
	var ts []tri
	for i := range s.Combos {
		c := &s.Combos[i]
		cv, ok1 := paramOf(c, concParam)
		ov, ok2 := paramOf(c, oslParam)
		v, ok3 := c.Value(metric, stat)
		if ok1 && ok2 && ok3 && v >= 0 && !math.IsInf(v, 0) && !math.IsNaN(v) {
			ts = append(ts, tri{cv, ov, v})
		}
	}
	raw := make([]any, len(ts))
	var cAxis, oAxis []float64
	for i, t := range ts {
		raw[i] = (&jobj{}).set("concurrency", whole(t.c)).set("osl", whole(t.o)).set("itl_ms", t.v)
		if !slices.Contains(cAxis, t.c) {
			cAxis = append(cAxis, t.c)
		}
		if !slices.Contains(oAxis, t.o) {
			oAxis = append(oAxis, t.o)
		}
	}
	slices.Sort(cAxis)
	slices.Sort(oAxis)
	grid := make([]any, len(cAxis))
	for i, c := range cAxis {
		row := make([]any, len(oAxis))
		for j, o := range oAxis {
			for _, t := range ts {
				if t.c == c && t.o == o {
					row[j] = t.v
				}
			}
		}
		grid[i] = row
	}
	axis := func(v []float64) []any {
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = whole(x)
		}
		return out
	}
	doc := (&jobj{}).set("swept_metric", metric).set("stat", stat).set("swept_params", []any{concParam, oslParam}).set("raw_points", raw).
		set("surface", (&jobj{}).set("concurrency_axis", axis(cAxis)).set("osl_axis", axis(oAxis)).set("itl_grid", grid))
	doc.set("surface_fit_failed", len(ts) < 2)
	if len(ts) < 2 {
		doc.set("error_reason", "fewer than 2 finite, non-negative ITL points")
	}
	return doc, nil
}

// paretoExport marks each ISL/OSL/concurrency cell Pareto optimal when no
// other cell has lower x (TTFT p95) and higher y (output throughput).
func paretoExport(s *sweepAggregate, xm, xs, ym, ys string) (*jobj, error) {
	type cell struct {
		isl, osl, conc, x, y float64
	}
	var cells []cell
	for i := range s.Combos {
		c := &s.Combos[i]
		isl, ok1 := paramOf(c, "isl")
		osl, ok2 := paramOf(c, "osl")
		conc, ok3 := paramOf(c, "concurrency")
		xv, ok4 := c.Value(xm, xs)
		yv, ok5 := c.Value(ym, ys)
		if ok1 && ok2 && ok3 && ok4 && ok5 {
			cells = append(cells, cell{isl, osl, conc, xv, yv})
		}
	}
	out := make([]any, len(cells))
	for i, a := range cells {
		optimal := true
		for j, b := range cells {
			if i != j && b.x <= a.x && b.y >= a.y && (b.x < a.x || b.y > a.y) {
				optimal = false
				break
			}
		}
		out[i] = (&jobj{}).set("isl", whole(a.isl)).set("osl", whole(a.osl)).set("concurrency", whole(a.conc)).
			set("x", a.x).set("y", a.y).set("pareto_optimal", optimal)
	}
	return (&jobj{}).set("x_metric", xm).set("x_stat", xs).set("y_metric", ym).set("y_stat", ys).set("cells", out), nil
}

// sweepVerdictsName is where a sweep's use-case verdicts go (not an
// AIPerf artifact).
const sweepVerdictsName = "verdicts.json"

// sweepVerdicts reads a concurrency sweep for the --use-case use cases:
// batch and capacity across its points, chat and RAG at each; printed and
// written to sweep_aggregate/verdicts.json. Nothing without use cases or
// without a concurrency parameter.
func (x *experiment) sweepVerdicts(s *sweepAggregate) error {
	cases := x.base0.ResolvedUseCases()
	if len(cases) == 0 {
		return nil
	}
	var pts []verdict.Point
	for i := range s.Combos {
		c := &s.Combos[i]
		conc, ok := paramOf(c, "concurrency")
		if !ok {
			if cfg := x.configOf(c); cfg != nil && cfg.Load.Concurrency != nil {
				conc, ok = float64(*cfg.Load.Concurrency), true
			}
		}
		if ok {
			pts = append(pts, verdict.Point{Label: describeSweepParams(c.Params), Concurrency: conc, Metrics: c})
		}
	}
	if len(pts) == 0 {
		fmt.Fprintln(x.rio.Stderr, "Experiment: --use-case verdicts across a sweep need a concurrency parameter; none written")
		return nil
	}
	uc := make([]verdict.UseCase, len(cases))
	for i, c := range cases {
		uc[i] = verdict.UseCase(c)
	}
	rep := verdict.EvaluateSweep(pts, uc)
	fmt.Fprint(x.rio.Stdout, verdict.SweepPanel(rep))
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(x.sweepAggregateDir(), sweepVerdictsName), append(b, '\n'), 0o644)
}

// configOf finds the configuration of the variation with c's parameters.
func (x *experiment) configOf(c *sweepCombo) *config.Config {
	for v := range x.vars {
		ps := displayParams(x.vars, v)
		if compareParams(sortedParams(ps), sortedParams(c.Params)) == 0 {
			return &x.vars[v].Config
		}
	}
	return nil
}

func describeSweepParams(ps []sweepParam) string {
	s := ""
	for i, p := range ps {
		if i > 0 {
			s += ", "
		}
		s += p.Name + "=" + pyStr(p.Value)
	}
	return s
}
