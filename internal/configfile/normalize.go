package configfile

import (
	"strings"
	"unicode"
)

// snake converts a camelCase key to snake_case ("sliceDuration" ->
// "slice_duration"); snake_case keys are unchanged.
func snake(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				prev := rune(s[i-1])
				if unicode.IsLower(prev) || unicode.IsDigit(prev) {
					b.WriteByte('_')
				}
			}
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// freeForm lists the maps whose keys are user data (names, metric tags,
// header names, sweep paths), not schema keys: they keep their spelling.
func freeForm(path string) bool {
	switch path {
	case "variables", "benchmark.slos", "benchmark.endpoint.headers", "benchmark.endpoint.extra", "sweep.parameters":
		return true
	}
	return false
}

// canonicalKeys renames schema keys to snake_case throughout n (rooted at
// path), leaving free-form maps alone. Scenario run bodies are benchmark
// bodies.
func canonicalKeys(n *Node, path string) {
	if path == "plot" || path == userFilesPath+"[].content" {
		return // plot and preset names; a user file's own content
	}
	switch n.Kind {
	case Map:
		free := freeForm(path)
		for i := range n.Keys {
			if !free {
				n.Keys[i].Name = snake(n.Keys[i].Name)
			}
			canonicalKeys(n.Keys[i].Value, childPath(path, n.Keys[i].Name))
		}
	case Seq:
		for _, it := range n.Items {
			switch {
			case path == "sweep.runs":
				canonicalKeys(it, "")
			case strings.HasSuffix(path, ".datasets"), strings.HasSuffix(path, ".phases"):
				canonicalKeys(it, path+".*")
			default:
				canonicalKeys(it, path+"[]")
			}
		}
	}
}

func childPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// normalizeBody rewrites the shorthands of a `benchmark:` body into the
// canonical shape, in place:
//
//   - model -> models; endpoint.url -> endpoint.urls; tokenizer: name ->
//     tokenizer: {name: ...};
//   - dataset: {...} -> datasets: [{name: default, ...}], and a synthetic
//     dataset's isl/osl -> prompts.isl/osl;
//   - warmup:/profiling: -> phases: [...], and a phases mapping -> a
//     one-element list named profiling.
//
// Mutually exclusive spellings are problems at the position of the
// second.
func normalizeBody(b *Node, ps *problems) {
	if b == nil || b.Kind != Map {
		return
	}
	for _, step := range bodySteps {
		step(b, ps)
	}
}

// bodySteps are normalizeBody's rewrites, in order: later steps see the
// keys earlier ones produce (models.strategy moves into endpoint before
// the endpoint is read).
var bodySteps = []func(b *Node, ps *problems){
	normalizeModels, normalizeEndpoint, normalizeTokenizer, normalizeDataset, normalizePhases, normalizeTelemetry,
}

// normalizeModels renames model to models and moves AIPerf's
// models.strategy, the model selection strategy, into the endpoint.
func normalizeModels(b *Node, ps *problems) {
	if b.Get("model") != nil {
		if b.Get("models") != nil {
			ps.add(b.KeyPos("model"), "benchmark.model", "cannot be used together with %q; keep one", "models")
		} else {
			b.Set("models", b.Delete("model"))
		}
	}
	if m := b.Get("models"); m != nil && m.Kind == Map && m.Get("strategy") != nil {
		// AIPerf's models.strategy is the model selection strategy.
		e := b.Get("endpoint")
		if e == nil {
			e = newMap(m.Pos)
			b.Set("endpoint", e)
		}
		if e.Kind == Map {
			e.Set("model_selection_strategy", m.Delete("strategy"))
		}
	}
}

// normalizeEndpoint gives a templated endpoint its type and turns url into
// urls.
func normalizeEndpoint(b *Node, ps *problems) {
	if e := b.Get("endpoint"); e != nil && e.Kind == Map && e.Get("template") != nil && e.Get("type") == nil {
		// As in AIPerf, a template implies the template endpoint.
		e.Set("type", &Node{Kind: Scalar, Value: "template", Pos: e.KeyPos("template")})
	}
	if e := b.Get("endpoint"); e != nil && e.Kind == Map && e.Get("url") != nil {
		if e.Get("urls") != nil {
			ps.add(e.KeyPos("url"), "benchmark.endpoint.url", "cannot be used together with \"urls\"; keep one")
		} else {
			e.Set("urls", e.Delete("url"))
		}
	}
}

// normalizeTokenizer expands a tokenizer name into {name}.
func normalizeTokenizer(b *Node, _ *problems) {
	if t := b.Get("tokenizer"); t != nil && t.Kind == Scalar {
		m := newMap(t.Pos)
		m.Set("name", t)
		b.Set("tokenizer", m)
	}
}

