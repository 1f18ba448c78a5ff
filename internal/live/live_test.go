package live

import (
	"log/slog"
	"math"
	"slices"
	"sync"
	"testing"
	"time"
)

var testSignals = []Signal{
	{Tag: "time_to_first_token", Header: "Time to First Token", Unit: "ms", Kind: Distribution},
	{Tag: "request_throughput", Header: "Request Throughput", Unit: "requests/sec", Kind: Rate},
}

func TestProgress(t *testing.T) {
	t.Parallel()
	tests := []struct {
		p        Progress
		fraction float64
		eta      time.Duration
		etaOK    bool
	}{
		{Progress{Done: 25, Total: 100, Elapsed: 10 * time.Second}, 0.25, 30 * time.Second, true},
		{Progress{Elapsed: 15 * time.Second, Duration: 60 * time.Second}, 0.25, 45 * time.Second, true},
		// by count or by time, whichever is further
		{Progress{Done: 10, Total: 100, Elapsed: 30 * time.Second, Duration: 60 * time.Second}, 0.5, 30 * time.Second, true},
		{Progress{Done: 5, Elapsed: time.Second}, -1, 0, false},
		{Progress{Done: 0, Total: 10, Elapsed: time.Second}, 0, 0, false},
		{Progress{Done: 12, Total: 10, Elapsed: time.Second}, 1, 0, true},
	}
	for _, tt := range tests {
		if f := tt.p.Fraction(); f != tt.fraction {
			t.Errorf("%+v.Fraction() = %v; want %v", tt.p, f, tt.fraction)
		}
		if eta, ok := tt.p.ETA(); eta != tt.eta || ok != tt.etaOK {
			t.Errorf("%+v.ETA() = %v, %v; want %v, %v", tt.p, eta, ok, tt.eta, tt.etaOK)
		}
	}
}

func TestMeterSummarize(t *testing.T) {
	t.Parallel()
	m := NewMeter(testSignals, 4, 0)
	// bucket 1: TTFT 1..5, 2 requests over 1 s; bucket 2: empty; bucket 3: TTFT 10, 4 requests over 2 s
	for v := 1; v <= 5; v++ {
		m.Add(0, float64(v))
	}
	m.Count(1, 2)
	m.Roll(time.Second)
	m.Roll(2 * time.Second)
	m.Add(0, 10)
	m.Count(1, 4)
	m.Error("ServerError")
	m.Error("TimeoutError")
	m.Error("ServerError")
	m.Roll(4 * time.Second)

	bs := m.Recent(10)
	if len(bs) != 3 || bs[0].Seq != 1 || bs[2].Seq != 3 {
		t.Fatalf("Recent(10) = %d buckets (first %d); want 3 from seq 1", len(bs), bs[0].Seq)
	}
	if got := bs[2].Errors; len(got) != 2 || got[0] != (ErrorCount{"ServerError", 2}) {
		t.Errorf("errors = %v; want ServerError 2 first", got)
	}
	ms := Summarize(testSignals, bs, 3)
	ttft, rate := ms[0], ms[1]
	// pooled 1,2,3,4,5,10: numpy p50 = 3.5, p99 = 5 + 0.95*5 = 9.75
	if ttft.Count != 6 || ttft.P50 != 3.5 || math.Abs(ttft.P99-9.75) > 1e-9 || ttft.Avg != 25.0/6 {
		t.Errorf("ttft = %+v; want count 6, p50 3.5, p99 9.75, avg 25/6", ttft)
	}
	if len(ttft.Series) != 3 || ttft.Series[0] != 3 || !math.IsNaN(ttft.Series[1]) || ttft.Series[2] != 10 {
		t.Errorf("ttft series = %v; want [3 NaN 10]", ttft.Series)
	}
	// The series reads each published bucket's median, computed once at
	// Roll; a bucket never published gives the same from its values.
	for j, b := range bs {
		raw := *b
		raw.medians = nil
		got, want := Summarize(testSignals, []*Bucket{&raw}, 1)[0].Series[0], ttft.Series[j]
		if got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Errorf("bucket %d unpublished: series %v; published %v", j, got, want)
		}
	}
	// rates 2/s, 0/s, 2/s
	if rate.Count != 3 || rate.Avg != 4.0/3 || rate.P50 != 2 || rate.Series[1] != 0 {
		t.Errorf("rate = %+v; want 3 buckets, avg 4/3, p50 2, series[1] 0", rate)
	}
	// A window of 1 covers only the last bucket.
	if ms := Summarize(testSignals, bs, 1); ms[0].Count != 1 || ms[0].P50 != 10 {
		t.Errorf("window 1: ttft = %+v; want the last bucket only", ms[0])
	}
	// Empty window: NaN statistics.
	if ms := Summarize(testSignals, bs[1:2], 1); ms[0].Count != 0 || !math.IsNaN(ms[0].P99) {
		t.Errorf("empty window: ttft = %+v; want NaN", ms[0])
	}
}

