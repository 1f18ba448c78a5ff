package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestEnvCommand: `aiperf env` lists the declared variables with the value
// set here, the default of the unset ones and their meaning; a set secret
// is hidden, and test-only variables appear with --all only.
func TestEnvCommand(t *testing.T) {
	vals := map[string]string{"AIPERF_HTTP_CONNECTION_LIMIT": "64", "HF_TOKEN": "hf_very_secret"}
	for _, tt := range []struct {
		args      []string
		want, not []string
	}{
		{[]string{"env"},
			[]string{"AIPERF_HTTP_CONNECTION_LIMIT=64  default: 2500\n    most connections open at once",
				"HF_TOKEN=(set, hidden)", "AIPERF_PACER (unset)  default: automatic", "AIPERF_HEADER_*"},
			[]string{"hf_very_secret", "AIPERF_TEST_MODELS"}},
		{[]string{"env", "--all"}, []string{"AIPERF_TEST_MODELS (unset)", "AIPERF_REQUIRE_*"}, []string{"hf_very_secret"}},
	} {
		var out, errOut bytes.Buffer
		code := Main(context.Background(), tt.args, Env{Stdout: &out, Stderr: &errOut, Getenv: func(k string) string { return vals[k] }})
		if code != 0 {
			t.Fatalf("aiperf %v: exit %d: %s", tt.args, code, errOut.String())
		}
		for _, w := range tt.want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("aiperf %v: no %q in\n%s", tt.args, w, out.String())
			}
		}
		for _, n := range tt.not {
			if strings.Contains(out.String(), n) {
				t.Errorf("aiperf %v: %q printed", tt.args, n)
			}
		}
	}
}
