package configfile

import (
	"github.com/aiperf-go/aiperf/internal/config"
	"reflect"
	"strings"
)

// trie is the field table arranged by path segment.
type trie struct {
	children map[string]*trie
	order    []string
	row      *field
}

func buildTrie(rows []field) *trie {
	root := &trie{children: map[string]*trie{}}
	for i := range rows {
		t := root
		for _, seg := range strings.Split(rows[i].path, ".") {
			c, ok := t.children[seg]
			if !ok {
				c = &trie{children: map[string]*trie{}}
				t.children[seg] = c
				t.order = append(t.order, seg)
			}
			t = c
		}
		t.row = &rows[i]
	}
	return root
}

// envelopeKeys are the top-level keys handled outside the field table.
var envelopeKeys = []string{"schema_version", "benchmark", "sweep", "multi_run", "variables", "random_seed", "plot", "no_sweep_table"}

// lower decodes a rendered, normalised envelope into t following the
// field table, collecting every problem.
func lower(env *Node, tr *trie, t target, ps *problems) {
	if env.Kind != Map {
		ps.add(env.Pos, "", "the config file must be a mapping with schemaVersion and benchmark keys, not %s", describe(env))
		return
	}
	for _, k := range env.Keys {
		switch k.Name {
		case "schema_version":
			if s := scalarText(k.Value.Value); k.Value.Kind != Scalar || (s != "2.0" && s != "2") {
				ps.add(k.Value.Pos, "schemaVersion", "must be \"2.0\", not %s", describe(k.Value))
			}
		case "variables":
			// Rendered by the template renderer; kept below for user_files.
		case "sweep":
			// The shape is parseSweep's; the settings are table rows.
			if k.Value.Kind == Map {
				for _, sk := range k.Value.Keys {
					if child := tr.children["sweep"].children[sk.Name]; child != nil {
						lowerKey(sk, child, "sweep."+sk.Name, t, ps)
					}
				}
			}
		case "plot":
			lowerPlot(k.Value, t, ps)
		default:
			child := tr.children[k.Name]
			if child == nil {
				ps.unknownKey(k.Pos, "", k.Name, envelopeKeys)
				continue
			}
			lowerKey(k, child, k.Name, t, ps)
		}
	}
	if env.Get("benchmark") == nil {
		ps.add(env.Pos, "benchmark", "is required")
	}
	if m, ok := env.Get("variables").Interface().(map[string]any); ok && len(t.cfg.Artifacts.UserFiles) > 0 {
		t.cfg.Artifacts.Variables = m // the user_files templates' context
	}
}

// lowerKey decodes one key whose table node is tr.
func lowerKey(k Key, tr *trie, path string, t target, ps *problems) {
	if tr.row != nil && len(tr.children) == 0 {
		applyRow(k.Value, tr.row, path, t, ps)
		return
	}
	switch path {
	case "benchmark.phases":
		lowerPhases(k.Value, tr, t, ps)
	case "benchmark.datasets":
		lowerDatasets(k.Value, tr, t, ps)
	default:
		lowerMap(k.Value, tr, path, t, ps)
	}
}

func lowerMap(n *Node, tr *trie, path string, t target, ps *problems) {
	if n.Kind == Null || n.Kind == broken {
		return
	}
	if n.Kind != Map {
		ps.add(n.Pos, path, "must be a mapping, not %s", describe(n))
		return
	}
	for _, k := range n.Keys {
		child := tr.children[k.Name]
		if child == nil {
			ps.unknownKey(k.Pos, path, k.Name, tr.order)
			continue
		}
		lowerKey(k, child, path+"."+k.Name, t, ps)
	}
}

