package cli

import (
	"context"
	"slices"
	"strings"
	"testing"
)

func TestServiceArgs(t *testing.T) {
	t.Parallel()
	noEnv := func(string) string { return "" }
	got, _, err := serviceArgs([]string{"--type", "system_controller", "--service-id", "sc-1", "--health-port=9090", "--health-host", "0.0.0.0", "-m", "x"}, noEnv)
	if err != nil || !slices.Equal(got, []string{"profile", "-m", "x", "--api-port", "9090", "--api-host", "0.0.0.0"}) {
		t.Errorf("serviceArgs = %v, %v", got, err)
	}
	// AIPerf's positional TYPE, its spelling with hyphens, and the health
	// variables standing in for the flags.
	env := func(k string) string {
		return map[string]string{"AIPERF_SERVICE_HEALTH_PORT": "8080", "AIPERF_SERVICE_HEALTH_HOST": "0.0.0.0"}[k]
	}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"system-controller", "-m", "x"}, []string{"profile", "-m", "x", "--api-port", "8080", "--api-host", "0.0.0.0"}},
		{[]string{"api", "-m", "x", "--health-port", "9000"}, []string{"profile", "-m", "x", "--api-port", "9000", "--api-host", "0.0.0.0"}},
		{[]string{"api", "-m", "x", "--api-port", "7000"}, []string{"profile", "-m", "x", "--api-port", "7000"}},
	} {
		if got, _, err := serviceArgs(tc.args, env); err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("serviceArgs(%v) = %v, %v; want %v", tc.args, got, err, tc.want)
		}
	}
	for _, bad := range [][]string{{"-m", "x"}, {"--type", "worker"}, {"--type", "nope"}, {"--type", "api", "--health-host", "h"},
		{"system_controller", "run_config.json"}, {"--type", "api", "--benchmark-run", "run_config.json"},
		{"api", "--health-port", "1", "--api-port", "2"}} {
		if _, _, err := serviceArgs(bad, noEnv); err == nil {
			t.Errorf("serviceArgs(%v) = nil error", bad)
		}
	}
	r := runMain(t, context.Background(), nil, "service", "--type", "api", "-m", "mock-model", "--health-port", "9191")
	if r.code != 0 || r.cfg == nil || *r.cfg.Integrations.API.Port != 9191 {
		t.Errorf("aiperf service: exit %d, stderr %s", r.code, r.stderr)
	}
	r = runMain(t, context.Background(), nil, "service", "--type", "timing_manager")
	if r.code != 2 || !strings.Contains(r.stderr, "goroutine") {
		t.Errorf("service --type timing_manager: exit %d, %s", r.code, r.stderr)
	}
}
