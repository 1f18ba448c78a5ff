package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/option"
	"github.com/aiperf-go/aiperf/internal/transport"
)

var update = flag.Bool("update", false, "rewrite golden files")

// result is what one in-process run of Main produced.
type result struct {
	code           int
	stdout, stderr string
	cfg            *config.Config // as the runner saw it; nil if it did not run
	rio            RunIO
}

// runMain runs Main in-process with a runner that records its inputs and
// returns runErr.
func runMain(t *testing.T, ctx context.Context, runErr error, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	var r result
	env := Env{
		Stdout:  &out,
		Stderr:  &errOut,
		Version: VersionInfo{Version: "v1.2.3", Commit: "abc123", GoVersion: "go1.26.8"},
		Runner: func(_ context.Context, cfg *config.Config, rio RunIO) error {
			c := *cfg
			r.cfg, r.rio = &c, rio
			return runErr
		},
	}
	r.code = Main(ctx, args, env)
	r.stdout, r.stderr = out.String(), errOut.String()
	return r
}

// profile runs `aiperf profile args...` expecting success.
func profile(t *testing.T, args ...string) *config.Config {
	t.Helper()
	r := runMain(t, context.Background(), nil, append([]string{"profile"}, args...)...)
	if r.code != 0 || r.cfg == nil {
		t.Fatalf("aiperf profile %q: exit %d, stderr:\n%s", args, r.code, r.stderr)
	}
	return r.cfg
}

func TestProfileHelpGolden(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"profile", "--help"}, {"profile", "-h"}, {"help", "profile"}} {
		r := runMain(t, context.Background(), nil, args...)
		if r.code != 0 || r.cfg != nil {
			t.Fatalf("aiperf %q: exit %d, ran=%v; want 0 without running", args, r.code, r.cfg != nil)
		}
		golden := filepath.Join("testdata", "profile-help.golden")
		if *update && args[1] == "--help" {
			if err := os.MkdirAll("testdata", 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(golden, []byte(r.stdout), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run with -update to create it)", err)
		}
		if r.stdout != string(want) {
			t.Errorf("aiperf %q output differs from %s (run with -update after checking):\n%s", args, golden, r.stdout)
		}
	}
}

func TestHelpListsEveryFlagOnceWithAliases(t *testing.T) {
	t.Parallel()
	r := runMain(t, context.Background(), nil, "profile", "--help")
	for _, line := range []string{
		"  -m, --model-names, --model <names>",
		"  --prompt-input-tokens-mean, --synthetic-input-tokens-mean, --isl <tokens>",
		"  --arrival-pattern, --request-rate-mode <pattern>",
		"  -vv, --extra-verbose",
		"  --mock-server",
	} {
		if strings.Count(r.stdout, line+"\n") != 1 {
			t.Errorf("help does not contain the line %q exactly once", line)
		}
	}
	for _, section := range []string{"Endpoint:", "Input:", "Tokenizer:", "Input Sequence Length (ISL):",
		"Output Sequence Length (OSL):", "Load Generator:", "Warmup:", "Goodput:", "Output:", "UI:", "Service:", "Exit codes:"} {
		if !strings.Contains(r.stdout, "\n"+section+"\n") {
			t.Errorf("help lacks section %q", section)
		}
	}
	for _, l := range strings.Split(r.stdout, "\n") {
		if len(l) > helpWidth {
			t.Errorf("help line longer than %d: %q", helpWidth, l)
		}
	}
}

func TestVersion(t *testing.T) {
	t.Parallel()
	r := runMain(t, context.Background(), nil, "version")
	want := "aiperf v1.2.3\ncommit: abc123\ngo: go1.26.8 "
	if r.code != 0 || !strings.HasPrefix(r.stdout, want) {
		t.Errorf("aiperf version = %d, %q; want 0, prefix %q", r.code, r.stdout, want)
	}
	r = runMain(t, context.Background(), nil, "--version")
	if r.code != 0 || r.stdout != "aiperf v1.2.3\n" {
		t.Errorf("aiperf --version = %d, %q", r.code, r.stdout)
	}
}

