package ui

import (
	"math"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/aiperf-go/aiperf/internal/live"
)

func fixtureSnapshot() *live.Snapshot {
	nan := math.NaN()
	return &live.Snapshot{
		Seq: 7, At: 12 * time.Second, Window: 10 * time.Second, Bucket: time.Second,
		Finished: []live.Progress{{Phase: "warmup", Done: 5, Total: 5, Elapsed: time.Second}},
		Phase:    live.Progress{Phase: "profiling", Done: 30, Total: 120, Sent: 34, InFlight: 4, Errors: 2, Elapsed: 10 * time.Second, Late: 3},
		Metrics: []live.Metric{
			{Tag: "time_to_first_token", Header: "Time to First Token", Unit: "ms", Count: 30, Avg: 21.5, P50: 20.25, P99: 41.75, Series: []float64{18, 22, nan, 30}},
			{Tag: "request_throughput", Header: "Request Throughput", Unit: "requests/sec", Kind: live.Rate, Count: 4, Avg: 3, P50: 3, P99: 4, Series: []float64{2, 3, 3, 4}},
			{Tag: "schedule_lag", Header: "Schedule Lag", Unit: "ms", P50: 0.1, P99: 0.9},
		},
		Errors: []live.ErrorCount{{Type: "ServerError", Count: 2}},
		Health: live.Health{CPUPct: 12, Cores: 2, LagP99: 900 * time.Microsecond, Goroutines: 40},
		Telemetry: []live.Panel{{Source: "gpu_telemetry", Title: "gpu_0 H100 @ localhost:9400", At: 11 * time.Second,
			Gauges: []live.Gauge{{Name: "nvidia_gpu_utilization", Unit: "%", Value: 87, Series: []float64{50, 70, 87}}}}},
		Logs: []live.LogLine{
			{Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Level: "INFO", Message: "phase started phase=profiling"},
			{Time: time.Date(2026, 1, 2, 3, 4, 6, 0, time.UTC), Level: "WARN", Message: "slow server"},
		},
	}
}

func TestRenderPanes(t *testing.T) {
	t.Parallel()
	f := Frame{Snap: fixtureSnapshot(), Title: "mock-model @ http://x", Width: 120, Height: 40}
	metrics := ansi.Strip(Render(f))
	for _, want := range []string{
		"NVIDIA AIPerf", "mock-model @ http://x",
		"Warmup", "5/5", "done", "Profiling", "30/120", "25%", "ETA 00:30",
		"Time to First Token (ms)", "20.25", "41.75", "21.50", "▁▃ █",
		"Request Throughput (req/s)",
		"CPU 12% of 2 cores", "schedule lag p99 0.90 ms", "late sends 3",
		"Errors: ServerError ×2", "Telemetry: 1 panel(s)",
		"03:04:06 WARN  slow server",
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("metrics pane lacks %q:\n%s", want, metrics)
		}
	}
	if strings.Contains(metrics, "Schedule Lag (ms)") {
		t.Error("schedule lag is listed as a metric row; it belongs to client health")
	}
	for _, line := range strings.Split(metrics, "\n") {
		if w := ansi.StringWidth(line); w > 120 {
			t.Errorf("line is %d columns wide, over 120: %q", w, line)
		}
	}
	f.Pane = PaneTelemetry
	tel := ansi.Strip(Render(f))
	if !strings.Contains(tel, "gpu_0 H100 @ localhost:9400") || !strings.Contains(tel, "nvidia_gpu_utilization") || !strings.Contains(tel, "87.00") {
		t.Errorf("telemetry pane:\n%s", tel)
	}
	f.Pane = PaneLogs
	logs := ansi.Strip(Render(f))
	if !strings.Contains(logs, "03:04:05 INFO  phase started phase=profiling") {
		t.Errorf("logs pane:\n%s", logs)
	}
	f.Stopping = true
	if !strings.Contains(ansi.Strip(Render(f)), "stopping: draining") {
		t.Error("no stopping notice after the user asked to stop")
	}
}

func TestRenderBeforeFirstSnapshot(t *testing.T) {
	t.Parallel()
	out := ansi.Strip(Render(Frame{Width: 30, Height: 5}))
	if !strings.Contains(out, "waiting for the first phase") {
		t.Errorf("empty dashboard:\n%s", out)
	}
}

func TestSparkline(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in    []float64
		width int
		want  string
	}{
		{[]float64{0, 1, 2, 3, 4, 5, 6, 7}, 8, "▁▂▃▄▅▆▇█"},
		{[]float64{5, 5}, 8, "▅▅"},
		{[]float64{1, math.NaN(), 3}, 8, "▁ █"},
		{[]float64{0, 1, 2, 3}, 2, "▁█"}, // the latest width values
		{nil, 4, ""},
	}
	for _, tt := range tests {
		if got := sparkline(tt.in, tt.width); got != tt.want {
			t.Errorf("sparkline(%v, %d) = %q; want %q", tt.in, tt.width, got, tt.want)
		}
	}
}

func TestModelKeys(t *testing.T) {
	t.Parallel()
	interrupts := 0
	m := &model{interrupt: func() { interrupts++ }, width: 80, height: 24}
	press := func(k tea.Key) { m.Update(tea.KeyPressMsg(k)) }
	press(tea.Key{Code: tea.KeyTab})
	if m.pane != PaneTelemetry {
		t.Errorf("tab: pane %v; want Telemetry", m.pane)
	}
	press(tea.Key{Code: '3', Text: "3"})
	if m.pane != PaneLogs {
		t.Errorf("3: pane %v; want Logs", m.pane)
	}
	press(tea.Key{Code: tea.KeyTab})
	if m.pane != PaneMetrics {
		t.Errorf("tab from the last pane: %v; want Metrics", m.pane)
	}
	press(tea.Key{Code: 'c', Mod: tea.ModCtrl})
	press(tea.Key{Code: 'q', Text: "q"})
	if interrupts != 2 || !m.stopping {
		t.Errorf("ctrl+c then q: %d interrupts, stopping %v; want 2, true", interrupts, m.stopping)
	}
	m.Update(tea.WindowSizeMsg{Width: 132, Height: 50})
	if m.width != 132 || m.height != 50 {
		t.Errorf("size %dx%d; want 132x50", m.width, m.height)
	}
	if _, cmd := m.Update(snapMsg{&live.Snapshot{Final: true}}); cmd == nil {
		t.Error("the Final snapshot does not quit the program")
	}
	if v := m.View(); !v.AltScreen {
		t.Error("the dashboard does not use the alternate screen")
	}
}
