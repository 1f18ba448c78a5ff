package cli

import (
	"context"
	"slices"
	"strings"
	"testing"
)

func TestServiceArgs(t *testing.T) {
	t.Parallel()
	got, _, err := serviceArgs([]string{"--type", "system_controller", "--service-id", "sc-1", "--health-port=9090", "--health-host", "0.0.0.0", "-m", "x"})
	if err != nil || !slices.Equal(got, []string{"profile", "-m", "x", "--api-port", "9090", "--api-host", "0.0.0.0"}) {
		t.Errorf("serviceArgs = %v, %v", got, err)
	}
	for _, bad := range [][]string{{"-m", "x"}, {"--type", "worker"}, {"--type", "nope"}, {"--type", "api", "--health-host", "h"}} {
		if _, _, err := serviceArgs(bad); err == nil {
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