func TestCompletionBash(t *testing.T) {
	t.Parallel()
	r := runMain(t, context.Background(), nil, "completion", "bash")
	if r.code != 0 || !strings.Contains(r.stdout, "aiperf") || len(r.stdout) < 1000 {
		t.Errorf("aiperf completion bash = %d, %d bytes:\n%s", r.code, len(r.stdout), r.stderr)
	}
	// Dynamic completion of an enum flag's values.
	r = runMain(t, context.Background(), nil, "__complete", "profile", "--endpoint-type", "")
	if r.code != 0 || !strings.Contains(r.stdout, "chat\n") || !strings.Contains(r.stdout, "completions\n") {
		t.Errorf("completion of --endpoint-type = %d, %q", r.code, r.stdout)
	}
	r = runMain(t, context.Background(), nil, "__complete", "profile", "--stream")
	if !strings.Contains(r.stdout, "--streaming") {
		t.Errorf("completion of --stream = %q; want --streaming", r.stdout)
	}
}

func TestUnknownCommand(t *testing.T) {
	t.Parallel()
	r := runMain(t, context.Background(), nil, "profiel")
	if r.code != 2 || !strings.Contains(r.stderr, `unknown command "profiel"`) {
		t.Errorf("aiperf profiel = %d, %q; want 2 and unknown command", r.code, r.stderr)
	}
}

func TestExitCodes(t *testing.T) {
	t.Parallel()
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name   string
		ctx    context.Context
		runErr error
		code   int
		stderr string
	}{
		{"success", context.Background(), nil, 0, ""},
		{"failure", context.Background(), errors.New("all 10 requests failed"), 1, "Error: all 10 requests failed\n"},
		{"exit error", context.Background(), &config.ExitError{Code: 1, Err: errors.New("boom")}, 1, "Error: boom\n"},
		{"silent exit error", context.Background(), &config.ExitError{Code: 3}, 3, ""},
		{"interrupted with error", cancelled, context.Canceled, 130, "Error: context canceled\n"},
		{"interrupted cleanly", cancelled, nil, 130, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := runMain(t, tt.ctx, tt.runErr, "profile", "-m", "m")
			if r.code != tt.code || r.stderr != tt.stderr {
				t.Errorf("exit = %d, stderr %q; want %d, %q", r.code, r.stderr, tt.code, tt.stderr)
			}
		})
	}
}

func TestDefaultsReachRunner(t *testing.T) {
	t.Parallel()
	cfg := profile(t, "-m", "mock-model")
	want := config.Defaults()
	want.Endpoint.ModelNames = []string{"mock-model"}
	want.Network.HTTPClient = config.ClientLean // resolved, so input_config names the engine
	got, _ := json.Marshal(cfg)
	wantJSON, _ := json.Marshal(want)
	if string(got) != string(wantJSON) {
		t.Errorf("config = %s\nwant     %s", got, wantJSON)
	}
	if cfg.Output.ArtifactDirExplicit {
		t.Errorf("ArtifactDirExplicit = true without --output-artifact-dir")
	}
	if cfg.RequestCount() != 10 || cfg.Concurrency() != 1 || cfg.Mode() != config.ModeConcurrency {
		t.Errorf("resolved load = %d requests, concurrency %d, %s", cfg.RequestCount(), cfg.Concurrency(), cfg.Mode())
	}
}

