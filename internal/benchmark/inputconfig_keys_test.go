package benchmark

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/configfile"
	"github.com/aiperf-go/aiperf/internal/option"
)

// TestInputConfigKeysAreConfigFileKeys checks that every key the
// input_config block can hold is the config-file key of the same setting
// (AIPerf's config v2 layout), so an option's input_config key is the key
// declared in its option table row. The keys listed in outputOnly describe
// what the run resolved and have no config-file twin.
func TestInputConfigKeysAreConfigFileKeys(t *testing.T) {
	var schema map[string]any
	if err := json.Unmarshal(configfile.Schema(), &schema); err != nil {
		t.Fatal(err)
	}
	bench := schema["properties"].(map[string]any)["benchmark"].(map[string]any)
	var paths []string
	jsonPaths(reflect.TypeOf(inputConfigDoc{}), "", &paths)
	for _, p := range paths {
		if slices.ContainsFunc(outputOnly, func(o string) bool { return p == o || strings.HasPrefix(p, o+".") }) {
			continue
		}
		if schemaKey(bench, strings.Split(p, ".")) == nil {
			t.Errorf("input_config key %s is not a config-file key (benchmark.%s)", p, p)
		}
	}
}

// outputOnly are the input_config keys with no config-file twin: what the
// run resolved (the HTTP engine, the UI), the models as AIPerf's summary
// lists them, and AIPerf's logging and runtime settings, which options
// place there by their own input_config paths.
var outputOnly = []string{"runtime", "models.items", "logging"}

// TestInputConfigPathsOfOptions checks every option's input_config paths:
// each is one of its own config-file keys, or a path of its own that
// config files do not read (outputOnly).
func TestInputConfigPathsOfOptions(t *testing.T) {
	for _, o := range option.All() {
		for _, at := range o.InputConfigPaths() {
			if at.Key == nil && !slices.ContainsFunc(outputOnly, func(p string) bool { return strings.HasPrefix(at.Path, p+".") }) {
				t.Errorf("--%s: input_config path %s is neither one of its keys nor under %v", o.Name, at.Path, outputOnly)
			}
		}
	}
}

// jsonPaths appends the dot paths of the JSON keys of t (inline structs
// flattened, slices and maps by their elements).
func jsonPaths(t reflect.Type, prefix string, out *[]string) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		*out = append(*out, strings.TrimSuffix(prefix, "."))
		return
	}
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if opts == "inline" || (f.Anonymous && name == "") {
			jsonPaths(f.Type, prefix, out)
			continue
		}
		if name == "" || name == "-" {
			continue
		}
		jsonPaths(f.Type, prefix+name+".", out)
	}
}

// schemaKey follows segs through properties, array items and anyOf
// alternatives; nil when the schema has no such key. An empty schema
// accepts any value, whatever its keys.
func schemaKey(s map[string]any, segs []string) map[string]any {
	if len(segs) == 0 || len(s) == 0 {
		return s
	}
	if props, ok := s["properties"].(map[string]any); ok {
		if p, ok := props[segs[0]].(map[string]any); ok {
			if r := schemaKey(p, segs[1:]); r != nil {
				return r
			}
		}
	}
	if items, ok := s["items"].(map[string]any); ok {
		if r := schemaKey(items, segs); r != nil {
			return r
		}
	}
	if alts, ok := s["anyOf"].([]any); ok {
		for _, a := range alts {
			if m, ok := a.(map[string]any); ok {
				if r := schemaKey(m, segs); r != nil {
					return r
				}
			}
		}
	}
	return nil
}
