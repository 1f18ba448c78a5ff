package benchmark

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/environ"
	"github.com/aiperf-go/aiperf/internal/live"
	"github.com/aiperf-go/aiperf/internal/mockserver"
	"github.com/aiperf-go/aiperf/internal/telemetry/gpu"
)

// telemetryMock starts the mock server with its fake DCGM exporter: TTFT
// 30 ms, ITL 4 ms, vLLM-style /metrics, 2 H200s.
func telemetryMock(t *testing.T) *mockserver.Running {
	t.Helper()
	mcfg := mockConfig(t, func(c *mockserver.Config) {
		c.Fast, c.TTFT, c.ITL = false, 30*time.Millisecond, 4*time.Millisecond
		c.DCGM.Enabled = true
	})
	srv, err := mockserver.Start(mcfg, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Error(err)
		}
	})
	return srv
}

// telemetryConfig is AIPerf's reference run (scripts/aiperf-telemetry-reference.sh)
// against srv: 40 streaming requests at concurrency 4, ISL 100, OSL 50,
// every server-metrics format, the mock's DCGM exporter.
func telemetryConfig(t *testing.T, srv *mockserver.Running) *config.Config {
	t.Helper()
	cfg := baseConfig(t, srv.URL())
	cfg.Load.Concurrency, cfg.Load.RequestCount = ptr(4), ptr(40)
	cfg.Input.InputTokens.Mean, cfg.Input.OutputTokens.Mean = 100, ptr(50)
	cfg.Input.Extra = []config.ExtraInput{{Key: "ignore_eos", Value: json.RawMessage("true")}}
	cfg.Telemetry.ServerMetrics = config.ServerMetrics{Formats: []config.ServerMetricsFormat{"json", "csv", "parquet", "jsonl"}} // as scripts/aiperf-telemetry-reference.sh
	noFlush := 0.0
	cfg.Telemetry.ServerMetrics.FlushSeconds = &noFlush // the mock's counters are final with its last byte
	cfg.Telemetry.GPU = config.GPUTelemetry{Requested: true, URLs: []string{srv.DCGMURL()}}
	return cfg
}

func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return doc
}

// at walks a decoded JSON document along keys and list indices.
func at(t *testing.T, v any, path ...any) any {
	t.Helper()
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok || m[k] == nil {
				t.Fatalf("no %q at %v", k, path)
			}
			v = m[k]
		case int:
			l, ok := v.([]any)
			if !ok || k >= len(l) {
				t.Fatalf("no [%d] at %v", k, path)
			}
			v = l[k]
		}
	}
	return v
}

