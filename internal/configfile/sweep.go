package configfile

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/sla"
)

// Sweep types.
const (
	SweepGrid      = "grid"
	SweepZip       = "zip"
	SweepScenarios = "scenarios"
)

// MaxVariations bounds the variations of one sweep, so that a file cannot
// ask for an unbounded Cartesian product.
const MaxVariations = 10_000

// maxSweepWork bounds variations x file size, the work of expanding.
const maxSweepWork = 5_000_000

// sweepSpec is a parsed `sweep:` block.
type sweepSpec struct {
	typ    string
	params []sweepParam // sorted by path, as AIPerf orders them
	runs   []*Node
	// create adds missing phases and datasets on the way (sweeps from
	// flags, which name them by kind); a file's sweep must name existing
	// ones, to catch typos.
	create bool
	// search is an adaptive_search sweep's settings; nil for the others.
	search *config.Search
	// filters are sweep.sla_filters: feasibility of the sweep's points.
	filters []sla.Filter
}

type sweepParam struct {
	path   string
	values []*Node
	pos    Pos // of the key in the file; zero for flags
}

// SweepType is the file's sweep type (grid, zip or scenarios); "" when
// it has no sweep. The sweep's settings (same_seed, cooldown_seconds,
// iteration_order) are decoded into config.Experiment.
func (f *File) SweepType() string {
	if f.sweep == nil {
		return ""
	}
	return f.sweep.typ
}

var sweepKeys = []string{"type", "parameters", "runs", "same_seed", "cooldown_seconds", "iteration_order", "sla_filters", "post_process", "recipe_name"}

// parseSweep reads the sweep block; nil when there is none.
func parseSweep(n *Node, ps *problems) *sweepSpec {
	if n == nil || n.Kind == Null {
		return nil
	}
	if n.Kind != Map {
		ps.add(n.Pos, "sweep", "must be a mapping, not %s", describe(n))
		return nil
	}
	s := &sweepSpec{typ: SweepGrid}
	s.filters = parseFilters(n.Get("sla_filters"), "sweep.sla_filters", ps)
	if t, _ := stringOf(n.Get("type")); t == SweepAdaptive {
		s.typ = SweepAdaptive
		parseAdaptive(n, s, ps)
		if rn, ok := stringOf(n.Get("recipe_name")); ok {
			s.search.RecipeName = rn
		}
		return s
	}
	for _, k := range n.Keys {
		path := "sweep." + k.Name
		v := k.Value
		switch k.Name {
		case "type":
			s.parseType(v, path, ps)
		case "parameters":
			s.parseParameters(v, path, ps)
		case "runs":
			s.parseRuns(v, path, ps)
		case "same_seed", "cooldown_seconds", "iteration_order":
			// Settings: decoded through the field table.
		case "sla_filters":
			// Parsed above for every type.
		case "post_process", "recipe_name":
			ps.add(k.Pos, path, "is set by a search recipe (--search-recipe); a file's %s sweep does not take it", s.typ)
		default:
			ps.unknownKey(k.Pos, "sweep", k.Name, sweepKeys)
		}
	}
	s.checkKinds(n, ps)
	s.checkZip(n, ps)
	slices.SortStableFunc(s.params, func(a, b sweepParam) int { return strings.Compare(a.path, b.path) })
	return s
}

// parseType reads the sweep type of a list sweep.
func (s *sweepSpec) parseType(v *Node, path string, ps *problems) {
	t, _ := stringOf(v)
	switch t {
	case SweepGrid, SweepZip, SweepScenarios:
		s.typ = t
	case "sobol", "latin_hypercube":
		ps.add(v.Pos, path, "sweep type %q is not supported yet (grid, zip or scenarios)", t)
	default:
		msg := fmt.Sprintf("must be grid, zip or scenarios, not %s", describe(v))
		if h := suggest(t, []string{SweepGrid, SweepZip, SweepScenarios}); h != "" {
			msg += fmt.Sprintf("; did you mean %q?", h)
		}
		ps.add(v.Pos, path, "%s", msg)
	}
}

