package internal_test

import (
	"bytes"
	"encoding/json"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/aiperf-go/aiperf"

// leaves may be imported by any package that is allowed internal imports at all.
// internal/sla (the SLA filter model) is a leaf so that timing (adaptive
// scale), the search and the experiment runner can share it. internal/live
// (a run's live snapshots and the Observer interface) is a leaf so that the
// terminal views and the live integrations all read the same snapshots.
// internal/pyrand (Python's and numpy's generators) serves dataset and
// timing alike. internal/metrics/stats (numpy's percentile, summaries,
// Finite) is the one copy of the statistics every layer computes, and
// internal/pyfmt (Python's spelling of floats, strings and grouped
// numbers) the one copy of those rules.
var leaves = []string{"internal/pyfmt", "internal/sigv4", "internal/eventstream", "internal/sagemaker", "internal/record", "internal/clock", "internal/tokenizer", "internal/userfile", "internal/sla", "internal/live", "internal/pyrand", "internal/fdlimit", "internal/metrics/stats", "internal/saturation"}

// allowed lists, per package, the internal packages it may import besides the
// leaves. The data flows config -> dataset -> timing -> worker (endpoint +
// transport) -> record -> metrics -> export; a package imports what is
// upstream of it, never what is downstream. Packages marked isolated import no
// internal package at all (mockserver must stay standard-library only, so a
// bug cannot hide on both sides of the wire).
var allowed = map[string][]string{
	"cmd/aiperf": {"internal/cli"},
	// doccheck is the documentation test (test files only): it checks
	// every documented command through cli and kubecli.
	"internal/doccheck": {},
	// aiperf-kube is aiperf's command line with `aiperf kube` built in;
	// kubecli is that command and the only importer of the Kubernetes
	// packages besides kube itself.
	"cmd/aiperf-kube": {"internal/cli", "internal/kubecli"},
	// clitest: the end-to-end test helpers of cli and kubecli.
	"internal/cli/clitest": {"internal/benchmark", "internal/environ"},
	"internal/kubecli":     {"internal/cli", "internal/config", "internal/configfile", "internal/kube", "internal/kube/api/v1alpha1", "internal/kube/operator"},
	"internal/cli": {"internal/configfile", "internal/config", "internal/option", "internal/benchmark", "internal/experiment", "internal/compare", "internal/metricview", "internal/llmd", "internal/results", "internal/search", "internal/builtin", "internal/plugin", "internal/mockserver", "internal/ui", "internal/chattemplate", "internal/report", "internal/export",
		"internal/api", "internal/otel", "internal/mlflow", "internal/wandb", "internal/accuracy", "internal/metrics", "internal/endpoint", "internal/transport", "internal/tokenizer/hub", // integrations, chat
		"internal/dataset", "internal/dataset/loader", "internal/dataset/agenticcode", // synthesize and validate are dataset tools, not runs
		"internal/doctor", "internal/selftest"},
	"internal/benchmark": {"internal/accuracy", "internal/config", "internal/configfile", "internal/builtin", "internal/plugin", "internal/dataset", "internal/dataset/loader", "internal/dataset/synthesis", "internal/dataset/media", "internal/dataset/public", "internal/timing", "internal/worker", "internal/endpoint", "internal/transport", "internal/metrics", "internal/metrics/stats", "internal/export", "internal/ui", "internal/chattemplate", "internal/verdict", "internal/metricview", "internal/llmd", "internal/adaptive",
		"internal/controlhook", "internal/telemetry/servermetrics", "internal/telemetry/gpu", "internal/telemetry/dcgm", "internal/telemetry/nvml", "internal/telemetry/energy", "internal/telemetry/netlatency",
		"internal/cluster", // --workers: the controller-worker protocol
		"internal/clienthealth", "internal/cancellation", "internal/readiness", "internal/connbudget",
		"internal/servertrace", "internal/validity", "internal/doctor",
		"internal/remote", "internal/tokenizer/hub"}, // remote --input-file
	// kube/operator: the AIPerfJob reconciler (controller-runtime lives
	// only here) builds its objects with kube's builders.
	"internal/kube/operator": {"internal/kube", "internal/kube/api/v1alpha1"},
	"internal/builtin": {"internal/accuracy", "internal/plugin", "internal/endpoint", "internal/endpoint/openai", "internal/endpoint/anthropic",
		"internal/endpoint/embeddings", "internal/endpoint/media", "internal/endpoint/rankings", "internal/endpoint/raw",
		"internal/endpoint/solido", "internal/endpoint/template", "internal/endpoint/tgi",
		"internal/dataset", "internal/dataset/loader", "internal/dataset/public", "internal/timing", "internal/export", "internal/search"},
	"internal/worker": {"internal/timing", "internal/dataset", "internal/endpoint", "internal/transport"},
	// clienthealth judges the load generator from its records, its
	// scheduler's counts and its transport's connection events.
	"internal/clienthealth": {"internal/metrics", "internal/timing", "internal/transport", "internal/validity"},
	// doctor judges the machine and the configuration before a run: it
	// reads the tokenizer and its chat template the way the dataset does,
	// and shares the machine readers of the validity verdict.
	"internal/doctor": {"internal/config", "internal/validity", "internal/chattemplate", "internal/dataset/synthesis"},
	// selftest runs the profile pipeline against the embedded mock and
	// checks it against the mock's record.
	"internal/selftest": {"internal/benchmark", "internal/config", "internal/mockserver", "internal/results"},
	// servertrace receives servers' per-request OTLP spans and joins them
	// to records (record is a leaf).
	"internal/servertrace": {},
	// readiness probes a server with the run's endpoint settings.
	"internal/readiness": {"internal/config"},
	// cancellation wraps the transport client's sends.
	"internal/cancellation": {"internal/transport"},
	// connbudget sizes the process (descriptors, buffers, source
	// addresses, GC target) for the run's connections.
	"internal/connbudget": {},
	"internal/endpoint":   {"internal/dataset"},
	// One package per API family; each formats bodies from dataset turns
	// with the host's building blocks. chat_embeddings reuses chat's body.
	"internal/endpoint/openai":     {"internal/endpoint", "internal/dataset"},
	"internal/endpoint/anthropic":  {"internal/endpoint", "internal/dataset"},
	"internal/endpoint/embeddings": {"internal/endpoint", "internal/dataset", "internal/endpoint/openai"},
	"internal/endpoint/media":      {"internal/endpoint", "internal/dataset"},
	"internal/endpoint/rankings":   {"internal/endpoint", "internal/dataset"},
	"internal/endpoint/raw":        {"internal/endpoint", "internal/dataset"},
	"internal/endpoint/solido":     {"internal/endpoint", "internal/dataset"},
	"internal/endpoint/template":   {"internal/endpoint", "internal/dataset"},
	"internal/endpoint/tgi":        {"internal/endpoint", "internal/dataset"},
	// endpointtest: the endpoint packages' shared test helpers.
	"internal/endpoint/endpointtest": {"internal/endpoint"},
	"internal/metrics":               {"internal/metrics/stats", "internal/metrics/sweep"},
	"internal/export":                {"internal/metrics"},
	// adaptive is the adaptive-scale controller: windows in, decisions out.
	"internal/adaptive": {},
	// live reads snapshots' windows with the statistics leaf only.
	"internal/live":      {},
	"internal/timing":    {},
	"internal/transport": {},
	// dataset is the model (conversations, turns); its producers sit
	// beside it: synthesis (prompt text and corpora), loader (the file
	// formats and traces, prompts from synthesis), media (synthetic images,
	// audio and video).
	"internal/dataset":           {},
	"internal/dataset/synthesis": {"internal/dataset", "internal/chattemplate"},
	"internal/dataset/loader":    {"internal/dataset", "internal/dataset/synthesis", "internal/dataset/hfdata", "internal/tokenizer/hub"},
	"internal/dataset/media":     {"internal/dataset"},
	// dataset/hfdata finds and reads hub dataset rows; dataset/public maps
	// them to conversations.
	"internal/dataset/hfdata": {"internal/tokenizer/hub"},
	"internal/dataset/public": {"internal/dataset", "internal/dataset/loader", "internal/dataset/media", "internal/dataset/hfdata", "internal/dataset/sound", "internal/tokenizer/hub"},
	"internal/tokenizer":      {"internal/tokenizer/hf", "internal/tokenizer/hub"},
	// configfile reads YAML config files into a config.Config.
	"internal/configfile": {"internal/config", "internal/option"},
	// option is the one table of `aiperf profile` options that the
	// command line and the config file both derive from.
	"internal/option": {"internal/config", "internal/search"},
	// Telemetry sources (one package per source) read the world outside the
	// request path; they import no other internal package but their own
	// shared pieces.
	"internal/telemetry/prom": {},
	// The parent package holds what the sources share (the polling loop,
	// the live-panel sink).
	"internal/telemetry": {"internal/live"},
	// Server metrics and GPU telemetry write their own artifacts with the
	// export package's writers (AIPerf's spelling of numbers and files).
	"internal/telemetry/servermetrics": {"internal/telemetry", "internal/telemetry/prom", "internal/live", "internal/export", "internal/metrics/stats"},
	"internal/telemetry/gpu":           {"internal/telemetry", "internal/telemetry/prom", "internal/live", "internal/export", "internal/metrics/stats"},
	// The network round-trip probes write their JSONL with the
	// export package's writers.
	"internal/telemetry/netlatency": {"internal/telemetry", "internal/export", "internal/metrics/stats"},
	"internal/telemetry/dcgm":       {"internal/telemetry/gpu", "internal/telemetry/prom", "internal/telemetry/amd"},
	// amd maps AMD's device-metrics exporter page; the DCGM source hands
	// it the pages it recognises.
	"internal/telemetry/amd":  {"internal/telemetry/gpu", "internal/telemetry/prom"},
	"internal/telemetry/nvml": {"internal/telemetry/gpu"},
	// energy joins GPU telemetry with the metrics summary (AIPerf's
	// post-aggregation analyzer).
	"internal/telemetry/energy": {"internal/telemetry/gpu", "internal/metrics", "internal/export"},
	// controlhook calls the server's control plane (KV-cache reset,
	// profiler); it knows HTTP only.
	"internal/controlhook": {},
	// bench/benchtool reads the mock's request record (its schema type),
	// summarizes with the same percentile code as the metrics, and times
	// the pacer's own sleeper (wakefloor -sleeper: internal/timing).
	"bench/benchtool": {"internal/mockserver", "internal/metrics/stats", "internal/timing"},
	// experiment runs a benchmark several times (sweeps, repeated runs,
	// searches) and combines the runs' artifacts; benchmark stays the root
	// of one run.
	"internal/experiment": {"internal/benchmark", "internal/config", "internal/configfile", "internal/export", "internal/metrics/stats", "internal/results", "internal/verdict", "internal/search"},
	// verdict reads metric values (any sla.Source) for the use cases.
	"internal/verdict": {},
	// search plans adaptive searches: pure planners over SLA filters.
	"internal/search": {},
	// ui draws live snapshots (a leaf) and nothing else.
	"internal/ui": {},
	// report draws finished runs from their artifacts (read by results),
	// naming and orienting metrics with the metric registry.
	"internal/report": {"internal/results", "internal/metrics", "internal/metrics/stats"},
	// metricview computes peer latency definitions from per-request records.
	"internal/metricview": {"internal/results", "internal/metrics/stats"},
	// llmd writes a run's summary as an llm-d benchmark report.
	"internal/llmd": {"internal/results", "internal/metrics/stats"},
	// compare ranks finished runs read back from their artifacts.
	"internal/compare": {"internal/results", "internal/metricview", "internal/metrics/stats", "internal/report"},
	// One package per integration; they read the run through
	// package live and its artifacts through internal/results.
	"internal/api":      {"internal/results"},
	"internal/otel":     {},
	"internal/mlflow":   {"internal/results"},
	"internal/wandb":    {"internal/results"},
	"internal/accuracy": {"internal/dataset", "internal/dataset/hfdata", "internal/tokenizer/hub", "internal/pyrand"},
	// agenticcode synthesizes agentic-coding sessions as dataset rows.
	"internal/dataset/agenticcode": {"internal/dataset/loader"},
	// cluster carries credits out to remote workers and their
	// records back; a remote agent drives the same worker pool as a local
	// run. clusterpb is its generated wire schema.
	"internal/cluster": {"internal/cluster/clusterpb", "internal/timing", "internal/worker"},
	// remote fetches hf://, s3:// and https:// inputs into a cache.
	"internal/remote": {"internal/tokenizer/hub"},
	// sagemakertest: a SageMaker Runtime-shaped server for tests.
	"internal/sagemaker/sagemakertest": {"internal/sigv4/sigv4test"},
}

// environ declares and reads the environment variables: every package but
// mockserver may import it, isolated ones too, so that no other package
// reads the process environment itself.
const environ = "internal/environ"

// isolated packages import nothing internal, not even the leaves (but
// environ, and pyfmt, which itself imports nothing internal: the one copy
// of Python's spellings).
var isolated = []string{
	environ,
	"internal/config", "internal/record", "internal/clock", "internal/plugin",
	// validity judges a run's fidelity from plain figures.
	"internal/validity",
	// saturation detects a server past its capacity from plain points.
	"internal/saturation",
	"internal/tokenizer/hf", "internal/tokenizer/hub", "internal/tokenizer/hub/hubtest", "internal/dataset/sound", "internal/tokenizer/testmodels", "internal/chattemplate", "internal/mockserver", "internal/metrics/stats", "internal/userfile", "internal/sla", "internal/pyrand", "internal/metrics/sweep", "internal/fdlimit", "internal/pyfmt",
	// results reads finished runs' artifacts back; it knows file shapes only.
	"internal/results", "internal/cluster/clusterpb",
	// sigv4 signs AWS requests; sigv4test checks signatures with the AWS
	// SDK (tests only).
	"internal/sigv4", "internal/sigv4/sigv4test",
	// eventstream decodes AWS's binary response framing; sagemaker
	// holds SageMaker Runtime's paths and headers.
	"internal/eventstream", "internal/sagemaker",
	// testenv finds the system programs some tests drive (tmux, ffmpeg);
	// testenv/golden compares test output with golden files.
	"internal/testenv", "internal/testenv/golden",
	// kube turns a benchmark into client-go objects; it knows
	// the command lines of profile and cluster-worker, not their code.
	// kube/api/v1alpha1: the AIPerfJob/AIPerfSweep types and CRDs;
	// kube/kubetest: an API server for pods/proxy and pods/log in tests.
	"internal/kube", "internal/kube/api/v1alpha1", "internal/kube/kubetest", "internal/api/apitest",
	// kube/realcluster: tests only, on a real cluster.
	"internal/kube/realcluster", "internal/otel/otlptest", "internal/mlflow/mlflowtest", "internal/wandb/wandbtest",
}

type listedPackage struct {
	ImportPath string
	Imports    []string
	Standard   bool
}

func TestImportLayering(t *testing.T) {
	cmd := exec.Command("go", "list", "-json", module+"/...")
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	dec := json.NewDecoder(&out)
	seen := 0
	for {
		var p listedPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("decode go list output: %v", err)
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		if rel == "internal" { // this test's own directory
			continue
		}
		seen++
		checkPackage(t, rel, p.Imports)
	}
	if seen == 0 {
		t.Fatal("go list returned no packages")
	}
}

func checkPackage(t *testing.T, rel string, imports []string) {
	t.Helper()
	isIsolated := slices.Contains(isolated, rel)
	allow, known := allowed[rel]
	if !isIsolated && !known {
		t.Errorf("package %s is not in the layering table; add it to allowed or isolated", rel)
		return
	}
	for _, imp := range imports {
		if rel == "internal/mockserver" && strings.Contains(imp, ".") {
			t.Errorf("%s imports %s: mockserver must use only the standard library", rel, imp)
		}
		if !strings.HasPrefix(imp, module+"/") {
			continue
		}
		dep := strings.TrimPrefix(imp, module+"/")
		switch {
		case dep == environ && rel != "internal/mockserver":
		case dep == "internal/pyfmt" && rel != "internal/mockserver":
		case isIsolated:
			t.Errorf("%s imports %s: it must import no internal package", rel, dep)
		case slices.Contains(leaves, dep), slices.Contains(allow, dep):
		default:
			t.Errorf("%s imports %s: not allowed (downstream or sideways); allowed: %v + leaves %v", rel, dep, allow, leaves)
		}
	}
}

// thirdParty lists, per module outside the standard library, the packages
// that may import it. A heavy library stays behind the one package that
// wraps it (grpc in cluster, parquet in the two parquet readers and
// writers, controller-runtime in the operator and its command), so that
// what links it is a choice made here; a new dependency needs a line.
var thirdParty = map[string][]string{
	"charm.land/bubbles/v2":                     {"internal/ui"},
	"charm.land/bubbletea/v2":                   {"internal/ui"},
	"charm.land/lipgloss/v2":                    {"internal/ui"},
	"github.com/charmbracelet/x/ansi":           {"internal/ui"},
	"github.com/ebitengine/purego":              {"internal/telemetry/nvml"}, // the nvml build only
	"github.com/ardanlabs/jinja":                {"internal/chattemplate", "internal/configfile", "internal/endpoint/template"},
	"github.com/dlclark/regexp2/v2":             {"internal/tokenizer/hf"},
	"golang.org/x/text":                         {"internal/tokenizer/hf"},
	"github.com/go-analyze/charts":              {"internal/report"},
	"github.com/go-echarts/go-echarts/v2":       {"internal/report"},
	"gonum.org/v1/plot":                         {"internal/report"},
	"gonum.org/v1/gonum":                        {"internal/search"},
	"github.com/jedib0t/go-pretty/v6":           {"internal/compare", "internal/export"},
	"github.com/jmespath-community/go-jmespath": {"internal/endpoint"},
	"github.com/parquet-go/parquet-go":          {"internal/dataset/hfdata", "internal/telemetry/servermetrics"},
	"github.com/prometheus/client_model":        {"internal/telemetry/prom"},
	"github.com/prometheus/common":              {"internal/telemetry/prom"},
	"github.com/spf13/cobra":                    {"internal/cli", "internal/kubecli"},
	"github.com/spf13/pflag":                    {"internal/cli"},
	"golang.org/x/term":                         {"internal/cli"},
	"golang.org/x/net":                          {"internal/transport"},
	"github.com/andybalholm/brotli":             {"internal/transport"}, // br response bodies
	"github.com/klauspost/compress":             {"internal/transport"}, // zstd response bodies
	"golang.org/x/sys":                          {"internal/timing", "bench/benchtool"},
	"github.com/go-json-experiment/json": {"internal/dataset/loader", "internal/dataset/hfdata", "internal/dataset/public", "internal/endpoint", "internal/endpoint/anthropic",
		"internal/endpoint/embeddings", "internal/endpoint/endpointtest", "internal/endpoint/openai", "internal/endpoint/rankings", "internal/export",
		"internal/telemetry/servermetrics", "internal/tokenizer/hub"},
	"github.com/goccy/go-yaml": {"internal/cli", "internal/configfile", "internal/dataset/hfdata", "internal/kubecli", "internal/llmd", "internal/report"},
	// OpenTelemetry: the integration and its test collector.
	"go.opentelemetry.io/otel":                                          {"internal/otel"},
	"go.opentelemetry.io/otel/metric":                                   {"internal/otel"},
	"go.opentelemetry.io/otel/sdk":                                      {"internal/otel"},
	"go.opentelemetry.io/otel/sdk/metric":                               {"internal/otel"},
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp": {"internal/otel"},
	"go.opentelemetry.io/proto/otlp":                                    {"internal/otel/otlptest", "internal/servertrace"},
	// gRPC: the controller-worker protocol, and the OTLP trace receiver.
	"google.golang.org/grpc":     {"internal/cluster", "internal/cluster/clusterpb", "internal/servertrace"},
	"google.golang.org/protobuf": {"internal/cluster", "internal/cluster/clusterpb", "internal/otel/otlptest", "internal/servertrace"},
	// Kubernetes: kube (objects, client-go), its API types, the operator
	// (controller-runtime) and the aiperf-kube command line, nothing else.
	"k8s.io/api":                     {"internal/kube", "internal/kube/operator", "internal/kubecli"},
	"k8s.io/apimachinery":            {"internal/kube", "internal/kube/api/v1alpha1", "internal/kube/operator", "internal/kubecli"},
	"k8s.io/apiextensions-apiserver": {"internal/kube/api/v1alpha1", "internal/kube/operator"},
	"k8s.io/client-go":               {"internal/kube", "internal/kube/kubetest", "internal/kube/operator", "internal/kubecli"},
	"sigs.k8s.io/yaml":               {"internal/kube", "internal/kube/api/v1alpha1", "internal/kubecli"},
	"sigs.k8s.io/controller-runtime": {"internal/kube/operator", "internal/kubecli"},
	"github.com/go-logr/logr":        {"internal/kubecli"}, // controller-runtime's logger, set by `kube operator`
	// The AWS SDK's signer is the independent reference SigV4 is tested
	// against; only test helpers import it and no program links it.
	"github.com/aws/aws-sdk-go-v2": {"internal/sigv4/sigv4test"},
}

// notLinked lists, per program, the import path prefixes none of its
// packages (transitively) may be: aiperf links no Kubernetes library
// (aiperf-kube holds `aiperf kube`).
var notLinked = map[string][]string{
	"cmd/aiperf": {"k8s.io/", "sigs.k8s.io/", "github.com/aws/"},
}

type depPackage struct {
	ImportPath string
	Imports    []string
	Deps       []string
	Standard   bool
	Module     *struct{ Path string }
}

// TestThirdPartyImports checks thirdParty and notLinked against
// `go list -deps -json`: the module of every package imported from
// outside the standard library and this module, and every program's
// transitive dependencies. It lists the build with every optional part
// (-tags nvml), a superset of the default one.
func TestThirdPartyImports(t *testing.T) {
	cmd := exec.Command("go", "list", "-tags", "nvml", "-deps", "-json", module+"/...")
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	moduleOf := map[string]string{}
	var ours []depPackage
	for dec := json.NewDecoder(&out); ; {
		var p depPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("decode go list output: %v", err)
		}
		if p.Module == nil {
			continue
		}
		moduleOf[p.ImportPath] = p.Module.Path
		if p.Module.Path == module {
			ours = append(ours, p)
		}
	}
	used := map[string]bool{}
	for _, p := range ours {
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		for _, imp := range p.Imports {
			m := moduleOf[imp]
			if m == "" || m == module {
				continue
			}
			used[m] = true
			allow, known := thirdParty[m]
			switch {
			case !known:
				t.Errorf("%s imports %s of module %s, which is not in thirdParty; add the module and the packages that may use it", rel, imp, m)
			case !slices.Contains(allow, rel):
				t.Errorf("%s imports %s: module %s is for %v only", rel, imp, m, allow)
			}
		}
		for _, prefix := range notLinked[rel] {
			for _, d := range p.Deps {
				if strings.HasPrefix(d, prefix) {
					t.Errorf("%s links %s; it must link nothing under %s", rel, d, prefix)
				}
			}
		}
	}
	for m := range thirdParty {
		if !used[m] {
			t.Errorf("thirdParty lists %s, which no package imports any more; remove it", m)
		}
	}
	for prog := range notLinked {
		if !slices.ContainsFunc(ours, func(p depPackage) bool { return p.ImportPath == module+"/"+prog }) {
			t.Errorf("notLinked names %s, which go list did not return", prog)
		}
	}
}