// normalizeDataset turns a single dataset into a one-item datasets list
// and hoists each dataset's prompts.
func normalizeDataset(b *Node, ps *problems) {
	if d := b.Get("dataset"); d != nil {
		if b.Get("datasets") != nil {
			ps.add(b.KeyPos("dataset"), "benchmark.dataset", "cannot be used together with \"datasets\"; keep one")
		} else {
			b.Delete("dataset")
			if d.Kind == Map && d.Get("name") == nil {
				d.Keys = append([]Key{{Name: "name", Pos: d.Pos, Value: &Node{Kind: Scalar, Value: "default", Pos: d.Pos}}}, d.Keys...)
			}
			b.Set("datasets", &Node{Kind: Seq, Pos: d.Pos, Items: []*Node{d}})
		}
	}
	if ds := b.Get("datasets"); ds != nil && ds.Kind == Seq {
		for _, d := range ds.Items {
			hoistPrompts(d)
		}
	}
}

// normalizePhases turns the warmup:/profiling: shorthands and a single
// phases mapping into the phases list.
func normalizePhases(b *Node, ps *problems) {
	warm, prof := b.Get("warmup"), b.Get("profiling")
	if warm != nil || prof != nil {
		if b.Get("phases") != nil {
			ps.add(b.KeyPos("phases"), "benchmark.phases", "cannot be used together with the warmup:/profiling: shorthands; keep one form")
		} else {
			list := &Node{Kind: Seq, Items: []*Node{}}
			for _, kind := range []string{"warmup", "profiling"} {
				p := b.Delete(kind)
				if p == nil {
					continue
				}
				if list.Pos.Line == 0 {
					list.Pos = p.Pos
				}
				if p.Kind == Map {
					named(p, kind)
				}
				list.Items = append(list.Items, p)
			}
			b.Set("phases", list)
		}
	}
	if ph := b.Get("phases"); ph != nil && ph.Kind == Map {
		named(ph, "profiling")
		b.Set("phases", &Node{Kind: Seq, Pos: ph.Pos, Items: []*Node{ph}})
	}
}

// named gives a phase mapping its name and kind when it has none.
func named(p *Node, kind string) {
	var pre []Key
	if p.Get("name") == nil {
		pre = append(pre, Key{Name: "name", Pos: p.Pos, Value: &Node{Kind: Scalar, Value: kind, Pos: p.Pos}})
	}
	if p.Get("kind") == nil {
		pre = append(pre, Key{Name: "kind", Pos: p.Pos, Value: &Node{Kind: Scalar, Value: kind, Pos: p.Pos}})
	}
	p.Keys = append(pre, p.Keys...)
}

// hoistPrompts moves a synthetic dataset's isl/osl shorthands into
// prompts.
func hoistPrompts(d *Node) {
	if d.Kind != Map {
		return
	}
	if t, _ := stringOf(d.Get("type")); t != "" && t != "synthetic" {
		return
	}
	for _, k := range []string{"isl", "osl"} {
		v := d.Get(k)
		if v == nil {
			continue
		}
		p := d.Get("prompts")
		if p == nil {
			p = newMap(v.Pos)
			d.Set("prompts", p)
		}
		if p.Kind != Map || p.Get(k) != nil {
			continue
		}
		d.Delete(k)
		p.Set(k, v)
	}
}

// normalizeDistributions rewrites, after templates are rendered, each
// dataset's distributions (prompts.isl/osl, turns, images, audio,
// rankings) into the {mean, stddev} the field table decodes; see
// distribution for the five shapes AIPerf 0.13 accepts.
func normalizeDistributions(b *Node, ps *problems) {
	ds := b.Get("datasets")
	if ds == nil || ds.Kind != Seq {
		return
	}
	for _, d := range ds.Items {
		base := "benchmark.datasets." + datasetName(d)
		normalizeDist(d.Get("prompts"), []string{"isl", "osl"}, base+".prompts", ps)
		normalizeDist(d, []string{"turns", "turn_delay"}, base, ps)
		normalizeDist(d.Get("images"), []string{"width", "height"}, base+".images", ps)
		normalizeDist(d.Get("audio"), []string{"length"}, base+".audio", ps)
		normalizeDist(d.Get("rankings"), []string{"passages", "passage_tokens", "query_tokens"}, base+".rankings", ps)
	}
}

// normalizeDist normalises the distributions under keys of mapping m.
func normalizeDist(m *Node, keys []string, path string, ps *problems) {
	if m == nil || m.Kind != Map {
		return
	}
	for _, k := range keys {
		v := m.Get(k)
		if v == nil || v.Kind == broken {
			continue
		}
		nv, msg := distribution(v, k != "length")
		if msg != "" {
			ps.add(v.Pos, path+"."+k, "%s", msg)
			m.Delete(k)
			continue
		}
		if nv.collapsed != "" {
			ps.warn(v.Pos, path+"."+k, article(nv.collapsed)+" "+nv.collapsed+" distribution is used by its mean ("+scalarText(nv.Get("mean").Value)+"), as AIPerf 0.13 does: its dataset draws only a normal's mean and stddev")
		}
		if v.Kind == Map && (v.Get("min") != nil || v.Get("max") != nil) {
			ps.warn(v.Pos, path+"."+k, "min and max have no effect, as in AIPerf 0.13: they bound draws its dataset never makes")
		}
		m.Set(k, nv.Node)
	}
}

func datasetName(d *Node) string {
	if s, ok := stringOf(d.Get("name")); ok {
		return s
	}
	return "0"
}

// article is "an" before a vowel, else "a".
func article(word string) string {
	if word != "" && strings.ContainsRune("aeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}
