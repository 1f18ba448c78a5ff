package benchmark

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/mockserver"
	"github.com/aiperf-go/aiperf/internal/record"
)

// agenticTrace writes a Weka trace: main requests every 0.4 s (50 ms of
// api_time each) and, after the second, a subagent of two requests that
// ends before the third main request, which therefore joins it.
func agenticTrace(t *testing.T, dir, id string) {
	t.Helper()
	var reqs []string
	hash := []string{}
	for i := range 6 {
		hash = append(hash, fmt.Sprint(i*2+1), fmt.Sprint(i*2+2))
		reqs = append(reqs, fmt.Sprintf(`{"t":%.1f,"type":"n","model":"m","in":%d,"out":4,"hash_ids":[%s],"api_time":0.05}`,
			0.4*float64(i), 64*len(hash), strings.Join(hash, ",")))
		if i == 1 {
			reqs = append(reqs, `{"t":0.45,"type":"subagent","agent_id":"helper","duration_ms":200,"requests":[`+
				`{"t":0.46,"type":"n","model":"m","in":128,"out":4,"hash_ids":[101,102],"api_time":0.05},`+
				`{"t":0.55,"type":"n","model":"m","in":256,"out":4,"hash_ids":[101,102,103,104],"api_time":0.05}]}`)
		}
	}
	doc := fmt.Sprintf(`{"id":%q,"models":["m"],"block_size":64,"hash_id_scope":"local","requests":[%s]}`, id, strings.Join(reqs, ","))
	if err := os.WriteFile(filepath.Join(dir, id+".json"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
}

// agenticConfig is an agentic replay of the Weka traces in dir against
// the server at url.
func agenticConfig(t *testing.T, url, dir string) *config.Config {
	t.Helper()
	cfg := baseConfig(t, url)
	cfg.Tokenizer.Name = "builtin"
	cfg.Input.OutputTokens.Mean = nil
	cfg.Dataset.InputFile, cfg.Dataset.CustomType = dir, config.DatasetWekaTrace
	cfg.Shape.TimingMode = config.TimingAgenticReplay
	return cfg
}

// agenticRecord is the part of a profile_export.jsonl line this test reads.
type agenticRecord struct {
	Metadata struct {
		RequestID     string `json:"x_request_id"`
		CorrelationID string `json:"x_correlation_id"`
		Conversation  string `json:"conversation_id"`
		Turn          int    `json:"turn_index"`
		Phase         string `json:"benchmark_phase"`
		Start         int64  `json:"request_start_ns"`
	} `json:"metadata"`
}

// TestAgenticReplayAgainstMock runs agentic_replay end to end against the
// embedded mock and checks, from the mock's own request log: the warmup
// primes each lane's turn before t* with a one-token request; profiling
// resumes the same session (same correlation id, the recorded history
// sent with it) at the turn after t*; the subagent starts only after its
// spawning turn returned and the joining turn waits until the subagent has
// finished; and the run writes warmup_metrics (and, as AIPerf, no
// per-phase files).
func TestAgenticReplayAgainstMock(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	agenticTrace(t, dir, "ta")
	agenticTrace(t, dir, "tb")
	url, posts := recorderServer(t, mockserver.New(mockConfig(t, nil)))
	cfg := agenticConfig(t, url, dir)
	// t* = 0.1 of the 2 s span: every lane resumes at main turn 1.
	cfg.Shape.TrajectoryStartMinRatio, cfg.Shape.TrajectoryStartMaxRatio = ptr(0.1), ptr(0.1)
	cfg.Load.RequestCount, cfg.Load.Concurrency = nil, ptr(2)
	cfg.Load.BenchmarkDuration = ptr(1.3)
	if out, err := run(t, context.Background(), cfg); err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	out := cfg.Output.ArtifactDir
	recs := map[string]agenticRecord{}
	for _, l := range lines(t, filepath.Join(out, "profile_export.jsonl")) {
		var r agenticRecord
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		recs[r.Metadata.RequestID] = r
	}
	type sent struct {
		rec agenticRecord
		req mockserver.RecordedRequest
	}
	var all []sent
	for _, p := range posts() {
		r, ok := recs[p.RequestID]
		if !ok {
			t.Fatalf("the mock got request %s, which has no record", p.RequestID)
		}
		all = append(all, sent{r, p})
	}
	if len(all) != len(recs) {
		t.Errorf("%d records for %d requests the mock received", len(recs), len(all))
	}
	maxTokens := func(b json.RawMessage) float64 {
		var m map[string]any
		json.Unmarshal(b, &m)
		v, _ := m["max_completion_tokens"].(float64)
		return v
	}
	messages := func(b json.RawMessage) int {
		var m struct{ Messages []json.RawMessage }
		json.Unmarshal(b, &m)
		return len(m.Messages)
	}
	warm := map[string]sent{} // conversation -> its priming request
	for _, s := range all {
		if s.rec.Metadata.Phase != "warmup" {
			continue
		}
		if s.rec.Metadata.Turn != 0 || maxTokens(s.req.Body) != 1 {
			t.Errorf("warmup request %s[%d] asks for %v tokens, want turn 0 with 1", s.rec.Metadata.Conversation, s.rec.Metadata.Turn, maxTokens(s.req.Body))
		}
		warm[s.rec.Metadata.Conversation] = s
	}
	if len(warm) != 2 || warm["ta"].req.Body == nil || warm["tb"].req.Body == nil {
		t.Fatalf("warmup primed %v, want ta and tb once each", warm)
	}
	var lastWarmEnd int64
	for _, w := range warm {
		lastWarmEnd = max(lastWarmEnd, w.req.EndNs)
	}
	for _, id := range []string{"ta", "tb"} {
		w := warm[id]
		// The lane's first profiling request: the same session, turn 1,
		// with turn 0 as history, after the whole warmup.
		i := slices.IndexFunc(all, func(s sent) bool { return s.rec.Metadata.Phase == "profiling" && s.rec.Metadata.Conversation == id })
		if i < 0 {
			t.Fatalf("%s: no profiling request", id)
		}
		first := all[i]
		if first.rec.Metadata.Turn != 1 || first.rec.Metadata.CorrelationID != w.rec.Metadata.CorrelationID {
			t.Errorf("%s: profiling resumes at turn %d in session %s, want turn 1 in the warmup's %s", id, first.rec.Metadata.Turn,
				first.rec.Metadata.CorrelationID, w.rec.Metadata.CorrelationID)
		}
		if messages(first.req.Body) <= messages(w.req.Body) || maxTokens(first.req.Body) == 1 {
			t.Errorf("%s: turn 1 carries %d messages (turn 0 had %d) and asks for %v tokens", id, messages(first.req.Body), messages(w.req.Body), maxTokens(first.req.Body))
		}
		if first.req.ReceivedNs < lastWarmEnd {
			t.Errorf("%s: profiling started before the warmup ended", id)
		}
		// The subagent of the same tree: spawned after turn 1 returned;
		// main turn 2 (the join) after both of its requests ended.
		var sub []sent
		for _, s := range all[i:] {
			if s.rec.Metadata.Conversation == id+"::sa:helper" {
				if len(sub) > 0 && s.rec.Metadata.CorrelationID != sub[0].rec.Metadata.CorrelationID {
					break // a later tree's
				}
				sub = append(sub, s)
			}
		}
		j := slices.IndexFunc(all[i+1:], func(s sent) bool {
			return s.rec.Metadata.Conversation == id && s.rec.Metadata.CorrelationID == w.rec.Metadata.CorrelationID
		})
		if len(sub) != 2 || j < 0 {
			t.Fatalf("%s: %d subagent requests, join sent %v; want 2 and a join", id, len(sub), j >= 0)
		}
		join := all[i+1+j]
		if join.rec.Metadata.Turn != 2 {
			t.Errorf("%s: the main turn after 1 is %d", id, join.rec.Metadata.Turn)
		}
		if sub[0].req.ReceivedNs < first.req.EndNs {
			t.Errorf("%s: the subagent started before its spawning turn returned", id)
		}
		for _, s := range sub {
			if join.req.ReceivedNs < s.req.EndNs {
				t.Errorf("%s: the join turn went out before subagent turn %d ended", id, s.rec.Metadata.Turn)
			}
		}
	}
	doc := summary(t, filepath.Join(out, "profile_export_aiperf.json"))
	if _, ok := doc["warmup_metrics"]; !ok {
		t.Error("the summary has no warmup_metrics")
	}
	if avg(t, doc, "request_count") < 4 {
		t.Errorf("request_count %v", avg(t, doc, "request_count"))
	}
	// As AIPerf 0.13: the synthesized warmup is not a stored phase, so no
	// per-phase files.
	for _, f := range []string{"phase_manifest.json", "phases"} {
		if _, err := os.Stat(filepath.Join(out, f)); !os.IsNotExist(err) {
			t.Errorf("%s: %v, want none", f, err)
		}
	}
}

// TestAgenticPlanRefusals: AIPerf's dataset-wrap policy (more lanes than
// traces in a bounded run) and a dataset of subagents only.
func TestAgenticPlanRefusals(t *testing.T) {
	t.Parallel()
	ds := &dataset.Dataset{Conversations: []dataset.Conversation{
		{ID: "a", Turns: []dataset.Turn{{Texts: []string{"x"}}, {Texts: []string{"y"}}}},
		{ID: "a::sa:s", Parent: "a", Branch: dataset.Branch{SpawnTurn: 0, JoinTurn: 1}, Turns: []dataset.Turn{{Texts: []string{"z"}}}},
	}}
	cfg := config.Defaults()
	cfg.Shape.TimingMode = config.TimingAgenticReplay
	cfg.Load.Concurrency, cfg.Load.BenchmarkDuration = ptr(2), ptr(10.0)
	p := &Plan{Config: &cfg, Dataset: ds}
	if err := p.planAgentic(); err == nil || !strings.Contains(err.Error(), "--allow-dataset-wrap") {
		t.Errorf("2 lanes over 1 trace: %v", err)
	}
	cfg.Dataset.AllowDatasetWrap = true
	if err := p.planAgentic(); err != nil {
		t.Errorf("with --allow-dataset-wrap: %v", err)
	}
	if ap := p.Sessions.Agentic; ap == nil || len(ap.roots) != 1 || ap.convs[1].Parent != 0 || ap.convs[1].Branch.JoinTurn != 1 {
		t.Errorf("agentic plan %+v", ap)
	}
	only := &Plan{Config: &cfg, Dataset: &dataset.Dataset{Conversations: ds.Conversations[1:]}}
	if err := only.planAgentic(); err == nil || !strings.Contains(err.Error(), "no root conversation") {
		t.Errorf("subagents only: %v", err)
	}
}

func TestContextOverflow(t *testing.T) {
	t.Parallel()
	for msg, want := range map[string]bool{
		`{"error":{"message":"This model's maximum context length is 8192 tokens"}}`: true,
		"Prompt is too long":       true,
		"context_length_exceeded":  true,
		"HTTP 500: internal error": false,
		"connection reset by peer": false,
	} {
		if got := record.ContextOverflow(msg); got != want {
			t.Errorf("ContextOverflow(%q) = %v, want %v", msg, got, want)
		}
	}
}

// TestAgenticReplayWarmupFailure: a priming request that fails fails the
// run (profiling would resume the trajectory without its context), with
// the trajectories named, and the warmup's records are still written.
func TestAgenticReplayWarmupFailure(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	agenticTrace(t, dir, "ta")
	url, posts := recorderServer(t, mockserver.New(mockConfig(t, func(c *mockserver.Config) { c.ErrorRate = 100 })))
	cfg := agenticConfig(t, url, dir)
	cfg.Load.RequestCount, cfg.Load.BenchmarkDuration = nil, ptr(5.0)
	out, err := run(t, context.Background(), cfg)
	var exit *config.ExitError
	if !errors.As(err, &exit) || exit.Code != config.ExitFailure || !strings.Contains(err.Error(), "priming request of 1 trajectories failed") ||
		!strings.Contains(err.Error(), "ta") {
		t.Fatalf("run error %v, want the warmup failure naming ta\n%s", err, out)
	}
	if n := len(posts()); n != 1 {
		t.Errorf("the mock got %d requests, want the one priming request", n)
	}
	if l := lines(t, filepath.Join(cfg.Output.ArtifactDir, "profile_export.jsonl")); len(l) != 1 || !strings.Contains(l[0], `"benchmark_phase":"warmup"`) {
		t.Errorf("records %v, want the failed warmup request", l)
	}
}

// TestAgenticReplayInterrupted: an interrupt during profiling stops the
// replay; the run exits as interrupted with valid artifacts marked
// cancelled, and every request the mock received has its record.
func TestAgenticReplayInterrupted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	agenticTrace(t, dir, "ta")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	mock := mockserver.New(mockConfig(t, nil))
	var n atomic.Int64
	url, posts := recorderServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mock.ServeHTTP(w, r)
		if r.Method == http.MethodPost && n.Add(1) == 3 { // the warmup's, then two profiling requests
			cancel()
		}
	}))
	cfg := agenticConfig(t, url, dir)
	cfg.Shape.TrajectoryStartMinRatio, cfg.Shape.TrajectoryStartMaxRatio = ptr(0.1), ptr(0.1)
	cfg.Load.RequestCount, cfg.Load.BenchmarkDuration = nil, ptr(600.0)
	out, err := run(t, ctx, cfg)
	var exit *config.ExitError
	if !errors.As(err, &exit) || exit.Code != config.ExitInterrupted {
		t.Fatalf("run error %v, want interrupted\n%s", err, out)
	}
	doc := summary(t, filepath.Join(cfg.Output.ArtifactDir, "profile_export_aiperf.json"))
	if string(doc["was_cancelled"]) != "true" {
		t.Errorf("was_cancelled = %s", doc["was_cancelled"])
	}
	if got, sent := len(lines(t, filepath.Join(cfg.Output.ArtifactDir, "profile_export.jsonl"))), len(posts()); got != sent || sent < 3 {
		t.Errorf("%d records for %d requests received", got, sent)
	}
}

