package configfile

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	goldenfile "github.com/aiperf-go/aiperf/internal/testenv/golden"

	"github.com/aiperf-go/aiperf/internal/config"
)

var update = flag.Bool("update", false, "rewrite golden files")

// testEnv is the environment the golden files are loaded with.
func testEnv(name string) (string, bool) {
	v, ok := map[string]string{"MODEL_FROM_ENV": "env-model", "PORT": "9000"}[name]
	return v, ok
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	goldenfile.Check(t, path, got, *update)
}

// variationJSON is the canonical form of expanded variations.
func variationJSON(t *testing.T, vars []config.Variation) []byte {
	t.Helper()
	type out struct {
		Index  int
		Label  string         `json:",omitempty"`
		Params []config.Param `json:",omitempty"`
		Config config.Config
	}
	list := make([]out, len(vars))
	for i, v := range vars {
		list[i] = out{v.Index, v.Label, v.Params, v.Config}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(list); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestGolden loads every testdata/*.yaml: a valid_ file must expand to
// the variations in its .golden file, an invalid_ one must fail with the
// exact problems in its .golden file.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata: %v", err)
	}
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".yaml")
		t.Run(name, func(t *testing.T) {
			f, err := Load(path, Options{LookupEnv: testEnv})
			var vars []config.Variation
			if err == nil {
				vars, err = f.Variations(config.Defaults())
			}
			goldenPath := strings.TrimSuffix(path, ".yaml") + ".golden"
			switch {
			case strings.HasPrefix(name, "valid_"):
				if err != nil {
					t.Fatalf("want valid, got:\n%v", err)
				}
				golden(t, goldenPath, variationJSON(t, vars))
			default:
				if err == nil {
					t.Fatal("want problems, got none")
				}
				golden(t, goldenPath, []byte(err.Error()+"\n"))
			}
		})
	}
}

// TestExample38 checks the reference's section 3.8 example: a zip sweep
// of three variations, with the templated concurrency rendered in each.
func TestExample38(t *testing.T) {
	f, err := Load("testdata/valid_example38.yaml", Options{})
	if err != nil {
		t.Fatal(err)
	}
	vars, err := f.Variations(config.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	if len(vars) != 3 {
		t.Fatalf("got %d variations, want 3", len(vars))
	}
	for i, want := range []struct {
		isl  int
		rate float64
	}{{128, 40}, {1024, 20}, {4096, 5}} {
		c := vars[i].Config
		if c.Input.InputTokens.Mean != want.isl || *c.Load.RequestRate != want.rate {
			t.Errorf("variation %d: isl %d rate %v, want %d %v", i, c.Input.InputTokens.Mean, *c.Load.RequestRate, want.isl, want.rate)
		}
		if *c.Load.Concurrency != 64 || *c.Warmup.RequestCount != 50 || c.Endpoint.ModelNames[0] != "Qwen/Qwen3-0.6B" {
			t.Errorf("variation %d: concurrency %d warmup %d model %v", i, *c.Load.Concurrency, *c.Warmup.RequestCount, c.Endpoint.ModelNames)
		}
		if c.Experiment.NumProfileRuns != 3 || *c.Experiment.ProfileRunCooldownSeconds != 10 {
			t.Errorf("variation %d: multi_run not applied: %+v", i, c.Experiment)
		}
	}
	if f.SweepType() != SweepZip {
		t.Errorf("sweep type %q", f.SweepType())
	}
}

// TestOverrideEnvelope is seed 002's "config-file override envelope
// invariant": a CLI override of a templated field must survive sweep
// expansion, which re-renders every variation from the raw envelope.
func TestOverrideEnvelope(t *testing.T) {
	const doc = `schemaVersion: "2.0"
variables: {base_c: 16}
benchmark:
  model: m
  dataset: {prompts: {isl: {mean: 100, stddev: 5}}}
  profiling:
    type: concurrency
    concurrency: "{{ base_c * 4 }}"
    requests: "{{ base_c * 10 }}"
sweep:
  parameters:
    datasets.default.prompts.isl: [128, 256]
`
	load := func() *File {
		f, err := Parse("o.yaml", []byte(doc), Options{})
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	// The command line: the file, then --concurrency 3 --isl-stddev 0
	// --streaming false, as the CLI converter produces it.
	cfg := config.Defaults()
	f := load()
	if err := f.Apply(&cfg); err != nil {
		t.Fatal(err)
	}
	three := 3
	cfg.Load.Concurrency = &three
	cfg.Input.InputTokens.Stddev = 0
	cfg.Endpoint.Streaming = false
	if err := f.Override(&cfg, []string{"concurrency", "prompt-input-tokens-stddev", "streaming", "mock-server"}); err != nil {
		t.Fatal(err)
	}
	vars, err := f.Variations(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(vars) != 2 {
		t.Fatalf("got %d variations", len(vars))
	}
	for _, v := range vars {
		if got := *v.Config.Load.Concurrency; got != 3 {
			t.Errorf("variation %d: concurrency %d, want the CLI's 3 (the template re-rendered over it)", v.Index, got)
		}
		if got := *v.Config.Load.RequestCount; got != 160 {
			t.Errorf("variation %d: requests %d, want the template's 160", v.Index, got)
		}
	}
	// The swept isl wins over the base; the explicit --isl-stddev 0 stays
	// in the base configuration.
	if vars[0].Config.Input.InputTokens.Mean != 128 || vars[1].Config.Input.InputTokens.Mean != 256 {
		t.Errorf("isl %d, %d", vars[0].Config.Input.InputTokens.Mean, vars[1].Config.Input.InputTokens.Mean)
	}

	// Without the override the templates do replace the CLI value: the
	// invariant is what makes the difference.
	g := load()
	plain, err := g.Variations(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := *plain[0].Config.Load.Concurrency; got != 64 {
		t.Fatalf("without Override: concurrency %d, want 64 - the test would prove nothing", got)
	}

	// Explicit zero and false count as overrides.
	h := load()
	zero := 0.0
	cfg2 := config.Defaults()
	if err := h.Apply(&cfg2); err != nil {
		t.Fatal(err)
	}
	cfg2.Load.BenchmarkDuration = &zero
	if err := h.Override(&cfg2, []string{"benchmark-duration"}); err != nil {
		t.Fatal(err)
	}
	raw := h.Raw()["benchmark"].(map[string]any)["phases"].([]any)[0].(map[string]any)
	if raw["duration"] != 0.0 {
		t.Errorf("explicit 0 not written into the envelope: %v", raw)
	}
}

// TestOverrideSeed: --random-seed beats both the envelope's and the
// dataset's random_seed.
func TestOverrideSeed(t *testing.T) {
	f, err := Parse("s.yaml", []byte("schemaVersion: '2.0'\nrandom_seed: 1\nbenchmark: {model: m, dataset: {random_seed: 2}}\n"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.Defaults()
	var zero int64
	cfg.Input.RandomSeed = &zero
	if err := f.Override(&cfg, []string{"random-seed"}); err != nil {
		t.Fatal(err)
	}
	out := config.Defaults()
	if err := f.Apply(&out); err != nil {
		t.Fatal(err)
	}
	if out.Input.RandomSeed == nil || *out.Input.RandomSeed != 0 {
		t.Errorf("seed %v, want the CLI's 0", out.Input.RandomSeed)
	}
}

// TestOverrideCreates checks that an override of a section the file does
// not have creates it (and the shorthand forms are found).
func TestOverrideCreates(t *testing.T) {
	f, err := Parse("c.yaml", []byte("schemaVersion: '2.0'\nbenchmark: {model: m}\n"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.Defaults()
	n, w := 7, 3
	cfg.Load.RequestCount = &n
	cfg.Warmup.RequestCount = &w
	cfg.Input.InputTokens.Mean = 99
	if err := f.Override(&cfg, []string{"request-count", "warmup-request-count", "prompt-input-tokens-mean"}); err != nil {
		t.Fatal(err)
	}
	out := config.Defaults()
	if err := f.Apply(&out); err != nil {
		t.Fatal(err)
	}
	if *out.Load.RequestCount != 7 || *out.Warmup.RequestCount != 3 || out.Input.InputTokens.Mean != 99 {
		t.Errorf("got requests %v warmup %v isl %d", out.Load.RequestCount, out.Warmup.RequestCount, out.Input.InputTokens.Mean)
	}
}

func TestStarterValidates(t *testing.T) {
	f, err := Parse("starter.yaml", []byte(Starter), Options{})
	if err != nil {
		t.Fatal(err)
	}
	vars, err := f.Variations(config.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	if len(vars) != 3 {
		t.Errorf("starter expands to %d variations, want 3", len(vars))
	}
}

// TestSchema keeps docs/config.schema.json in sync with the field table.
func TestSchema(t *testing.T) {
	s := Schema()
	var v map[string]any
	if err := json.Unmarshal(s, &v); err != nil {
		t.Fatalf("schema is not JSON: %v", err)
	}
	golden(t, "../../docs/config.schema.json", s)
}

func TestEnvSubstitution(t *testing.T) {
	env := map[string]string{"N": "12", "B": "true", "S": "x", "F": "0.5"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	for _, tc := range []struct {
		in   string
		want any
	}{
		{"${N}", int64(12)},
		{"${B}", true},
		{"${F}", 0.5},
		{"${S}-${N}", "x-12"},
		{"${MISSING:7}", int64(7)},
		{"${MISSING:}", ""},
		{"${MISSING:a:b}", "a:b"},
		{"plain $N", "plain $N"},
	} {
		n := &Node{Kind: Scalar, Value: tc.in}
		ps := &problems{}
		substituteEnv(n, "k", lookup, ps)
		if err := ps.err(); err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if n.Value != tc.want {
			t.Errorf("%q -> %#v, want %#v", tc.in, n.Value, tc.want)
		}
	}
}

func TestRenderString(t *testing.T) {
	ctx := map[string]any{"a": int64(16), "b": 2.5, "name": "qwen", "flag": true}
	for _, tc := range []struct {
		in   string
		want any
	}{
		{"{{ a // 3 }}", int64(5)},
		{"{{ a * 4 }}", int64(64)},
		// Python prints 5.0 (a float); ardanlabs/jinja prints 5, read as
		// an integer. Number fields take either.
		{"{{ b * 2 }}", int64(5)},
		{"{{ (b * 3) | int }}", int64(7)},
		{"{{ name | upper }}-{{ a }}", "QWEN-16"},
		{"{{ flag }}", true},
		{"{{ 'x' if a > 10 else 'y' }}", "x"},
		{"{{ unset | default(3) }}", int64(3)},
		{"no template", "no template"},
	} {
		got, msg := renderString(tc.in, ctx)
		if msg != "" {
			t.Errorf("%q: %s", tc.in, msg)
			continue
		}
		if got != tc.want {
			t.Errorf("%q -> %#v, want %#v", tc.in, got, tc.want)
		}
	}
	for _, bad := range []string{"{{ nope }}", "{{ a ", "{% if a %}"} {
		if _, msg := renderString(bad, ctx); msg == "" {
			t.Errorf("%q: want an error", bad)
		}
	}
}

func TestSuggest(t *testing.T) {
	known := []string{"concurrency", "request_rate", "streaming", "models"}
	for in, want := range map[string]string{
		"concurency": "concurrency", "requestRate": "request_rate", "streamin": "streaming",
		"modle": "models", "zzz": "", "c": "",
	} {
		if got := suggest(in, known); got != want {
			t.Errorf("suggest(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestAddSweep promotes magic lists into a file without a sweep and
// refuses them on top of one.
func TestAddSweep(t *testing.T) {
	f, err := Load("testdata/valid_minimal.yaml", Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = f.AddSweep(SweepZip, []SweepParam{
		{Path: "phases.profiling.concurrency", Values: []any{int64(1), int64(2)}},
		{Path: "datasets.default.prompts.isl.mean", Values: []any{int64(10), int64(20)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	vars, err := f.Variations(config.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	if len(vars) != 2 || *vars[1].Config.Load.Concurrency != 2 || vars[1].Config.Input.InputTokens.Mean != 20 {
		t.Fatalf("got %s", variationJSON(t, vars))
	}
	g, err := Load("testdata/valid_grid.yaml", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := g.AddSweep(SweepGrid, []SweepParam{{Path: "concurrency", Values: []any{int64(1)}}}); err == nil {
		t.Error("a second sweep was accepted")
	}
}

// FuzzLoad: the loader never panics or hangs, whatever the bytes.
func FuzzLoad(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.yaml")
	for _, p := range files {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(Starter))
	f.Add([]byte("a: &x [*x]\n"))
	f.Add([]byte("a: &a [1,2]\nb: &b [*a,*a,*a]\nc: [*b,*b,*b]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse("fuzz.yaml", data, Options{LookupEnv: testEnv})
		if err != nil {
			return
		}
		cfg := config.Defaults()
		_ = file.Apply(&cfg)
		_, _ = file.Variations(config.Defaults())
		_ = file.Override(&cfg, []string{"concurrency", "model-names", "url", "prompt-input-tokens-mean", "goodput"})
	})
}

// TestPoint sets search proposals on a configuration the flags built.
func TestPoint(t *testing.T) {
	base := config.Defaults()
	base.Endpoint.ModelNames = []string{"m"}
	rate := 5.0
	base.Load.RequestRate = &rate
	c, err := Point(base, []config.Param{{Path: "phases.profiling.concurrency", Value: int64(17)}, {Path: "datasets.main.prompts.isl", Value: int64(333)}, {Path: "datasets.main.prompts.osl", Value: int64(44)}})
	if err != nil {
		t.Fatal(err)
	}
	if *c.Load.Concurrency != 17 || c.Input.InputTokens.Mean != 333 || *c.Input.OutputTokens.Mean != 44 || *c.Load.RequestRate != 5 || c.Endpoint.ModelNames[0] != "m" {
		t.Errorf("Point = concurrency %v, isl %v, osl %v, rate %v", *c.Load.Concurrency, c.Input.InputTokens.Mean, c.Input.OutputTokens.Mean, *c.Load.RequestRate)
	}
	if _, err := Point(base, []config.Param{{Path: "phases.profiling.concurrency", Value: int64(-3)}}); err == nil {
		t.Error("an invalid point validated")
	}
	if _, err := Point(base, []config.Param{{Path: "nope", Value: int64(1)}}); err == nil {
		t.Error("a bad path was accepted")
	}
}