func TestFlagMapping(t *testing.T) {
	t.Parallel()
	cfg := profile(t,
		"-m", "a,b", "-m", "c",
		"-u", "localhost:8000/", "--url", "https://h2:9/v1/", "h3",
		"--endpoint-type", "Completions", "--custom-endpoint", "/x/y", "--streaming",
		"--api-key", "sk-1", "--request-timeout-seconds", "2.5",
		"--use-server-token-count", "--use-legacy-max-tokens",
		"--extra-inputs", "temperature:0.7", "ignore_eos:true", "stop:[\"a\",\"b\"]",
		"--extra-inputs", `{"nested": {"x": 1}, "name": "n"}`, "--extra-inputs", "code:007,flag:True",
		"-H", "X-A:1", "B:two words", "--header", `{"Authorization": "Bearer t"}`,
		"--random-seed", "7", "--num-dataset-entries", "5",
		"--tokenizer", "builtin", "--isl", "50", "--isl-stddev", "2", "--osl", "8", "--osl-stddev", "1",
		"--request-rate", "2.5", "--concurrency", "4", "--arrival-pattern", "gamma", "--arrival-smoothness", "3",
		"--request-count", "20", "--benchmark-duration", "60", "--benchmark-grace-period", "inf",
		"--warmup-request-count", "3", "--warmup-duration", "1.5",
		"--goodput", "time_to_first_token:100 request_latency:250 inter_token_latency:5",
		"--artifact-dir", "out", "--profile-export-prefix", "run1", "--export-level", "RAW",
		"--ui", "simple", "--log-level", "debug",
	)
	check := func(name string, got, want any) {
		t.Helper()
		g, w := canonicalJSON(t, got), canonicalJSON(t, want)
		if g != w {
			t.Errorf("%s = %s; want %s", name, g, w)
		}
	}
	check("models", cfg.Endpoint.ModelNames, []string{"a", "b", "c"})
	check("urls", cfg.Endpoint.URLs, []string{"http://localhost:8000", "https://h2:9/v1", "http://h3"})
	check("type", cfg.Endpoint.Type, "completions")
	check("custom endpoint", cfg.Endpoint.CustomEndpoint, "/x/y")
	check("streaming", cfg.Endpoint.Streaming, true)
	if cfg.Endpoint.APIKey != "sk-1" {
		t.Errorf("api key = %q", string(cfg.Endpoint.APIKey))
	}
	check("timeout", cfg.Endpoint.TimeoutSeconds, 2.5)
	check("server tokens", cfg.Endpoint.UseServerTokenCount, true)
	check("legacy", cfg.Endpoint.UseLegacyMaxTokens, true)
	var extra []string
	for _, x := range cfg.Input.Extra {
		extra = append(extra, x.Key+"="+string(x.Value))
	}
	check("extra", extra, []string{`temperature=0.7`, `ignore_eos=true`, `stop=["a","b"]`,
		`nested={"x":1}`, `name="n"`, `code="007"`, `flag=true`})
	var headers []string
	for _, h := range cfg.Input.Headers {
		headers = append(headers, h.Name+"="+h.Value)
	}
	check("headers", headers, []string{"X-A=1", "B=two words", "Authorization=Bearer t"})
	check("seed", cfg.Input.RandomSeed, 7)
	check("entries", cfg.DatasetEntries(), 5)
	check("tokenizer", cfg.Tokenizer.Name, "builtin")
	check("isl", cfg.Input.InputTokens, config.InputTokens{Mean: 50, Stddev: 2})
	check("osl", cfg.Input.OutputTokens, map[string]any{"mean": 8, "stddev": 1})
	check("load", cfg.Load, map[string]any{"concurrency": 4, "request_rate": 2.5, "arrival_pattern": "gamma",
		"arrival_smoothness": 3, "request_count": 20, "benchmark_duration": 60, "benchmark_grace_period": "inf"})
	check("warmup", cfg.Warmup, map[string]any{"warmup_request_count": 3, "warmup_duration": 1.5})
	check("goodput", cfg.Input.Goodput, map[string]float64{"time_to_first_token": 100, "request_latency": 250, "inter_token_latency": 5})
	check("output", cfg.Output, map[string]any{"artifact_directory": "out", "profile_export_prefix": "run1", "export_level": "raw"})
	if !cfg.Output.ArtifactDirExplicit {
		t.Errorf("ArtifactDirExplicit = false with --artifact-dir")
	}
	check("ui", cfg.Service.UIType, "simple")
	check("log level", cfg.LogLevel(), "DEBUG")
}

