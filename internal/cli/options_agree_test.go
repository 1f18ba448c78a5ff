package cli

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/configfile"
	"github.com/aiperf-go/aiperf/internal/option"
)

// TestOptionTableAgreement proves that the command line, the config file
// and its JSON Schema, all derived from the option table, agree:
//   - every option is a flag (with its --no- form), and every flag of
//     `aiperf profile` is an option; an option bound to a secret type is
//     redacted;
//   - every flag a config-file key names exists, and every option with
//     keys is overridable through the first of them;
//   - every key is in the schema, which names the option's flag;
//   - a scalar option reads the same text to the same value as a flag and
//     as its config-file key (same type, same choices), starting from the
//     same default;
//   - a default shown in help that the config holds before any flag is
//     given is that value.
func TestOptionTableAgreement(t *testing.T) {
	cfg := config.Defaults()
	fs := pflag.NewFlagSet("profile", pflag.ContinueOnError)
	registerProfileFlags(fs, &cfg, &problemList{})

	names := map[string]bool{}
	for _, o := range option.All() {
		// A secret's type says it is one: the table must redact it.
		switch p := o.Bind; {
		case p == nil:
		case reflect.TypeOf(p(&cfg)) == reflect.TypeOf((*config.Secret)(nil)) && o.Redact != option.Secret,
			reflect.TypeOf(p(&cfg)) == reflect.TypeOf((*config.CredURL)(nil)) && o.Redact != option.SecretURL:
			t.Errorf("option --%s holds a secret but its Redact is %d", o.Name, o.Redact)
		}
		if names[o.Name] {
			t.Errorf("option --%s is declared twice", o.Name)
		}
		names[o.Name] = true
		if fs.Lookup(o.Name) == nil {
			t.Errorf("option --%s is not a flag", o.Name)
		}
		if o.NoForm {
			names["no-"+o.Name] = true
		}
	}
	fs.VisitAll(func(f *pflag.Flag) {
		if !names[f.Name] {
			t.Errorf("flag --%s is not in the option table", f.Name)
		}
	})

	paths := configfile.FlagPaths()
	for flag := range paths {
		if fs.Lookup(flag) == nil {
			t.Errorf("a config-file key names --%s, which is not a flag", flag)
		}
	}
	var schema map[string]any
	if err := json.Unmarshal(configfile.Schema(), &schema); err != nil {
		t.Fatal(err)
	}
	for _, o := range option.All() {
		if len(o.Keys) == 0 {
			continue
		}
		if got := paths[o.Name]; got != o.Keys[0].Path {
			t.Errorf("--%s overrides %q, want its first key %q", o.Name, got, o.Keys[0].Path)
		}
		for _, k := range o.Keys {
			s := schemaAt(schema, k.Path)
			if s == nil {
				t.Errorf("--%s: key %s is not in the schema", o.Name, k.Path)
				continue
			}
			// A leaf the schema generates from the key names the flag; the
			// warmup phase shares the profiling phase's schema, and isl and
			// osl are written as distributions.
			fl, generated := s["x-aiperf-flag"].(string)
			shared := strings.Contains(k.Path, "phases.warmup.")
			if generated && !shared && !slices.Contains(strings.Split(fl, ", "), "--"+o.Name) {
				t.Errorf("--%s: schema of %s names flag %q", o.Name, k.Path, fl)
			}
			if k.Bind == nil {
				agreeOnValues(t, o, k)
			}
		}
	}

	// A help default is the config's default wherever the config holds a
	// value before any flag (the others are resolved at run time and
	// described in words).
	fs.VisitAll(func(f *pflag.Flag) {
		if cur := f.Value.String(); cur != "" && f.DefValue != "" && f.NoOptDefVal == "" && cur != f.DefValue {
			t.Errorf("--%s: help says the default is %q, the config holds %q", f.Name, f.DefValue, cur)
		}
	})
}

// agreeOnValues sets option o through its flag and through key k from the
// same text, each on fresh defaults, and compares the field.
func agreeOnValues(t *testing.T, o option.Option, k option.Key) {
	t.Helper()
	for _, s := range samples(o, k) {
		flagCfg := config.Defaults()
		fs := pflag.NewFlagSet("profile", pflag.ContinueOnError)
		probs := &problemList{}
		registerProfileFlags(fs, &flagCfg, probs)
		if err := fs.Set(o.Name, s.text); err != nil || len(probs.errs) > 0 {
			t.Errorf("--%s %s: %v %v", o.Name, s.text, err, probs.errs)
			continue
		}
		f, err := configfile.Parse("agree.yaml", []byte("schemaVersion: \"2.0\"\nbenchmark:\n  models: [m]\n"), configfile.Options{})
		if err != nil {
			t.Fatal(err)
		}
		fileCfg := config.Defaults()
		for _, ctx := range append(keyContext(k.Path), [2]any{k.Path, s.yaml}) {
			if err := f.Set(ctx[0].(string), ctx[1]); err != nil {
				t.Fatalf("%s: %v", ctx[0], err)
			}
		}
		if err := f.Apply(&fileCfg); err != nil {
			t.Errorf("%s: %v: %v", k.Path, s.yaml, err)
			continue
		}
		got, want := reflect.ValueOf(o.Bind(&fileCfg)).Elem().Interface(), reflect.ValueOf(o.Bind(&flagCfg)).Elem().Interface()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("--%s %s sets %s, key %s: %v sets %s", o.Name, s.text, show(want), k.Path, s.yaml, show(got))
		}
	}
}

