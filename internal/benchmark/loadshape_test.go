package benchmark

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/dataset/loader"
	"github.com/aiperf-go/aiperf/internal/mockserver"
	"github.com/aiperf-go/aiperf/internal/tokenizer"
)

// The load-shape acceptance checks read the mock server's own request
// record (what the server saw, on its clock), never our records.

// interval is one request as the server saw it: [From, To) in wall ns.
type interval = mockserver.Span

// maxOverlap is the most intervals open at one instant.
var maxOverlap = mockserver.MaxOverlap

// openAt counts the intervals open at t.
func openAt(iv []interval, t int64) int {
	n := 0
	for _, x := range iv {
		if x.From <= t && t < x.To {
			n++
		}
	}
	return n
}

// firstReaching is the first arrival that brings the open intervals to n.
func firstReaching(iv []interval, n int) int64 {
	sorted := slices.Clone(iv)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].From < sorted[j].From })
	for _, x := range sorted {
		if openAt(iv, x.From) >= n {
			return x.From
		}
	}
	return 1 << 62
}

// firstToken is when the server began writing a request's first content
// token; its end when it wrote none.
func firstToken(r mockserver.RecordedRequest) int64 {
	for _, c := range r.Chunks {
		if c.Kind == "token" {
			return c.WriteNs
		}
	}
	return r.EndNs
}

// runOnMock runs the configuration edit makes against a mock answering
// with a fixed TTFT and ITL, and returns what the server recorded.
func runOnMock(t *testing.T, ttft, itl time.Duration, edit func(*config.Config)) []mockserver.RecordedRequest {
	t.Helper()
	url, posts := recorderServer(t, mockserver.New(mockConfig(t, func(c *mockserver.Config) {
		c.Fast = false
		c.TTFT, c.ITL = ttft, itl
	})))
	cfg := baseConfig(t, url)
	edit(cfg)
	if out, err := run(t, t.Context(), cfg); err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	return posts()
}

// TestPrefillConcurrencyHoldsOnTheWire: with 8 in flight and a prefill
// limit of 2, the server never has more than 2 requests that it has
// received and not yet started answering with a token - and it does have
// 2, so the limit is what bound them.
func TestPrefillConcurrencyHoldsOnTheWire(t *testing.T) {
	t.Parallel()
	rs := runOnMock(t, 20*time.Millisecond, 2*time.Millisecond, func(cfg *config.Config) {
		cfg.Load.Concurrency = ptr(8)
		cfg.Load.RequestCount = ptr(48)
		cfg.Shape.PrefillConcurrency = ptr(2)
	})
	var prefill, flight []interval
	for _, r := range rs {
		prefill = append(prefill, interval{From: r.ReceivedNs, To: firstToken(r)})
		flight = append(flight, interval{From: r.ReceivedNs, To: r.EndNs})
	}
	if len(prefill) != 48 {
		t.Fatalf("server saw %d requests; want 48", len(prefill))
	}
	if got := maxOverlap(prefill); got != 2 {
		t.Errorf("at most %d requests awaited their first token at once; want exactly the limit, 2", got)
	}
	if got := maxOverlap(flight); got <= 2 || got > 8 {
		t.Errorf("at most %d requests in flight; want more than the prefill limit and at most the concurrency, 8", got)
	}
}

