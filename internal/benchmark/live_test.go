package benchmark

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/environ"
	"github.com/aiperf-go/aiperf/internal/live"
	"github.com/aiperf-go/aiperf/internal/metrics"
	"github.com/aiperf-go/aiperf/internal/mockserver"
	"github.com/aiperf-go/aiperf/internal/record"
)

// TestRunTimeslices checks --slice-duration against the records: every
// request is counted in the slice its request_start_ns falls in, slices
// are contiguous fixed-width windows from the first request, and the CSV
// has AIPerf 0.13's header.
func TestRunTimeslices(t *testing.T) {
	t.Parallel()
	url, _ := mock(t, func(c *mockserver.Config) { c.Fast = false; c.TTFT = 5 * time.Millisecond; c.ITL = time.Millisecond })
	cfg := baseConfig(t, url)
	cfg.Load.RequestRate = ptr(100.0)
	cfg.Load.ArrivalPattern = config.ArrivalConstant
	cfg.Load.RequestCount = ptr(40)
	cfg.Visuals.SliceDurationSeconds = ptr(0.1)
	if _, err := run(t, context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	dir := cfg.Output.ArtifactDir
	var doc struct {
		Timeslices []map[string]json.RawMessage `json:"timeslices"`
		Input      map[string]any               `json:"input_config"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "profile_export_aiperf_timeslices.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Timeslices) < 3 || doc.Input == nil {
		t.Fatalf("%d slices, input_config %v; want >= 3 slices of a 0.4 s run and the input config", len(doc.Timeslices), doc.Input != nil)
	}
	type slice struct{ start, end int64 }
	var slices []slice
	counted := map[int64]float64{}
	width := int64(100 * time.Millisecond)
	for i, ts := range doc.Timeslices {
		var s slice
		json.Unmarshal(ts["start_ns"], &s.start)
		json.Unmarshal(ts["end_ns"], &s.end)
		var rc struct{ Avg float64 }
		json.Unmarshal(ts["request_count"], &rc)
		counted[s.start] = rc.Avg
		if i > 0 && (s.start-slices[0].start)%width != 0 {
			t.Errorf("slice %d starts at %d, not a multiple of 100 ms after slice 0", i, s.start)
		}
		if _, last := ts["is_complete"]; s.end-s.start != width && !(last && i == len(doc.Timeslices)-1) {
			t.Errorf("slice %d is %d ns wide; only an incomplete last slice may be narrower", i, s.end-s.start)
		}
		slices = append(slices, s)
	}
	want := map[int64]float64{}
	minStart := int64(1 << 62)
	for _, l := range lines(t, filepath.Join(dir, "profile_export.jsonl")) {
		var r struct {
			Metadata struct {
				Start int64 `json:"request_start_ns"`
			} `json:"metadata"`
		}
		json.Unmarshal([]byte(l), &r)
		minStart = min(minStart, r.Metadata.Start)
		idx := (r.Metadata.Start - slices[0].start) / width
		want[slices[0].start+idx*width]++
	}
	if d := minStart - slices[0].start; d != 0 {
		t.Errorf("first request starts %d ns after slice 0; want slice 0 to start at it, as AIPerf's", d)
	}
	for start, n := range want {
		if counted[start] != n {
			t.Errorf("slice at %d counts %v requests; the records put %v there", start, counted[start], n)
		}
	}
	csv, err := os.ReadFile(filepath.Join(dir, "profile_export_aiperf_timeslices.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(csv, []byte("Timeslice,Start_NS,End_NS,Metric,Unit,Stat,Value\r\n0,")) ||
		!bytes.Contains(csv, []byte(",Time to First Token,ms,p99,")) {
		t.Errorf("timeslice CSV starts %q", csv[:min(len(csv), 120)])
	}
}

// snapshotLog is an observer that keeps every snapshot.
type snapshotLog struct {
	mu    sync.Mutex
	snaps []*live.Snapshot
}

func (l *snapshotLog) Observe(s *live.Snapshot) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.snaps = append(l.snaps, s)
}

// TestRunPublishesLiveSnapshots checks the observer contract on a real
// run: snapshots in Seq order, exactly one Final one and it is last, the
// warmup listed as finished once profiling runs, and the headline metrics
// and counters of the profiling phase in the final snapshot.
func TestRunPublishesLiveSnapshots(t *testing.T) {
	t.Parallel()
	url, _ := mock(t, func(c *mockserver.Config) {
		c.Fast = false
		c.TTFT = 20 * time.Millisecond
		c.ITL = 2 * time.Millisecond
	})
	cfg := baseConfig(t, url)
	cfg.Load.Concurrency = ptr(4)
	cfg.Load.RequestCount = ptr(40)
	cfg.Warmup.RequestCount = ptr(4)
	obs := &snapshotLog{}
	var out, errOut bytes.Buffer
	if err := Run(context.Background(), cfg, IO{Env: environ.Read(), Stdout: &out, Stderr: &errOut, Observers: []live.Observer{obs}}); err != nil {
		t.Fatal(err, errOut.String())
	}
	snaps := obs.snaps
	if len(snaps) < 2 {
		t.Fatalf("%d snapshots; want several over a ~0.5 s run", len(snaps))
	}
	for i, s := range snaps {
		if s.Seq != uint64(i+1) {
			t.Fatalf("snapshot %d has Seq %d", i, s.Seq)
		}
		if s.Final != (i == len(snaps)-1) {
			t.Fatalf("snapshot %d of %d: Final = %v", i, len(snaps), s.Final)
		}
	}
	last := snaps[len(snaps)-1]
	if last.Phase.Phase != "profiling" || last.Phase.Done != 40 || last.Phase.Total != 40 || last.Phase.InFlight != 0 {
		t.Errorf("final progress = %+v; want profiling 40/40, none in flight", last.Phase)
	}
	if len(last.Finished) != 1 || last.Finished[0].Phase != "warmup" {
		t.Errorf("finished phases = %+v; want the warmup", last.Finished)
	}
	ttft, ok := last.Metric("time_to_first_token")
	if !ok || ttft.Count != 40 || ttft.P50 < 15 || ttft.P50 > 200 {
		t.Errorf("final TTFT = %+v; want 40 values near 20 ms", ttft)
	}
	rate, _ := last.Metric("request_throughput")
	if !(rate.Avg > 0) {
		t.Errorf("final request throughput = %+v; want > 0", rate)
	}
	found := false
	for _, l := range last.Logs {
		found = found || strings.Contains(l.Message, "phase finished")
	}
	if !found {
		t.Errorf("final snapshot logs lack the phase lines: %+v", last.Logs)
	}
}

// BenchmarkLiveObserve is the live view's cost per record on the record
// consumer: a valid record carrying a value for every built-in record
// metric (compare BenchmarkAccumulatorAdd in internal/metrics).
func BenchmarkLiveObserve(b *testing.B) {
	reg := metrics.Builtin()
	lm := newLiveMeters(reg)
	p := metrics.Processed{Record: &record.Record{Phase: record.Profiling, Sent: 2e6, Due: 1e6}, Valid: true}
	for _, m := range reg.Metrics() {
		if m.Kind == metrics.KindRecord && !m.List {
			p.Values = append(p.Values, metrics.Value{Metric: m, Scalar: 12.5})
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		lm.observe(&p)
		if i%100000 == 99999 {
			lm.roll(time.Duration(i))
		}
	}
}