// parseParameters reads a grid or zip sweep's dot path to value list.
func (s *sweepSpec) parseParameters(v *Node, path string, ps *problems) {
	if v.Kind != Map {
		ps.add(v.Pos, path, "must be a mapping of dot path to a list of values")
		return
	}
	for _, pk := range v.Keys {
		p, err := canonicalParam(pk.Name)
		if err != nil {
			ps.add(pk.Pos, path, "%v", err)
			continue
		}
		if pk.Value.Kind != Seq || len(pk.Value.Items) == 0 {
			ps.add(pk.Value.Pos, path+"."+pk.Name, "must be a non-empty list of values")
			continue
		}
		if slices.ContainsFunc(s.params, func(q sweepParam) bool { return q.path == p }) {
			ps.add(pk.Pos, path, "%q is given twice (it is %s)", pk.Name, p)
			continue
		}
		s.params = append(s.params, sweepParam{path: p, values: pk.Value.Items, pos: pk.Pos})
	}
}

// parseRuns reads a scenarios sweep's runs, checking only their keys here.
func (s *sweepSpec) parseRuns(v *Node, path string, ps *problems) {
	if v.Kind != Seq || len(v.Items) == 0 {
		ps.add(v.Pos, path, "must be a non-empty list of scenarios")
		return
	}
	for i, r := range v.Items {
		if r.Kind != Map {
			ps.add(r.Pos, fmt.Sprintf("%s.%d", path, i), "must be a mapping")
			continue
		}
		for _, rk := range r.Keys {
			if !slices.Contains([]string{"name", "variables", "benchmark", "values"}, rk.Name) {
				ps.unknownKey(rk.Pos, fmt.Sprintf("%s.%d", path, i), rk.Name, []string{"name", "variables", "benchmark", "values"})
			}
		}
	}
	s.runs = v.Items
}

// checkKinds checks that the sweep has what its type needs and nothing of
// another type.
func (s *sweepSpec) checkKinds(n *Node, ps *problems) {
	switch s.typ {
	case SweepGrid, SweepZip:
		if len(s.params) == 0 && n.Get("parameters") == nil {
			ps.add(n.Pos, "sweep", "a %s sweep needs parameters", s.typ)
		}
		if n.Get("runs") != nil {
			ps.add(n.KeyPos("runs"), "sweep.runs", "belongs to a scenarios sweep; a %s sweep takes parameters", s.typ)
		}
	case SweepScenarios:
		if n.Get("runs") == nil {
			ps.add(n.Pos, "sweep", "a scenarios sweep needs runs")
		}
		if n.Get("parameters") != nil {
			ps.add(n.KeyPos("parameters"), "sweep.parameters", "belongs to a grid or zip sweep; a scenarios sweep takes runs")
		}
	}
}

// checkZip checks that a zip sweep's lists have equal lengths.
func (s *sweepSpec) checkZip(n *Node, ps *problems) {
	if s.typ == SweepZip && len(s.params) > 1 {
		n0 := len(s.params[0].values)
		for _, p := range s.params[1:] {
			if len(p.values) != n0 {
				var lens []string
				for _, q := range s.params {
					lens = append(lens, fmt.Sprintf("%s: %d", q.path, len(q.values)))
				}
				ps.add(n.Pos, "sweep.parameters", "a zip sweep needs lists of equal length (%s)", strings.Join(lens, ", "))
				break
			}
		}
	}
}

// SweepParam is one swept parameter: a dot path into `benchmark:` (or
// "variables.<name>") and its values in order.
type SweepParam struct {
	Path   string
	Values []any
}

// AddSweep makes params the file's sweep, of type typ (grid or zip): the
// "magic list" flags promoted into the envelope, as AIPerf does. A file
// that has a sweep already cannot take a second one.
func (f *File) AddSweep(typ string, params []SweepParam) error {
	if f.sweep != nil {
		return errors.New("the config file already defines a sweep: put these values in its sweep.parameters instead")
	}
	if typ != SweepGrid && typ != SweepZip {
		return fmt.Errorf("sweep type %q: flags can only form a grid or zip sweep", typ)
	}
	s := &sweepSpec{typ: typ, create: true}
	for _, p := range params {
		path, err := canonicalParam(p.Path)
		if err != nil {
			return err
		}
		sp := sweepParam{path: path}
		for _, v := range p.Values {
			sp.values = append(sp.values, FromValue(v))
		}
		if len(sp.values) == 0 {
			return fmt.Errorf("sweep parameter %s has no values", path)
		}
		if typ == SweepZip && len(s.params) > 0 && len(sp.values) != len(s.params[0].values) {
			return errors.New("a zip sweep needs lists of equal length")
		}
		s.params = append(s.params, sp)
	}
	f.sweep = s
	return nil
}

// point is one variation before decoding.
type point struct {
	label  string
	params []config.Param
	env    *Node
}