// TestConcurrencyRampOnTheWire: a closed loop ramping 1 -> 4 over 0.9 s
// (a step every 0.3 s). Sampled between steps, the server's in-flight
// count never exceeds the schedule's limit, and it is the limit or one
// less (a slot between a response and its successor) at nearly every
// instant. A stall of this process (the machine is shared) can only leave
// slots empty, never fill extra ones, so the upper bound is exact and the
// lower one must hold at 90% of the instants.
func TestConcurrencyRampOnTheWire(t *testing.T) {
	t.Parallel()
	rs := runOnMock(t, 30*time.Millisecond, 5*time.Millisecond, func(cfg *config.Config) {
		cfg.Load.Concurrency = ptr(4)
		cfg.Load.RequestCount = nil
		cfg.Load.BenchmarkDuration = ptr(1.5)
		cfg.Shape.ConcurrencyRamp = &config.Ramp{Duration: 0.9}
	})
	var flight []interval
	for _, r := range rs {
		flight = append(flight, interval{From: r.ReceivedNs, To: r.EndNs})
	}
	// The phase start on the server's clock: every arrival is at or after
	// its due time, so the first request and the first to reach each step's
	// limit each bound it from above; take the tightest.
	const step = 300 * time.Millisecond
	start := firstReaching(flight, 1)
	for k := 1; k < 4; k++ {
		start = min(start, firstReaching(flight, k+1)-int64(k)*int64(step))
	}
	limit := func(off time.Duration) int { return min(4, 1+int(off/step)) }
	const margin = 30 * time.Millisecond // which side of a step an instant is on
	checked, followed := 0, 0
	for off := 20 * time.Millisecond; off < 1400*time.Millisecond; off += 5 * time.Millisecond {
		if d := off % (300 * time.Millisecond); off < 1200*time.Millisecond && (d < margin || d > 300*time.Millisecond-margin) {
			continue
		}
		want := limit(off)
		got := openAt(flight, start+int64(off))
		if got > want {
			t.Errorf("%v into the phase: %d requests in flight at the server; the ramp allows %d", off, got, want)
		}
		checked++
		if got >= want-1 {
			followed++
		}
	}
	if checked < 100 || followed*10 < checked*9 {
		t.Errorf("in flight within one request of the ramp at %d of %d instants; want 90%%", followed, checked)
	}
	if got := maxOverlap(flight); got != 4 {
		t.Errorf("at most %d in flight; want the ramp's target, 4", got)
	}
}

// TestUserCentricHoldsUsersOnTheWire: 4 users sharing 20 requests/s (one
// turn per user every 0.2 s), 4-turn sessions. On the server: no user ever
// has two requests at once, a user's turns are typically a gap apart (not
// the ~15 ms response time), and a user holds its slot from its first turn
// to one gap after its last, when its replacement starts: 4 users at every
// instant of the steady state, 5 while one hands over. A stall of this
// process delays a user's turns while its replacement starts on its own
// absolute schedule, so under load users can briefly overlap (or a slot
// sit empty): 4 or 5 must hold at 90% of the instants.
func TestUserCentricHoldsUsersOnTheWire(t *testing.T) {
	t.Parallel()
	rs := runOnMock(t, 10*time.Millisecond, 2*time.Millisecond, func(cfg *config.Config) {
		cfg.Load.RequestCount = nil
		cfg.Load.BenchmarkDuration = ptr(2.0)
		cfg.Conversation.TurnsMean = 4
		cfg.Shape.UserCentricRate = ptr(20.0)
		cfg.Shape.NumUsers = ptr(4)
	})
	const gap = 200 * time.Millisecond
	// handover absorbs a replacement that starts a little after its
	// predecessor's slot ends.
	const handover = 20 * time.Millisecond
	byUser := map[string][]mockserver.RecordedRequest{}
	start := int64(1 << 62)
	var flight []interval
	for _, r := range rs {
		byUser[r.CorrelationID] = append(byUser[r.CorrelationID], r)
		start = min(start, r.ReceivedNs)
		flight = append(flight, interval{From: r.ReceivedNs, To: r.EndNs})
	}
	var held []interval
	var gaps []time.Duration
	total := 0
	for user, rs := range byUser {
		sort.Slice(rs, func(i, j int) bool { return rs[i].ReceivedNs < rs[j].ReceivedNs })
		total += len(rs)
		if len(rs) > 4 {
			t.Errorf("user %s sent %d turns; sessions have 4", user, len(rs))
		}
		for i := 1; i < len(rs); i++ {
			if rs[i].ReceivedNs < rs[i-1].EndNs {
				t.Errorf("user %s: turn %d arrived before turn %d was answered", user, i, i-1)
			}
			gaps = append(gaps, time.Duration(rs[i].ReceivedNs-rs[i-1].ReceivedNs))
		}
		held = append(held, interval{From: rs[0].ReceivedNs, To: rs[len(rs)-1].ReceivedNs + int64(gap+handover)})
	}
	// 20 req/s for 2 s, minus the last turns cut by the end of the phase.
	if total < 28 || total > 42 {
		t.Errorf("server saw %d requests; want about 20/s x 2 s", total)
	}
	sort.Slice(gaps, func(i, j int) bool { return gaps[i] < gaps[j] })
	if len(gaps) < 10 {
		t.Fatalf("only %d turn gaps", len(gaps))
	}
	if med := gaps[len(gaps)/2]; med < gap*9/10 || med > gap*13/10 {
		t.Errorf("median gap between a user's turns %v; want about %v", med, gap)
	}
	if got := maxOverlap(flight); got > 4 {
		t.Errorf("%d requests in flight at once; 4 users send one at a time", got)
	}
	checked, four := 0, 0
	for off := 300 * time.Millisecond; off < 1700*time.Millisecond; off += 5 * time.Millisecond {
		n := openAt(held, start+int64(off))
		checked++
		if n == 4 || n == 5 {
			four++
		}
	}
	if four*10 < checked*9 {
		t.Errorf("4 users held (5 during a handover) at %d of %d instants; want 90%%", four, checked)
	}
}