// gapTrace writes a Weka trace of main requests at the given times
// (seconds, 20 ms of api_time each).
func gapTrace(t *testing.T, dir, id string, at ...float64) {
	t.Helper()
	var reqs []string
	for i, s := range at {
		reqs = append(reqs, fmt.Sprintf(`{"t":%g,"type":"n","model":"m","in":%d,"out":2,"hash_ids":[%s],"api_time":0.02}`,
			s, 64*(i+1), strings.Trim(strings.Repeat("1,", i+1), ",")))
	}
	doc := fmt.Sprintf(`{"id":%q,"models":["m"],"block_size":64,"hash_id_scope":"local","requests":[%s]}`, id, strings.Join(reqs, ","))
	if err := os.WriteFile(filepath.Join(dir, id+".json"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestAgenticReplayIdleCapAndCacheWarmup runs a trace whose turn 2 comes
// 30 s after turn 1, from t* just before turn 1 (the warmup primes turn 0).
// Plain, turn 2 never goes within a 1.5 s phase; with
// --system-idle-gap-cap-seconds 0.1 the replay, idle after turn 1, moves
// it up and sends it. --agentic-cache-warmup-duration keeps the warmup
// replaying past the priming request (one-token requests, no delays).
func TestAgenticReplayIdleCapAndCacheWarmup(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	gapTrace(t, dir, "gap", 0, 0.1, 30.1, 30.2)
	turns := func(edit func(c *config.Config)) (warm, prof []int) {
		url, _ := recorderServer(t, mockserver.New(mockConfig(t, nil)))
		cfg := agenticConfig(t, url, dir)
		// t* = 0.002 x 30.2 s = 60 ms: turn 0 primed, profiling resumes at turn 1.
		cfg.Shape.TrajectoryStartMinRatio, cfg.Shape.TrajectoryStartMaxRatio = ptr(0.002), ptr(0.002)
		cfg.Load.RequestCount, cfg.Load.Concurrency, cfg.Load.BenchmarkDuration = nil, ptr(1), ptr(1.5)
		edit(cfg)
		if out, err := run(t, context.Background(), cfg); err != nil {
			t.Fatalf("run: %v\n%s", err, out)
		}
		var recs []agenticRecord
		for _, l := range lines(t, filepath.Join(cfg.Output.ArtifactDir, "profile_export.jsonl")) {
			var r agenticRecord
			if err := json.Unmarshal([]byte(l), &r); err != nil {
				t.Fatal(err)
			}
			recs = append(recs, r)
		}
		// Records are written as they complete; read them in send order.
		slices.SortStableFunc(recs, func(a, b agenticRecord) int { return int(a.Metadata.Start - b.Metadata.Start) })
		for _, r := range recs {
			if r.Metadata.Phase == "warmup" {
				warm = append(warm, r.Metadata.Turn)
			} else {
				prof = append(prof, r.Metadata.Turn)
			}
		}
		return warm, prof
	}
	if warm, prof := turns(func(*config.Config) {}); !slices.Equal(warm, []int{0}) || !slices.Equal(prof, []int{1}) {
		t.Errorf("plain: warmup turns %v, profiling turns %v; want [0] and [1] (turn 2 is 30 s later)", warm, prof)
	}
	if warm, prof := turns(func(c *config.Config) { c.Shape.SystemIdleGapCapSeconds = ptr(0.1) }); !slices.Equal(warm, []int{0}) ||
		len(prof) < 3 || !slices.Equal(prof[:3], []int{1, 2, 3}) {
		t.Errorf("idle cap: warmup turns %v, profiling turns %v; want [0] and 1, 2, 3 first", warm, prof)
	}
	// (The idle cap keeps profiling from waiting out a 30 s delay where the
	// cache warmup handed the trace over: the run must send something.)
	if warm, _ := turns(func(c *config.Config) {
		c.Shape.AgenticCacheWarmup, c.Shape.SystemIdleGapCapSeconds, c.Load.BenchmarkDuration = ptr(0.1), ptr(0.1), ptr(0.5)
	}); len(warm) < 3 ||
		!slices.Equal(warm[:3], []int{0, 1, 2}) {
		t.Errorf("cache warmup: warmup turns %v, want the priming turn 0, then 1, 2, ... without the delays", warm)
	}
}
