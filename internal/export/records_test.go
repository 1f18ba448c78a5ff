package export

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/aiperf-go/aiperf/internal/metrics"
	"github.com/aiperf-go/aiperf/internal/record"
)

func TestRecordLinesGolden(t *testing.T) {
	t.Parallel()
	var b []byte
	for _, p := range fixtureRecords() {
		b = AppendRecordLine(b, p, LineOptions{Clock: testWall})
		b = append(b, '\n')
	}
	golden(t, "records.jsonl.golden", b)
}

// TestRecordLineShape pins the metadata keys and their order (AIPerf
// 0.13's, absent optional fields left out) and which metrics are written.
func TestRecordLineShape(t *testing.T) {
	t.Parallel()
	recs := fixtureRecords()
	cases := []struct {
		name     string
		p        *metrics.Processed
		meta     []string
		metrics  []string
		hasError bool
	}{
		{"success", recs[0],
			[]string{"session_num", "x_request_id", "x_correlation_id", "conversation_id", "turn_index",
				"credit_issued_ns", "request_start_ns", "request_ack_ns", "request_end_ns", "worker_id",
				"record_processor_id", "benchmark_phase", "phase_index", "profiling_index", "phase_name",
				"phase_kind", "was_cancelled", "context_overflow_skip", "agent_depth", "root_correlation_id"},
			[]string{"time_to_first_token", "usage_prompt_tokens", "output_sequence_length", "request_latency",
				"time_to_second_token", "input_sequence_length", "inter_chunk_latency", "osl_mismatch_diff_pct",
				"output_token_throughput_per_user", "schedule_lag"},
			false},
		{"error", recs[1],
			[]string{"session_num", "x_request_id", "x_correlation_id", "conversation_id", "turn_index",
				"credit_issued_ns", "request_start_ns", "request_end_ns", "worker_id",
				"record_processor_id", "benchmark_phase", "phase_index", "profiling_index", "phase_name",
				"phase_kind", "was_cancelled", "context_overflow_skip", "agent_depth", "root_correlation_id"},
			[]string{"error_isl", "schedule_lag"},
			true},
		{"cancelled", recs[2],
			[]string{"session_num", "x_request_id", "x_correlation_id", "conversation_id", "turn_index",
				"credit_issued_ns", "request_start_ns", "request_ack_ns", "request_end_ns", "worker_id",
				"record_processor_id", "benchmark_phase", "phase_index", "profiling_index", "phase_name",
				"phase_kind", "was_cancelled", "cancellation_time_ns", "context_overflow_skip", "agent_depth",
				"root_correlation_id"},
			[]string{"error_isl", "schedule_lag"},
			true},
	}
	for _, c := range cases {
		line := AppendRecordLine(nil, c.p, LineOptions{Clock: testWall})
		if !jsontext.Value(line).IsValid() {
			t.Fatalf("%s: invalid JSON %s", c.name, line)
		}
		var doc map[string]jsontext.Value
		if err := json.Unmarshal(line, &doc); err != nil {
			t.Fatal(err)
		}
		wantTop := []string{"metadata", "metrics"}
		if c.hasError {
			wantTop = append(wantTop, "error")
		}
		if got := topKeys(t, line); !slices.Equal(got, wantTop) {
			t.Errorf("%s: keys %v; want %v", c.name, got, wantTop)
		}
		if got := topKeys(t, doc["metadata"]); !slices.Equal(got, c.meta) {
			t.Errorf("%s: metadata keys\n got %v\nwant %v", c.name, got, c.meta)
		}
		if got := topKeys(t, doc["metrics"]); !slices.Equal(got, c.metrics) {
			t.Errorf("%s: metrics\n got %v\nwant %v", c.name, got, c.metrics)
		}
	}

	var meta struct {
		Credit int64 `json:"credit_issued_ns"`
		Start  int64 `json:"request_start_ns"`
		Cancel int64 `json:"cancellation_time_ns"`
	}
	var doc struct {
		Metadata jsontext.Value `json:"metadata"`
		Error    struct {
			Code int    `json:"code"`
			Type string `json:"type"`
		} `json:"error"`
	}
	if err := json.Unmarshal(AppendRecordLine(nil, recs[2], LineOptions{Clock: testWall}), &doc); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(doc.Metadata, &meta); err != nil {
		t.Fatal(err)
	}
	if meta.Credit != int64(testWall)+7000000 || meta.Start != int64(testWall)+7000500 ||
		meta.Cancel != int64(testWall)+1007000500 {
		t.Errorf("wall stamps = %+v", meta)
	}
	if doc.Error.Code != 499 || doc.Error.Type != record.TypeCancelled {
		t.Errorf("cancelled error = %+v", doc.Error)
	}
}

