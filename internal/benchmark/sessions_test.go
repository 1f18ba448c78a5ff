package benchmark

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/builtin"
	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/environ"
	"github.com/aiperf-go/aiperf/internal/live"
	"github.com/aiperf-go/aiperf/internal/mockserver"
)

// runDataset runs cfg as Run does, but with ds instead of the dataset the
// config would build, so execution can be tested on conversation shapes
// (timestamps, several turns, delays) independently of the loaders.
func runDataset(t *testing.T, cfg *config.Config, ds *dataset.Dataset) (stdout string, err error) {
	t.Helper()
	if verr := cfg.Validate(); verr != nil {
		t.Fatalf("test config invalid: %v", verr)
	}
	plan, err := NewPlan(cfg, builtin.New(), nil)
	if err != nil {
		return "", err
	}
	if err := PrepareArtifactDir(plan.Paths.Dir); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	rio := IO{Env: environ.Read(), Stdout: &out, Stderr: &out, CLICommand: "aiperf profile (test)", Version: "test"}
	log, closeLog, err := openLog(plan.Paths.Log, cfg, io.Discard, &live.Board{})
	if err != nil {
		t.Fatal(err)
	}
	defer closeLog()
	plan.Dataset = ds
	plan.Payloads = make([][][]byte, ds.Len())
	for c, conv := range ds.Conversations {
		for i := range conv.Turns {
			body, err := plan.Endpoint.AppendPayload(nil, &conv.Turns[i], &plan.EOptions)
			if err != nil {
				t.Fatal(err)
			}
			plan.Payloads[c] = append(plan.Payloads[c], body)
		}
	}
	if err := plan.planSessions(); err != nil {
		return "", err
	}
	res, err := execute(context.Background(), plan, rio, log, &live.Board{}, &consoleGate{w: io.Discard})
	if err != nil {
		return out.String(), err
	}
	if err := writeArtifacts(plan, res, rio); err != nil {
		t.Fatal(err)
	}
	return out.String(), exitStatus(res)
}

// exchange is one request as the server saw it: the recorder's ground truth
// plus the response body the handler wrote.
type exchange struct {
	mockserver.RecordedRequest
	response string
}

// recordingMock starts the mock server behind the request recorder and a
// response capture; exchanges returns every finished request.
func recordingMock(t *testing.T, edit func(*mockserver.Config)) (url string, exchanges func() []exchange) {
	t.Helper()
	cfg := mockConfig(t, edit)
	var mu sync.Mutex
	responses := map[string]string{}
	capture := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cw := &captureWriter{ResponseWriter: w}
		mockserver.New(cfg).ServeHTTP(cw, r)
		mu.Lock()
		responses[r.Header.Get("X-Request-ID")] = cw.body.String()
		mu.Unlock()
	})
	url, posts := recorderServer(t, capture)
	return url, func() []exchange {
		var out []exchange
		for _, r := range posts() {
			mu.Lock()
			out = append(out, exchange{r, responses[r.RequestID]})
			mu.Unlock()
		}
		return out
	}
}

type captureWriter struct {
	http.ResponseWriter
	body bytes.Buffer
}

func (c *captureWriter) Write(b []byte) (int, error) {
	c.body.Write(b)
	return c.ResponseWriter.Write(b)
}

func (c *captureWriter) Flush() {
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// streamedText joins the content deltas of an SSE chat response.
func streamedText(t *testing.T, body string) string {
	t.Helper()
	var b strings.Builder
	for line := range strings.SplitSeq(body, "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		var ev struct {
			Choices []struct {
				Delta struct{ Content string }
			}
		}
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			t.Fatalf("response event %q: %v", data, err)
		}
		if len(ev.Choices) > 0 {
			b.WriteString(ev.Choices[0].Delta.Content)
		}
	}
	return b.String()
}

type message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

func messagesOf(t *testing.T, body json.RawMessage) []message {
	t.Helper()
	var b struct{ Messages []message }
	if err := json.Unmarshal(body, &b); err != nil {
		t.Fatalf("request body %s: %v", body, err)
	}
	return b.Messages
}

