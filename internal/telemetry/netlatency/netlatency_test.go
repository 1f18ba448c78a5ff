package netlatency

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// listener accepts and closes connections until the test ends.
func listener(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	return "http://user:secret@" + ln.Addr().String()
}

func readLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		out = append(out, m)
	}
	return out
}

// A run shorter than MinSamples intervals still ends with MinSamples
// successful probes (topped up at Stop), every one written in AIPerf's
// shape, the URL without its credentials, the two URLs of one server
// probed once.
func TestProberTopsUpAndWritesSamples(t *testing.T) {
	t.Parallel()
	url := listener(t)
	path := filepath.Join(t.TempDir(), "profile_export_network_latency.jsonl")
	p, err := Start(context.Background(), Options{URLs: []string{url, url + "/"}, Interval: time.Hour, Path: path})
	if err != nil {
		t.Fatal(err)
	}
	r, err := p.Stop(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if r.SuccessCount != MinSamples || r.FailureCount != 0 || r.Count != MinSamples {
		t.Errorf("results %+v; want %d successful probes", r, MinSamples)
	}
	if !(r.Mean > 0 && r.Min <= r.Median && r.Median <= r.P99) {
		t.Errorf("round trips: mean %v min %v median %v p99 %v", r.Mean, r.Min, r.Median, r.P99)
	}
	lines := readLines(t, path)
	if len(lines) != MinSamples {
		t.Fatalf("%d lines; want %d", len(lines), MinSamples)
	}
	keys := []string{"timestamp_ns", "target_url", "target_host", "target_port", "probe_type", "rtt_ns", "success", "error"}
	for _, l := range lines {
		for _, k := range keys {
			if _, ok := l[k]; !ok {
				t.Errorf("line %v lacks %s", l, k)
			}
		}
		if l["probe_type"] != "tcp_connect" || l["success"] != true || l["error"] != nil || l["rtt_ns"].(float64) <= 0 {
			t.Errorf("line %v", l)
		}
		if u := l["target_url"].(string); u == url || len(u) == 0 || l["target_host"] != "127.0.0.1" {
			t.Errorf("target_url %q (host %v); want the URL without credentials", u, l["target_host"])
		}
	}
}

// Refused probes are failed samples, never errors; the run gives up
// topping up after twice MinSamples tries.
func TestProberRefused(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	path := filepath.Join(t.TempDir(), "nl.jsonl")
	p, err := Start(context.Background(), Options{URLs: []string{"http://" + addr}, Interval: time.Hour, Path: path})
	if err != nil {
		t.Fatal(err)
	}
	r, err := p.Stop(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// The first probe, started with the prober, may be cut short by Stop
	// (then it is no sample): 2*MinSamples tries at the end, maybe one more.
	if r.SuccessCount != 0 || r.FailureCount < 2*MinSamples || r.FailureCount > 2*MinSamples+1 || r.Mean != 0 {
		t.Errorf("results %+v; want %d or %d failures and no mean", r, 2*MinSamples, 2*MinSamples+1)
	}
	l := readLines(t, path)[0]
	e, _ := l["error"].(map[string]any)
	if l["success"] != false || l["rtt_ns"] != nil || e["type"] != "ConnectionRefusedError" {
		t.Errorf("failed line %v", l)
	}
}