func TestEveryAliasAndSnakeCase(t *testing.T) {
	t.Parallel()
	// Each alias sets its canonical flag; checked through the JSON of the
	// config so one table covers every section.
	tests := []struct {
		args []string
		path string // section.field in the config JSON
		want string // JSON
	}{
		{[]string{"--model", "x"}, "endpoint.model_names", `["x"]`},
		{[]string{"--model_names", "x"}, "endpoint.model_names", `["x"]`},
		{[]string{"--endpoint", "/p"}, "endpoint.custom_endpoint", `"/p"`},
		{[]string{"--custom_endpoint", "/p"}, "endpoint.custom_endpoint", `"/p"`},
		{[]string{"--endpoint_type", "completions"}, "endpoint.type", `"completions"`},
		{[]string{"-u", "h:1"}, "endpoint.urls", `["http://h:1"]`},
		{[]string{"--request_timeout_seconds", "5"}, "endpoint.timeout_seconds", `5`},
		{[]string{"--use_server_token_count"}, "endpoint.use_server_token_count", `true`},
		{[]string{"--use_legacy_max_tokens"}, "endpoint.use_legacy_max_tokens", `true`},
		{[]string{"--extra_inputs", "a:1"}, "input.extra", `[{"key":"a","value":1}]`},
		{[]string{"-H", "A:b"}, "input.headers", `[{"name":"A","value":"b"}]`},
		{[]string{"--random_seed", "3"}, "input.random_seed", `3`},
		{[]string{"--num-prompts", "4"}, "input.num_dataset_entries", `4`},
		{[]string{"--num_prompts", "4"}, "input.num_dataset_entries", `4`},
		{[]string{"--num_dataset_entries", "4"}, "input.num_dataset_entries", `4`},
		{[]string{"--isl", "9"}, "input.input_tokens", `{"mean":9,"stddev":0}`},
		{[]string{"--synthetic-input-tokens-mean", "9"}, "input.input_tokens", `{"mean":9,"stddev":0}`},
		{[]string{"--synthetic_input_tokens_mean", "9"}, "input.input_tokens", `{"mean":9,"stddev":0}`},
		{[]string{"--prompt_input_tokens_mean", "9"}, "input.input_tokens", `{"mean":9,"stddev":0}`},
		{[]string{"--isl-stddev", "2"}, "input.input_tokens", `{"mean":550,"stddev":2}`},
		{[]string{"--isl_stddev", "2"}, "input.input_tokens", `{"mean":550,"stddev":2}`},
		{[]string{"--synthetic-input-tokens-stddev", "2"}, "input.input_tokens", `{"mean":550,"stddev":2}`},
		{[]string{"--osl", "7"}, "input.output_tokens", `{"mean":7,"stddev":0}`},
		{[]string{"--output-tokens-mean", "7"}, "input.output_tokens", `{"mean":7,"stddev":0}`},
		{[]string{"--output_tokens_mean", "7"}, "input.output_tokens", `{"mean":7,"stddev":0}`},
		{[]string{"--osl", "7", "--osl-stddev", "1"}, "input.output_tokens", `{"mean":7,"stddev":1}`},
		{[]string{"--osl", "7", "--output-tokens-stddev", "1"}, "input.output_tokens", `{"mean":7,"stddev":1}`},
		{[]string{"--osl", "7", "--prompt_output_tokens_stddev", "1"}, "input.output_tokens", `{"mean":7,"stddev":1}`},
		{[]string{"--tokenizer", "builtin"}, "tokenizer.name", `"builtin"`},
		{[]string{"--request-rate", "2", "--request-rate-mode", "constant"}, "loadgen.arrival_pattern", `"constant"`},
		{[]string{"--request_rate", "2", "--arrival_pattern", "constant"}, "loadgen.arrival_pattern", `"constant"`},
		{[]string{"--request-rate", "2", "--vllm-burstiness", "2"}, "loadgen.arrival_smoothness", `2`},
		{[]string{"--request-rate", "2", "--arrival_smoothness", "2"}, "loadgen.arrival_smoothness", `2`},
		{[]string{"--num-requests", "11"}, "loadgen.request_count", `11`},
		{[]string{"--num_requests", "11"}, "loadgen.request_count", `11`},
		{[]string{"--request_count", "11"}, "loadgen.request_count", `11`},
		{[]string{"--benchmark_duration", "3", "--benchmark_grace_period", "1"}, "loadgen.benchmark_grace_period", `1`},
		{[]string{"--num-warmup-requests", "2"}, "warmup.warmup_request_count", `2`},
		{[]string{"--num_warmup_requests", "2"}, "warmup.warmup_request_count", `2`},
		{[]string{"--warmup_request_count", "2"}, "warmup.warmup_request_count", `2`},
		{[]string{"--warmup_duration", "2"}, "warmup.warmup_duration", `2`},
		{[]string{"--artifact-dir", "d"}, "output.artifact_directory", `"d"`},
		{[]string{"--artifact_dir", "d"}, "output.artifact_directory", `"d"`},
		{[]string{"--output_artifact_dir", "d"}, "output.artifact_directory", `"d"`},
		{[]string{"--profile-export-file", "p"}, "output.profile_export_prefix", `"p"`},
		{[]string{"--profile_export_prefix", "p"}, "output.profile_export_prefix", `"p"`},
		{[]string{"--profile-export-level", "summary"}, "output.export_level", `"summary"`},
		{[]string{"--export_level", "summary"}, "output.export_level", `"summary"`},
		{[]string{"--ui", "none"}, "service.ui_type", `"none"`},
		{[]string{"--ui_type", "none"}, "service.ui_type", `"none"`},
		{[]string{"--log_level", "warning"}, "service.log_level", `"WARNING"`},
		{[]string{"-v"}, "service.verbose", `true`},
		{[]string{"--extra_verbose"}, "service.extra_verbose", `true`},
		{[]string{"--mock_server"}, "endpoint.mock_server", `true`},
		{[]string{"--goodput", "ttft:1"}, "input.goodput", `{"ttft":1}`},
		{[]string{"--concurrency=3"}, "loadgen.concurrency", `3`},
		{[]string{"-m=x"}, "endpoint.model_names", `["x"]`},
		{[]string{"-mx"}, "endpoint.model_names", `["x"]`},
		{[]string{"-HA:b"}, "input.headers", `[{"name":"A","value":"b"}]`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			args := tt.args
			if !strings.HasPrefix(tt.path, "endpoint.model_names") {
				args = append([]string{"-m", "m"}, args...)
			}
			cfg := profile(t, args...)
			if got := jsonPath(t, cfg, tt.path); got != tt.want {
				t.Errorf("%s = %s; want %s", tt.path, got, tt.want)
			}
		})
	}
}