func num(t *testing.T, v any) float64 {
	t.Helper()
	n, ok := v.(json.Number)
	if !ok {
		t.Fatalf("%v is not a number", v)
	}
	f, err := n.Float64()
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestTelemetryAgainstTheMock runs the reference workload against the mock
// and checks the acceptance figures and, against AIPerf 0.13's own files
// from the same workload on the same mock (testdata/aiperf013), the shape
// of every telemetry artifact.
func TestTelemetryAgainstTheMock(t *testing.T) {
	t.Parallel()
	srv := telemetryMock(t)
	cfg := telemetryConfig(t, srv)
	out, err := run(t, context.Background(), cfg)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	dir := cfg.Output.ArtifactDir
	prof := readJSON(t, filepath.Join(dir, "profile_export_aiperf.json"))
	sm := readJSON(t, filepath.Join(dir, "server_metrics_export.json"))

	// The server's generation-token counter over the profiling window is
	// exactly the client's output token total.
	totalOSL := num(t, at(t, prof, "total_osl", "avg"))
	if got := num(t, at(t, sm, "metrics", "vllm:generation_tokens", "series", 0, "stats", "total")); got != totalOSL {
		t.Errorf("vllm:generation_tokens total = %v; want total_osl %v", got, totalOSL)
	}
	// The running-requests gauge peaks at the concurrency.
	if got := num(t, at(t, sm, "metrics", "vllm:num_requests_running", "series", 0, "stats", "max")); got != 4 {
		t.Errorf("vllm:num_requests_running max = %v; want the concurrency, 4", got)
	}
	// The TTFT histogram's median estimate lies in the bucket that holds
	// the mock's 30 ms TTFT: (0.02, 0.04] s.
	if p50 := num(t, at(t, sm, "metrics", "vllm:time_to_first_token_seconds", "series", 0, "stats", "p50_estimate")); !(p50 > 0.02 && p50 <= 0.04) {
		t.Errorf("TTFT p50 estimate = %v s; want it in (0.02, 0.04]", p50)
	}

	// Total GPU energy is the integral of the mock's power over the
	// profiling window (the mock holds each power until its next page and
	// integrates exactly that, on its own clock): the summary's start, and
	// its end less the final-scrape grace that widens the GPU statistics.
	// The window is the run's, not the scrapes': a counter difference
	// between the scrapes around it overcounts a short run several times.
	energyJ := num(t, at(t, prof, "nvidia_total_gpu_energy", "avg"))
	start := isoNanos(t, at(t, prof, "telemetry_data", "summary", "start_time").(string))
	end := isoNanos(t, at(t, prof, "telemetry_data", "summary", "end_time").(string)) - int64(gpu.FinalScrapeGrace)
	integral := powerIntegral(t, srv, start, end)
	t.Logf("nvidia_total_gpu_energy %v J, integral of the mock's power over the %v window %v J (%.4fx)",
		energyJ, time.Duration(end-start), integral, energyJ/integral)
	if math.Abs(energyJ-integral) > 0.02*integral {
		t.Errorf("nvidia_total_gpu_energy = %v J; integral of the mock's power over the profiling window = %v J (want within 2 %%)", energyJ, integral)
	}
	if got, want := num(t, at(t, prof, "nvidia_output_tokens_per_joule", "avg")), totalOSL/energyJ; math.Abs(got-want) > 1e-12*want {
		t.Errorf("nvidia_output_tokens_per_joule = %v; want total_osl/energy = %v", got, want)
	}

	// Shapes against AIPerf 0.13's files.
	ref := "testdata/aiperf013"
	refSM := readJSON(t, filepath.Join(ref, "server_metrics_export.json"))
	delete(refSM, "input_config")
	delete(sm, "input_config")
	if diff := cmp.Diff(shape(refSM), shape(sm)); diff != "" {
		t.Errorf("server_metrics_export.json shape differs from AIPerf's (-aiperf +ours):\n%s", diff)
	}
	refProf := readJSON(t, filepath.Join(ref, "profile_export_aiperf.json"))
	for _, k := range []string{"gpu_telemetry", "server_metrics"} {
		if diff := cmp.Diff(shape(at(t, refProf, "input_config", k)), shape(at(t, prof, "input_config", k))); diff != "" {
			t.Errorf("input_config.%s shape differs (-aiperf +ours):\n%s", k, diff)
		}
	}
	// The mock's GPUs are invented, and every artifact says so; AIPerf's
	// files from the same mock do not, so the marks are checked here and
	// then left out of the shape comparisons.
	if n := unmarkSimulated(prof["telemetry_data"]); n != 3 {
		t.Errorf("telemetry_data has %d \"simulated\": true members, want 3 (the endpoint and its 2 GPUs)", n)
	}
	if diff := cmp.Diff(shape(refProf["telemetry_data"]), shape(prof["telemetry_data"])); diff != "" {
		t.Errorf("telemetry_data shape differs (-aiperf +ours):\n%s", diff)
	}
	for k, v := range refProf {
		if strings.HasPrefix(k, "nvidia_") {
			if diff := cmp.Diff(shape(v), shape(prof[k])); diff != "" {
				t.Errorf("%s differs (-aiperf +ours):\n%s", k, diff)
			}
		}
	}
	for k := range prof {
		if strings.HasPrefix(k, "nvidia_") && refProf[k] == nil {
			t.Errorf("%s is not in AIPerf's summary", k)
		}
	}
	for _, f := range []string{"gpu_telemetry_export.jsonl", "server_metrics_export.jsonl"} {
		want, got := jsonLines(t, filepath.Join(ref, f)), jsonLines(t, filepath.Join(dir, f))
		for i := range got {
			if n := unmarkSimulated(got[i]); f == "gpu_telemetry_export.jsonl" && n != 1 {
				t.Fatalf("%s line %d has %d \"simulated\": true members, want 1", f, i+1, n)
			}
		}
		for i := range min(2, len(want)) {
			if diff := cmp.Diff(shape(want[i]), shape(got[i])); diff != "" {
				t.Errorf("%s line %d shape differs (-aiperf +ours):\n%s", f, i+1, diff)
			}
		}
	}
	for _, c := range []struct {
		file    string
		gpuOnly bool
		rows    int // at least, so an empty comparison cannot pass
	}{{"server_metrics_export.csv", false, 20}, {"profile_export_aiperf.csv", true, 20}} {
		want, got := csvShape(t, filepath.Join(ref, c.file), c.gpuOnly), csvShape(t, filepath.Join(dir, c.file), c.gpuOnly)
		if c.gpuOnly {
			for i, row := range got[1:] {
				if !strings.Contains(row, ",NVIDIA H200 (simulated),") {
					t.Fatalf("%s GPU row %d does not name the GPU simulated: %s", c.file, i+1, row)
				}
				got[i+1] = strings.Replace(row, " (simulated)", "", 1)
			}
		}
		if len(want) < c.rows {
			t.Fatalf("reference %s has only %d rows", c.file, len(want))
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s shape differs (-aiperf +ours):\n%s", c.file, diff)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "server_metrics_export.parquet")); err != nil {
		t.Errorf("no parquet export: %v", err)
	}

	// The console shows the energy table, the server panel and the GPUs.
	for _, want := range []string{"GPU Power Efficiency (NVIDIA) (simulated GPUs)", "Server Metrics (vLLM)", "AIPerf | GPU Telemetry Summary (simulated GPUs)",
		"GPU 0 | NVIDIA H200 (simulated)", "GPU Telemetry Platform (simulated GPUs)", "Server Metrics JSON Export:"} {
		if !strings.Contains(out, want) {
			t.Errorf("console lacks %q", want)
		}
	}
}

// unmarkSimulated deletes every "simulated": true member of v and returns
// how many it deleted.
func unmarkSimulated(v any) int {
	n := 0
	switch x := v.(type) {
	case map[string]any:
		if x["simulated"] == true {
			delete(x, "simulated")
			n++
		}
		for _, e := range x {
			n += unmarkSimulated(e)
		}
	case []any:
		for _, e := range x {
			n += unmarkSimulated(e)
		}
	}
	return n
}

// isoNanos parses an artifact's local ISO time (microseconds) to Unix ns.
func isoNanos(t *testing.T, s string) int64 {
	t.Helper()
	tm, err := time.ParseInLocation("2006-01-02T15:04:05.999999", s, time.Local)
	if err != nil {
		t.Fatal(err)
	}
	return tm.UnixNano()
}

// powerIntegral integrates each GPU's power, held from one page of the
// mock's DCGM exporter to the next, on the mock's own clock, over the
// samples the run recorded for the window: from the last sample before
// start to the last at or before end plus AIPerf's 666 ms grace (chosen by
// the samples' own timestamps, as the run chooses them), in joules, summed
// over GPUs. Each sample is found among the mock's pages by its energy
// counter. The client's timestamps only choose the samples: a loaded
// machine delays a reply, so they are not when the mock integrated.
func powerIntegral(t *testing.T, srv *mockserver.Running, start, end int64) float64 {
	t.Helper()
	renders := srv.DCGMRenders()
	if len(renders) == 0 {
		t.Fatal("the mock rendered no DCGM page")
	}
	var total float64
	for j, r := range renders {
		from, to := max(r.At.UnixNano(), start), end
		if j == 0 {
			from = start // the first page's power also stands for the time before it
		}
		if j+1 < len(renders) {
			to = min(renders[j+1].At.UnixNano(), end)
		}
		if to <= from {
			continue
		}
		for _, w := range r.PowerW {
			total += w * float64(to-from) / 1e9
		}
	}
	return total
}

func jsonLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.UseNumber()
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, m)
	}
	return out
}