func TestRecordLineWarmupPhase(t *testing.T) {
	t.Parallel()
	p := fixtureRecords()[0]
	var meta map[string]any
	read := func(o LineOptions, rec *record.Record) {
		q := *p
		q.Record = rec
		var doc struct {
			Metadata map[string]any `json:"metadata"`
		}
		if err := json.Unmarshal(AppendRecordLine(nil, &q, o), &doc); err != nil {
			t.Fatal(err)
		}
		meta = doc.Metadata
	}
	read(LineOptions{Clock: testWall, WarmupFirst: true}, p.Record)
	if meta["phase_index"] != 1.0 || meta["profiling_index"] != 0.0 {
		t.Errorf("profiling after warmup: %v", meta)
	}
	warm := *p.Record
	warm.Phase = record.Warmup
	read(LineOptions{Clock: testWall, WarmupFirst: true}, &warm)
	if meta["phase_index"] != 0.0 || meta["benchmark_phase"] != "warmup" || meta["phase_kind"] != "warmup" {
		t.Errorf("warmup metadata: %v", meta)
	}
	if _, ok := meta["profiling_index"]; ok {
		t.Errorf("warmup has a profiling_index: %v", meta)
	}
}

func TestRecordLineNumbers(t *testing.T) {
	t.Parallel()
	rec := &record.Record{Seq: 1}
	p := &metrics.Processed{Record: rec, Values: []metrics.Value{
		{Metric: mISL, Scalar: 550}, // integer-valued: 550
		{Metric: mTTFT, Scalar: 10}, // float metric: 10.0
		{Metric: &metrics.Metric{Tag: "schedule_lag", Unit: metrics.UnitNS, DisplayUnit: metrics.UnitMS, Integer: true},
			Scalar: 2}, // integer ns shown in ms: 2.0
		{Metric: mOSL, Scalar: 2.5},                        // not whole: 2.5
		{Metric: mLatency, Scalar: posInf()},               // dropped
		{Metric: mICL, List: []float64{1, posInf(), 2.25}}, // inf element dropped
		{Metric: nil, Scalar: 3},                           // no definition: dropped
	}}
	var doc struct {
		Metrics jsontext.Value `json:"metrics"`
	}
	line := AppendRecordLine(nil, p, LineOptions{Clock: testWall})
	if err := json.Unmarshal(line, &doc); err != nil {
		t.Fatal(err)
	}
	want := `{"input_sequence_length":{"value":550,"unit":"tokens"},"time_to_first_token":{"value":10.0,"unit":"ms"},` +
		`"schedule_lag":{"value":2.0,"unit":"ms"},` +
		`"output_sequence_length":{"value":2.5,"unit":"tokens"},"inter_chunk_latency":{"value":[1.0,2.25],"unit":"ms"}}`
	if string(doc.Metrics) != want {
		t.Errorf("metrics = %s\nwant %s", doc.Metrics, want)
	}
	if bytes.Contains(line, []byte("rror")) {
		t.Errorf("success line has an error member: %s", line)
	}
}

func posInf() float64 { var z float64; return 1 / z }

// readLines returns the file's lines, failing on any that is not valid
// JSON or not newline-terminated.
func readLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 0 && b[len(b)-1] != '\n' {
		t.Fatalf("%s ends in a partial line", path)
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if !jsontext.Value(sc.Bytes()).IsValid() {
			t.Fatalf("invalid line %q", sc.Text())
		}
		lines = append(lines, sc.Text())
	}
	return lines
}

// TestRecordWriterConcurrent writes from several goroutines and checks
// that Close leaves exactly one valid line per record.
func TestRecordWriterConcurrent(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "profile_export.jsonl")
	w, err := NewRecordWriter(path, LineOptions{Clock: testWall, FlushLines: 7})
	if err != nil {
		t.Fatal(err)
	}
	recs := fixtureRecords()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 250 {
				p := *recs[i%len(recs)]
				r := *p.Record
				r.Seq = uint64(g*1000 + i)
				p.Record = &r
				if err := w.Write(&p); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := len(readLines(t, path)); got != 1000 {
		t.Errorf("%d lines; want 1000", got)
	}
	if err := w.Write(recs[0]); !errors.Is(err, ErrClosed) {
		t.Errorf("Write after Close = %v; want ErrClosed", err)
	}
	if err := w.Close(); !errors.Is(err, ErrClosed) {
		t.Errorf("second Close = %v; want ErrClosed", err)
	}
	if err := w.Write(nil); err == nil {
		t.Error("Write(nil) succeeded")
	}
}

