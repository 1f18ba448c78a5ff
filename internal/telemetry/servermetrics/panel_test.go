package servermetrics

import (
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/testenv/golden"

	"github.com/aiperf-go/aiperf/internal/telemetry/prom"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// panelSummary is one vLLM endpoint of a long, busy run: every row of the
// panel, with latencies in the tens of seconds and tokens in the millions.
func panelSummary() *Summary {
	const url = "http://localhost:8000/metrics"
	gauge := func(name string, avg, mx float64) Metric {
		return Metric{Name: name, Type: prom.Gauge, Series: []SeriesStats{{Endpoint: url, Gauge: &GaugeStats{Avg: avg, Max: mx}}}}
	}
	counter := func(name string, total float64) Metric {
		return Metric{Name: name, Type: prom.Counter, Series: []SeriesStats{{Endpoint: url, Counter: &CounterStats{Total: total}}}}
	}
	hist := func(name string, p50, p99 float64) Metric {
		return Metric{Name: name, Type: prom.Histogram, Series: []SeriesStats{{Endpoint: url, Histogram: &HistogramStats{Count: 1000, Estimates: &Estimates{P50: p50, P99: p99}}}}}
	}
	return &Summary{
		Metrics: []Metric{
			hist("vllm:e2e_request_latency_seconds", 12.34567, 23.45678),
			counter("vllm:generation_tokens", 1234567),
			hist("vllm:inter_token_latency_seconds", 0.01234, 0.09876),
			gauge("vllm:kv_cache_usage_perc", 0.8765, 0.9999),
			gauge("vllm:num_requests_running", 255.5, 256),
			gauge("vllm:num_requests_waiting", 1234.5, 2345),
			counter("vllm:num_preemptions", 12),
			counter("vllm:prefix_cache_hits", 600000),
			counter("vllm:prefix_cache_queries", 1000000),
			hist("vllm:time_to_first_token_seconds", 2.34567, 9.87654),
		},
		Endpoints: []EndpointInfo{{URL: url}},
	}
}

// TestPanelsFitTheWidth: the server metrics panel fits 80 and 120
// columns with every label on one line (at 80 the server's and the
// client's p50 and p99 stack instead).
func TestPanelsFitTheWidth(t *testing.T) {
	t.Parallel()
	c := Client{TotalOSL: 1234567, TTFTp50: 2400.12, TTFTp99: 10123.45, ITLp50: 12.5, ITLp99: 99.1, LatencyP50: 12400.5, LatencyP99: 23500.25,
		HasOSL: true, HasTTFT: true, HasITL: true, HasLat: true}
	for _, width := range []int{80, 120} {
		out := panelSummary().Panels(c, width)
		golden.Check(t, filepath.Join("testdata", fmt.Sprintf("panel_%d.golden", width)), []byte(out), *update)
		golden.Fits(t, out, width)
		for _, label := range []string{"Prefix-Cache Hit Rate (%) │", "Time to First Token (ms) │", "Inter Token Latency (ms) │"} {
			if !strings.Contains(out, label) {
				t.Errorf("%d columns: the label %q wraps:\n%s", width, label, out)
			}
		}
	}
}
