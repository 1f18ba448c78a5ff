package configfile

import (
	"fmt"
	"slices"
	"strings"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/sla"
)

// SweepAdaptive is AIPerf's adaptive_search sweep type: a search, not a
// list of points.
const SweepAdaptive = "adaptive_search"

// searchKeys are the adaptive_search settings this implementation
// reads; the AIPerf keys after them are accepted when they carry AIPerf's
// defaults and rejected otherwise.
var searchKeys = []string{"planner", "search_space", "objectives", "max_iterations", "n_initial_points", "random_seed", "sla_tiers",
	"improvement_patience", "plateau_window", "plateau_threshold", "monotonic_stability_trials"}

// parseAdaptive reads an adaptive_search sweep into s.search: the same
// settings the --search-* flags give (search_space, objectives,
// max_iterations, n_initial_points, random_seed, planner, sla_tiers; the
// sla_filters are read for every sweep type).
func parseAdaptive(n *Node, s *sweepSpec, ps *problems) {
	se := &config.Search{}
	s.search = se
	for _, k := range n.Keys {
		path := "sweep." + k.Name
		if parse, ok := searchParsers[k.Name]; ok {
			parse(se, k.Value, path, ps)
			continue
		}
		switch k.Name {
		case "type", "sla_filters", "recipe_name", "same_seed", "cooldown_seconds", "iteration_order":
		default:
			ps.unknownKey(k.Pos, "sweep", k.Name, append(slices.Clone(searchKeys), "type", "sla_filters", "recipe_name", "cooldown_seconds"))
		}
	}
	if len(se.Space) == 0 {
		ps.add(n.Pos, "sweep", "an adaptive_search sweep needs search_space")
	}
	if se.Metric == "" && n.Get("objectives") == nil {
		ps.add(n.Pos, "sweep", "an adaptive_search sweep needs objectives")
	}
	if se.MaxIterations == nil {
		ps.add(n.Pos, "sweep", "an adaptive_search sweep needs max_iterations")
	}
}

// searchParsers reads each adaptive_search setting of searchKeys at path
// into se.
var searchParsers = map[string]func(se *config.Search, v *Node, path string, ps *problems){
	"planner":                    adaptivePlanner,
	"search_space":               adaptiveSpace,
	"objectives":                 adaptiveObjectives,
	"max_iterations":             adaptiveCount(func(se *config.Search) **int { return &se.MaxIterations }),
	"n_initial_points":           adaptiveCount(func(se *config.Search) **int { return &se.InitialPoints }),
	"improvement_patience":       adaptiveCount(func(se *config.Search) **int { return &se.ImprovementPatience }),
	"plateau_window":             adaptiveCount(func(se *config.Search) **int { return &se.PlateauWindow }),
	"monotonic_stability_trials": adaptiveCount(func(se *config.Search) **int { return &se.MonotonicStability }),
	"plateau_threshold":          adaptivePlateauThreshold,
	"random_seed":                adaptiveRandomSeed,
	"sla_tiers":                  adaptiveTiers,
}

func adaptivePlanner(se *config.Search, v *Node, path string, ps *problems) {
	p, _ := stringOf(v)
	switch p {
	case "bayesian", "optuna", "monotonic_sla", "smooth_isotonic", "random":
		se.Planner = p
	default:
		ps.add(v.Pos, path, "must be bayesian, optuna, monotonic_sla, smooth_isotonic or random, not %s", describe(v))
	}
}

func adaptiveSpace(se *config.Search, v *Node, path string, ps *problems) {
	if v.Kind != Seq || len(v.Items) == 0 {
		ps.add(v.Pos, path, "must be a non-empty list of {path, lo, hi, kind, prior}")
		return
	}
	for i, it := range v.Items {
		se.Space = append(se.Space, parseDim(it, fmt.Sprintf("%s.%d", path, i), ps))
	}
}

