package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/mockserver"
)

// TestNamedPhasesEndToEnd runs a config file with a warmup and two named
// profiling phases, each at its own concurrency, through `aiperf profile
// -f`. The server's own record shows each phase's load; the artifacts
// hold a summary per phase under phases/<name>/, phase_manifest.json, the
// profiling phases together at the top level and the warmup under
// warmup_metrics.
func TestNamedPhasesEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end run")
	}
	t.Parallel()
	recPath := filepath.Join(t.TempDir(), "requests.jsonl")
	mcfg := mockserver.DefaultConfig()
	mcfg.TTFT, mcfg.ITL, mcfg.RecordRequests = 20*time.Millisecond, 2*time.Millisecond, recPath
	srv, err := mockserver.Start(mcfg, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dir := t.TempDir()
	p := writeYAML(t, fmt.Sprintf(`schemaVersion: "2.0"
benchmark:
  model: mock-model
  endpoint: {url: %q, streaming: true}
  tokenizer: {name: builtin}
  dataset: {prompts: {isl: 32, osl: 4}}
  phases:
    - {name: warm, kind: warmup, type: concurrency, concurrency: 1, requests: 4}
    - {name: baseline, kind: profiling, type: concurrency, concurrency: 2, requests: 10}
    - {name: stress, kind: profiling, type: concurrency, concurrency: 6, requests: 18}
`, srv.URL()))
	out, err := aiperfCmd(t, "profile", "-f", p, "--output-artifact-dir", dir, "--ui", "none").CombinedOutput()
	if err != nil {
		t.Fatalf("profile: %v\n%s", err, out)
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}

	// The server's view: 4, 10 and 18 requests in that order, at most 1, 2
	// and 6 in flight.
	f, err := os.Open(recPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rs []mockserver.RecordedRequest
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var r mockserver.RecordedRequest
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		if r.Method == "POST" {
			rs = append(rs, r)
		}
	}
	if len(rs) != 32 {
		t.Fatalf("server saw %d requests; want 4 + 10 + 18", len(rs))
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].ReceivedNs < rs[j].ReceivedNs })
	for _, ph := range []struct {
		from, to, most int
	}{{0, 4, 1}, {4, 14, 2}, {14, 32, 6}} {
		if got := mockserver.MaxOverlap(mockserver.Spans(rs[ph.from:ph.to])); got > ph.most || (ph.most > 2 && got < 3) {
			t.Errorf("requests %d-%d: %d in flight at once; the phase's concurrency is %d", ph.from, ph.to, got, ph.most)
		}
	}

	b, err := os.ReadFile(filepath.Join(dir, "phase_manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var man struct {
		Phases []struct {
			Name           string `json:"phase_name"`
			Kind           string `json:"phase_kind"`
			Index          int    `json:"phase_index"`
			ProfilingIndex *int   `json:"profiling_index"`
			Total          int    `json:"total_request_count"`
			MetricsJSON    string `json:"metrics_json"`
		} `json:"phases"`
	}
	if err := json.Unmarshal(b, &man); err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name, kind string
		total      int
	}{{"warm", "warmup", 4}, {"baseline", "profiling", 10}, {"stress", "profiling", 18}}
	if len(man.Phases) != 3 {
		t.Fatalf("manifest: %s", b)
	}
	for i, w := range want {
		m := man.Phases[i]
		if m.Name != w.name || m.Kind != w.kind || m.Index != i || m.Total != w.total {
			t.Errorf("manifest phase %d = %+v; want %s (%s) with %d requests", i, m, w.name, w.kind, w.total)
		}
		if (w.kind == "warmup") != (m.ProfilingIndex == nil) {
			t.Errorf("manifest phase %d profiling_index %v", i, m.ProfilingIndex)
		}
		doc := readSummary(t, filepath.Join(dir, m.MetricsJSON))
		if n := metric(t, doc, "request_count").Avg; int(n) != w.total {
			t.Errorf("%s: request_count %v; want %d", m.MetricsJSON, n, w.total)
		}
	}
	top := readSummary(t, filepath.Join(dir, "profile_export_aiperf.json"))
	if n := metric(t, top, "request_count").Avg; n != 28 {
		t.Errorf("top-level request_count %v; want both profiling phases, 28", n)
	}
	var wm map[string]json.RawMessage
	if err := json.Unmarshal(top["warmup_metrics"], &wm); err != nil || metric(t, wm, "request_count").Avg != 4 {
		t.Errorf("warmup_metrics: %v %s", err, top["warmup_metrics"])
	}
	names := map[string]int{}
	for _, l := range jsonlLines(t, filepath.Join(dir, "profile_export.jsonl")) {
		var meta struct {
			Name string `json:"phase_name"`
		}
		_ = json.Unmarshal(l["metadata"], &meta)
		names[meta.Name]++
	}
	if names["baseline"] != 10 || names["stress"] != 18 {
		t.Errorf("profile_export.jsonl phase names %v; want baseline 10, stress 18", names)
	}
}