var (
	hostRE = regexp.MustCompile(`^(https?://)?(127\.0\.0\.1|localhost):\d+(/metrics)?$`)
	isoRE  = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?$`)
	idRE   = regexp.MustCompile(`^[0-9a-f]{12}$`)
)

// shape reduces a decoded JSON value to what two runs of the same workload
// on the same mock must share: keys, nesting, list lengths, number kinds
// (int or float) and fixed strings. Hosts, times, ids, UUIDs and versions
// are placeholders.
func shape(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			out[placeholder(k)] = shape(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = shape(e)
		}
		return out
	case json.Number:
		if strings.ContainsAny(string(x), ".eE") {
			return "<float>"
		}
		return "<int>"
	case string:
		return placeholder(x)
	}
	return v
}

func placeholder(s string) string {
	switch {
	case hostRE.MatchString(s):
		return "<host>"
	case isoRE.MatchString(s):
		return "<time>"
	case idRE.MatchString(s):
		return "<id>"
	case strings.HasPrefix(s, "GPU-"):
		return "<uuid>"
	case s == "0.13.0" || s == "test":
		return "<version>"
	}
	return s
}

var numberCell = regexp.MustCompile(`^-?\d+(\.\d+)?(e[+-]\d+)?$`)

// csvShape is a CSV file with numbers, hosts, UUIDs and versions replaced
// by placeholders; gpuOnly keeps only the GPU section of the summary CSV
// (from its Endpoint,GPU_Index header).
func csvShape(t *testing.T, path string, gpuOnly bool) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	in := !gpuOnly
	for _, line := range strings.Split(string(b), "\n") {
		if gpuOnly && strings.HasPrefix(line, "Endpoint,GPU_Index") {
			in = true
		}
		if !in {
			continue
		}
		if strings.HasPrefix(line, "# aiperf_version:") || strings.HasPrefix(line, "# benchmark_id:") {
			line = line[:strings.IndexByte(line, ':')]
		}
		cells := strings.Split(line, ",")
		for i, c := range cells {
			if c == "" {
				continue
			}
			if numberCell.MatchString(c) {
				cells[i] = "#"
			} else {
				cells[i] = placeholder(c)
			}
		}
		// Bucket lists: keep the bounds, drop the counts.
		joined := strings.Join(cells, ",")
		joined = regexp.MustCompile(`=\d+`).ReplaceAllString(joined, "=#")
		out = append(out, joined)
	}
	return slices.DeleteFunc(out, func(s string) bool { return s == "" })
}

// TestServerMetricsAutoDisable: an endpoint that answers /metrics with JSON
// is dropped with one warning, and the run writes no server metrics.
func TestServerMetricsAutoDisable(t *testing.T) {
	t.Parallel()
	h := mockserver.New(mockConfig(t, nil))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/metrics") {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"status":"ok"}`))
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	cfg := baseConfig(t, srv.URL)
	cfg.Telemetry.ServerMetrics.Disabled = false
	noFlush := 0.0
	cfg.Telemetry.ServerMetrics.FlushSeconds = &noFlush
	out, err := run(t, context.Background(), cfg)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	log, err := os.ReadFile(filepath.Join(cfg.Output.ArtifactDir, "logs", "aiperf.log"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(log), "disabling server metrics collection"); n != 1 {
		t.Errorf("log has %d auto-disable warnings; want 1:\n%s", n, log)
	}
	if _, err := os.Stat(filepath.Join(cfg.Output.ArtifactDir, "server_metrics_export.json")); !os.IsNotExist(err) {
		t.Errorf("server_metrics_export.json written for an endpoint without Prometheus metrics (stat: %v)", err)
	}
}