// threeTurnDataset has n conversations of three turns; turns after the
// first wait delay after the previous response.
func threeTurnDataset(n int, delay time.Duration) *dataset.Dataset {
	ds := &dataset.Dataset{}
	for c := range n {
		conv := dataset.Conversation{ID: fmt.Sprintf("session_%06d", c)}
		for tn := range 3 {
			turn := dataset.Turn{Texts: []string{fmt.Sprintf("conversation %d question %d", c, tn)}, InputTokens: -1, MaxTokens: 6}
			if tn > 0 {
				turn.Delay = delay
			}
			conv.Turns = append(conv.Turns, turn)
		}
		ds.Conversations = append(ds.Conversations, conv)
	}
	return ds
}

// TestMultiTurnSendsHistoryWithActualReplies runs three-turn sessions
// against the recording mock server and checks, from what the server
// received: each session's turns share one session id (renamed by
// --session-header) and arrive in order; turn N+1's messages are turn N's
// messages plus the reply the server actually sent for turn N plus the new
// question; and every later turn arrived at least its delay after the
// server finished the previous response.
func TestMultiTurnSendsHistoryWithActualReplies(t *testing.T) {
	t.Parallel()
	const delay = 40 * time.Millisecond
	url, exchanges := recordingMock(t, nil)
	cfg := baseConfig(t, url)
	cfg.Load.RequestCount = nil
	cfg.Load.Concurrency = ptr(2)
	cfg.Conversation.NumSessions = ptr(4)
	cfg.Conversation.SessionHeader = "X-Session-ID"
	if out, err := runDataset(t, cfg, threeTurnDataset(4, delay)); err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	got := exchanges()
	if len(got) != 12 {
		t.Fatalf("server saw %d requests, want 4 sessions x 3 turns = 12", len(got))
	}
	sessions := map[string][]exchange{}
	for _, x := range got {
		if x.CorrelationID != "" {
			t.Errorf("request %s carries X-Correlation-ID %q although --session-header renamed it", x.RequestID, x.CorrelationID)
		}
		id := x.Headers.Get("X-Session-ID")
		if id == "" {
			t.Fatalf("request %s has no X-Session-ID header: %v", x.RequestID, x.Headers)
		}
		sessions[id] = append(sessions[id], x)
	}
	if len(sessions) != 4 {
		t.Fatalf("%d distinct session ids, want 4", len(sessions))
	}
	for id, turns := range sessions {
		slices.SortFunc(turns, func(a, b exchange) int { return int(a.ReceivedNs - b.ReceivedNs) })
		if len(turns) != 3 {
			t.Fatalf("session %s: %d requests, want 3", id, len(turns))
		}
		var prev []message
		for n, x := range turns {
			msgs := messagesOf(t, x.Body)
			if len(msgs) != 2*n+1 {
				t.Fatalf("session %s turn %d: %d messages, want %d: %+v", id, n, len(msgs), 2*n+1, msgs)
			}
			if n > 0 {
				before := turns[n-1]
				reply := streamedText(t, before.response)
				if reply == "" {
					t.Fatalf("session %s turn %d: the server's reply is empty", id, n-1)
				}
				want := append(slices.Clone(prev), message{"assistant", reply})
				if !slices.Equal(msgs[:len(want)], want) {
					t.Errorf("session %s turn %d history:\n got %+v\nwant %+v", id, n, msgs[:len(want)], want)
				}
				if gap := time.Duration(x.ReceivedNs - before.EndNs); gap < delay {
					t.Errorf("session %s turn %d arrived %v after turn %d's response ended, want >= %v", id, n, gap, n-1, delay)
				}
			}
			last := msgs[len(msgs)-1]
			if last.Role != "user" || !strings.HasSuffix(last.Content, fmt.Sprintf("question %d", n)) {
				t.Errorf("session %s turn %d ends with %+v, want question %d", id, n, last, n)
			}
			prev = msgs
		}
	}
}