// points expands the sweep over the raw envelope.
func (f *File) points() ([]point, error) {
	// The sweep block stays: its settings (same_seed, cooldown_seconds,
	// iteration_order) decode like any other key.
	base := f.raw.Clone()
	s := f.sweep
	if s == nil || s.typ == SweepAdaptive {
		return []point{{env: base}}, nil // a search's points come from its planner
	}
	var combos [][]int
	switch s.typ {
	case SweepGrid:
		total := 1
		for _, p := range s.params {
			total *= len(p.values)
			if total > MaxVariations {
				return nil, fmt.Errorf("%s: the grid sweep has more than %d variations", f.name, MaxVariations)
			}
		}
		combos = [][]int{{}}
		for _, p := range s.params {
			var next [][]int
			for _, c := range combos {
				for i := range p.values {
					next = append(next, append(slices.Clone(c), i))
				}
			}
			combos = next
		}
	case SweepZip:
		if len(s.params) > 0 {
			for i := range s.params[0].values {
				c := make([]int, len(s.params))
				for j := range c {
					c[j] = i
				}
				combos = append(combos, c)
			}
		}
	case SweepScenarios:
		if len(s.runs) > MaxVariations || len(s.runs)*countNodes(base) > maxSweepWork {
			return nil, fmt.Errorf("%s: the sweep has more than %d scenarios", f.name, MaxVariations)
		}
		return f.scenarioPoints(base)
	}
	if s.typ == SweepZip && len(s.params) > 0 && len(s.params[0].values) > MaxVariations {
		return nil, fmt.Errorf("%s: the zip sweep has more than %d variations", f.name, MaxVariations)
	}
	if len(combos)*countNodes(base) > maxSweepWork {
		return nil, fmt.Errorf("%s: the sweep is too large (%d variations of a %d-value file)", f.name, len(combos), countNodes(base))
	}
	var out []point
	var errs []error
	seen := map[string]bool{}
	for _, c := range combos {
		env := base.Clone()
		var params []config.Param
		for j, p := range s.params {
			v := p.values[c[j]]
			if err := setParam(env, p.path, v, s.create); err != nil {
				if !seen[err.Error()] {
					seen[err.Error()] = true
					errs = append(errs, &Problem{File: f.name, Pos: p.pos, Path: "sweep.parameters", Message: err.Error()})
				}
				continue
			}
			params = append(params, config.Param{Path: p.path, Value: v.Interface()})
		}
		out = append(out, point{params: params, env: env})
	}
	return out, errors.Join(errs...)
}

// setParam writes a sweep value: "variables.x" into the envelope, any
// other path into benchmark:.
func setParam(env *Node, path string, v *Node, create bool) error {
	if strings.HasPrefix(path, "variables.") {
		return setPath(env, path, v.Clone(), create)
	}
	b := env.Get("benchmark")
	if b == nil || b.Kind != Map {
		return fmt.Errorf("sweep parameter %s: the file has no benchmark: mapping", path)
	}
	if err := setPath(b, path, v.Clone(), create); err != nil {
		return fmt.Errorf("sweep parameter %w", err)
	}
	return nil
}

// scenarioPoints deep-merges each scenario into the base.
func (f *File) scenarioPoints(base *Node) ([]point, error) {
	var out []point
	for i, r := range f.sweep.runs {
		env := base.Clone()
		if b := r.Get("benchmark"); b != nil {
			if env.Get("benchmark") == nil {
				env.Set("benchmark", newMap(Pos{}))
			}
			mergeInto(env.Get("benchmark"), b)
		}
		if v := r.Get("variables"); v != nil {
			if env.Get("variables") == nil {
				env.Set("variables", newMap(Pos{}))
			}
			mergeInto(env.Get("variables"), v)
		}
		name, ok := stringOf(r.Get("name"))
		if !ok {
			name = fmt.Sprintf("scenario_%d", i)
		}
		var params []config.Param
		if vals := r.Get("values"); vals != nil && vals.Kind == Map {
			for _, k := range vals.Keys {
				params = append(params, config.Param{Path: k.Name, Value: k.Value.Interface()})
			}
		}
		out = append(out, point{label: name, params: params, env: env})
	}
	return out, nil
}