// canonicalJSON marshals v with object keys sorted, so structs and maps
// compare by content.
func canonicalJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var generic any
	if err := json.Unmarshal(b, &generic); err != nil {
		t.Fatal(err)
	}
	b, err = json.Marshal(generic)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// jsonPath returns the JSON of one "section.field" of cfg.
func jsonPath(t *testing.T, cfg *config.Config, path string) string {
	t.Helper()
	b, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]map[string]json.RawMessage
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	section, field, _ := strings.Cut(path, ".")
	return string(doc[section][field])
}

func TestVerbosity(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args          []string
		verbose, extr bool
		level         config.LogLevel
		ui            config.UIType
	}{
		{nil, false, false, config.LogInfo, config.UINone},
		{[]string{"-v"}, true, false, config.LogDebug, config.UISimple},
		{[]string{"--verbose"}, true, false, config.LogDebug, config.UISimple},
		{[]string{"-vv"}, false, true, config.LogTrace, config.UISimple},
		{[]string{"-vvv"}, false, true, config.LogTrace, config.UISimple},
		{[]string{"--extra-verbose"}, false, true, config.LogTrace, config.UISimple},
		{[]string{"-vv", "--log-level", "ERROR"}, false, true, config.LogTrace, config.UISimple},
		{[]string{"-v", "-m", "n"}, true, false, config.LogDebug, config.UISimple},
	}
	for _, tt := range tests {
		cfg := profile(t, append([]string{"-m", "m"}, tt.args...)...)
		if cfg.Service.Verbose != tt.verbose || cfg.Service.ExtraVerbose != tt.extr ||
			cfg.LogLevel() != tt.level || cfg.UIType(false) != tt.ui {
			t.Errorf("%q: verbose=%v extra=%v level=%v ui=%v; want %v %v %v %v", tt.args,
				cfg.Service.Verbose, cfg.Service.ExtraVerbose, cfg.LogLevel(), cfg.UIType(false),
				tt.verbose, tt.extr, tt.level, tt.ui)
		}
	}
}