// adaptiveObjectives reads the one objective this implementation
// supports; its direction defaults to maximize.
func adaptiveObjectives(se *config.Search, v *Node, path string, ps *problems) {
	if v.Kind != Seq || len(v.Items) == 0 {
		ps.add(v.Pos, path, "must be a non-empty list of {metric, stat, direction}")
		return
	}
	if len(v.Items) > 1 {
		ps.add(v.Pos, path, "has %d objectives; multi-objective (Pareto) search is not supported here: give one", len(v.Items))
	}
	o := v.Items[0]
	for _, ok := range o.Keys {
		adaptiveObjectiveKey(se, ok, path, ps)
	}
	if se.Metric == "" {
		ps.add(o.Pos, path+".0", "needs a metric")
	}
	if se.Direction == "" {
		se.Direction = "maximize"
	}
}

// adaptiveObjectiveKey reads one key of the objective at path.0.
func adaptiveObjectiveKey(se *config.Search, ok Key, path string, ps *problems) {
	str, isStr := stringOf(ok.Value)
	switch ok.Name {
	case "metric":
		se.Metric = str
	case "stat":
		se.Stat = str
	case "direction":
		se.Direction = strings.ToLower(str)
	case "threshold":
		if ok.Value.Kind != Null {
			ps.add(ok.Pos, path+".0.threshold", "objective thresholds are not supported; use sla_filters")
		}
		return
	default:
		ps.unknownKey(ok.Pos, path+".0", ok.Name, []string{"metric", "stat", "direction", "threshold"})
		return
	}
	if !isStr {
		ps.add(ok.Value.Pos, path+".0."+ok.Name, "must be a string, not %s", describe(ok.Value))
	}
}

// adaptiveCount reads a positive whole number into the field that field
// selects.
func adaptiveCount(field func(*config.Search) **int) func(*config.Search, *Node, string, *problems) {
	return func(se *config.Search, v *Node, path string, ps *problems) {
		i, ok := intOf(v)
		if !ok || i < 1 {
			ps.add(v.Pos, path, "must be a positive whole number, not %s", describe(v))
			return
		}
		n := int(i)
		*field(se) = &n
	}
}

func adaptivePlateauThreshold(se *config.Search, v *Node, path string, ps *problems) {
	f, ok := floatOf(v)
	if !ok || !(f > 0) {
		ps.add(v.Pos, path, "must be a positive number, not %s", describe(v))
		return
	}
	se.PlateauThreshold = &f
}

func adaptiveRandomSeed(se *config.Search, v *Node, path string, ps *problems) {
	if v.Kind == Null {
		return
	}
	i, ok := intOf(v)
	if !ok {
		ps.add(v.Pos, path, "must be a whole number, not %s", describe(v))
		return
	}
	se.RandomSeed = &i
}

// adaptiveTiers reads sla_tiers into the --search-sla-tier form
// "label:filter,filter".
func adaptiveTiers(se *config.Search, v *Node, path string, ps *problems) {
	if v.Kind != Seq {
		ps.add(v.Pos, path, "must be a list of {label, filters}")
		return
	}
	for i, it := range v.Items {
		tp := fmt.Sprintf("%s.%d", path, i)
		label, _ := stringOf(it.Get("label"))
		if label == "" {
			ps.add(it.Pos, tp, "needs a label")
		}
		var parts []string
		for _, f := range parseFilters(it.Get("filters"), tp+".filters", ps) {
			parts = append(parts, f.String())
		}
		if len(parts) == 0 {
			ps.add(it.Pos, tp, "needs at least one filter")
			continue
		}
		se.SLATiers = append(se.SLATiers, label+":"+strings.Join(parts, ","))
	}
}