func TestMeterRingKeepsLatest(t *testing.T) {
	t.Parallel()
	m := NewMeter(testSignals, 3, 0)
	for i := 1; i <= 10; i++ {
		m.Roll(time.Duration(i) * time.Second)
	}
	bs := m.Recent(5)
	if len(bs) != 3 || bs[0].Seq != 8 || bs[2].Seq != 10 || bs[2].End != 10*time.Second {
		t.Fatalf("Recent(5) on a ring of 3 = %v; want seqs 8..10", seqs(bs))
	}
	if m.Published() != 10 {
		t.Errorf("Published() = %d; want 10", m.Published())
	}
}

func TestMeterReservoir(t *testing.T) {
	t.Parallel()
	m := NewMeter(testSignals, 2, 0)
	n := 10 * SampleCap
	for i := range n {
		m.Add(0, float64(i))
	}
	m.Roll(time.Second)
	b := m.Recent(1)[0]
	if len(b.Values[0]) != SampleCap || b.Count[0] != float64(n) {
		t.Fatalf("kept %d of %v; want %d of %d", len(b.Values[0]), b.Count[0], SampleCap, n)
	}
	// A uniform sample of 0..n-1 has a median near n/2.
	if p50 := Summarize(testSignals, []*Bucket{b}, 1)[0].P50; math.Abs(p50-float64(n)/2) > float64(n)/20 {
		t.Errorf("sample median = %v; want about %v", p50, n/2)
	}
}

// TestMeterConcurrentReaders runs one writer against readers; with -race
// it checks the single-writer, atomic-publish design.
func TestMeterConcurrentReaders(t *testing.T) {
	t.Parallel()
	m := NewMeter(testSignals, 4, 0)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 2 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				bs := m.Recent(4)
				for i := 1; i < len(bs); i++ {
					if bs[i].Seq != bs[i-1].Seq+1 {
						t.Errorf("non-consecutive buckets %v", seqs(bs))
						return
					}
				}
				Summarize(testSignals, bs, 2)
			}
		})
	}
	for i := 1; i <= 2000; i++ {
		m.Add(0, float64(i))
		m.Count(1, 1)
		m.Roll(time.Duration(i) * time.Millisecond)
	}
	close(stop)
	wg.Wait()
}

func seqs(bs []*Bucket) []uint64 {
	out := make([]uint64, len(bs))
	for i, b := range bs {
		out[i] = b.Seq
	}
	return out
}