func TestUsageErrorsAllListedExit2(t *testing.T) {
	t.Parallel()
	r := runMain(t, context.Background(), nil, "profile",
		"--concurrency", "8,x", "--bogus-flag", "3", "--isl", "x", "--request_count", "0",
		"--arrival-pattern", "gamma", "--benchmark-grace-period", "4", "--endpoint-type", "bogus",
		"--streaming=maybe", "stray", "-Z", "--arrival-smoothness", "2", "--random-seed", "-1",
		"--goodput", "ttft", "--extra-inputs", "novalue", "-H", "nocolon", "--export-level", "all",
		"--requst-count", "5", "--osl")
	if r.code != 2 {
		t.Fatalf("exit = %d; want 2\n%s", r.code, r.stderr)
	}
	if r.cfg != nil {
		t.Fatalf("the runner ran despite usage errors")
	}
	want := []string{
		"Error: invalid aiperf profile usage (19 problems):",
		"  --bogus-flag: unknown flag",
		"  -Z: unknown flag",
		"  --requst-count: unknown flag; did you mean --request-count?",
		"  --osl (--prompt-output-tokens-mean): needs a value",
		`  unexpected argument "stray": profile takes only flags`,
		`  --concurrency: invalid integer "x"`,
		`  --isl (--prompt-input-tokens-mean): invalid integer "x"`,
		`  --streaming: invalid boolean "maybe" (use true or false)`,
		`  --goodput: "ttft" is not metric:value`,
		`  --extra-inputs: "novalue" is not key:value or a JSON object`,
		`  -H (--header): "nocolon" is not Name:Value or a JSON object`,
		"  --model-names: at least one model name is required (-m NAME)",
		`  --endpoint-type: invalid choice "bogus" (choose from audio_transcription, chat, cohere_rankings, completions, responses, messages, chat_embeddings, embeddings, hf_tei_rankings, huggingface_generate, image_generation, image_edit, video_generation, image_retrieval, nim_embeddings, nim_rankings, solido_rag, raw, template)`,
		"  --random-seed: must be >= 0, got -1",
		"  --request_count (--request-count): must be >= 1, got 0",
		"  --benchmark-grace-period: requires --benchmark-duration: the grace period only follows a duration-bounded run",
		"  --arrival-pattern: requires --request-rate (without it requests are sent as fast as --concurrency allows)",
		"  --arrival-smoothness: requires --request-rate with --arrival-pattern gamma",
		`  --export-level: invalid choice "all" (choose from summary, records, raw)`,
		"Run 'aiperf profile --help' for usage.",
	}
	if r.stderr != strings.Join(want, "\n")+"\n" {
		t.Errorf("stderr =\n%s\nwant\n%s", r.stderr, strings.Join(want, "\n"))
	}
}

func TestCLICommandRedacted(t *testing.T) {
	t.Parallel()
	// --api-key is given once per command line: a second one is refused,
	// as AIPerf refuses it.
	for _, c := range []struct {
		args    []string
		secrets []string
		want    string
	}{
		{[]string{"--api-key", "sk-A", "-H", "Authorization:Bearer sk-C", "X-Trace:ok", "--header={\"X-Api-Key\":\"sk-D\",\"X-Ok\":\"v\"}",
			"-HX-Auth-Token:sk-E", "-u", "http://user:sk-F@h:1/v1"}, []string{"sk-A", "sk-C", "sk-D", "sk-E", "sk-F"},
			`aiperf profile -m 'mock-model' --api-key <redacted> -H 'Authorization:<redacted>' ` +
				`'X-Trace:ok' --header={"X-Api-Key":"<redacted>","X-Ok":"v"} -HX-Auth-Token:<redacted> ` +
				`-u 'http://<redacted>@h:1/v1' --concurrency 2 --streaming --ui 'none'`},
		{[]string{"--api_key=sk-B"}, []string{"sk-B"},
			`aiperf profile -m 'mock-model' --api_key=<redacted> --concurrency 2 --streaming --ui 'none'`},
	} {
		args := append(append([]string{"profile", "-m", "mock-model"}, c.args...), "--concurrency", "2", "--streaming", "--ui", "none")
		r := runMain(t, context.Background(), nil, args...)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		got := r.rio.CLICommand
		for _, secret := range c.secrets {
			if strings.Contains(got, secret) {
				t.Errorf("CLICommand leaks %s: %s", secret, got)
			}
		}
		if got != c.want {
			t.Errorf("CLICommand =\n%s\nwant\n%s", got, c.want)
		}
	}
}

