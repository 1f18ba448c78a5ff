package report

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
)

// syntheticRun is a run of n requests with lognormal-ish latencies, for
// sizing the plot costs independently of fixtures.
func syntheticRun(n int) *Run {
	rng := rand.New(rand.NewPCG(1, 2))
	reqs := make([]Request, n)
	t := int64(1e18)
	for i := range reqs {
		ttft := 20 + 10*rng.ExpFloat64()
		lat := ttft + 100 + 20*rng.NormFloat64()
		start := t + int64(i)*int64(1e6)
		reqs[i] = Request{StartNs: start, EndNs: start + int64(lat*1e6), Session: fmt.Sprint(i),
			Metrics: map[string]float64{"time_to_first_token": ttft, "request_latency": lat, "inter_token_latency": 4 + rng.Float64(), "output_sequence_length": 100}}
	}
	return &Run{Dir: "synthetic", Name: "synthetic", Label: "synthetic", Requests: reqs}
}

// BenchmarkSingleRunCharts builds and draws the PNG of each request-based
// single-run preset over 10,000 requests.
func BenchmarkSingleRunCharts(b *testing.B) {
	run := syntheticRun(10_000)
	cfg := DefaultConfig()
	for _, name := range []string{"ttft_over_time", "latency_over_time", "dispersed_throughput_over_time", "ttft_timeline", "ttft_histogram", "latency_percentile_bands", "throughput_and_concurrency_over_time"} {
		spec := cfg.Visualization.SingleRunPlots[name]
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				c, err := singleChart(name, spec, run)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := RenderPNG(c, LightTheme); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkHTMLReport renders the single-run report of the go/run fixture.
func BenchmarkHTMLReport(b *testing.B) {
	dirs, err := FindRuns([]string{filepath.Join("testdata", "go", "run")})
	if err != nil {
		b.Fatal(err)
	}
	run, err := LoadRun(dirs[0], LoadOptions{Requests: true})
	if err != nil {
		b.Fatal(err)
	}
	cfg := DefaultConfig()
	var charts []*Chart
	for _, name := range cfg.Visualization.SingleRunDefaults {
		if c, err := singleChart(name, cfg.Visualization.SingleRunPlots[name], run); err == nil {
			charts = append(charts, c)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := RenderHTML(&Page{Title: "bench", Runs: []*Run{run}, Charts: charts, Theme: LightTheme}); err != nil {
			b.Fatal(err)
		}
	}
}
