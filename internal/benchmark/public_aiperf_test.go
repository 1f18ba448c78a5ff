package benchmark

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/mockserver"
	"github.com/aiperf-go/aiperf/internal/tokenizer/hub/hubtest"
	"github.com/aiperf-go/aiperf/internal/tokenizer/testmodels"
)

// TestPublicDatasetsMatchAIPerf runs public datasets through AIPerf 0.13
// itself and through this implementation, on the same fixture and the
// same mock server, and requires the request bodies in inputs.json to be
// identical. AIPerf downloads the fixture from a hub serving it
// (hubtest, HF_ENDPOINT) into an empty cache, as it would from
// huggingface.co; this implementation reads the fixture cache offline.
//
// The datasets cover each kind of body: a prompt column, a prompt
// template, a subset, multi-turn rows, video URLs, audio re-encoded as
// WAV, and recorded agent message arrays with tools. (Images are left
// out: AIPerf's JPEGs come from libjpeg's integer DCT, ours from a
// floating-point one, so a pixel may differ by one.)
//
// It needs AIPerf: set AIPERF_REFERENCE_BIN to its aiperf executable
// (e.g. /work/aip/bin/aiperf; `pip install aiperf==0.13.0`). It takes
// about 30 s per dataset.
func TestPublicDatasetsMatchAIPerf(t *testing.T) {
	bin := os.Getenv("AIPERF_REFERENCE_BIN")
	if bin == "" {
		t.Skip("set AIPERF_REFERENCE_BIN to AIPerf 0.13's aiperf executable to compare inputs.json with it")
	}
	hubSrv := hubtest.New(publicFixtureHub)
	defer hubSrv.Close()
	mock := httptest.NewServer(mockserver.New(mockConfig(t, nil)))
	defer mock.Close()
	tokDir := testmodels.Dir(t, "qwen3")
	for _, name := range []string{"aimo", "blazedit_5k", "spec_al_gsm8k", "spec_al_mtbench", "instruct_coder", "mmvu", "librispeech", "exgentic"} {
		t.Run(name, func(t *testing.T) {
			// AIPerf, from the hub.
			ref := aiperfReference(t, bin, mock.URL, []string{"HF_ENDPOINT=" + hubSrv.URL, "HF_HUB_OFFLINE=", "HF_DATASETS_OFFLINE="},
				"--public-dataset", name, "--request-count", "2", "--tokenizer", tokDir)
			// This implementation, from the cache.
			t.Setenv("HF_HUB_CACHE", publicFixtureHub)
			t.Setenv("HF_HUB_OFFLINE", "1")
			cfg := referenceConfig(t, mock.URL, tokDir)
			cfg.Input.OutputTokens.Mean = nil
			cfg.Dataset.Public = config.PublicDataset(name)
			cfg.Load.RequestCount = ptr(2)
			compareInputs(t, ref, cfg)
		})
	}
}

// aiperfReference runs AIPerf's profile against the mock at url, at
// concurrency 1 with seed 42 and streaming off, with args added and env
// added to its environment, and returns its artifact directory.
func aiperfReference(t *testing.T, bin, url string, env []string, args ...string) string {
	t.Helper()
	ref := t.TempDir()
	args = append([]string{"profile", "-m", "mock-model", "--url", url, "--endpoint-type", "chat",
		"--concurrency", "1", "--random-seed", "42", "--artifact-dir", ref, "--ui-type", "none"}, args...)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(append(os.Environ(), "HF_HOME="+t.TempDir()), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("aiperf: %v\n%s", err, tail(out.String(), 3000))
	}
	return ref
}

// referenceConfig is the configuration aiperfReference runs AIPerf with.
func referenceConfig(t *testing.T, url, tokDir string) *config.Config {
	t.Helper()
	cfg := baseConfig(t, url)
	cfg.Endpoint.Streaming = false
	cfg.Input.RandomSeed = ptr(int64(42))
	cfg.Tokenizer.Name = tokDir
	cfg.Load.Concurrency = ptr(1)
	return cfg
}

// compareInputs runs cfg and requires its inputs.json bodies to be those
// of AIPerf's run in ref.
func compareInputs(t *testing.T, ref string, cfg *config.Config) {
	t.Helper()
	if out, err := run(t, context.Background(), cfg); err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	want := inputsPayloads(t, filepath.Join(ref, "inputs.json"))
	got := inputsPayloads(t, filepath.Join(cfg.Output.ArtifactDir, "inputs.json"))
	if len(want) == 0 || len(got) != len(want) {
		t.Fatalf("%d sessions here, %d in AIPerf's inputs.json", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("session %d differs:\n got  %s\n want %s", i, got[i], want[i])
		}
	}
}

// inputsPayloads returns each session of an inputs.json as its session id
// and compact payloads.
func inputsPayloads(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Data []struct {
			SessionID string            `json:"session_id"`
			Payloads  []json.RawMessage `json:"payloads"`
		} `json:"data"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	out := make([]string, len(doc.Data))
	for i, s := range doc.Data {
		var b bytes.Buffer
		b.WriteString(s.SessionID)
		for _, p := range s.Payloads {
			b.WriteByte(' ')
			json.Compact(&b, p)
		}
		out[i] = b.String()
	}
	return out
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
