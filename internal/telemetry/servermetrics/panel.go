package servermetrics

import (
	"strings"

	"github.com/aiperf-go/aiperf/internal/export"
	"github.com/aiperf-go/aiperf/internal/telemetry/prom"
)

// Client holds the benchmark's own view of the numbers the panel sets the
// server's beside (NaN or absent when unknown): total_osl, and the p50/p99
// of time_to_first_token, inter_token_latency and request_latency in ms.
type Client struct {
	TotalOSL               float64
	TTFTp50, TTFTp99       float64
	ITLp50, ITLp99         float64
	LatencyP50, LatencyP99 float64
	// Which of the above are known.
	HasOSL, HasTTFT, HasITL, HasLat bool
}

// find returns the first series of the role's known metrics in s for
// endpoint url.
func (s *Summary) find(r role, url string) (*Metric, *SeriesStats) {
	for _, name := range knownNames[r] {
		for i := range s.Metrics {
			m := &s.Metrics[i]
			if m.Name != name || m.Type != roleTypes[r] {
				continue
			}
			for j := range m.Series {
				if m.Series[j].Endpoint == url {
					return m, &m.Series[j]
				}
			}
		}
	}
	return nil, nil
}

// sumCounter adds up a counter's totals over every series (label set) of
// the endpoint, e.g. vllm:request_success by finish reason.
func (s *Summary) sumCounter(m *Metric, url string) float64 {
	var t float64
	for _, sr := range m.Series {
		if sr.Endpoint == url && sr.Counter != nil {
			t += sr.Counter.Total
		}
	}
	return t
}

// Panels renders the console panel of each endpoint that serves known
// metrics: the few numbers that explain a run (running and waiting
// requests, KV-cache use, preemptions, prefix-cache hit rate, generated
// tokens) and the server's own TTFT, ITL and request latency estimated
// from its histograms, beside the client's. Endpoints without known metrics
// get no panel; "" when none has any.
func (s *Summary) Panels(c Client, width int) string {
	if s == nil {
		return ""
	}
	var b strings.Builder
	for _, ep := range s.Endpoints {
		rows := s.panelRows(ep.URL, c)
		if len(rows) == 0 {
			continue
		}
		var names []string
		for _, m := range s.Metrics {
			for _, sr := range m.Series {
				if sr.Endpoint == ep.URL {
					names = append(names, m.Name)
					break
				}
			}
		}
		title := "NVIDIA AIPerf | Server Metrics"
		if be := Backend(names); be != "" {
			title += " (" + be + ")"
		}
		title += " | " + prom.EndpointDisplay(ep.URL)
		headers := []string{"Metric", "Server", "Client"}
		if width > 0 && export.TableWidth(headers, rows) > width {
			// Narrow console: each "p50 x, p99 y" on two lines, so the
			// labels keep theirs.
			for _, r := range rows {
				for i := 1; i < len(r); i++ {
					r[i] = strings.ReplaceAll(r[i], ", ", "\n")
				}
			}
		}
		b.WriteString("\n")
		b.WriteString(export.MetricTable(title, headers, rows, width))
	}
	return b.String()
}

func (s *Summary) panelRows(url string, c Client) [][]string {
	var rows [][]string
	add := func(label, server, client string) { rows = append(rows, []string{label, server, client}) }
	gauge := func(r role, label string, pct bool) {
		if _, sr := s.find(r, url); sr != nil && sr.Gauge != nil {
			avg, mx := sr.Gauge.Avg, sr.Gauge.Max
			if pct {
				avg, mx = toPct(avg), toPct(mx)
			}
			add(label, "avg "+export.Grouped2(avg)+", max "+export.Grouped2(mx), "")
		}
	}
	gauge(roleRunning, "Running Requests", false)
	gauge(roleWaiting, "Waiting Requests", false)
	gauge(roleKVUsage, "KV-Cache Usage (%)", true)
	if m, _ := s.find(rolePreemptions, url); m != nil {
		add("Preemptions", export.Grouped2(s.sumCounter(m, url)), "")
	}
	hm, _ := s.find(rolePrefixHits, url)
	qm, _ := s.find(rolePrefixQueries, url)
	switch {
	case hm != nil && qm != nil && s.sumCounter(qm, url) > 0:
		h, q := s.sumCounter(hm, url), s.sumCounter(qm, url)
		add("Prefix-Cache Hit Rate (%)", export.Grouped2(100*min(h, q)/q), "")
	default:
		gauge(rolePrefixHitRate, "Prefix-Cache Hit Rate (%)", true)
	}
	if m, _ := s.find(roleGenTokens, url); m != nil {
		client := ""
		if c.HasOSL {
			client = export.Grouped2(c.TotalOSL)
		}
		add("Generated Tokens", export.Grouped2(s.sumCounter(m, url)), client)
	}
	hist := func(r role, label string, has bool, p50, p99 float64) {
		_, sr := s.find(r, url)
		if sr == nil || sr.Histogram == nil || sr.Histogram.Estimates == nil {
			return
		}
		e := sr.Histogram.Estimates
		client := ""
		if has {
			client = "p50 " + export.Grouped2(p50) + ", p99 " + export.Grouped2(p99)
		}
		add(label, "p50 "+export.Grouped2(e.P50*1000)+", p99 "+export.Grouped2(e.P99*1000), client)
	}
	hist(roleTTFT, "Time to First Token (ms)", c.HasTTFT, c.TTFTp50, c.TTFTp99)
	hist(roleITL, "Inter Token Latency (ms)", c.HasITL, c.ITLp50, c.ITLp99)
	hist(roleE2E, "Request Latency (ms)", c.HasLat, c.LatencyP50, c.LatencyP99)
	return rows
}
