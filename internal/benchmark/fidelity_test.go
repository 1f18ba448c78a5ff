package benchmark

import (
	"context"
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/mockserver"
)

// fidelityLine is what the HTTP trace tests read from profile_export.jsonl.
type fidelityLine struct {
	Metadata struct {
		SessionNum int `json:"session_num"`
	} `json:"metadata"`
	Metrics   map[string]fidelityValue   `json:"metrics"`
	TraceData map[string]json.RawMessage `json:"trace_data"`
}

// fidelityValue is one scalar metric of a line (list metrics such as
// inter_chunk_latency are left at zero).
type fidelityValue struct {
	Value float64
	Unit  string
}

func (v *fidelityValue) UnmarshalJSON(b []byte) error {
	var raw struct {
		Value json.RawMessage `json:"value"`
		Unit  string          `json:"unit"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	v.Unit = raw.Unit
	_ = json.Unmarshal(raw.Value, &v.Value) // a list stays 0
	return nil
}

func fidelityLines(t *testing.T, dir string) []fidelityLine {
	t.Helper()
	var out []fidelityLine
	for _, l := range lines(t, filepath.Join(dir, "profile_export.jsonl")) {
		var r fidelityLine
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// fidelityHealth reads the summary's client_health connection counts.
func fidelityHealth(t *testing.T, dir string) (opened, preconnected int) {
	t.Helper()
	doc := summary(t, filepath.Join(dir, "profile_export_aiperf.json"))
	var h struct {
		ConnectionsOpened *int `json:"connections_opened"`
		Preconnected      *int `json:"preconnected"`
	}
	if err := json.Unmarshal(doc["client_health"], &h); err != nil || h.ConnectionsOpened == nil || h.Preconnected == nil {
		t.Fatalf("client_health %s: %v; want connections_opened and preconnected", doc["client_health"], err)
	}
	return *h.ConnectionsOpened, *h.Preconnected
}

// TestRunHTTPTraceConnectionReuse runs one connection's worth of requests
// against the mock: the first request dials (reused 0, connecting > 0),
// every later one reuses it (reused 1, connecting 0). The http_req_*
// metrics are in every line and the summary without a flag; with
// --export-http-trace each line carries trace_data, and
// --show-trace-timing prints the table.
func TestRunHTTPTraceConnectionReuse(t *testing.T) {
	t.Parallel()
	url, _ := mock(t, nil)
	cfg := baseConfig(t, url)
	cfg.Load.Concurrency = ptr(1)
	cfg.Load.RequestCount = ptr(4)
	cfg.Fidelity.ExportHTTPTrace = true
	cfg.Fidelity.ShowTraceTiming = true
	out, err := run(t, context.Background(), cfg)
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, out)
	}
	dir := cfg.Output.ArtifactDir
	recs := fidelityLines(t, dir)
	if len(recs) != 4 {
		t.Fatalf("%d records; want 4", len(recs))
	}
	dialed := 0
	for _, r := range recs {
		reused, ok1 := r.Metrics["http_req_connection_reused"]
		connecting, ok2 := r.Metrics["http_req_connecting"]
		if !ok1 || !ok2 {
			t.Fatalf("record %d lacks http_req_connection_reused or http_req_connecting: %v", r.Metadata.SessionNum, r.Metrics)
		}
		if reused.Value == 0 {
			dialed++
			if connecting.Value <= 0 {
				t.Errorf("record %d: a new connection with http_req_connecting %v; want > 0", r.Metadata.SessionNum, connecting.Value)
			}
		} else if reused.Value != 1 || connecting.Value != 0 {
			t.Errorf("record %d: reused %v, connecting %v; want 1 and 0", r.Metadata.SessionNum, reused.Value, connecting.Value)
		}
		for _, tag := range []string{"http_req_blocked", "http_req_sending", "http_req_waiting", "http_req_receiving",
			"http_req_data_sent", "http_req_data_received", "http_req_chunks_received", "http_req_duration", "http_req_total"} {
			if _, ok := r.Metrics[tag]; !ok {
				t.Errorf("record %d lacks %s", r.Metadata.SessionNum, tag)
			}
		}
		if r.Metrics["http_req_data_sent"].Unit != "KB" || r.Metrics["http_req_waiting"].Unit != "ms" {
			t.Errorf("units %q, %q; want KB and ms", r.Metrics["http_req_data_sent"].Unit, r.Metrics["http_req_waiting"].Unit)
		}
		td := r.TraceData
		for _, key := range []string{"trace_type", "request_send_start_ns", "request_send_end_ns", "response_receive_start_ns",
			"response_receive_end_ns", "response_chunks", "request_headers", "response_headers", "local_ip", "remote_port", "duration_ns"} {
			if _, ok := td[key]; !ok {
				t.Errorf("record %d trace_data lacks %s: %v", r.Metadata.SessionNum, key, td)
			}
		}
		if _, ok := td["tcp_connect_start_ns"]; ok != (reused.Value == 0) {
			t.Errorf("record %d: tcp_connect_start_ns present %v with reused %v", r.Metadata.SessionNum, ok, reused.Value)
		}
	}
	if dialed != 1 {
		t.Errorf("%d records opened a connection; want exactly the first", dialed)
	}
	if opened, pre := fidelityHealth(t, dir); opened != 1 || pre != 0 {
		t.Errorf("client_health connections_opened %d, preconnected %d; want 1 and 0", opened, pre)
	}
	doc := summary(t, filepath.Join(dir, "profile_export_aiperf.json"))
	for _, tag := range []string{"http_req_connecting", "http_req_connection_reused", "http_req_total"} {
		if _, ok := doc[tag]; !ok {
			t.Errorf("summary lacks %s", tag)
		}
	}
	if !strings.Contains(out, "HTTP Trace Timing") || !strings.Contains(out, "HTTP Connecting") {
		t.Errorf("console lacks the HTTP trace timing table:\n%s", out)
	}
}

// TestRunPreconnect: with --pre-connect the connections are open before
// the first request, so no profiling request pays a connect: none is
// reused on its first use, none has connecting > 0, and the summary counts
// no connection opened on the requests' path.
func TestRunPreconnect(t *testing.T) {
	t.Parallel()
	url, _ := mock(t, nil)
	cfg := baseConfig(t, url)
	cfg.Load.Concurrency = ptr(2)
	cfg.Load.RequestCount = ptr(6)
	cfg.Fidelity.PreConnect = "auto"
	out, err := run(t, context.Background(), cfg)
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, out)
	}
	dir := cfg.Output.ArtifactDir
	for _, r := range fidelityLines(t, dir) {
		if c := r.Metrics["http_req_connecting"].Value; c != 0 {
			t.Errorf("record %d: http_req_connecting %v after pre-connect; want 0", r.Metadata.SessionNum, c)
		}
		if r.TraceData != nil {
			t.Errorf("record %d has trace_data without --export-http-trace", r.Metadata.SessionNum)
		}
	}
	if opened, pre := fidelityHealth(t, dir); opened != 0 || pre != 2 {
		t.Errorf("client_health connections_opened %d, preconnected %d; want 0 and 2", opened, pre)
	}
	if strings.Contains(out, "HTTP Trace Timing") {
		t.Errorf("console shows the trace timing table without --show-trace-timing")
	}
}

// TestRunNetworkLatency: a fixed --network-latency-mean shifts TTFT and
// request latency by exactly that much in the network_adjusted_* metrics
// and reports network_rtt; --network-latency-automatic probes the server
// during the run and writes every probe to
// profile_export_network_latency.jsonl.
func TestRunNetworkLatency(t *testing.T) {
	t.Parallel()
	// Not --fast: a 20 ms TTFT stays above the 2 ms subtracted, so no value
	// is clamped at 0 and the shift is exact.
	url, _ := mock(t, func(c *mockserver.Config) { c.Fast, c.TTFT, c.ITL = false, 20*time.Millisecond, time.Millisecond })
	t.Run("mean", func(t *testing.T) {
		t.Parallel()
		cfg := baseConfig(t, url)
		cfg.Load.RequestCount = ptr(4)
		cfg.Fidelity.NetworkLatencyMeanMS = ptr(2.0)
		out, err := run(t, context.Background(), cfg)
		if err != nil {
			t.Fatalf("Run: %v\n%s", err, out)
		}
		doc := summary(t, filepath.Join(cfg.Output.ArtifactDir, "profile_export_aiperf.json"))
		ttft, adj := avg(t, doc, "time_to_first_token"), avg(t, doc, "network_adjusted_time_to_first_token")
		if math.Abs(ttft-2-adj) > 1e-6 {
			t.Errorf("network_adjusted_time_to_first_token avg %v; want TTFT avg %v - 2 ms", adj, ttft)
		}
		if lat, adj := avg(t, doc, "request_latency"), avg(t, doc, "network_adjusted_request_latency"); math.Abs(lat-2-adj) > 1e-6 {
			t.Errorf("network_adjusted_request_latency avg %v; want %v - 2 ms", adj, lat)
		}
		if rtt := avg(t, doc, "network_rtt"); rtt != 2 {
			t.Errorf("network_rtt %v; want 2", rtt)
		}
		if !strings.Contains(out, "fixed mean RTT of 2.000 ms") {
			t.Errorf("console lacks the calibration note:\n%s", out)
		}
	})
	t.Run("automatic", func(t *testing.T) {
		t.Parallel()
		cfg := baseConfig(t, url)
		cfg.Load.RequestCount = ptr(4)
		cfg.Fidelity.NetworkLatencyAutomatic = true
		cfg.Fidelity.NetworkLatencyPingInterval = ptr(0.05)
		out, err := run(t, context.Background(), cfg)
		if err != nil {
			t.Fatalf("Run: %v\n%s", err, out)
		}
		probes := lines(t, filepath.Join(cfg.Output.ArtifactDir, "profile_export_network_latency.jsonl"))
		if len(probes) == 0 || !strings.Contains(probes[0], `"probe_type":"tcp_connect"`) || !strings.Contains(probes[0], `"success":true`) {
			t.Fatalf("probes %v; want successful tcp_connect lines", probes)
		}
		doc := summary(t, filepath.Join(cfg.Output.ArtifactDir, "profile_export_aiperf.json"))
		if rtt := avg(t, doc, "network_rtt"); !(rtt > 0) {
			t.Errorf("network_rtt %v; want the probes' mean > 0", rtt)
		}
		avg(t, doc, "network_adjusted_time_to_first_token") // present
	})
}
