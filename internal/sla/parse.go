package sla

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Parse reads one --search-sla value, "metric:stat:op:threshold", e.g.
// "time_to_first_token:p95:lt:200". As AIPerf, the value has exactly four
// colon-separated parts and whitespace is not trimmed (a stray space is an
// error, not a silently different metric).
func Parse(s string) (Filter, error) {
	parts := strings.Split(s, ":")
	if len(parts) != 4 {
		return Filter{}, fmt.Errorf("%q: expected 4 colon-separated parts metric_tag:stat:op:threshold, got %d (example: time_to_first_token:p95:lt:200)", s, len(parts))
	}
	th, err := strconv.ParseFloat(parts[3], 64)
	if err != nil {
		return Filter{}, fmt.Errorf("%q: threshold %q is not a number", s, parts[3])
	}
	f, err := New(parts[0], parts[1], parts[2], th)
	if err != nil {
		return Filter{}, fmt.Errorf("%q: %w", s, err)
	}
	return f, nil
}

// Tier counts AIPerf accepts for --search-sla-tier.
const (
	MinTiers = 2
	MaxTiers = 10
)

// ParseTier reads one --search-sla-tier value, "LABEL:FILTER[,FILTER...]"
// or "FILTER[,FILTER...]". Without a label the tier is named
// tier_<index+1>. As AIPerf, a label is present when the text before the
// first comma does not have exactly the three colons of a filter.
func ParseTier(s string, index int) (Tier, error) {
	if strings.TrimSpace(s) == "" {
		return Tier{}, errors.New("a tier must not be empty")
	}
	label, rest := fmt.Sprintf("tier_%d", index+1), s
	first, _, _ := strings.Cut(s, ",")
	if strings.Count(first, ":") != 3 {
		var ok bool
		label, rest, ok = strings.Cut(s, ":")
		if !ok || label == "" {
			return Tier{}, fmt.Errorf("%q: expected LABEL:metric_tag:stat:op:threshold[,...] (the label before ':' must not be empty)", s)
		}
	}
	t := Tier{Label: label}
	var errs []error
	for _, part := range strings.Split(rest, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		f, err := Parse(part)
		if err != nil {
			errs = append(errs, fmt.Errorf("tier %q: %w", label, err))
			continue
		}
		t.Filters = append(t.Filters, f)
	}
	if len(errs) > 0 {
		return Tier{}, errors.Join(errs...)
	}
	if len(t.Filters) == 0 {
		return Tier{}, fmt.Errorf("%q: tier %q has no filter (each tier needs at least one metric_tag:stat:op:threshold)", s, label)
	}
	return t, nil
}

// ValidateTiers checks a tier list as AIPerf: 2 to 10 tiers, unique labels.
func ValidateTiers(tiers []Tier) error {
	var errs []error
	if n := len(tiers); n < MinTiers || n > MaxTiers {
		errs = append(errs, fmt.Errorf("expected between %d and %d tiers, got %d", MinTiers, MaxTiers, n))
	}
	seen := map[string]int{}
	for i, t := range tiers {
		if j, ok := seen[t.Label]; ok {
			errs = append(errs, fmt.Errorf("duplicate tier label %q (tiers %d and %d)", t.Label, j+1, i+1))
			continue
		}
		seen[t.Label] = i
	}
	return errors.Join(errs...)
}

// FromValue reads filters from a decoded YAML or JSON value, in either of
// AIPerf's shapes:
//
//	nested:  {metric: {stat: {op: threshold}}}  (adaptive scale's sla:)
//	list:    [{metric_tag, stat (default p95), op, threshold}, ...]
//
// Mappings are map[string]any; a nested mapping yields its filters sorted
// by metric, stat and op, so the order does not depend on map iteration
// (callers that keep key order, such as the config file reader, walk the
// tree themselves and call New per leaf). Thresholds may be numbers or
// numeric strings. Every problem is reported.
func FromValue(v any) ([]Filter, error) {
	switch x := v.(type) {
	case map[string]any:
		return fromNested(x)
	case []any:
		return fromList(x)
	case nil:
		return nil, nil
	}
	return nil, fmt.Errorf("SLA filters must be a mapping {metric: {stat: {op: threshold}}} or a list of {metric_tag, stat, op, threshold}, not %T", v)
}