// lowerPhases decodes the phase list. The first warmup-kind and the first
// profiling-kind phase decode into the run's usual fields, as a two-phase
// run keeps them. When the list holds more (a kind twice) or names a phase
// other than its kind, it is a multi-phase run: every phase also decodes,
// with the profiling keys, into its own configuration, listed in order in
// Shape.Phases.
func lowerPhases(n *Node, tr *trie, t target, ps *problems) {
	if n.Kind == broken {
		return
	}
	if n.Kind != Seq {
		ps.add(n.Pos, "benchmark.phases", "must be a list of phases or one phase mapping, not %s", describe(n))
		return
	}
	seen := map[string]bool{}
	multi := false
	var named []config.NamedPhase
	for i, p := range n.Items {
		if p.Kind != Map {
			ps.add(p.Pos, "benchmark.phases", "phase %d must be a mapping, not %s", i, describe(p))
			continue
		}
		kind := phaseKind(p, len(n.Items))
		name, _ := stringOf(p.Get("name"))
		if name == "" {
			name = kind
		}
		path := "benchmark.phases." + name
		if kind != "warmup" && kind != "profiling" {
			ps.add(p.Pos, path, "set kind: warmup or kind: profiling")
			continue
		}
		userCentricRate(p)
		// A warmup the usual warmup keys cannot hold (a user-centric or
		// fixed-schedule warmup, as AIPerf's phases allow) runs as a
		// named phase of its own.
		standalone := kind == "warmup" && !warmupExpressible(p)
		if name != kind || seen[kind] || standalone {
			multi = true
		}
		// Each phase's own settings, with the profiling keys (a warmup's
		// exclude_from_results is checked by the warmup keys).
		own := config.Defaults()
		q := p.Clone()
		if kind == "warmup" {
			q.Delete("exclude_from_results") // checked by the warmup keys
		}
		scratch := &problems{file: ps.file}
		if seen[kind] || standalone {
			scratch = ps // not decoded into the usual fields: report here
		}
		lowerMap(q, tr.children["profiling"], path, target{cfg: &own}, scratch)
		named = append(named, config.NamedPhase{Name: name, Kind: kind, Phase: &own})
		if !seen[kind] && !standalone {
			seen[kind] = true
			lowerMap(p, tr.children[kind], path, t, ps)
		}
	}
	if !seen["profiling"] && len(n.Items) > 0 {
		ps.add(n.Pos, "benchmark.phases", "needs a profiling phase")
	}
	if multi {
		t.cfg.Shape.Phases = named
	}
}

// warmupExpressible reports whether a warmup phase fits the usual
// warmup keys: its type is none of user_centric and fixed_schedule.
func warmupExpressible(p *Node) bool {
	s, _ := stringOf(p.Get("type"))
	return s != "user_centric" && s != "fixed_schedule"
}

// phaseKind is a phase's kind: its kind key, else its name when that is
// warmup or profiling, else profiling for the only phase.
func phaseKind(p *Node, count int) string {
	if k, ok := stringOf(p.Get("kind")); ok {
		return k
	}
	if name, ok := stringOf(p.Get("name")); ok && (name == "warmup" || name == "profiling") {
		return name
	}
	if count == 1 {
		return "profiling"
	}
	return ""
}

func lowerDatasets(n *Node, tr *trie, t target, ps *problems) {
	if n.Kind == broken {
		return
	}
	if n.Kind != Seq {
		ps.add(n.Pos, "benchmark.datasets", "must be a list of named datasets, not %s", describe(n))
		return
	}
	if len(n.Items) != 1 {
		ps.add(n.Pos, "benchmark.datasets", "exactly one dataset is supported, not %d", len(n.Items))
		return
	}
	d := n.Items[0]
	path := "benchmark.datasets." + datasetName(d)
	lowerMap(d, tr.children["0"], path, t, ps)
	if d.Kind != Map {
		return
	}
	typ, _ := stringOf(d.Get("type"))
	need := map[string]string{"file": "path", "public": "dataset"}
	if key := need[typ]; key != "" && d.Get(key) == nil && (typ != "file" || d.Get("records") == nil) {
		if typ == "file" {
			key = "path (or records)"
		}
		ps.add(d.Pos, path, "a %s dataset needs %s", typ, key)
	}
	if typ != "file" && d.Get("records") != nil {
		ps.add(d.KeyPos("records"), path+".records", "belongs to a file dataset; set type: file")
	}
	for kind, key := range need {
		if kind != typ && d.Get(key) != nil && !(kind == "file" && typ == "public") {
			ps.add(d.KeyPos(key), path+"."+key, "belongs to a %s dataset; set type: %s", kind, kind)
		}
	}
}

// applyRow decodes n into the row's field.
func applyRow(n *Node, row *field, path string, t target, ps *problems) {
	if n.Kind == broken {
		return
	}
	if row.unsupported {
		ps.add(n.Pos, path, "is an AIPerf option this implementation does not support yet")
		return
	}
	if row.ignored {
		ps.warn(n.Pos, path, "accepted but has no effect here: "+row.doc)
	}
	var dst any
	if row.bind != nil {
		dst = row.bind(t)
	}
	var msg string
	switch {
	case row.conv != nil:
		msg = row.conv.decode(n, dst)
	case dst != nil:
		msg = decodeValue(n, reflect.ValueOf(dst).Elem())
	default:
		if n.Kind != Scalar {
			msg = "must be a plain value, not " + describe(n)
		}
	}
	if msg != "" {
		ps.add(n.Pos, path, "%s", msg)
	}
}