// TestControlHooks: the KV cache is reset before the first request and the
// profiler runs exactly around the profiling phase.
func TestControlHooks(t *testing.T) {
	t.Parallel()
	mcfg := mockConfig(t, nil)
	srv, err := mockserver.Start(mcfg, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	cfg := baseConfig(t, srv.URL())
	cfg.Warmup.RequestCount = ptr(3)
	cfg.Telemetry.ResetKVCache = &config.ResetKVCache{}
	cfg.Telemetry.ServerProfiler = &config.ServerProfiler{}
	out, err := run(t, context.Background(), cfg)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	calls := srv.Server().ControlCalls()
	var paths []string
	for _, c := range calls {
		paths = append(paths, c.Path)
	}
	if strings.Join(paths, " ") != "/reset_prefix_cache /start_profile /stop_profile" {
		t.Fatalf("control calls = %q; want reset, start, stop", paths)
	}
	var firstStart, lastEnd int64 = math.MaxInt64, 0
	for _, r := range readRecords(t, cfg.Output.ArtifactDir) {
		if r.Metadata.Phase != "profiling" {
			continue // the warmup's records are in the file too
		}
		firstStart = min(firstStart, r.Metadata.RequestStartNS)
		lastEnd = max(lastEnd, r.Metadata.RequestEndNS)
	}
	if reset := calls[0].At.UnixNano(); reset >= firstStart {
		t.Errorf("KV-cache reset at %d, after the first profiling request at %d", reset, firstStart)
	}
	if start := calls[1].At.UnixNano(); start >= firstStart {
		t.Errorf("profiler started at %d, after the first profiling request at %d", start, firstStart)
	}
	if stop := calls[2].At.UnixNano(); stop <= lastEnd {
		t.Errorf("profiler stopped at %d, before the last profiling response at %d", stop, lastEnd)
	}
}

// TestTelemetryPanelsReachObservers: the live snapshots (the dashboard's
// telemetry pane, IO.Observers) carry a server-metrics and a GPU panel
// per source, refreshed while the run goes on.
func TestTelemetryPanelsReachObservers(t *testing.T) {
	t.Parallel()
	srv := telemetryMock(t)
	cfg := telemetryConfig(t, srv)
	obs := &snapshotLog{}
	var out, errOut bytes.Buffer
	if err := Run(context.Background(), cfg, IO{Env: environ.Read(), Stdout: &out, Stderr: &errOut, Observers: []live.Observer{obs}}); err != nil {
		t.Fatal(err, errOut.String())
	}
	obs.mu.Lock()
	defer obs.mu.Unlock()
	last := obs.snaps[len(obs.snaps)-1]
	sources := map[string]live.Panel{}
	for _, p := range last.Telemetry {
		sources[p.Source] = p
	}
	sm, gp := sources["server_metrics"], sources["gpu_telemetry"]
	if len(sm.Gauges) == 0 || len(gp.Gauges) == 0 {
		t.Fatalf("final snapshot's panels = %+v; want server_metrics and gpu_telemetry gauges", last.Telemetry)
	}
	names := func(p live.Panel) string {
		var s []string
		for _, g := range p.Gauges {
			s = append(s, g.Name)
		}
		return strings.Join(s, " ")
	}
	if n := names(sm); !strings.Contains(n, "num_running") {
		t.Errorf("server metrics gauges %q lack the running requests", n)
	}
	if n := names(gp); !strings.Contains(n, "nvidia_power_usage") {
		t.Errorf("GPU gauges %q lack the power", n)
	}
	if !strings.Contains(gp.Title, "NVIDIA H200 (simulated)") {
		t.Errorf("the dashboard's GPU panel %q does not say the mock's GPU is simulated", gp.Title)
	}
	distinct := map[time.Duration]bool{}
	for _, s := range obs.snaps {
		for _, p := range s.Telemetry {
			if p.Source == "gpu_telemetry" {
				distinct[p.At] = true
			}
		}
	}
	if len(distinct) < 2 {
		t.Errorf("the GPU panel was sampled at %d distinct times; want it refreshed during the run", len(distinct))
	}
}

// TestPhaseTelemetryFiles runs AIPerf's reference workload after a warmup
// (scripts/aiperf-telemetry-reference.sh's second run) and checks each
// phase's server_metrics.json and gpu_telemetry.json against AIPerf
// 0.13's: the same shape, listed in phase_manifest.json, the phase's
// server statistics those of the top-level export (profiling: metrics,
// warmup: warmup_metrics), and its collection statistics only its own
// scrapes.
func TestPhaseTelemetryFiles(t *testing.T) {
	t.Parallel()
	srv := telemetryMock(t)
	cfg := telemetryConfig(t, srv)
	cfg.Telemetry.ServerMetrics.Formats = nil // AIPerf's default formats, as the reference run
	cfg.Warmup.RequestCount = ptr(8)
	out, err := run(t, context.Background(), cfg)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	dir := cfg.Output.ArtifactDir
	ref := "testdata/aiperf013/phases"
	top := readJSON(t, filepath.Join(dir, "server_metrics_export.json"))

	manifest := readJSON(t, filepath.Join(dir, "phase_manifest.json"))
	refManifest := readJSON(t, filepath.Join(ref, "phase_manifest.json"))
	if diff := cmp.Diff(shape(refManifest), shape(manifest)); diff != "" {
		t.Errorf("phase_manifest.json shape differs from AIPerf's (-aiperf +ours):\n%s", diff)
	}
	fetches := 0
	for i, ph := range []string{"warmup", "profiling"} {
		entry := at(t, manifest, "phases", i).(map[string]any)
		for key, name := range map[string]string{"server_metrics_json": "server_metrics.json", "gpu_telemetry_json": "gpu_telemetry.json"} {
			if got, want := entry[key], "phases/"+ph+"/"+name; got != want {
				t.Errorf("manifest %s.%s = %v; want %s", ph, key, got, want)
			}
		}
		sm := readJSON(t, filepath.Join(dir, "phases", ph, "server_metrics.json"))
		gt := readJSON(t, filepath.Join(dir, "phases", ph, "gpu_telemetry.json"))
		refSM := readJSON(t, filepath.Join(ref, ph, "server_metrics.json"))
		refGT := readJSON(t, filepath.Join(ref, ph, "gpu_telemetry.json"))
		if n := unmarkSimulated(gt); n != 3 {
			t.Errorf("%s/gpu_telemetry.json has %d \"simulated\": true members, want 3 (the endpoint and its 2 GPUs)", ph, n)
		}
		if ph == "profiling" {
			// The warmup is too short here for a stable shape (a phase with
			// one update has no median interval): its keys are checked below.
			if diff := cmp.Diff(shape(refSM), shape(sm)); diff != "" {
				t.Errorf("%s/server_metrics.json shape differs from AIPerf's (-aiperf +ours):\n%s", ph, diff)
			}
			if diff := cmp.Diff(shape(refGT), shape(gt)); diff != "" {
				t.Errorf("%s/gpu_telemetry.json shape differs from AIPerf's (-aiperf +ours):\n%s", ph, diff)
			}
		}
		for _, p := range [][]any{{}, {"data"}, {"phase"}} {
			if diff := cmp.Diff(keysAt(t, refSM, p...), keysAt(t, sm, p...)); diff != "" {
				t.Errorf("%s/server_metrics.json keys at %v differ (-aiperf +ours):\n%s", ph, p, diff)
			}
			if diff := cmp.Diff(keysAt(t, refGT, p...), keysAt(t, gt, p...)); diff != "" {
				t.Errorf("%s/gpu_telemetry.json keys at %v differ (-aiperf +ours):\n%s", ph, p, diff)
			}
		}
		if got, want := num(t, at(t, sm, "phase", "start_ns")), num(t, entry["start_ns"]); got != want {
			t.Errorf("%s phase.start_ns = %v; the manifest says %v", ph, got, want)
		}

		summaries := at(t, sm, "data", "endpoint_summaries").(map[string]any)
		if len(summaries) != 1 {
			t.Fatalf("%s: %d endpoint summaries; want the mock's one", ph, len(summaries))
		}
		for _, es := range summaries {
			info := es.(map[string]any)["info"].(map[string]any)
			fetches += int(num(t, info["total_fetches"]))
			if first := num(t, info["first_fetch_ns"]); first < num(t, entry["start_ns"]) || first != num(t, at(t, sm, "data", "start_ns")) {
				t.Errorf("%s first_fetch_ns %v: before the phase (%v) or not data.start_ns", ph, first, entry["start_ns"])
			}
			topKey := map[string]string{"warmup": "warmup_metrics", "profiling": "metrics"}[ph]
			metrics := es.(map[string]any)["metrics"].(map[string]any)
			if len(metrics) == 0 || len(metrics) != len(top[topKey].(map[string]any)) {
				t.Errorf("%s: %d metrics; the top-level %s has %d", ph, len(metrics), topKey, len(top[topKey].(map[string]any)))
			}
			for name := range metrics {
				for j := range at(t, metrics, name, "series").([]any) {
					if diff := cmp.Diff(at(t, top, topKey, name, "series", j, "stats"), at(t, metrics, name, "series", j, "stats")); diff != "" {
						t.Errorf("%s %s stats differ from the top-level %s (-top +phase):\n%s", ph, name, topKey, diff)
					}
				}
			}
		}
		if _, ok := readJSON(t, filepath.Join(dir, "phases", ph, "profile_export_aiperf.json"))["telemetry_data"]; ok {
			t.Errorf("phases/%s/profile_export_aiperf.json has telemetry_data; AIPerf writes it in gpu_telemetry.json", ph)
		}
	}
	for _, info := range at(t, top, "summary", "endpoint_info").(map[string]any) {
		// Every fetch but the baseline (and any poll before the warmup
		// began) belongs to exactly one phase; the final one to profiling.
		if all := int(num(t, info.(map[string]any)["total_fetches"])); fetches >= all || fetches < all/2 {
			t.Errorf("the phases' total_fetches add to %d; the run fetched %d, the baseline outside every phase", fetches, all)
		}
	}
}

// keysAt is the sorted member names of the object at path.
func keysAt(t *testing.T, v any, path ...any) []string {
	t.Helper()
	m, ok := at(t, v, path...).(map[string]any)
	if !ok {
		t.Fatalf("%v is not an object", path)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