// TestWarmupOwnLoadAndMetrics: the warmup runs at its own concurrency
// (one at a time, checked on the server), then profiling at its own; the
// summary keeps them apart, with the warmup under warmup_metrics.
func TestWarmupOwnLoadAndMetrics(t *testing.T) {
	t.Parallel()
	var dir string
	rs := runOnMock(t, 5*time.Millisecond, time.Millisecond, func(cfg *config.Config) {
		dir = cfg.Output.ArtifactDir
		cfg.Load.Concurrency = ptr(4)
		cfg.Load.RequestCount = ptr(12)
		cfg.Warmup.RequestCount = ptr(5)
		cfg.Shape.Warmup.Concurrency = ptr(1)
	})
	if len(rs) != 17 {
		t.Fatalf("server saw %d requests; want 5 warmup + 12", len(rs))
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].ReceivedNs < rs[j].ReceivedNs })
	var warm, prof []interval
	for i, r := range rs {
		if i < 5 {
			warm = append(warm, interval{From: r.ReceivedNs, To: r.EndNs})
		} else {
			prof = append(prof, interval{From: r.ReceivedNs, To: r.EndNs})
		}
	}
	if got := maxOverlap(warm); got != 1 {
		t.Errorf("warmup had %d in flight at once; --warmup-concurrency is 1", got)
	}
	if got := maxOverlap(prof); got != 4 {
		t.Errorf("profiling had %d in flight at once; --concurrency is 4", got)
	}
	doc := summary(t, filepath.Join(dir, "profile_export_aiperf.json"))
	if got := avg(t, doc, "request_count"); got != 12 {
		t.Errorf("request_count %v; want the 12 profiling requests", got)
	}
	var wm map[string]json.RawMessage
	if err := json.Unmarshal(doc["warmup_metrics"], &wm); err != nil {
		t.Fatalf("warmup_metrics: %v", err)
	}
	if got := avg(t, wm, "request_count"); got != 5 {
		t.Errorf("warmup_metrics.request_count %v; want 5", got)
	}
	// Two phases ran: each has its own summary, indexed in the manifest,
	// as AIPerf 0.13 writes them.
	for name, want := range map[string]float64{"warmup": 5, "profiling": 12} {
		doc := summary(t, filepath.Join(dir, "phases", name, "profile_export_aiperf.json"))
		if got := avg(t, doc, "request_count"); got != want {
			t.Errorf("phases/%s request_count %v; want %v", name, got, want)
		}
	}
	man := summary(t, filepath.Join(dir, "phase_manifest.json"))
	var phases []map[string]any
	if err := json.Unmarshal(man["phases"], &phases); err != nil || len(phases) != 2 ||
		phases[0]["phase_name"] != "warmup" || phases[1]["phase_name"] != "profiling" || phases[1]["profiling_index"] != 0.0 || phases[0]["profiling_index"] != nil {
		t.Errorf("phase_manifest.json phases: %v %v", err, phases)
	}
}

// TestReplaySpeedup: a trace of five requests 400 ms apart replayed at
// --replay-speedup 4 reaches the server 100 ms apart: the whole replay
// spans 400 ms, not 1.6 s.
func TestReplaySpeedup(t *testing.T) {
	t.Parallel()
	url, posts := recorderServer(t, mockserver.New(mockConfig(t, nil)))
	cfg := baseConfig(t, url)
	cfg.Load.RequestCount = nil
	cfg.Replay.FixedSchedule = true
	cfg.Shape.Replay.Speedup = ptr(4.0)
	ds := &dataset.Dataset{}
	for i := range 5 {
		ds.Conversations = append(ds.Conversations, dataset.Conversation{
			ID:    fmt.Sprintf("trace_%d", i),
			Turns: []dataset.Turn{{Texts: []string{"replay me"}, InputTokens: 2, MaxTokens: 4, Timestamp: time.Duration(i) * 400 * time.Millisecond, HasTimestamp: true}},
		})
	}
	if out, err := runDataset(t, cfg, ds); err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	rs := posts()
	if len(rs) != 5 {
		t.Fatalf("server saw %d requests; want 5", len(rs))
	}
	first, last := rs[0].ReceivedNs, rs[0].ReceivedNs
	for _, r := range rs {
		first, last = min(first, r.ReceivedNs), max(last, r.ReceivedNs)
	}
	// Sends are never early; a late first send can only shorten the span.
	if span := time.Duration(last - first); span < 300*time.Millisecond || span >= 800*time.Millisecond {
		t.Errorf("replay spanned %v at the server; want about 400 ms (1.6 s / 4)", span)
	}
}

