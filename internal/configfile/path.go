package configfile

import (
	"fmt"
	"strconv"
	"strings"
)

// sweepAliases is the bare-name sugar of sweep parameters: each expands to
// the profiling phase's field.
var sweepAliases = map[string]bool{
	"concurrency": true, "prefill_concurrency": true, "rate": true, "requests": true,
	"duration": true, "sessions": true, "users": true, "smoothness": true,
	"grace_period": true, "concurrency_ramp": true, "prefill_ramp": true, "rate_ramp": true,
}

// canonicalParam resolves bare-name sugar and checks a sweep parameter
// path (relative to `benchmark:`, or "variables.<name>").
func canonicalParam(p string) (string, error) {
	if !strings.Contains(p, ".") && sweepAliases[snake(p)] {
		return "phases.profiling." + snake(p), nil
	}
	switch {
	case p == "":
		return "", fmt.Errorf("a sweep parameter path must not be empty")
	case strings.HasPrefix(p, "."), strings.HasSuffix(p, "."), strings.Contains(p, ".."):
		return "", fmt.Errorf("sweep parameter path %q is malformed", p)
	}
	first, _, _ := strings.Cut(p, ".")
	switch first {
	case "benchmark":
		return "", fmt.Errorf("sweep parameter %q: drop the redundant \"benchmark.\" prefix (paths start inside benchmark:)", p)
	case "sweep", "multi_run", "random_seed":
		return "", fmt.Errorf("sweep parameter %q targets the envelope field %q, which cannot be swept", p, first)
	}
	if !strings.Contains(p, ".") && first != "variables" {
		return "", fmt.Errorf("sweep parameter %q is not a dot path into benchmark: (bare names allowed: concurrency, rate, requests, duration, ...)", p)
	}
	return p, nil
}

// setPath sets the value at a dot path below root (a map). Lists of named
// mappings (phases, datasets) are indexed by position, then by name, then
// - for phases - "profiling"/"warmup" match the phase of that kind. With
// create, a missing phase or dataset is added (CLI overrides); without it,
// a missing entry is an error (sweeps catch typos). A scalar met on the
// way (a distribution shorthand such as isl: 512) becomes {mean: scalar}.
func setPath(root *Node, path string, v *Node, create bool) error {
	segs := strings.Split(path, ".")
	cur := root
	parent := ""
	for i, seg := range segs {
		last := i == len(segs)-1
		switch cur.Kind {
		case Seq:
			item, err := findEntry(cur, parent, seg, create)
			if err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			if last {
				return fmt.Errorf("%s: cannot replace a whole %s entry", path, parent)
			}
			cur = item
		case Map:
			if last {
				cur.Set(seg, v)
				return nil
			}
			next := cur.Get(seg)
			if next == nil || next.Kind == Null {
				switch seg {
				case "phases", "datasets":
					next = &Node{Kind: Seq, Items: []*Node{}}
				default:
					next = newMap(Pos{})
				}
				cur.Set(seg, next)
			} else if next.Kind == Scalar {
				m := newMap(next.Pos)
				m.Set("mean", next)
				cur.Set(seg, m)
				next = m
			}
			cur = next
		default:
			return fmt.Errorf("%s: cannot descend into %s at %q", path, describe(cur), seg)
		}
		parent = seg
	}
	return nil
}

// findEntry finds the entry seg of a named list.
func findEntry(list *Node, parent, seg string, create bool) (*Node, error) {
	if i, err := strconv.Atoi(seg); err == nil {
		if i >= 0 && i < len(list.Items) {
			return list.Items[i], nil
		}
		if create && parent == "datasets" && i == 0 {
			d := newMap(Pos{})
			d.Set("name", FromValue("default"))
			d.Set("type", FromValue("synthetic"))
			list.Items = append(list.Items, d)
			return d, nil
		}
		return nil, fmt.Errorf("no %s entry %d (there are %d)", parent, i, len(list.Items))
	}
	var names []string
	for _, it := range list.Items {
		if name, ok := stringOf(it.Get("name")); ok {
			if name == seg {
				return it, nil
			}
			names = append(names, name)
		}
	}
	if parent == "phases" && (seg == "profiling" || seg == "warmup") {
		var match []*Node
		for _, it := range list.Items {
			if phaseKind(it, len(list.Items)) == seg {
				match = append(match, it)
			}
		}
		if len(match) == 1 {
			return match[0], nil
		}
		if len(match) == 0 && create {
			p := newMap(Pos{})
			named(p, seg)
			if seg == "warmup" {
				p.Set("exclude_from_results", FromValue(true))
				list.Items = append([]*Node{p}, list.Items...)
			} else {
				list.Items = append(list.Items, p)
			}
			return p, nil
		}
	}
	if parent == "datasets" && create {
		switch len(list.Items) {
		case 0:
			d := newMap(Pos{})
			d.Set("name", FromValue(seg))
			d.Set("type", FromValue("synthetic"))
			list.Items = append(list.Items, d)
			return d, nil
		case 1:
			return list.Items[0], nil
		}
	}
	return nil, fmt.Errorf("no %s entry named %q (existing: %s)", parent, seg, strings.Join(names, ", "))
}