// parseDim reads one {path, lo, hi, kind, prior} dimension.
func parseDim(n *Node, path string, ps *problems) config.SearchDim {
	var d config.SearchDim
	if n.Kind != Map {
		ps.add(n.Pos, path, "must be a mapping {path, lo, hi, kind, prior}")
		return d
	}
	for _, k := range n.Keys {
		switch k.Name {
		case "path":
			p, ok := stringOf(k.Value)
			if !ok || p == "" {
				ps.add(k.Value.Pos, path+".path", "must be a dot path such as phases.profiling.concurrency")
			}
			d.Path = p
		case "lo", "hi":
			f, ok := floatOf(k.Value)
			if !ok {
				ps.add(k.Value.Pos, path+"."+k.Name, "must be a finite number, not %s", describe(k.Value))
			}
			if k.Name == "lo" {
				d.Lo = f
			} else {
				d.Hi = f
			}
		case "kind":
			switch s, _ := stringOf(k.Value); s {
			case "int":
				d.Int = true
			case "real":
			default:
				ps.add(k.Value.Pos, path+".kind", "must be int or real, not %s", describe(k.Value))
			}
		case "prior":
			switch s, _ := stringOf(k.Value); s {
			case "log-uniform":
				d.Log = true
			case "uniform":
			default:
				ps.add(k.Value.Pos, path+".prior", "must be uniform or log-uniform, not %s", describe(k.Value))
			}
		default:
			ps.unknownKey(k.Pos, path, k.Name, []string{"path", "lo", "hi", "kind", "prior"})
		}
	}
	if !(d.Hi > d.Lo) {
		ps.add(n.Pos, path, "hi (%v) must be > lo (%v)", d.Hi, d.Lo)
	}
	if d.Log && !(d.Lo > 0) {
		ps.add(n.Pos, path, "prior log-uniform needs lo > 0")
	}
	return d
}

// parseFilters reads SLA filters written as a list of {metric_tag, stat,
// op, threshold} or, as adaptive scale writes them, {metric: {stat: {op:
// threshold}}}; key order is kept.
func parseFilters(n *Node, path string, ps *problems) []sla.Filter {
	if n == nil || n.Kind == Null {
		return nil
	}
	var out []sla.Filter
	switch n.Kind {
	case Seq:
		for i, it := range n.Items {
			m, ok := it.Interface().(map[string]any)
			if !ok {
				ps.add(it.Pos, fmt.Sprintf("%s.%d", path, i), "must be a mapping {metric_tag, stat, op, threshold}")
				continue
			}
			f, err := sla.FromFields(m)
			if err != nil {
				ps.add(it.Pos, fmt.Sprintf("%s.%d", path, i), "%s", strings.ReplaceAll(err.Error(), "\n", "; "))
				continue
			}
			out = append(out, f)
		}
	case Map:
		for _, mk := range n.Keys {
			if mk.Value.Kind != Map {
				ps.add(mk.Value.Pos, path+"."+mk.Name, "must map statistics to {op: threshold}, e.g. {p95: {lt: 200}}")
				continue
			}
			for _, sk := range mk.Value.Keys {
				if sk.Value.Kind != Map {
					ps.add(sk.Value.Pos, path+"."+mk.Name+"."+sk.Name, "must map operators to thresholds, e.g. {lt: 200}")
					continue
				}
				for _, ok := range sk.Value.Keys {
					th, err := sla.Threshold(ok.Value.Interface())
					if err == nil {
						var f sla.Filter
						if f, err = sla.New(mk.Name, sk.Name, ok.Name, th); err == nil {
							out = append(out, f)
							continue
						}
					}
					ps.add(ok.Pos, path+"."+mk.Name+"."+sk.Name+"."+ok.Name, "%v", err)
				}
			}
		}
	default:
		ps.add(n.Pos, path, "must be a list of SLA filters or a {metric: {stat: {op: threshold}}} mapping")
	}
	return out
}

// applySearch copies the file's search settings and sweep SLA filters
// onto cfg (flags given on the command line are parsed on top).
func (f *File) applySearch(cfg *config.Config) {
	if f.sweep == nil {
		return
	}
	if se := f.sweep.search; se != nil {
		filters := cfg.Search.SLA
		cfg.Search = *se
		cfg.Search.SLA = filters
	}
	for _, flt := range f.sweep.filters {
		cfg.Search.SLA = append(cfg.Search.SLA, flt.String())
	}
}
