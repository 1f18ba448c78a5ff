package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"

	"github.com/aiperf-go/aiperf/internal/configfile"
)

// writeYAML writes a config file into a fresh directory.
func writeYAML(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const sweepYAML = `schemaVersion: "2.0"
variables: {base_c: 16}
benchmark:
  model: yaml-model
  endpoint: {url: "localhost:1234", streaming: true}
  dataset: {prompts: {isl: 100}}
  profiling:
    concurrency: "{{ base_c * 4 }}"
    requests: "{{ base_c * 10 }}"
sweep:
  parameters:
    datasets.default.prompts.isl: [128, 256]
`

// TestConfigFileFlagsOverride: explicit flags override the file, false
// and zero included, and the override reaches every sweep variation even
// where the file templates the value (seed 002's envelope invariant,
// through the whole command line).
func TestConfigFileFlagsOverride(t *testing.T) {
	t.Parallel()
	p := writeYAML(t, sweepYAML)
	r := runMain(t, context.Background(), nil, "profile", "--concurrency", "3", "-f", p, "--streaming=false", "--request-count", "7")
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s", r.code, r.stderr)
	}
	if got := *r.cfg.Load.Concurrency; got != 3 {
		t.Errorf("base concurrency %d, want 3", got)
	}
	if len(r.rio.Variations) != 2 {
		t.Fatalf("%d variations, want 2", len(r.rio.Variations))
	}
	for i, v := range r.rio.Variations {
		c := v.Config
		if *c.Load.Concurrency != 3 || *c.Load.RequestCount != 7 || c.Endpoint.Streaming {
			t.Errorf("variation %d lost a CLI override: concurrency %d requests %d streaming %v", i, *c.Load.Concurrency, *c.Load.RequestCount, c.Endpoint.Streaming)
		}
		if c.Endpoint.ModelNames[0] != "yaml-model" || c.Endpoint.URLs[0] != "http://localhost:1234" {
			t.Errorf("variation %d lost a file value: %v %v", i, c.Endpoint.ModelNames, c.Endpoint.URLs)
		}
		if want := []int{128, 256}[i]; c.Input.InputTokens.Mean != want {
			t.Errorf("variation %d isl %d, want %d", i, c.Input.InputTokens.Mean, want)
		}
	}
}

// TestConfigFileNoSweep: without a sweep, the file plus the flags is the
// single configuration.
func TestConfigFileNoSweep(t *testing.T) {
	t.Parallel()
	p := writeYAML(t, "schemaVersion: '2.0'\nrandom_seed: 5\nbenchmark:\n  model: m\n  endpoint: {streaming: true}\n  profiling: {concurrency: 5, requests: 9}\n  artifacts: {dir: somewhere}\n")
	cfg := profile(t, "-f", p, "-m", "cli-model", "--random-seed", "0", "--request-rate", "4")
	if cfg.Endpoint.ModelNames[0] != "cli-model" || !cfg.Endpoint.Streaming || *cfg.Load.RequestCount != 9 || *cfg.Load.Concurrency != 5 {
		t.Errorf("got %v streaming %v requests %d", cfg.Endpoint.ModelNames, cfg.Endpoint.Streaming, *cfg.Load.RequestCount)
	}
	if cfg.Input.RandomSeed == nil || *cfg.Input.RandomSeed != 0 {
		t.Errorf("explicit --random-seed 0 lost: %v", cfg.Input.RandomSeed)
	}
	if !cfg.Output.ArtifactDirExplicit || cfg.Output.ArtifactDir != "somewhere" {
		t.Errorf("artifacts.dir not explicit: %+v", cfg.Output)
	}
}