func TestBoard(t *testing.T) {
	t.Parallel()
	var b Board
	b.PutPanel(Panel{Source: "gpu_telemetry", Title: "gpu_1", Gauges: []Gauge{{Name: "util", Value: 1}}})
	b.PutPanel(Panel{Source: "gpu_telemetry", Title: "gpu_0", Gauges: []Gauge{{Name: "util", Value: 2}}})
	b.PutPanel(Panel{Source: "gpu_telemetry", Title: "gpu_1", Gauges: []Gauge{{Name: "util", Value: 3}}})
	ps := b.Panels()
	if len(ps) != 2 || ps[0].Title != "gpu_0" || ps[1].Gauges[0].Value != 3 {
		t.Errorf("panels = %+v; want gpu_0 then gpu_1 replaced by the later post", ps)
	}

	log := slog.New(b.Handler(slog.LevelInfo)).With("phase", "profiling")
	log.Debug("hidden")
	for i := range LogKeep + 5 {
		log.Info("line", "i", i)
	}
	log.WithGroup("g").Warn("last", "k", "v")
	lines := b.Logs(3)
	if len(lines) != 3 || lines[2].Level != "WARN" || lines[2].Message != "last phase=profiling g.k=v" {
		t.Fatalf("last lines = %+v", lines)
	}
	if lines[0].Message != "line phase=profiling i=203" {
		t.Errorf("lines[0] = %q; want i=203", lines[0].Message)
	}
	if all := b.Logs(1000); len(all) != LogKeep || all[0].Message != "line phase=profiling i=6" {
		t.Errorf("kept %d lines from %q; want %d from i=6", len(all), all[0].Message, LogKeep)
	}
}

func BenchmarkMeterAdd(b *testing.B) {
	m := NewMeter(testSignals, 8, 0)
	b.ReportAllocs()
	for i := range b.N {
		m.Add(0, float64(i))
		m.Count(1, 1)
		if i%100000 == 99999 {
			m.Roll(time.Duration(i))
		}
	}
}

// BenchmarkSummarizeFull is one snapshot of a full meter as the live view
// takes it at a high request rate: 60 kept buckets, each holding the
// SampleCap values of four distributions.
func BenchmarkSummarizeFull(b *testing.B) {
	sigs := []Signal{{Tag: "a"}, {Tag: "b"}, {Tag: "c"}, {Tag: "d"}, {Tag: "r", Kind: Rate}}
	m := NewMeter(sigs, 60, 0)
	v := 0.0
	for k := range 60 {
		for range SampleCap {
			for i := range 4 {
				v += 0.618
				m.Add(i, math.Mod(v, 97))
			}
		}
		m.Count(4, 10000)
		m.Roll(time.Duration(k+1) * time.Second)
	}
	bs := m.Recent(60)
	b.ReportAllocs()
	for b.Loop() {
		Summarize(sigs, bs, 10)
	}
}

// TestSummarizeWindowPool: the window's statistics, pooled by merging
// buckets sorted at publication, are those of all the window's kept
// values sorted at once, unpublished buckets among them.
func TestSummarizeWindowPool(t *testing.T) {
	t.Parallel()
	m := NewMeter(testSignals, 8, 0)
	var all []float64
	x := uint64(7)
	for k := range 6 {
		for range 50 + 37*k {
			x = x*6364136223846793005 + 1442695040888963407
			v := float64(x>>40) / 1024
			m.Add(0, v)
			if k >= 2 {
				all = append(all, v)
			}
		}
		m.Roll(time.Duration(k+1) * time.Second)
	}
	bs := m.Recent(6)
	raw := *bs[3] // one bucket of the window as if never published: unsorted values
	raw.medians = nil
	raw.Values = [][]float64{slices.Clone(bs[3].Values[0]), nil}
	slices.Reverse(raw.Values[0])
	bs[3] = &raw
	got := Summarize(testSignals, bs, 4)[0]
	slices.Sort(all)
	want := Metric{Count: len(all), Avg: mean(all), P50: percentile(all, 50), P99: percentile(all, 99)}
	if got.Count != want.Count || got.Avg != want.Avg || got.P50 != want.P50 || got.P99 != want.P99 {
		t.Errorf("window of 4: count %d avg %v p50 %v p99 %v; want %d %v %v %v",
			got.Count, got.Avg, got.P50, got.P99, want.Count, want.Avg, want.P50, want.P99)
	}
}