func TestRunIO(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	var got RunIO
	env := Env{Stdout: &out, IsTTY: true, Runner: func(_ context.Context, _ *config.Config, rio RunIO) error {
		got = rio
		return nil
	}}
	if code := Main(context.Background(), []string{"profile", "-m", "m"}, env); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if !got.IsTTY || got.Stdout != &out || got.Stderr == nil || got.CLICommand != "aiperf profile -m 'm'" {
		t.Errorf("RunIO = %+v", got)
	}
}

// TestNetHTTPRefusedForHTTP11: the old switch to net/http's Transport
// for HTTP/1.1 stops the run before it starts (exit 2), naming the flag
// or variable, the reason and where the figures are; lean and the HTTP/2
// engine still run.
func TestNetHTTPRefusedForHTTP11(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, env, refused string
		args               []string
		engine             config.HTTPClient // "" = refused
	}{
		{name: "flag", args: []string{"--http-client", "net/http"}, refused: "--http-client"},
		{name: "env", env: "net/http", refused: config.EnvHTTPClient},
		{name: "lean flag", args: []string{"--http-client", "lean"}, engine: config.ClientLean},
		{name: "lean env", env: "lean", engine: config.ClientLean},
		{name: "h2", env: "net/http", args: []string{"--http-version", "2"}, engine: config.ClientNetHTTP},
		{name: "auto", args: []string{"--http-version", "auto"}, engine: config.ClientLean},
		{name: "auto flag", args: []string{"--http-version", "auto", "--http-client", "net/http"}, refused: "--http-client"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var out, errOut bytes.Buffer
			var ran *config.Config
			env := Env{Stdout: &out, Stderr: &errOut,
				Getenv: func(k string) string {
					if k == config.EnvHTTPClient {
						return tc.env
					}
					return ""
				},
				Runner: func(_ context.Context, cfg *config.Config, _ RunIO) error { ran = cfg; return nil },
			}
			code := Main(context.Background(), append([]string{"profile", "-m", "m"}, tc.args...), env)
			if tc.engine != "" {
				if code != 0 || ran == nil || ran.Network.HTTPClient != tc.engine {
					t.Fatalf("exit %d, ran %v; want engine %s\n%s", code, ran != nil, tc.engine, errOut.String())
				}
				return
			}
			want := "  " + tc.refused + `: net/http is not an HTTP/1.1 engine any more: HTTP/1.1 runs on the lean client only, decided by measurement`
			if code != 2 || ran != nil || !strings.Contains(errOut.String(), want) || !strings.Contains(errOut.String(), `BENCHMARKS.md, "Transport truth"`) {
				t.Fatalf("exit %d, ran %v, stderr:\n%s\nwant exit 2 and %q", code, ran != nil, errOut.String(), want)
			}
		})
	}
}

// TestHeaderLimitDefault: the default that --http-max-response-header-bytes
// and its config-file key describe is the transport's.
func TestHeaderLimitDefault(t *testing.T) {
	o, ok := option.ByName("http-max-response-header-bytes")
	if !ok {
		t.Fatal("no --http-max-response-header-bytes option")
	}
	want := strconv.Itoa(transport.DefaultMaxResponseHeaderBytes)
	if !strings.Contains(o.Usage, want+" ") || len(o.Keys) != 1 || !strings.Contains(o.Keys[0].Doc, want+" ") {
		t.Errorf("usage %q, keys %+v; want both to name the default %s", o.Usage, o.Keys, want)
	}
}