// TestConfigFileProblems: a broken file is a usage error listing every
// problem with its line, together with the flags' problems.
func TestConfigFileProblems(t *testing.T) {
	t.Parallel()
	p := writeYAML(t, "schemaVersion: '2.0'\nbenchmark:\n  modle: m\n  profiling: {concurency: 2}\n")
	r := runMain(t, context.Background(), nil, "profile", "-f", p, "--request-count", "x")
	if r.code != 2 || r.cfg != nil {
		t.Fatalf("exit %d ran=%v", r.code, r.cfg != nil)
	}
	for _, want := range []string{
		"c.yaml:3:3: benchmark: unknown key \"modle\"; did you mean \"models\"?",
		"c.yaml:4:15: benchmark.phases.profiling: unknown key \"concurency\"; did you mean \"concurrency\"?",
		"--request-count",
		"3 problems", // not a fourth "model required": the file's own error says why
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if strings.Contains(r.stderr, "at least one model name is required") {
		t.Errorf("a config-file error added a spurious model problem:\n%s", r.stderr)
	}
	r = runMain(t, context.Background(), nil, "profile", "-f", filepath.Join(t.TempDir(), "missing.yaml"))
	if r.code != 2 || !strings.Contains(r.stderr, "missing.yaml") {
		t.Errorf("missing file: exit %d\n%s", r.code, r.stderr)
	}
}

// TestMagicLists: comma lists on magic flags are a sweep, grid by default,
// zip with --sweep-type zip; with a config file they become its sweep.
func TestMagicLists(t *testing.T) {
	t.Parallel()
	r := runMain(t, context.Background(), nil, "profile", "-m", "m", "--concurrency", "8,16,32", "--isl", "100,200")
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s", r.code, r.stderr)
	}
	if len(r.rio.Variations) != 6 {
		t.Fatalf("%d variations, want 6", len(r.rio.Variations))
	}
	v := r.rio.Variations[3]
	if *v.Config.Load.Concurrency != 16 || v.Config.Input.InputTokens.Mean != 200 {
		t.Errorf("variation 3: concurrency %d isl %d", *v.Config.Load.Concurrency, v.Config.Input.InputTokens.Mean)
	}
	if v.Params[0].Path != "phases.profiling.concurrency" || v.Params[0].Value != int64(16) || v.Params[1].Path != "datasets.default.prompts.isl.mean" {
		t.Errorf("params %+v", v.Params)
	}

	r = runMain(t, context.Background(), nil, "profile", "-m", "m", "--concurrency", "1,2", "--request-rate", "5,10", "--sweep-type", "zip")
	if r.code != 0 || len(r.rio.Variations) != 2 || *r.rio.Variations[1].Config.Load.RequestRate != 10 {
		t.Fatalf("zip: exit %d, %d variations\n%s", r.code, len(r.rio.Variations), r.stderr)
	}
	r = runMain(t, context.Background(), nil, "profile", "-m", "m", "--concurrency", "1,2", "--request-rate", "5", "--isl", "1,2,3", "--sweep-type", "zip")
	if r.code != 2 || !strings.Contains(r.stderr, "same length") {
		t.Errorf("unequal zip: exit %d\n%s", r.code, r.stderr)
	}
	r = runMain(t, context.Background(), nil, "profile", "-m", "m", "--concurrency", "1,x")
	if r.code != 2 || !strings.Contains(r.stderr, "\"x\"") {
		t.Errorf("bad element: exit %d\n%s", r.code, r.stderr)
	}

	p := writeYAML(t, "schemaVersion: '2.0'\nbenchmark:\n  model: m\n  profiling: {concurrency: 5, requests: 9}\n")
	r = runMain(t, context.Background(), nil, "profile", "-f", p, "--concurrency", "2,4")
	if r.code != 0 || len(r.rio.Variations) != 2 || *r.rio.Variations[1].Config.Load.Concurrency != 4 || *r.rio.Variations[1].Config.Load.RequestCount != 9 {
		t.Fatalf("file + list: exit %d, %d variations\n%s", r.code, len(r.rio.Variations), r.stderr)
	}
	r = runMain(t, context.Background(), nil, "profile", "-f", writeYAML(t, sweepYAML), "--concurrency", "2,4")
	if r.code != 2 || !strings.Contains(r.stderr, "already defines a sweep") {
		t.Errorf("two sweeps: exit %d\n%s", r.code, r.stderr)
	}
}

