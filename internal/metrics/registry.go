package metrics

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Registry is an immutable set of metric definitions in dependency order:
// every metric comes after all of its Requires and Optional dependencies.
// It is built once at start-up and shared read-only by every goroutine.
type Registry struct {
	metrics []*Metric // dependency order; metrics[i].idx == i
	byTag   map[string]*Metric
	// adjusted holds the adj_* metric of each record metric flagged
	// FlagPercentileIncludesFailed, by the source's index.
	adjusted map[int]*Metric
}

// NewRegistry validates defs and orders them topologically. The definitions
// are copied, so one definition list can seed several registries. Every
// problem is reported at once: empty or duplicate tags, unknown
// dependencies, dependencies a metric's kind may not have (record metrics
// depend only on record metrics, aggregates on record or aggregate metrics),
// a missing or mismatched compute function, an impossible unit conversion,
// and dependency cycles.
func NewRegistry(defs ...*Metric) (*Registry, error) {
	var errs []error
	byTag := make(map[string]*Metric, len(defs))
	list := make([]*Metric, 0, len(defs))
	for i, d := range defs {
		if d == nil || d.Tag == "" {
			errs = append(errs, fmt.Errorf("metric definition %d has no tag", i))
			continue
		}
		if _, dup := byTag[d.Tag]; dup {
			errs = append(errs, fmt.Errorf("metric %q is defined twice", d.Tag))
			continue
		}
		m := *d
		m.Requires = slices.Clone(d.Requires)
		m.Optional = slices.Clone(d.Optional)
		byTag[m.Tag] = &m
		list = append(list, &m)
	}
	for _, m := range list {
		errs = append(errs, checkDefinition(m, byTag)...)
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("metric registry: %w", errors.Join(errs...))
	}
	order, err := topoSort(list, byTag)
	if err != nil {
		return nil, fmt.Errorf("metric registry: %w", err)
	}
	for i, m := range order {
		m.idx = i
	}
	return &Registry{metrics: order, byTag: byTag, adjusted: errorAdjustedMetrics(order)}, nil
}

// allowedDeps says which kinds a metric of each kind may depend on (AIPerf
// enforces the same: per-record computation cannot see run-level results).
var allowedDeps = map[Kind][]Kind{
	KindRecord:    {KindRecord},
	KindAggregate: {KindRecord, KindAggregate},
	KindDerived:   {KindRecord, KindAggregate, KindDerived},
	KindSweep:     {},
}

func checkDefinition(m *Metric, byTag map[string]*Metric) []error {
	var errs []error
	for _, dep := range slices.Concat(m.Requires, m.Optional) {
		d, ok := byTag[dep]
		if !ok {
			errs = append(errs, fmt.Errorf("metric %q depends on unknown metric %q", m.Tag, dep))
			continue
		}
		if !slices.Contains(allowedDeps[m.Kind], d.Kind) {
			errs = append(errs, fmt.Errorf("metric %q (%s) may not depend on %q (%s)", m.Tag, m.Kind, dep, d.Kind))
		}
	}
	switch {
	case m.Kind == KindRecord && m.List && m.list == nil,
		m.Kind == KindRecord && !m.List && m.record == nil,
		m.Kind == KindAggregate && m.record == nil,
		m.Kind == KindDerived && m.derive == nil:
		errs = append(errs, fmt.Errorf("metric %q has no compute function for its kind %s", m.Tag, m.Kind))
	case m.Kind != KindRecord && m.List:
		errs = append(errs, fmt.Errorf("metric %q: only record metrics can be lists", m.Tag))
	}
	if m.Unit == "" {
		errs = append(errs, fmt.Errorf("metric %q has no unit", m.Tag))
	} else if _, ok := scale(m.Unit, m.displayUnit()); !ok {
		errs = append(errs, fmt.Errorf("metric %q: cannot convert %s to %s", m.Tag, m.Unit, m.DisplayUnit))
	}
	return errs
}

// topoSort orders metrics so dependencies come first (Kahn's algorithm). Ties
// keep definition order, so the order is deterministic.
func topoSort(list []*Metric, byTag map[string]*Metric) ([]*Metric, error) {
	pending := make(map[*Metric]int, len(list)) // unmet dependency count
	dependents := make(map[*Metric][]*Metric, len(list))
	for _, m := range list {
		deps := uniqueDeps(m)
		pending[m] = len(deps)
		for _, dep := range deps {
			d := byTag[dep]
			dependents[d] = append(dependents[d], m)
		}
	}
	order := make([]*Metric, 0, len(list))
	done := make(map[*Metric]bool, len(list))
	for len(order) < len(list) {
		progressed := false
		for _, m := range list {
			if done[m] || pending[m] > 0 {
				continue
			}
			done[m] = true
			order = append(order, m)
			for _, dm := range dependents[m] {
				pending[dm]--
			}
			progressed = true
			break
		}
		if !progressed {
			var cyc []string
			for _, m := range list {
				if !done[m] {
					cyc = append(cyc, m.Tag)
				}
			}
			return nil, fmt.Errorf("dependency cycle among metrics: %s", strings.Join(cyc, ", "))
		}
	}
	return order, nil
}

func uniqueDeps(m *Metric) []string {
	deps := slices.Concat(m.Requires, m.Optional)
	slices.Sort(deps)
	return slices.Compact(deps)
}

// Lookup returns the metric with the given tag.
func (r *Registry) Lookup(tag string) (*Metric, bool) {
	m, ok := r.byTag[tag]
	return m, ok
}

// Metrics returns every metric in dependency order. The slice is a copy; the
// metrics are shared and must not be modified.
func (r *Registry) Metrics() []*Metric { return slices.Clone(r.metrics) }

// owns reports whether m is this registry's definition (not a look-alike
// from another registry), so indices can be trusted.
func (r *Registry) owns(m *Metric) bool {
	return m != nil && m.idx < len(r.metrics) && r.metrics[m.idx] == m
}

// String returns the kind's name.
func (k Kind) String() string {
	switch k {
	case KindRecord:
		return "record"
	case KindAggregate:
		return "aggregate"
	case KindDerived:
		return "derived"
	case KindSweep:
		return "sweep"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}
