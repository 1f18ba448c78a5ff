package configfile

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"

	"github.com/aiperf-go/aiperf/internal/config"
)

// SchemaID is the $id of the generated JSON Schema.
const SchemaID = "https://github.com/aiperf-go/aiperf/docs/config.schema.json"

// Schema returns the JSON Schema (draft 2020-12) of a config v2 file,
// generated from the field table and the Go types of the fields it binds,
// so it cannot drift from what Load accepts. Keys are listed in
// snake_case (camelCase is accepted too); AIPerf keys this implementation
// rejects as unsupported are left out, so editors flag them. Any scalar
// may also be a "${VAR}" or "{{ template }}" string.
func Schema() []byte {
	tr := buildTrie(fields())
	phase := mergeObjects(objectSchema(tr.children["benchmark"].children["phases"].children["profiling"], "benchmark.phases.profiling"),
		objectSchema(tr.children["benchmark"].children["phases"].children["warmup"], "benchmark.phases.warmup"))
	dataset := objectSchema(tr.children["benchmark"].children["datasets"].children["0"], "benchmark.datasets.0")
	dist := distributionSchema()
	dprops := dataset["properties"].(map[string]any)
	dprops["isl"], dprops["osl"] = dist, dist
	pprops := dprops["prompts"].(map[string]any)["properties"].(map[string]any)
	pprops["isl"], pprops["osl"] = dist, dist

	bench := objectSchema(tr.children["benchmark"], "benchmark")
	bprops := bench["properties"].(map[string]any)
	bprops["phases"] = map[string]any{"description": "The phases: at most one warmup and one profiling phase. A single mapping is the profiling phase.",
		"anyOf": []any{map[string]any{"type": "array", "items": phase}, phase}}
	bprops["warmup"] = withDescription(phase, "Shorthand for a phase named warmup.")
	bprops["profiling"] = withDescription(phase, "Shorthand for a phase named profiling.")
	bprops["datasets"] = map[string]any{"type": "array", "items": dataset, "minItems": 1, "maxItems": 1,
		"description": "The dataset (exactly one), named."}
	bprops["dataset"] = withDescription(dataset, "Shorthand for datasets: [{name: default, ...}].")
	bprops["model"] = bprops["models"]
	eprops := bprops["endpoint"].(map[string]any)["properties"].(map[string]any)
	eprops["url"] = eprops["urls"]
	bprops["tokenizer"] = map[string]any{"anyOf": []any{map[string]any{"type": "string"}, bprops["tokenizer"]}}
	for _, k := range [][2]string{{"server_metrics", "serverMetrics"}, {"gpu_telemetry", "gpuTelemetry"}} {
		sec := bprops[k[0]].(map[string]any)
		sec["properties"].(map[string]any)["url"] = sec["properties"].(map[string]any)["urls"]
		s := map[string]any{"anyOf": []any{map[string]any{"type": "string", "description": "Shorthand for {enabled: true, urls: [URL]}."}, sec}}
		bprops[k[0]], bprops[k[1]] = s, s
	}

	sweep := objectSchema(tr.children["sweep"], "sweep")
	sprops := sweep["properties"].(map[string]any)
	sprops["type"] = map[string]any{"enum": []any{SweepGrid, SweepZip, SweepScenarios}, "default": SweepGrid}
	sprops["parameters"] = map[string]any{"type": "object",
		"description":          "Dot path into benchmark: (or a bare name such as concurrency, rate, requests) -> list of values.",
		"additionalProperties": map[string]any{"type": "array", "minItems": 1}}
	sprops["runs"] = map[string]any{"type": "array", "items": map[string]any{"type": "object", "additionalProperties": false,
		"properties": map[string]any{"name": map[string]any{"type": "string"}, "benchmark": map[string]any{"type": "object"},
			"variables": map[string]any{"type": "object"}, "values": map[string]any{"type": "object"}}}}

	props := map[string]any{
		"schemaVersion":  map[string]any{"const": "2.0"},
		"benchmark":      bench,
		"sweep":          sweep,
		"multi_run":      objectSchema(tr.children["multi_run"], "multi_run"),
		"variables":      map[string]any{"type": "object", "description": "Values for {{ }} templates; they may reference each other."},
		"random_seed":    leafSchema(tr.children["random_seed"].row),
		"no_sweep_table": leafSchema(tr.children["no_sweep_table"].row),
	}
	withCamel(props)
	root := map[string]any{
		"$schema":              "https://json-schema.org/draft/2020-12/schema",
		"$id":                  SchemaID,
		"title":                "aiperf config v2",
		"type":                 "object",
		"required":             []any{"schemaVersion", "benchmark"},
		"additionalProperties": false,
		"properties":           props,
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(root); err != nil {
		panic(err) // only maps, slices, strings and bools: cannot fail
	}
	return buf.Bytes()
}

// objectSchema is the schema of a table node's mapping.
func objectSchema(t *trie, path string) map[string]any {
	props := map[string]any{}
	for _, name := range t.order {
		c := t.children[name]
		if c.row != nil && c.row.unsupported {
			continue
		}
		if c.row != nil && len(c.children) == 0 {
			props[name] = leafSchema(c.row)
			continue
		}
		props[name] = objectSchema(c, path+"."+name)
	}
	withCamel(props)
	obj := map[string]any{"type": "object", "additionalProperties": false, "properties": props}
	if _, ok := props["mean"]; ok && len(props) == 2 && props["stddev"] != nil {
		// A distribution: a plain number is a fixed value.
		return map[string]any{"anyOf": []any{templatable(map[string]any{"type": "number"}), obj}}
	}
	return obj
}

// leafSchema is the schema of one field.
func leafSchema(r *field) map[string]any {
	var s map[string]any
	switch {
	case r.conv != nil && r.conv.schema != nil:
		s = clone(r.conv.schema)
	case r.bind != nil:
		c := config.Defaults()
		s = typeSchema(reflect.TypeOf(r.bind(target{cfg: &c})).Elem())
	default:
		s = map[string]any{"type": "string"}
	}
	s = templatable(s)
	doc := r.doc
	if r.ignored {
		doc = "Accepted; no effect here: " + doc
	}
	if doc != "" {
		s["description"] = doc
	}
	if r.flag != "" {
		s["x-aiperf-flag"] = "--" + strings.ReplaceAll(r.flag, ",", ", --")
	}
	return s
}

// withCamel adds the camelCase spelling of every snake_case property, as
// an alias: the loader accepts both.
func withCamel(props map[string]any) {
	for name, v := range props {
		if c := camel(name); c != name {
			if _, ok := props[c]; !ok {
				props[c] = v
			}
		}
	}
}

// camel is snake's inverse: "grace_period" -> "gracePeriod".
func camel(s string) string {
	parts := strings.Split(s, "_")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}

// typeSchema maps a Go type to a schema.
func typeSchema(t reflect.Type) map[string]any {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int64:
		return map[string]any{"type": "integer"}
	case reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Slice:
		return map[string]any{"type": "array", "items": typeSchema(t.Elem())}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": typeSchema(t.Elem())}
	}
	return map[string]any{}
}