func TestConfigCommands(t *testing.T) {
	t.Parallel()
	ref := writeYAML(t, `schemaVersion: "2.0"
random_seed: 7
variables: {base_c: 16}
benchmark:
  model: ${MODEL:Qwen/Qwen3-0.6B}
  endpoint: {url: http://127.0.0.1:8000, type: chat, streaming: true}
  dataset:
    type: synthetic
    entries: 1000
    prompts: {isl: {mean: 1024, stddev: 64}, osl: {mean: 256, stddev: 0}}
  phases:
    - {name: warmup, type: concurrency, concurrency: "{{ base_c // 2 }}", requests: 50, exclude_from_results: true}
    - name: profiling
      type: poisson
      rate: 20
      concurrency: "{{ base_c * 4 }}"
      duration: 120s
      grace_period: 30
  slos: {time_to_first_token: 500, inter_token_latency: 25}
  artifacts: {dir: ./artifacts/example, sliceDuration: 10s}
sweep:
  type: zip
  parameters:
    datasets.default.prompts.isl: [128, 1024, 4096]
    rate: [40, 20, 5]
multi_run: {num_runs: 3, cooldown_seconds: 10, confidence_level: 0.95}
`)
	r := runMain(t, context.Background(), nil, "config", "expand", ref)
	want := "3 variations (zip sweep)\n" +
		"[0] datasets.default.prompts.isl=128, phases.profiling.rate=40\n" +
		"[1] datasets.default.prompts.isl=1024, phases.profiling.rate=20\n" +
		"[2] datasets.default.prompts.isl=4096, phases.profiling.rate=5\n"
	if r.code != 0 || r.stdout != want {
		t.Errorf("config expand: exit %d\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	r = runMain(t, context.Background(), nil, "config", "expand", ref, "--full", "--index", "2")
	if r.code != 0 || !strings.Contains(r.stdout, "[2] ") || strings.Contains(r.stdout, "[1] ") || !strings.Contains(r.stdout, `"request_rate": 5`) ||
		!strings.Contains(r.stdout, `"slice_duration": 10`) {
		t.Errorf("config expand --full --index 2: exit %d\n%s", r.code, r.stdout)
	}

	r = runMain(t, context.Background(), nil, "config", "validate", ref)
	if r.code != 0 || !strings.Contains(r.stdout, "valid (zip sweep of 3 variations)") {
		t.Errorf("config validate: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	bad := writeYAML(t, "schemaVersion: '2.0'\nbenchmark:\n  model: m\n  endpoint: {streamng: true}\n  profiling: {concurrency: 0}\nsweep: {type: zip, parameters: {rate: [1, 2], concurrency: [1]}}\n")
	r = runMain(t, context.Background(), nil, "config", "validate", bad)
	if r.code != 2 || !strings.Contains(r.stderr, "c.yaml:4:14: benchmark.endpoint: unknown key \"streamng\"; did you mean \"streaming\"?") ||
		!strings.Contains(r.stderr, "equal length") {
		t.Errorf("config validate bad: exit %d\n%s", r.code, r.stderr)
	}

	dir := t.TempDir()
	out := filepath.Join(dir, "aiperf.yaml")
	r = runMain(t, context.Background(), nil, "config", "init", out)
	if r.code != 0 {
		t.Fatalf("config init: exit %d\n%s", r.code, r.stderr)
	}
	if r = runMain(t, context.Background(), nil, "config", "validate", out); r.code != 0 {
		t.Errorf("the starter file does not validate:\n%s", r.stderr)
	}
	if r = runMain(t, context.Background(), nil, "config", "init", out); r.code == 0 {
		t.Error("config init overwrote a file without --force")
	}

	r = runMain(t, context.Background(), nil, "config", "schema")
	var schema map[string]any
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &schema) != nil || r.stdout != string(configfile.Schema()) {
		t.Errorf("config schema: exit %d", r.code)
	}
}

// TestConfigFileSweepEndToEnd runs a config file's sweep against the
// embedded mock server as its own process: one artifact directory per
// variation, each with the swept ISL and the command line's concurrency
// in place of the file's templated one.
func TestConfigFileSweepEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end run")
	}
	dir := t.TempDir()
	p := writeYAML(t, `schemaVersion: "2.0"
variables: {c: 2}
benchmark:
  model: mock-model
  endpoint: {streaming: true}
  dataset: {isl: 32, osl: 4}
  profiling: {concurrency: "{{ c * 4 }}", requests: 4}
sweep:
  parameters:
    datasets.default.prompts.isl: [16, 24]
`)
	cmd := aiperfCmd(t, "profile", "-f", p, "--mock-server", "--ui", "none", "--concurrency", "1", "--output-artifact-dir", dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, isl := range []int{16, 24} {
		doc := readSummary(t, filepath.Join(dir, "isl_"+strconv.Itoa(isl), "profile_export_aiperf.json"))
		var ic struct {
			Datasets []struct {
				Prompts struct{ ISL struct{ Mean int } }
			}
			Phases []struct{ Concurrency int }
		}
		if err := json.Unmarshal(doc["input_config"], &ic); err != nil {
			t.Fatal(err)
		}
		if len(ic.Datasets) != 1 || ic.Datasets[0].Prompts.ISL.Mean != isl || len(ic.Phases) != 1 || ic.Phases[0].Concurrency != 1 {
			t.Errorf("isl_%d: input_config %s", isl, doc["input_config"])
		}
	}
}

// TestConfigExpandMatchesAIPerf: `config expand -f json` prints, for
// AIPerf 0.13's own templates, the document AIPerf's prints (sweep type,
// index, dir_name, label, values) byte for byte; -f yaml is the same
// document; -i implies the full configuration; a bad format or index is a
// usage error.
func TestConfigExpandMatchesAIPerf(t *testing.T) {
	for _, name := range []string{"sweep_with_plot", "speed_bench_sweep", "minimal"} {
		want, err := os.ReadFile(filepath.Join("testdata", "aiperf013", "expand", name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		tmpl := filepath.Join("..", "configfile", "testdata", "aiperf013", "templates", name+".yaml")
		r := runMain(t, context.Background(), nil, "config", "expand", "-f", "json", tmpl)
		if r.code != 0 || r.stdout != string(want) {
			t.Errorf("%s: exit %d\n%s\nwant (AIPerf 0.13)\n%s\nstderr: %s", name, r.code, r.stdout, want, r.stderr)
		}
		r = runMain(t, context.Background(), nil, "config", "expand", "--format", "yaml", tmpl)
		var fromYAML, fromJSON any
		if err := yaml.Unmarshal([]byte(r.stdout), &fromYAML); err != nil || r.code != 0 {
			t.Fatalf("%s -f yaml: exit %d, %v\n%s", name, r.code, err, r.stdout)
		}
		_ = json.Unmarshal(want, &fromJSON)
		if !reflect.DeepEqual(normalizeJSON(t, fromYAML), normalizeJSON(t, fromJSON)) {
			t.Errorf("%s: -f yaml\n%s\nis not the JSON document", name, r.stdout)
		}
	}
	tmpl := filepath.Join("..", "configfile", "testdata", "aiperf013", "templates", "sweep_with_plot.yaml")
	r := runMain(t, context.Background(), nil, "config", "expand", "-f", "json", "-i", "3", tmpl)
	var doc struct {
		Variations []struct {
			Index     int            `json:"index"`
			Benchmark map[string]any `json:"benchmark"`
		} `json:"variations"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || len(doc.Variations) != 1 || doc.Variations[0].Index != 3 || doc.Variations[0].Benchmark == nil {
		t.Errorf("-i 3: exit %d, %v\n%s", r.code, err, r.stdout)
	}
	r = runMain(t, context.Background(), nil, "config", "expand", "-F", tmpl)
	if r.code != 0 || strings.Count(r.stdout, `"endpoint"`) != 9 {
		t.Errorf("-F: exit %d, want 9 full configurations\n%s", r.code, r.stdout)
	}
	for _, args := range [][]string{{"-f", "xml"}, {"-i", "9"}, {"-i", "-2"}} {
		r := runMain(t, context.Background(), nil, append([]string{"config", "expand", tmpl}, args...)...)
		if r.code != 2 {
			t.Errorf("%v: exit %d, want 2 (usage)\n%s", args, r.code, r.stderr)
		}
	}
}

// normalizeJSON round-trips v through JSON so numbers compare alike.
func normalizeJSON(t *testing.T, v any) any {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	_ = json.Unmarshal(data, &out)
	return out
}

// TestConfigInitTemplates: `config init` takes AIPerf 0.13's template
// flags: --list by category (and --category, --verbose), --search,
// --template to stdout or --output (parents made, overwritten), --model
// and --url on the template's own keys; an unknown name fails naming the
// available ones; the starter keeps FILE and --force.
func TestConfigInitTemplates(t *testing.T) {
	r := runMain(t, context.Background(), nil, "config", "init", "--list")
	if r.code != 0 || strings.Count(r.stdout, "\n  ") != 27+7 || !strings.Contains(r.stdout, "Getting Started\n") ||
		strings.Index(r.stdout, "Getting Started") > strings.Index(r.stdout, "Specialized Endpoints") || strings.Contains(r.stdout, "Difficulty") {
		t.Errorf("--list: exit %d\n%s", r.code, r.stdout)
	}
	r = runMain(t, context.Background(), nil, "config", "init", "-l", "-c", "multimodal", "-v")
	if r.code != 0 || !strings.Contains(r.stdout, "multimodal_vision") || !strings.Contains(r.stdout, "audio_multimodal") ||
		strings.Contains(r.stdout, "minimal") || !strings.Contains(r.stdout, "Difficulty") {
		t.Errorf("-l -c multimodal -v: exit %d\n%s", r.code, r.stdout)
	}
	r = runMain(t, context.Background(), nil, "config", "init", "-s", "soak")
	if r.code != 0 || !strings.Contains(r.stdout, "time_based_soak") || strings.Contains(r.stdout, "minimal ") {
		t.Errorf("-s soak: exit %d\n%s", r.code, r.stdout)
	}
	r = runMain(t, context.Background(), nil, "config", "init", "--search", "zzz")
	if r.code != 0 || !strings.Contains(r.stdout, "No templates match 'zzz'.") {
		t.Errorf("--search zzz: exit %d\n%s", r.code, r.stdout)
	}
	r = runMain(t, context.Background(), nil, "config", "init", "-t", "goodput_slo", "-m", "org/m", "-u", "http://127.0.0.1:9")
	if r.code != 0 || !strings.Contains(r.stdout, "model: org/m\n") || !strings.Contains(r.stdout, "url: http://127.0.0.1:9\n") || !strings.Contains(r.stdout, "slos:") {
		t.Errorf("-t goodput_slo -m -u: exit %d\n%s", r.code, r.stdout)
	}
	out := filepath.Join(t.TempDir(), "sub", "bench.yaml")
	for range 2 { // the second write replaces the first, as AIPerf's --output
		r = runMain(t, context.Background(), nil, "config", "init", "--template", "multi_url_load_balancing", "--url", "http://127.0.0.1:9", "--output", out)
		if r.code != 0 || r.stdout != "Wrote multi_url_load_balancing template to "+out+"\n" {
			t.Fatalf("--output: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
	}
	if r = runMain(t, context.Background(), nil, "config", "validate", out); r.code != 0 {
		t.Errorf("the written template does not validate: %s", r.stderr)
	}
	data, _ := os.ReadFile(out)
	if !strings.Contains(string(data), "urls:\n      - http://127.0.0.1:9\n") || strings.Contains(string(data), "server2:8000/v1") {
		t.Errorf("--url on a urls: list:\n%s", data)
	}
	r = runMain(t, context.Background(), nil, "config", "init", "-t", "minimall")
	if r.code != 1 || !strings.Contains(r.stderr, `did you mean "minimal"`) {
		t.Errorf("unknown template: exit %d\n%s", r.code, r.stderr)
	}
	r = runMain(t, context.Background(), nil, "config", "init", "-", "-m", "org/starter")
	if r.code != 0 || !strings.Contains(r.stdout, "model: org/starter\n") || !strings.Contains(r.stdout, "# ") {
		t.Errorf("starter with --model: exit %d\n%s", r.code, r.stdout)
	}
}