// TestTraceIdleGapCap pins the per-trace compression: gaps over the cap
// between a trace's requests shrink to it, later requests move with them,
// delays are capped, and the trace keeps its start time.
func TestTraceIdleGapCap(t *testing.T) {
	t.Parallel()
	s := time.Second
	cfg := config.Defaults()
	cfg.Shape.TraceIdleGapCapSeconds = ptr(2.0)
	p := &Plan{Config: &cfg, Dataset: &dataset.Dataset{Conversations: []dataset.Conversation{{Turns: []dataset.Turn{
		{Timestamp: 10 * s, HasTimestamp: true},
		{Timestamp: 11 * s, HasTimestamp: true, Delay: 5 * s},
		{Timestamp: 20 * s, HasTimestamp: true},
		{Timestamp: 21 * s, HasTimestamp: true},
	}}}}}
	p.traceIdleGapCap()
	var got []time.Duration
	for _, turn := range p.Dataset.Conversations[0].Turns {
		got = append(got, turn.Timestamp)
	}
	if want := []time.Duration{10 * s, 11 * s, 13 * s, 14 * s}; !slices.Equal(got, want) {
		t.Errorf("timestamps %v; want %v", got, want)
	}
	if d := p.Dataset.Conversations[0].Turns[1].Delay; d != 2*s {
		t.Errorf("delay %v; want capped to 2s", d)
	}
}

// TestReplayRewritesKeepCompactRows: --replay-speedup and
// --trace-idle-gap-cap-seconds leave a compact trace compact, with the
// timestamps (and delays) they give the same trace held as Conversations.
func TestReplayRewritesKeepCompactRows(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	writeFile(t, path, `{"timestamp": 0, "input_length": 40, "output_length": 5, "hash_ids": [1, 2, 3]}
{"timestamp": 1001, "input_length": 48, "output_length": 7, "hash_ids": [1, 2, 4]}
{"input_length": 20, "hash_ids": [5]}
{"timestamp": 7777.5, "input_length": 33, "output_length": 3, "hash_ids": [6]}
`)
	tok, err := tokenizer.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	load := func() *dataset.Dataset {
		l, err := loader.Load(loader.LoadOptions{Path: path, Type: loader.TypeMooncakeTrace, BlockSize: 16, Seed: 3, SeedSet: true,
			LazyPrompts: true, CompactRows: true}, tok)
		if err != nil {
			t.Fatal(err)
		}
		return l.Dataset
	}
	cfg := config.Defaults()
	cfg.Shape.Replay.Speedup = ptr(3.0)
	cfg.Shape.TraceIdleGapCapSeconds = ptr(0.5)
	compact := &Plan{Config: &cfg, Dataset: load()}
	expanded := &Plan{Config: &cfg, Dataset: load()}
	expanded.Dataset.Expand()
	for _, p := range []*Plan{compact, expanded} {
		p.replaySpeedup()
		p.traceIdleGapCap()
	}
	if compact.Dataset.Rows == nil {
		t.Fatal("the rows were expanded")
	}
	for i := range expanded.Dataset.Len() {
		got, want := compact.Dataset.Conversation(i).Turns[0], expanded.Dataset.Conversation(i).Turns[0]
		if got.Timestamp != want.Timestamp || got.HasTimestamp != want.HasTimestamp || got.Delay != want.Delay {
			t.Errorf("row %d: timestamp %v (%v), delay %v; want %v (%v), %v", i, got.Timestamp, got.HasTimestamp, got.Delay,
				want.Timestamp, want.HasTimestamp, want.Delay)
		}
	}
	ms := 1001 * time.Millisecond
	if at, _ := compact.Dataset.Rows.Timestamp(1); at != time.Duration(float64(ms)/3) {
		t.Errorf("row 1 at %v; want 1001 ms / 3", at)
	}
}