// keyContext returns the keys a config file needs beside path for path
// to be valid: the dataset type its keys belong to, a distribution's
// mean beside its stddev, a profiling phase beside the warmup.
func keyContext(path string) [][2]any {
	var ctx [][2]any
	switch path {
	case "benchmark.datasets.0.path":
		ctx = append(ctx, [2]any{"benchmark.datasets.0.type", "file"})
	case "benchmark.datasets.0.format":
		ctx = append(ctx, [2]any{"benchmark.datasets.0.type", "file"}, [2]any{"benchmark.datasets.0.path", "data.jsonl"})
	case "benchmark.datasets.0.dataset":
		ctx = append(ctx, [2]any{"benchmark.datasets.0.type", "public"})
	case "benchmark.datasets.0.hf_subset", "benchmark.datasets.0.hf_weka_dataset":
		ctx = append(ctx, [2]any{"benchmark.datasets.0.type", "public"}, [2]any{"benchmark.datasets.0.dataset", "sharegpt"})
	}
	if base, ok := strings.CutSuffix(path, ".stddev"); ok {
		ctx = append(ctx, [2]any{base + ".mean", 100})
	}
	if strings.HasPrefix(path, "benchmark.phases.warmup.") {
		ctx = append(ctx, [2]any{"benchmark.phases.profiling.concurrency", 1})
	}
	return ctx
}

// sample is one value written as a flag and as a config-file value.
type sample struct {
	text string
	yaml any
}

// samples returns values of o's type to set both ways: every choice of a
// choice, one value of a scalar; none for the types a decoder of their
// own reads (lists, mappings, ramps), which the config-file tests cover.
func samples(o option.Option, k option.Key) []sample {
	if k.Conv != "" && k.Conv != option.ConvChoice && k.Conv != option.ConvDuration {
		return nil
	}
	if len(o.Choices) > 0 {
		out := make([]sample, len(o.Choices))
		for i, c := range o.Choices {
			out[i] = sample{c, c}
		}
		return out
	}
	cfg := config.Defaults()
	typ := reflect.TypeOf(o.Bind(&cfg)).Elem()
	if typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	switch typ.Kind() {
	case reflect.Bool:
		if o.Invert {
			return nil // stored negated: the key reads the field, the flag its opposite
		}
		return []sample{{"true", true}}
	case reflect.Int, reflect.Int64:
		return []sample{{"7", 7}}
	case reflect.Float64:
		return []sample{{"2.5", 2.5}}
	case reflect.String:
		if typ == reflect.TypeOf("") && o.Normalize == nil {
			return []sample{{"some-value", "some-value"}}
		}
	}
	return nil
}

func show(v any) string {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer && !rv.IsNil() {
		return fmt.Sprintf("&%v", rv.Elem().Interface())
	}
	return fmt.Sprintf("%v", v)
}

// schemaAt returns the schema of the key at a dot path, following
// properties, arrays (phases, datasets) and anyOf alternatives.
func schemaAt(s map[string]any, path string) map[string]any {
	cur := s
	segs := strings.Split(path, ".")
	for i := 0; i < len(segs); i++ {
		seg := segs[i]
		if (seg == "profiling" || seg == "warmup") && i > 0 && segs[i-1] == "phases" {
			continue
		}
		if seg == "0" && i > 0 && segs[i-1] == "datasets" {
			continue
		}
		next := property(cur, seg)
		if next == nil {
			return nil
		}
		cur = next
	}
	return leafOf(cur)
}

func property(s map[string]any, name string) map[string]any {
	if props, ok := s["properties"].(map[string]any); ok {
		if p, ok := props[name].(map[string]any); ok {
			return p
		}
	}
	if items, ok := s["items"].(map[string]any); ok {
		if p := property(items, name); p != nil {
			return p
		}
	}
	if alts, ok := s["anyOf"].([]any); ok {
		for _, a := range alts {
			if m, ok := a.(map[string]any); ok {
				if p := property(m, name); p != nil {
					return p
				}
			}
		}
	}
	return nil
}

// leafOf returns the alternative of a leaf that carries its description
// and flag (a templatable scalar wraps them in anyOf).
func leafOf(s map[string]any) map[string]any {
	if _, ok := s["x-aiperf-flag"]; ok {
		return s
	}
	if alts, ok := s["anyOf"].([]any); ok {
		for _, a := range alts {
			if m, ok := a.(map[string]any); ok {
				if l := leafOf(m); l != nil {
					return l
				}
			}
		}
	}
	return s
}