func fromNested(m map[string]any) ([]Filter, error) {
	var out []Filter
	var errs []error
	for _, metric := range sortedKeys(m) {
		stats, ok := m[metric].(map[string]any)
		if !ok {
			errs = append(errs, fmt.Errorf("%s: must map statistics to {op: threshold}, e.g. {p95: {lt: 200}}", metric))
			continue
		}
		for _, stat := range sortedKeys(stats) {
			ops, ok := stats[stat].(map[string]any)
			if !ok {
				errs = append(errs, fmt.Errorf("%s.%s: must map operators to thresholds, e.g. {lt: 200}", metric, stat))
				continue
			}
			for _, op := range sortedKeys(ops) {
				th, err := Threshold(ops[op])
				if err == nil {
					var f Filter
					if f, err = New(metric, stat, op, th); err == nil {
						out = append(out, f)
						continue
					}
				}
				errs = append(errs, fmt.Errorf("%s.%s.%s: %w", metric, stat, op, err))
			}
		}
	}
	return out, errors.Join(errs...)
}

// listKeys are the fields of a list-form filter.
var listKeys = []string{"metric_tag", "stat", "op", "threshold"}

func fromList(items []any) ([]Filter, error) {
	var out []Filter
	var errs []error
	for i, it := range items {
		m, ok := it.(map[string]any)
		if !ok {
			errs = append(errs, fmt.Errorf("filter %d: must be a mapping {metric_tag, stat, op, threshold}", i))
			continue
		}
		f, err := FromFields(m)
		if err != nil {
			errs = append(errs, fmt.Errorf("filter %d: %w", i, err))
			continue
		}
		out = append(out, f)
	}
	return out, errors.Join(errs...)
}

// FromFields builds a filter from a list-form mapping: metric_tag, op and
// threshold required, stat defaulting to p95; any other key is an error
// (AIPerf forbids extras).
func FromFields(m map[string]any) (Filter, error) {
	var errs []error
	for _, k := range sortedKeys(m) {
		if !slices.Contains(listKeys, k) {
			errs = append(errs, fmt.Errorf("unknown key %q (expected metric_tag, stat, op, threshold)", k))
		}
	}
	str := func(k, def string) string {
		v, ok := m[k]
		if !ok {
			if def == "" {
				errs = append(errs, fmt.Errorf("%s is required", k))
			}
			return def
		}
		s, ok := v.(string)
		if !ok {
			errs = append(errs, fmt.Errorf("%s must be a string, not %T", k, v))
		}
		return s
	}
	metric, stat, op := str("metric_tag", ""), str("stat", DefaultStat), str("op", "")
	var th float64
	if v, ok := m["threshold"]; !ok {
		errs = append(errs, errors.New("threshold is required"))
	} else if t, err := Threshold(v); err != nil {
		errs = append(errs, err)
	} else {
		th = t
	}
	if len(errs) > 0 {
		return Filter{}, errors.Join(errs...)
	}
	return New(metric, stat, op, th)
}

// Threshold converts a decoded YAML/JSON scalar to a threshold: any
// number, or a string holding one (as AIPerf's lax validation accepts).
func Threshold(v any) (float64, error) {
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case float32:
		f = float64(x)
	case int:
		f = float64(x)
	case int64:
		f = float64(x)
	case uint64:
		f = float64(x)
	case string:
		p, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		if err != nil {
			return 0, fmt.Errorf("threshold %q is not a number", x)
		}
		f = p
	default:
		return 0, fmt.Errorf("threshold must be a number, not %T", v)
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("threshold must be finite, got %v", f)
	}
	return f, nil
}

// sortedKeys is m's keys in order, so filters never depend on map iteration.
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