// TestMultiTurnRequestCountCountsTurns: --request-count bounds requests,
// not sessions (AIPerf), so 5 requests of three-turn sessions stop inside
// the second session.
func TestMultiTurnRequestCountCountsTurns(t *testing.T) {
	t.Parallel()
	url, exchanges := recordingMock(t, nil)
	cfg := baseConfig(t, url)
	cfg.Load.RequestCount = ptr(5)
	cfg.Load.Concurrency = ptr(1)
	if out, err := runDataset(t, cfg, threeTurnDataset(3, 0)); err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	if n := len(exchanges()); n != 5 {
		t.Fatalf("server saw %d requests, want 5", n)
	}
	doc := summary(t, filepath.Join(cfg.Output.ArtifactDir, "profile_export_aiperf.json"))
	if n := avg(t, doc, "request_count"); n != 5 {
		t.Errorf("request_count = %v, want 5", n)
	}
}

// TestMultiTurnISLCountsTheWholeConversation: the ISL of a later turn
// counts every text of its body (history and replies included), as AIPerf
// counts the wire payload.
func TestMultiTurnISLCountsTheWholeConversation(t *testing.T) {
	t.Parallel()
	url, _ := recordingMock(t, nil)
	cfg := baseConfig(t, url)
	cfg.Load.RequestCount = nil
	cfg.Conversation.NumSessions = ptr(1)
	if out, err := runDataset(t, cfg, threeTurnDataset(1, 0)); err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	isl := map[int]float64{}
	for _, line := range lines(t, filepath.Join(cfg.Output.ArtifactDir, "profile_export.jsonl")) {
		var r struct {
			Metadata struct {
				TurnIndex int `json:"turn_index"`
			}
			Metrics struct {
				ISL struct{ Value float64 } `json:"input_sequence_length"`
			}
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		isl[r.Metadata.TurnIndex] = r.Metrics.ISL.Value
	}
	if len(isl) != 3 || !(isl[0] < isl[1] && isl[1] < isl[2]) {
		t.Fatalf("ISL by turn = %v, want three turns with growing ISL", isl)
	}
}

// TestFixedScheduleReplayReportsFidelity replays 100 single-turn
// conversations whose timestamps span 1 s against the mock server and
// checks the tool's own fidelity report: every request sent, the replay
// percentiles present and ordered, the run as long as the trace, and the
// console panel. How small the lag is on a quiet machine is a performance
// figure, not a unit-test assertion: bench/replay.sh measures the
// acceptance case (500 records over 10 s, p99 under 2 ms) and fails when
// it is missed.
func TestFixedScheduleReplayReportsFidelity(t *testing.T) {
	url, requests := mock(t, nil)
	cfg := baseConfig(t, url)
	cfg.Load.RequestCount = nil
	cfg.Endpoint.Streaming = false
	ds := &dataset.Dataset{}
	const n = 100
	for i := range n {
		ds.Conversations = append(ds.Conversations, dataset.Conversation{
			ID: fmt.Sprintf("trace_%03d", i),
			Turns: []dataset.Turn{{
				Texts: []string{"replay me"}, InputTokens: 2, MaxTokens: 4,
				// 1000 ms trace offset, then one request every 10 ms: the
				// last is due 0.99 s after the first.
				Timestamp: time.Second + time.Duration(i)*10*time.Millisecond, HasTimestamp: true,
			}},
		})
	}
	cfg.Replay.AutoOffset = true
	cfg.Replay.FixedSchedule = true
	out, err := runDataset(t, cfg, ds)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	if got := requests.Load(); got != n {
		t.Fatalf("server saw %d requests, want %d", got, n)
	}
	doc := summary(t, filepath.Join(cfg.Output.ArtifactDir, "profile_export_aiperf.json"))
	p50, p90, p99 := avg(t, doc, "replay_sched_lag_p50"), avg(t, doc, "replay_sched_lag_p90"), avg(t, doc, "replay_sched_lag_p99")
	t.Logf("replay send lag: p50 %.3f ms, p90 %.3f ms, p99 %.3f ms; latest sends: %s", p50, p90, p99,
		latestSends(t, filepath.Join(cfg.Output.ArtifactDir, "profile_export.jsonl")))
	if !(p50 >= 0 && p50 <= p90 && p90 <= p99) {
		t.Errorf("lag percentiles out of order: %v %v %v", p50, p90, p99)
	}
	if c := avg(t, doc, "request_count"); c != n {
		t.Errorf("request_count = %v, want %d", c, n)
	}
	// benchmark_duration runs from the earliest send to the latest end.
	// No request leaves before it is due and every response ends after its
	// send, so the run lasts at least from the earliest send to the last
	// request's due time. On a loaded machine the earliest send need not be
	// the first-due request's (that one may leave after the second), so the
	// bound is read from the records, not assumed to be the trace's 0.99 s
	// less one lag.
	earliestSent, lastDue := sendSpanOf(t, filepath.Join(cfg.Output.ArtifactDir, "profile_export.jsonl"))
	if dur, min := avg(t, doc, "benchmark_duration"), (lastDue - earliestSent).Seconds(); dur < min-1e-6 {
		t.Errorf("benchmark_duration = %v s; want at least %v s, from the earliest send to the last due time", dur, min)
	}
	if !strings.Contains(out, "Replay") {
		t.Errorf("console output does not report replay fidelity:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(cfg.Output.ArtifactDir, "profile_export_aiperf.csv")); err != nil {
		t.Error(err)
	}
}

// TestFixedScheduleWindowAndErrors: the start/end window drops entries
// outside it, offsets without a timestamped dataset are refused, and a
// dataset in which some first turn has no timestamp cannot be replayed.
func TestFixedScheduleWindowAndErrors(t *testing.T) {
	t.Parallel()
	url, requests := mock(t, nil)
	timed := func(ms ...int) *dataset.Dataset {
		ds := &dataset.Dataset{}
		for i, m := range ms {
			ds.Conversations = append(ds.Conversations, dataset.Conversation{ID: fmt.Sprint(i), Turns: []dataset.Turn{{
				Texts: []string{"x"}, InputTokens: 1, MaxTokens: 2, Timestamp: time.Duration(m) * time.Millisecond, HasTimestamp: m >= 0}}})
		}
		return ds
	}
	cfg := baseConfig(t, url)
	cfg.Load.RequestCount = nil
	cfg.Replay.FixedSchedule = true
	cfg.Replay.StartOffset, cfg.Replay.EndOffset = ptr(100), ptr(130)
	// Kept: 100, 110, 130 (inclusive bounds); dropped: 0, 99, 131.
	if out, err := runDataset(t, cfg, timed(0, 99, 100, 110, 130, 131)); err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	if got := requests.Load(); got != 3 {
		t.Errorf("window [100, 130] ms sent %d requests, want 3", got)
	}

	cfg = baseConfig(t, url)
	cfg.Replay.FixedSchedule = true
	if _, err := runDataset(t, cfg, timed(0, -1)); err == nil || !strings.Contains(err.Error(), "conversation 1") {
		t.Errorf("untimed conversation: err = %v, want one naming conversation 1", err)
	}

	cfg = baseConfig(t, url)
	cfg.Replay.FixedSchedule = true
	cfg.Replay.StartOffset = ptr(500)
	if _, err := runDataset(t, cfg, timed(0, 10)); err == nil || !strings.Contains(err.Error(), "replay window") {
		t.Errorf("empty window: err = %v, want a replay-window error", err)
	}
}

// latestSends lists the ten largest schedule lags of a run with their
// request order, to tell a GC pause or a busy machine (a cluster) from a
// systematic delay (spread out).
// sendSpanOf returns the earliest request_start_ns and the latest
// credit_issued_ns (the last due time) of a run's records.
func sendSpanOf(t *testing.T, path string) (earliestSent, lastDue time.Duration) {
	t.Helper()
	first, last := int64(math.MaxInt64), int64(math.MinInt64)
	for _, line := range lines(t, path) {
		var r struct {
			Metadata struct {
				Due  int64 `json:"credit_issued_ns"`
				Sent int64 `json:"request_start_ns"`
			}
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		first, last = min(first, r.Metadata.Sent), max(last, r.Metadata.Due)
	}
	return time.Duration(first), time.Duration(last)
}

func latestSends(t *testing.T, path string) string {
	t.Helper()
	type lag struct {
		i  int
		ms float64
	}
	var all []lag
	for i, line := range lines(t, path) {
		var r struct {
			Metrics struct {
				Lag struct{ Value float64 } `json:"schedule_lag"`
			}
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		all = append(all, lag{i, r.Metrics.Lag.Value})
	}
	slices.SortFunc(all, func(a, b lag) int { return int(1000 * (b.ms - a.ms)) })
	var b strings.Builder
	for _, l := range all[:min(10, len(all))] {
		fmt.Fprintf(&b, "#%d %.3f ms; ", l.i, l.ms)
	}
	return b.String()
}

// TestWarmupSessions: --num-warmup-sessions runs whole sessions before
// profiling; --num-sessions bounds profiling in sessions; only profiling
// requests reach the results.
func TestWarmupSessions(t *testing.T) {
	t.Parallel()
	url, exchanges := recordingMock(t, nil)
	cfg := baseConfig(t, url)
	cfg.Load.RequestCount = nil
	cfg.Load.Concurrency = ptr(2)
	cfg.Conversation.NumSessions = ptr(3)
	cfg.Conversation.NumWarmupSessions = ptr(2)
	if out, err := runDataset(t, cfg, threeTurnDataset(3, 0)); err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	if n := len(exchanges()); n != 15 {
		t.Errorf("server saw %d requests, want (2 warmup + 3 profiling sessions) x 3 turns = 15", n)
	}
	doc := summary(t, filepath.Join(cfg.Output.ArtifactDir, "profile_export_aiperf.json"))
	if n := avg(t, doc, "request_count"); n != 9 {
		t.Errorf("request_count = %v, want the 9 profiling requests", n)
	}
}

// TestSessionsWithRequestCount: --num-sessions with --request-count (and
// --num-warmup-sessions with --warmup-request-count) run, as in AIPerf,
// and each phase stops at whichever bound it reaches first: the request
// count cuts three-turn sessions short, or the sessions run out before
// the count.
func TestSessionsWithRequestCount(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name                             string
		sessions, count, wSessions, wCnt int
		warmup, profiling                int // requests the server sees
	}{
		{"the count comes first", 3, 4, 2, 3, 3, 4},
		{"the sessions come first", 1, 10, 1, 10, 3, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			url, exchanges := recordingMock(t, nil)
			cfg := baseConfig(t, url)
			cfg.Load.Concurrency = ptr(2)
			cfg.Load.RequestCount, cfg.Conversation.NumSessions = ptr(c.count), ptr(c.sessions)
			cfg.Warmup.RequestCount, cfg.Conversation.NumWarmupSessions = ptr(c.wCnt), ptr(c.wSessions)
			if errs := cfg.Validate(); errs != nil {
				t.Fatalf("refused: %v", errs)
			}
			if out, err := runDataset(t, cfg, threeTurnDataset(3, 0)); err != nil {
				t.Fatalf("run: %v\n%s", err, out)
			}
			if n := len(exchanges()); n != c.warmup+c.profiling {
				t.Errorf("server saw %d requests, want %d warmup + %d profiling", n, c.warmup, c.profiling)
			}
			doc := summary(t, filepath.Join(cfg.Output.ArtifactDir, "profile_export_aiperf.json"))
			if n := avg(t, doc, "request_count"); n != float64(c.profiling) {
				t.Errorf("request_count = %v, want %d", n, c.profiling)
			}
		})
	}
}