// templatable lets a non-string scalar schema also take a template or
// environment reference.
func templatable(s map[string]any) map[string]any {
	switch s["type"] {
	case "integer", "number", "boolean":
		return map[string]any{"anyOf": []any{s, map[string]any{"type": "string", "pattern": `\{\{|\$\{`}}}
	}
	return s
}

func distributionSchema() map[string]any {
	num := templatable(map[string]any{"type": "number"})
	weighted := map[string]any{"type": "object", "description": "A distribution with an optional weight (default 1)."}
	return map[string]any{
		"description": "A distribution, as AIPerf 0.13 writes them: a number (fixed), {value}, {mean, stddev} (normal), {mean, median} (lognormal), {peaks: [...]} (multimodal) or {points: [{value, weight}]} (empirical); optional type, min and max. Only a normal's mean and stddev are drawn from; the other kinds count by their expected value, as in AIPerf.",
		"anyOf": []any{
			templatable(map[string]any{"type": "number"}),
			map[string]any{"type": "object", "additionalProperties": false, "properties": map[string]any{
				"type":   map[string]any{"enum": []any{"fixed", "normal", "lognormal", "multimodal", "empirical"}},
				"mean":   num,
				"stddev": num,
				"median": num,
				"value":  num,
				"min":    num,
				"max":    num,
				"peaks":  map[string]any{"type": "array", "minItems": 2, "items": weighted},
				"points": map[string]any{"type": "array", "minItems": 1, "items": map[string]any{
					"type": "object", "additionalProperties": false, "required": []any{"value"},
					"properties": map[string]any{"value": num, "weight": num},
				}},
			}},
		},
	}
}

func mergeObjects(a, b map[string]any) map[string]any {
	out := clone(a)
	props := clone(a["properties"].(map[string]any))
	for k, v := range b["properties"].(map[string]any) {
		if _, ok := props[k]; !ok {
			props[k] = v
		}
	}
	out["properties"] = props
	return out
}

func withDescription(s map[string]any, d string) map[string]any {
	out := clone(s)
	out["description"] = d
	return out
}

func clone(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