// mergeInto deep-merges src into dst (both mappings): mappings merge,
// lists of named mappings merge by name, anything else is replaced. A
// distribution mapping that changes kind (its discriminating keys differ:
// {mean, stddev} over {mean, median}) replaces the old one, as in AIPerf.
func mergeInto(dst, src *Node) {
	if dst.Kind != Map || src.Kind != Map {
		return
	}
	for _, k := range src.Keys {
		cur := dst.Get(k.Name)
		switch {
		case cur != nil && cur.Kind == Map && k.Value.Kind == Map && !distributionSwap(cur, k.Value):
			mergeInto(cur, k.Value)
		case cur != nil && namedList(cur) && namedList(k.Value):
			for _, it := range k.Value.Items {
				name, _ := stringOf(it.Get("name"))
				idx := slices.IndexFunc(cur.Items, func(c *Node) bool { n, _ := stringOf(c.Get("name")); return n == name })
				if idx >= 0 {
					mergeInto(cur.Items[idx], it)
				} else {
					cur.Items = append(cur.Items, it.Clone())
				}
			}
		default:
			dst.Set(k.Name, k.Value.Clone())
		}
	}
}

// distributionSwap reports whether two mappings both carry distribution
// discriminators (peaks, points, value, median, stddev) and not the same
// ones; modifiers alone (min, max) merge.
func distributionSwap(a, b *Node) bool {
	disc := func(n *Node) (set []string) {
		for _, k := range []string{"peaks", "points", "value", "median", "stddev"} {
			if n.Get(k) != nil {
				set = append(set, k)
			}
		}
		return set
	}
	da, db := disc(a), disc(b)
	return len(da) > 0 && len(db) > 0 && !slices.Equal(da, db)
}

func namedList(n *Node) bool {
	if n.Kind != Seq {
		return false
	}
	for _, it := range n.Items {
		if _, ok := stringOf(it.Get("name")); !ok {
			return false
		}
	}
	return true
}

// Variations expands the file's sweep into one complete, validated
// configuration per point. Each variation's envelope is rendered on its
// own and decoded onto a copy of base (the configuration the command line
// produced; with no flags, config.Defaults()).
//
// Labels: a scenario's name (scenario_<i> when unnamed); empty for grid
// and zip points, whose Params say everything (the experiment runner
// names them AIPerf's way, "path=value, ..."). Seeds are left as the
// envelope sets them: the experiment runner derives random_seed + index
// per variation (or the same seed with sweep.same_seed). A file without a
// sweep gives one variation with no Params.
func (f *File) Variations(base config.Config) ([]config.Variation, error) {
	pts, err := f.points()
	if err != nil {
		return nil, err
	}
	var out []config.Variation
	var errs []error
	for i, p := range pts {
		cfg := base
		name := p.label
		if name == "" {
			name = describeParams(p.params)
		}
		if err := f.decode(p.env, &cfg); err != nil {
			errs = append(errs, fmt.Errorf("sweep variation %d (%s): %w", i, name, err))
			continue
		}
		f.applySearch(&cfg)
		if err := cfg.Validate(); err != nil {
			for _, e := range unwrapAll(err) {
				if f.sweep == nil {
					errs = append(errs, fmt.Errorf("%s: %w", f.name, e))
				} else {
					errs = append(errs, fmt.Errorf("%s: sweep variation %d (%s): %w", f.name, i, name, e))
				}
			}
			continue
		}
		out = append(out, config.Variation{Index: i, Label: p.label, Params: p.params, Config: cfg})
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// describeParams is "path=value, ..." for messages; "base" when empty.
func describeParams(params []config.Param) string {
	if len(params) == 0 {
		return "base"
	}
	parts := make([]string, len(params))
	for i, p := range params {
		parts[i] = fmt.Sprintf("%s=%v", p.Path, p.Value)
	}
	return strings.Join(parts, ", ")
}

// unwrapAll splits an errors.Join result.
func unwrapAll(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// Point returns base with each parameter set at its dot path into
// benchmark: (phases.profiling.concurrency, datasets.main.prompts.isl,
// the bare names concurrency, rate, ...), exactly as a one-point sweep of
// a config file sets it, and validates the result. A search uses it to
// turn each proposal into the configuration to run.
func Point(base config.Config, params []config.Param) (config.Config, error) {
	f, err := Parse("search point", []byte("benchmark: {}\n"), Options{})
	if err != nil {
		return config.Config{}, err
	}
	sp := make([]SweepParam, len(params))
	for i, p := range params {
		sp[i] = SweepParam{Path: p.Path, Values: []any{p.Value}}
	}
	if err := f.AddSweep(SweepGrid, sp); err != nil {
		return config.Config{}, err
	}
	vars, err := f.Variations(base)
	if err != nil {
		return config.Config{}, err
	}
	return vars[0].Config, nil
}
