package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/aiperf-go/aiperf/internal/tokenizer/testmodels"
)

// inputConfigArgs is the command testdata/aiperf013-input-config.json
// was written by: AIPerf 0.13.0's `aiperf profile` with these flags
// against this port's mock server (the input_config block of its
// profile_export_aiperf.json).
var inputConfigArgs = []string{
	"-m", "mock-model", "--endpoint-type", "chat", "--streaming",
	"--request-count", "8", "--concurrency", "2",
	"--extra-inputs", "ignore_eos:true", "--extra-inputs", "temperature:0.5", "--header", "X-Foo:bar",
	"--connection-reuse-strategy", "never", "--session-header", "X-Session-ID", "--apply-chat-template",
	"--log-level", "WARNING", "--prompt-input-tokens-mean", "32", "--prompt-output-tokens-mean", "8",
	"--random-seed", "7", "--request-timeout-seconds", "30", "--ui-type", "none", "--workers-max", "2",
	"--record-processor-service-count", "1", "--use-server-token-count", "--tokenizer-trust-remote-code",
	"--conversation-turn-mean", "1", "--stats-interval", "2", "--no-gpu-telemetry",
	"--server-metrics-formats", "json", "--export-level", "records", "--goodput", "time_to_first_token:500",
}

// TestInputConfigMatchesAIPerf runs the command AIPerf 0.13 ran and
// compares the input_config blocks member by member. The differences
// kept on purpose (docs/aiperf-compat.md) are listed in want: the
// run's own directory, URL and tokenizer folder, the HTTP engine that
// ran, and the turns' stddev, which AIPerf fills in beside a given mean.
func TestInputConfigMatchesAIPerf(t *testing.T) {
	url := startMockServer(t)
	dir := t.TempDir()
	tok := testmodels.Dir(t, "qwen3")
	args := append([]string{"profile", "-u", url, "--tokenizer", tok, "--output-artifact-dir", dir}, inputConfigArgs...)
	if out, err := aiperfCmd(t, args...).CombinedOutput(); err != nil {
		t.Fatalf("aiperf profile: %v\n%s", err, out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "profile_export_aiperf.json"))
	if err != nil {
		t.Fatal(err)
	}
	var summary map[string]json.RawMessage
	if err := json.Unmarshal(b, &summary); err != nil {
		t.Fatal(err)
	}
	ref, err := os.ReadFile(filepath.Join("testdata", "aiperf013-input-config.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got, want map[string]any
	if err := json.Unmarshal(summary["input_config"], &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(ref, &want); err != nil {
		t.Fatal(err)
	}
	w := flatten(want)
	w["artifacts.dir"], w["endpoint.urls"], w["tokenizer.name"] = dir, []any{url}, tok
	w["runtime.http_client"], w["runtime.http_version"] = "lean", "1.1"
	delete(w, "datasets.0.turns.stddev")
	if diff := cmp.Diff(w, flatten(got)); diff != "" {
		t.Errorf("input_config differs from AIPerf 0.13's for the same command (-aiperf +ours):\n%s", diff)
	}
	if g, w := topKeys(t, summary["input_config"]), topKeys(t, ref); !slices.Equal(g, w) {
		t.Errorf("input_config sections in the order %v; AIPerf's: %v", g, w)
	}
}

// topKeys returns the member names of a JSON object, in order.
func topKeys(t *testing.T, b []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	var keys []string
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// flatten maps each leaf of a decoded JSON object to its dot path (list
// elements that are objects by index; other lists are leaves).
func flatten(m map[string]any) map[string]any {
	out := map[string]any{}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				walk(prefix+k+".", e)
			}
			return
		case []any:
			if len(x) > 0 {
				if _, ok := x[0].(map[string]any); ok {
					for i, e := range x {
						walk(prefix+strconv.Itoa(i)+".", e)
					}
					return
				}
			}
		}
		out[strings.TrimSuffix(prefix, ".")] = v
	}
	walk("", m)
	return out
}
