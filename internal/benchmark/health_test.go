package benchmark

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/clienthealth"
	"github.com/aiperf-go/aiperf/internal/config"
)

// TestRunWritesClientHealth runs a short request-rate benchmark against the
// mock and checks the summary JSON's client_health block: present, last,
// with the measured figures and the thresholds, and AIPerf's keys intact.
// Whether it warns depends on the machine, so only the shape is asserted.
func TestRunWritesClientHealth(t *testing.T) {
	t.Parallel()
	url, _ := mock(t, nil)
	cfg := baseConfig(t, url)
	cfg.Load.RequestRate = ptr(100.0)
	cfg.Load.ArrivalPattern = config.ArrivalConstant
	cfg.Load.RequestCount = ptr(10)
	out, err := run(t, context.Background(), cfg)
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, out)
	}
	path := filepath.Join(cfg.Output.ArtifactDir, "profile_export_aiperf.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := summary(t, path)
	var h struct {
		Healthy              *bool
		Warnings             []string
		CPUUtilizationPct    *float64 `json:"cpu_utilization_pct"`
		CPUCapacityCores     *float64 `json:"cpu_capacity_cores"`
		ScheduleLagP99Ms     *float64 `json:"schedule_lag_p99_ms"`
		TargetRequestRate    *float64 `json:"target_request_rate"`
		ScheduledRequestRate *float64 `json:"scheduled_request_rate"`
		AchievedRequestRate  *float64 `json:"achieved_request_rate"`
		Thresholds           map[string]float64
	}
	if err := json.Unmarshal(doc["client_health"], &h); err != nil {
		t.Fatalf("client_health: %v\n%s", err, raw)
	}
	if h.Healthy == nil || h.ScheduleLagP99Ms == nil || h.TargetRequestRate == nil || *h.TargetRequestRate != 100 ||
		h.ScheduledRequestRate == nil || math.Abs(*h.ScheduledRequestRate-100) > 1e-6 || h.AchievedRequestRate == nil {
		t.Errorf("client_health figures missing: %s", doc["client_health"])
	}
	if _, ok := clienthealth.ProcessCPU(); ok && (h.CPUUtilizationPct == nil || h.CPUCapacityCores == nil) {
		t.Errorf("client_health lacks CPU figures: %s", doc["client_health"])
	}
	if h.Thresholds["max_cpu_utilization_pct"] != 85 || h.Thresholds["max_schedule_lag_p99_ms"] != 1 || h.Thresholds["min_achieved_rate_pct"] != 99 {
		t.Errorf("thresholds = %v", h.Thresholds)
	}
	if *h.Healthy != (len(h.Warnings) == 0) {
		t.Errorf("healthy %v with warnings %q", *h.Healthy, h.Warnings)
	}
	for _, w := range h.Warnings {
		if !strings.Contains(out, "Client health warning: "+w) {
			t.Errorf("console lacks warning %q:\n%s", w, out)
		}
	}
	// The block is the last key; AIPerf's keys come before it untouched.
	if i, j := strings.LastIndex(string(raw), `"client_health"`), strings.LastIndex(string(raw), `"effective_latency"`); i < j {
		t.Errorf("client_health is not after the metrics")
	}
	for _, tag := range []string{"schedule_lag", "effective_latency", "request_latency", "input_config"} {
		if _, ok := doc[tag]; !ok {
			t.Errorf("summary lacks %s", tag)
		}
	}
	var lag struct{ P50, P90, P99, Max *float64 }
	if err := json.Unmarshal(doc["schedule_lag"], &lag); err != nil || lag.P50 == nil || lag.P90 == nil || lag.P99 == nil || lag.Max == nil {
		t.Errorf("schedule_lag lacks p50/p90/p99/max: %s", doc["schedule_lag"])
	}
}