// TestRecordWriterMatchesAppendRecordLine: the writer's lines, whose
// member names come from its cache, are AppendRecordLine's byte for byte,
// through records whose metrics differ from line to line (a failed record
// between successes, a metric moved to another position, a hidden one).
func TestRecordWriterMatchesAppendRecordLine(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "profile_export.jsonl")
	w, err := NewRecordWriter(path, LineOptions{Clock: testWall})
	if err != nil {
		t.Fatal(err)
	}
	recs := fixtureRecords()
	seq := slices.Clone(recs)
	seq = append(seq, recs...)
	shifted := *recs[0] // the same metrics one position later
	shifted.Values = append([]metrics.Value{recs[1].Values[0]}, recs[0].Values...)
	seq = append(seq, &shifted, recs[0], recs[1], recs[0])
	var want []string
	for _, p := range seq {
		want = append(want, string(AppendRecordLine(nil, p, LineOptions{Clock: testWall})))
		if err := w.Write(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got := readLines(t, path)
	if len(got) != len(want) {
		t.Fatalf("%d lines, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d:\n got %s\nwant %s", i, got[i], want[i])
		}
	}
}

// TestRecordWriterFlushes checks, on a fake clock, that a line reaches the
// file within the flush interval without Close, that FlushLines pending
// lines are written at once, and that whatever is on disk at any moment is
// whole valid lines.
func TestRecordWriterFlushes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "profile_export.jsonl")
		w, err := NewRecordWriter(path, LineOptions{Clock: testWall, FlushEvery: 100 * time.Millisecond, FlushLines: 5})
		if err != nil {
			t.Fatal(err)
		}
		recs := fixtureRecords()
		if err := w.Write(recs[0]); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if n := len(readLines(t, path)); n != 0 {
			t.Fatalf("%d lines on disk before any flush; want 0 (buffered)", n)
		}
		<-time.After(100 * time.Millisecond)
		synctest.Wait()
		if n := len(readLines(t, path)); n != 1 {
			t.Fatalf("%d lines after the flush interval; want 1", n)
		}

		for i := range 5 {
			if err := w.Write(recs[i%3]); err != nil {
				t.Fatal(err)
			}
		}
		synctest.Wait() // no time passes: the count triggers the flush
		if n := len(readLines(t, path)); n != 6 {
			t.Fatalf("%d lines after FlushLines writes; want 6", n)
		}

		if err := w.Write(recs[1]); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if n := len(readLines(t, path)); n != 7 {
			t.Fatalf("%d lines after Close; want 7", n)
		}
	})
}

func TestRecordWriterErrors(t *testing.T) {
	t.Parallel()
	if _, err := NewRecordWriter(filepath.Join(t.TempDir(), "x.jsonl"), LineOptions{}); err == nil {
		t.Error("NewRecordWriter without a clock succeeded")
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := NewRecordWriter(filepath.Join(file, "x.jsonl"), LineOptions{Clock: testWall}); err == nil {
		t.Error("NewRecordWriter under a regular file succeeded")
	}
}

func ExampleAppendRecordLine() {
	rec := &record.Record{Seq: 0, ConversationID: "session_000000", WorkerID: "worker_1", Sent: 1000, End: 5000}
	p := &metrics.Processed{Record: rec, ProcessorID: "record_processor_1", Values: []metrics.Value{
		{Metric: &metrics.Metric{Tag: "request_latency", Unit: "ms"}, Scalar: 0.004},
	}}
	fmt.Println(string(AppendRecordLine(nil, p, LineOptions{Clock: testWall})))
	// Output:
	// {"metadata":{"session_num":0,"conversation_id":"session_000000","turn_index":0,"credit_issued_ns":1796003971870762149,"request_start_ns":1796003971870763149,"request_end_ns":1796003971870767149,"worker_id":"worker_1","record_processor_id":"record_processor_1","benchmark_phase":"profiling","phase_index":0,"profiling_index":0,"phase_name":"profiling","phase_kind":"profiling","was_cancelled":false,"context_overflow_skip":false,"agent_depth":0},"metrics":{"request_latency":{"value":0.004,"unit":"ms"}}}
}
