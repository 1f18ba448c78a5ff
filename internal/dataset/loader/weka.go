package loader

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/dataset/synthesis"
	"github.com/aiperf-go/aiperf/internal/tokenizer"
)

// TypeWekaTrace is the Weka KV-cache-tester agentic trace format.
const TypeWekaTrace = "weka_trace"

// DefaultWekaBlockSize is the hash-id block size of Weka traces (AIPerf's
// plugin default, which takes precedence over the block size a trace
// declares).
const DefaultWekaBlockSize = 64

// WekaOptions shape the replay of Weka traces (weka_trace files and the
// SemiAnalysis hub corpora).
type WekaOptions struct {
	// BlockSize overrides DefaultWekaBlockSize (--isl-block-size).
	BlockSize int
	// MaxISL drops requests with more input tokens
	// (--synthesis-max-isl); MaxOSL caps the output of main-agent
	// requests (--synthesis-max-osl). 0 means no bound.
	MaxISL, MaxOSL int
	// MaxContext drops traces whose peak input plus output exceeds it
	// (--max-context-length); 0 means no bound.
	MaxContext int
	// Entries keeps the first Entries eligible traces when
	// --num-dataset-entries is given; 0 keeps all.
	Entries int
	// IgnoreDelays drops recorded timing: no timestamps, no delays
	// (--ignore-trace-delays). ThinkTimeOnly uses each request's recorded
	// think_time as its delay instead of the idle gap
	// (--use-think-time-only).
	IgnoreDelays, ThinkTimeOnly bool
	// DelayCap clamps every delay (--inter-turn-delay-cap-seconds); 0
	// means none.
	DelayCap time.Duration
	// IdleGapCap (--trace-idle-gap-cap-seconds), when > 0, compresses each
	// trace's timeline as AIPerf's Weka loader does: over the request
	// starts of the main agent and its subagents together, every gap
	// between consecutive starts longer than the cap keeps only the cap,
	// and the recorded times, delays and joins follow the compressed
	// timeline. It replaces DelayCap.
	IdleGapCap time.Duration
	// StartOffset and EndOffset keep requests recorded within the window
	// (--fixed-schedule-start-offset/-end-offset, ms); nil means open.
	StartOffset, EndOffset *time.Duration
	// Models are the run's models: the trace's models map onto them in
	// order of first use (the main model to the first), wrapping around.
	Models []string
	// Corpus is where the hash-id blocks are cut from; nil means the
	// coding corpus.
	Corpus *synthesis.PromptCorpus
	Seed   uint64
}

// WekaTrace is one parsed trace: a conversation of an agent's requests
// and the subagents it spawned.
type WekaTrace struct {
	ID           string
	Models       []string
	BlockSize    int
	ToolTokens   int
	SystemTokens int
	Requests     []WekaRequest
	// Where names the trace's source in errors ("file", "row 3 of repo").
	Where string
}

// WekaRequest is a recorded API call ("n" or "s") or a subagent marker
// ("subagent", whose Requests are its own calls).
type WekaRequest struct {
	T                        float64 // seconds from the conversation start
	Type                     string
	Model                    string
	In, Out                  int
	HashIDs                  []int
	APITime, ThinkTime       float64 // seconds; NaN when not recorded
	AgentID, SubagentType    string
	DurationMs               *int
	Requests                 []WekaRequest
	ToolTokens, SystemTokens int
}

// wekaTopKeys and wekaReqKeys are the members the schema allows (AIPerf's
// models forbid others; a null member counts as absent, as hub rows fill
// every struct field of a column).
var (
	wekaTopKeys = []string{"id", "models", "block_size", "hash_id_scope", "tool_tokens", "system_tokens", "requests", "totals"}
	wekaReqKeys = map[string][]string{
		"n":        {"t", "type", "model", "in", "out", "hash_ids", "input_types", "output_types", "stop", "api_time", "think_time"},
		"s":        {"t", "type", "model", "in", "out", "hash_ids", "input_types", "output_types", "stop", "api_time", "think_time", "ttft"},
		"subagent": {"t", "type", "agent_id", "subagent_type", "duration_ms", "total_tokens", "tool_use_count", "status", "requests", "models", "tool_tokens", "system_tokens"},
	}
)

func checkKeys(r row, allowed []string) error {
	for _, f := range r.fields {
		if string(f.Value) == "null" {
			continue
		}
		ok := false
		for _, a := range allowed {
			ok = ok || a == f.Key
		}
		if !ok {
			return &fieldErr{f.Key, errors.New("unknown field")}
		}
	}
	return nil
}

// ParseWekaTrace reads one Weka trace object, reporting the first schema
// problem with its field path.
func ParseWekaTrace(data []byte, where string) (*WekaTrace, error) {
	r, err := parseRow(data)
	if err != nil {
		return nil, err
	}
	if err := checkKeys(r, wekaTopKeys); err != nil {
		return nil, err
	}
	tr := &WekaTrace{Where: where}
	var ok bool
	if tr.ID, ok, err = r.str("id"); err != nil || !ok || tr.ID == "" {
		return nil, &fieldErr{"id", orMissing(err, ok && tr.ID != "")}
	}
	if tr.Models, ok, err = r.strs("models"); err != nil || !ok {
		return nil, &fieldErr{"models", orMissing(err, ok)}
	}
	if tr.BlockSize, ok, err = r.int("block_size"); err != nil || !ok || tr.BlockSize < 1 {
		if err == nil && ok {
			err = fmt.Errorf("must be at least 1, got %d", tr.BlockSize)
		}
		return nil, &fieldErr{"block_size", orMissing(err, ok)}
	}
	scope, ok, err := r.str("hash_id_scope")
	if err != nil || !ok || scope != "local" {
		if err == nil && ok {
			err = fmt.Errorf("only \"local\" is supported, got %q", scope)
		}
		return nil, &fieldErr{"hash_id_scope", orMissing(err, ok)}
	}
	if tr.ToolTokens, _, err = r.int("tool_tokens"); err != nil {
		return nil, &fieldErr{"tool_tokens", err}
	}
	if tr.SystemTokens, _, err = r.int("system_tokens"); err != nil {
		return nil, &fieldErr{"system_tokens", err}
	}
	reqs, err := wekaRequests(r, "requests", true)
	if err != nil {
		return nil, err
	}
	tr.Requests = reqs
	return tr, nil
}

func orMissing(err error, present bool) error {
	if err != nil {
		return err
	}
	if !present {
		return errors.New("missing")
	}
	return errors.New("invalid")
}

func wekaRequests(r row, key string, top bool) ([]WekaRequest, error) {
	raw := r.raw(key)
	if raw == nil {
		return nil, &fieldErr{key, errors.New("missing")}
	}
	var items []jsontext.Value
	if jsontext.Value(raw).Kind() != '[' || json.Unmarshal(raw, &items) != nil {
		return nil, &fieldErr{key, typeErr(raw, "an array of requests")}
	}
	out := make([]WekaRequest, len(items))
	for i, it := range items {
		prefix := fmt.Sprintf("%s[%d]", key, i)
		q, err := wekaRequest(it, top)
		if err != nil {
			var fe *fieldErr
			if errors.As(err, &fe) {
				return nil, &fieldErr{prefix + "." + fe.field, fe.err}
			}
			return nil, &fieldErr{prefix, err}
		}
		out[i] = q
	}
	return out, nil
}

func wekaRequest(data []byte, top bool) (WekaRequest, error) {
	q := WekaRequest{APITime: math.NaN(), ThinkTime: math.NaN()}
	r, err := parseRow(data)
	if err != nil {
		return q, err
	}
	typ, _, err := r.str("type")
	if err != nil {
		return q, &fieldErr{"type", err}
	}
	allowed, known := wekaReqKeys[typ]
	if !known || (!top && typ == "subagent") {
		return q, &fieldErr{"type", fmt.Errorf("want \"n\" or \"s\"%s, got %q", map[bool]string{true: " or \"subagent\""}[top], typ)}
	}
	if err := checkKeys(r, allowed); err != nil {
		return q, err
	}
	q.Type = typ
	t, ok, err := r.num("t")
	if err != nil || !ok {
		return q, &fieldErr{"t", orMissing(err, ok)}
	}
	q.T = t
	if typ == "subagent" {
		err = wekaSubagent(r, &q)
	} else {
		err = wekaCall(r, &q)
	}
	return q, err
}

// wekaSubagent reads a subagent record's fields and its requests into q.
func wekaSubagent(r row, q *WekaRequest) error {
	var ok bool
	var err error
	if q.AgentID, ok, err = r.str("agent_id"); err != nil || !ok {
		return &fieldErr{"agent_id", orMissing(err, ok)}
	}
	if q.SubagentType, _, err = r.str("subagent_type"); err != nil {
		return &fieldErr{"subagent_type", err}
	}
	if d, ok, err := r.int("duration_ms"); err != nil {
		return &fieldErr{"duration_ms", err}
	} else if ok {
		q.DurationMs = &d
	}
	if q.ToolTokens, _, err = r.int("tool_tokens"); err != nil {
		return &fieldErr{"tool_tokens", err}
	}
	if q.SystemTokens, _, err = r.int("system_tokens"); err != nil {
		return &fieldErr{"system_tokens", err}
	}
	q.Requests, err = wekaRequests(r, "requests", false)
	return err
}

// wekaCall reads a model call's fields into q; api_time and think_time
// stay NaN when absent.
func wekaCall(r row, q *WekaRequest) error {
	var ok bool
	var err error
	if q.Model, ok, err = r.str("model"); err != nil || !ok {
		return &fieldErr{"model", orMissing(err, ok)}
	}
	if q.In, ok, err = r.int("in"); err != nil || !ok || q.In < 0 {
		if err == nil && ok {
			err = fmt.Errorf("must not be negative, got %d", q.In)
		}
		return &fieldErr{"in", orMissing(err, ok)}
	}
	if q.Out, ok, err = r.int("out"); err != nil || !ok || q.Out < 0 {
		if err == nil && ok {
			err = fmt.Errorf("must not be negative, got %d", q.Out)
		}
		return &fieldErr{"out", orMissing(err, ok)}
	}
	if q.HashIDs, _, err = r.ints("hash_ids"); err != nil {
		return &fieldErr{"hash_ids", err}
	}
	for _, k := range []string{"api_time", "think_time"} {
		v, ok, err := r.num(k)
		if err != nil {
			return &fieldErr{k, err}
		}
		if ok && k == "api_time" {
			q.APITime = v
		} else if ok {
			q.ThinkTime = v
		}
	}
	return nil
}

// loadWekaFiles reads a Weka trace file, or every *.json file of a
// directory in name order; trace ids must be unique.
func (l *loader) wekaTraces() ([]*WekaTrace, error) {
	files := []string{l.opts.Path}
	if isDir(l.opts.Path) {
		var err error
		if files, err = dirFiles(l.opts.Path, ".json"); err != nil {
			return nil, err
		}
		if len(files) == 0 {
			return nil, &dataset.InputError{File: l.opts.Path, Err: errors.New("the directory holds no .json trace files")}
		}
	}
	var out []*WekaTrace
	seen := map[string]string{}
	var p problems
	for _, f := range files {
		data, err := readFile(f)
		if err != nil {
			p.add(err)
			continue
		}
		tr, err := ParseWekaTrace(data, f)
		if err != nil {
			p.add(asInputErr(f, 0, "", err))
			continue
		}
		if prev, dup := seen[tr.ID]; dup {
			p.add(&dataset.InputError{File: f, Field: "id", Err: fmt.Errorf("duplicate trace id %q (also in %s)", tr.ID, prev)})
			continue
		}
		seen[tr.ID] = f
		out = append(out, tr)
	}
	return out, p.err()
}

// wekaTrace loads weka_trace files into conversations.
func (l *loader) wekaTrace() ([]dataset.Conversation, error) {
	traces, err := l.wekaTraces()
	if err != nil {
		return nil, err
	}
	o := l.opts.Weka
	o.Seed = l.seed
	if l.opts.BlockSize > 0 {
		o.BlockSize = l.opts.BlockSize
	}
	if o.Corpus == nil {
		o.Corpus = l.opts.Corpus
	}
	return WekaConversations(traces, o, l.tok)
}

// wekaPeak is a trace's peak requested context: input plus (capped,
// at least 1) output over its main requests and its subagents' requests
// (whose output is not capped).
func wekaPeak(tr *WekaTrace, maxOSL int) int {
	peak := 0
	outOf := func(out, capTo int) int {
		if capTo > 0 && out > capTo {
			out = capTo
		}
		return max(out, 1)
	}
	for _, q := range tr.Requests {
		if q.Type == "subagent" {
			for _, c := range q.Requests {
				peak = max(peak, c.In+outOf(c.Out, 0))
			}
			continue
		}
		peak = max(peak, q.In+outOf(q.Out, maxOSL))
	}
	return peak
}

// SelectWekaTraces drops traces whose peak context exceeds MaxContext and
// keeps the first Entries of the rest (filter, then cap). An empty result
// is an error naming the smallest peak seen.
func SelectWekaTraces(traces []*WekaTrace, o WekaOptions) ([]*WekaTrace, error) {
	if o.MaxContext <= 0 && o.Entries <= 0 {
		return traces, nil
	}
	var out []*WekaTrace
	smallest := -1
	for _, tr := range traces {
		peak := wekaPeak(tr, o.MaxOSL)
		if smallest < 0 || peak < smallest {
			smallest = peak
		}
		if o.MaxContext > 0 && peak > o.MaxContext {
			continue
		}
		out = append(out, tr)
		if o.Entries > 0 && len(out) == o.Entries {
			break
		}
	}
	if len(out) == 0 {
		msg := fmt.Sprintf("no eligible Weka trace among %d with --max-context-length=%d", len(traces), o.MaxContext)
		if smallest >= 0 {
			msg += fmt.Sprintf("; the smallest trace needs %d tokens (raise --max-context-length to at least that)", smallest)
		}
		return nil, errors.New(msg)
	}
	return out, nil
}

// WekaConversations replays Weka traces. Each trace's main-agent requests
// become one conversation and each subagent's requests another, starting
// at the subagent's recorded spawn time (spawn/join ordering between them
// is not enforced). A turn sends the request's context rebuilt from its
// hash ids as chat messages, in the deltas-with-responses context mode:
// the blocks a request shares with the one before are the history; its
// new blocks are an assistant message (the previous reply's share) and a
// user message, plus a partial last block only this request sends; a
// request whose blocks do not extend the previous ones resets the
// context. A system message holds the trace's tool and system prefix on
// the first turn. Delays are the recorded idle gap between a request's
// end and the next one's start (or the recorded think time), capped; the
// first turn carries the trace's start time.
func WekaConversations(traces []*WekaTrace, o WekaOptions, tok tokenizer.Tokenizer) ([]dataset.Conversation, error) {
	if tok == nil {
		return nil, errors.New("weka traces need a tokenizer to synthesize prompts")
	}
	traces, err := SelectWekaTraces(traces, o)
	if err != nil {
		return nil, err
	}
	corpus := o.Corpus
	if corpus == nil {
		// Agentic-coding traces default to the coding corpus, as in AIPerf.
		if corpus, err = synthesis.NewPromptCorpus(synthesis.CorpusCoding, "", tok); err != nil {
			return nil, err
		}
	}
	bs := o.BlockSize
	if bs <= 0 {
		bs = DefaultWekaBlockSize
	}
	if o.IdleGapCap > 0 {
		o.DelayCap = 0 // AIPerf: the trace idle cap supersedes the inter-turn delay cap
	}
	w := &wekaBuilder{o: o, tok: tok, bs: bs, blocks: synthesis.NewBlockSource(corpus.Tokens(), o.Seed, "")}
	var out []dataset.Conversation
	for _, tr := range traces {
		w.blocks.Reset(tr.ID)
		models := wekaModelMap(tr, o.Models)
		main := w.agent(tr.ID, tr, tr.Requests, tr.ToolTokens+tr.SystemTokens, models, true, 0)
		var subs []wekaSub
		for i, q := range tr.Requests {
			if q.Type != "subagent" || len(q.Requests) == 0 {
				continue
			}
			id := fmt.Sprintf("%s::sa:%s", tr.ID, q.AgentID)
			if q.AgentID == "" {
				id = fmt.Sprintf("%s::sa:%d", tr.ID, i)
			}
			child := w.agent(id, tr, q.Requests, q.ToolTokens+q.SystemTokens, models, false, q.T)
			if len(child.Turns) > 0 {
				subs = append(subs, wekaSub{outer: i, conv: child})
			}
		}
		out = append(out, w.tree(tr, main, subs)...)
	}
	if len(out) == 0 {
		return nil, errors.New("no Weka request passes the filters")
	}
	return out, nil
}

// wekaModelMap maps trace models onto the run's models in order of first
// use, the main model first.
func wekaModelMap(tr *WekaTrace, models []string) map[string]string {
	if len(models) == 0 {
		return nil
	}
	var order []string
	seen := map[string]bool{}
	add := func(m string) {
		if !seen[m] {
			seen[m] = true
			order = append(order, m)
		}
	}
	for _, q := range tr.Requests {
		if q.Type != "subagent" {
			add(q.Model)
			break
		}
	}
	if len(order) == 0 {
		for _, q := range tr.Requests {
			if q.Type == "subagent" && len(q.Requests) > 0 {
				add(q.Requests[0].Model)
				break
			}
		}
	}
	for _, q := range tr.Requests {
		if q.Type == "subagent" {
			for _, c := range q.Requests {
				add(c.Model)
			}
			continue
		}
		add(q.Model)
	}
	out := map[string]string{}
	for i, m := range order {
		out[m] = models[i%len(models)]
	}
	return out
}

// wekaBuilder turns one agent's requests into a conversation.
type wekaBuilder struct {
	o      WekaOptions
	tok    tokenizer.Tokenizer
	bs     int
	blocks synthesis.BlockSource
}

// wekaSegment is one role's run of hash-id blocks in a rebuilt context.
type wekaSegment struct {
	role   string
	blocks []int
}

func (w *wekaBuilder) keep(q WekaRequest) bool {
	ms := time.Duration(q.T * float64(time.Second))
	if w.o.StartOffset != nil && ms < *w.o.StartOffset {
		return false
	}
	if w.o.EndOffset != nil && ms > *w.o.EndOffset {
		return false
	}
	return w.o.MaxISL <= 0 || q.In <= w.o.MaxISL
}

func (w *wekaBuilder) agent(id string, tr *WekaTrace, reqs []WekaRequest, prefixTokens int, models map[string]string, main bool, spawn float64) dataset.Conversation {
	conv := dataset.Conversation{ID: id, Context: dataset.ContextDeltasWithResponses}
	var kept []WekaRequest
	for _, q := range reqs {
		if q.Type != "subagent" && w.keep(q) {
			if !main && q.T+1e-6 < spawn {
				q.T += spawn // an inner time relative to the spawn
			}
			kept = append(kept, q)
		}
	}
	var segs []wekaSegment
	for k, q := range kept {
		full := min(len(q.HashIDs), q.In/w.bs)
		cur := q.HashIDs[:full]
		turn := dataset.Turn{Model: q.Model, MaxTokens: max(q.Out, 1)}
		if m, ok := models[q.Model]; ok {
			turn.Model = m
		}
		if main && w.o.MaxOSL > 0 && turn.MaxTokens > w.o.MaxOSL {
			turn.MaxTokens = w.o.MaxOSL
		}
		// The shared prefix with the context so far decides what is new.
		have := 0
		for _, s := range segs {
			have += len(s.blocks)
		}
		lcp := 0
		flat := make([]int, 0, have)
		for _, s := range segs {
			flat = append(flat, s.blocks...)
		}
		for lcp < len(flat) && lcp < len(cur) && flat[lcp] == cur[lcp] {
			lcp++
		}
		var delta []wekaSegment
		if k == 0 || lcp < have {
			turn.ResetContext = k > 0
			segs = nil
			sys := min(prefixTokens/w.bs, len(cur))
			if k == 0 && sys > 0 && sys < len(cur) {
				segs = append(segs, wekaSegment{"system", cur[:sys]})
				segs = append(segs, wekaSegment{"user", cur[sys:]})
			} else if len(cur) > 0 {
				segs = append(segs, wekaSegment{"user", cur})
			}
			delta = segs
		} else {
			fresh := cur[have:]
			asst := 0
			if prev := kept[k-1].Out; prev > 0 && len(fresh) > 1 {
				asst = min((prev+w.bs-1)/w.bs, len(fresh)-1)
			}
			if asst > 0 {
				delta = append(delta, wekaSegment{"assistant", fresh[:asst]})
			}
			if len(fresh) > asst {
				delta = append(delta, wekaSegment{"user", fresh[asst:]})
			}
			segs = append(segs, delta...)
		}
		tail := w.tail(id, k, q.In-full*w.bs)
		turn.HistoryMessages, turn.Texts = w.messages(delta, "")
		turn.Messages, _ = w.messages(delta, tail)
		if tail == "" {
			turn.HistoryMessages = nil
		}
		turn.InputTokens = q.In
		if !w.o.IgnoreDelays {
			turn.TraceAt, turn.HasTraceAt = secDuration(q.T), true
			if k == 0 {
				turn.Timestamp, turn.HasTimestamp = time.Duration(q.T*float64(time.Second)), true
			} else {
				turn.Delay = w.delay(kept[k-1], q)
			}
		}
		conv.Turns = append(conv.Turns, turn)
	}
	return conv
}

// delay is the pause before q after prev completed: q's recorded think
// time with ThinkTimeOnly, else the idle gap between prev's end (start +
// api_time) and q's start; never negative; capped.
func (w *wekaBuilder) delay(prev, q WekaRequest) time.Duration {
	var ms float64
	if w.o.ThinkTimeOnly && !math.IsNaN(q.ThinkTime) {
		ms = q.ThinkTime * 1000
	} else {
		api := prev.APITime
		if math.IsNaN(api) || math.IsInf(api, 0) || api < 0 {
			api = 0
		}
		ms = (q.T - prev.T - api) * 1000
	}
	if math.IsNaN(ms) || math.IsInf(ms, 0) {
		return 0
	}
	d := time.Duration(max(ms, 0) * float64(time.Millisecond))
	if w.o.DelayCap > 0 && d > w.o.DelayCap {
		d = w.o.DelayCap
	}
	return d
}

// tail is the text of a request's partial last block: n corpus tokens
// from a stream keyed by the conversation and turn.
func (w *wekaBuilder) tail(id string, k, n int) string {
	if n <= 0 {
		return ""
	}
	rng := dataset.NewStream(w.o.Seed, "dataset.prompt.hash_id/weka_tail/"+id+"/"+strconv.Itoa(k))
	return w.tok.Decode(w.blocks.Corpus.Window(rng.IntN, n, make([]int, 0, n)))
}

// messages renders segments as a JSON array of chat messages (the tail
// appended to the last user message, or as one of its own), and returns
// the message texts for ISL counting.
func (w *wekaBuilder) messages(segs []wekaSegment, tail string) ([]byte, []string) {
	type msg struct{ role, text string }
	var ms []msg
	for _, s := range segs {
		var ids []int
		for _, h := range s.blocks {
			b, _ := w.blocks.Block(h, w.bs)
			ids = append(ids, b...)
		}
		text := w.tok.Decode(ids)
		if n := len(ms); n > 0 && ms[n-1].role == s.role {
			ms[n-1].text += text
			continue
		}
		ms = append(ms, msg{s.role, text})
	}
	if tail != "" {
		if n := len(ms); n > 0 && ms[n-1].role == "user" {
			ms[n-1].text += tail
		} else {
			ms = append(ms, msg{"user", tail})
		}
	}
	out := []byte{'['}
	texts := make([]string, 0, len(ms))
	for i, m := range ms {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, `{"role":`...)
		out, _ = jsontext.AppendQuote(out, m.role)
		out = append(out, `,"content":`...)
		out, _ = jsontext.AppendQuote(out, m.text)
		out = append(out, '}')
		texts = append(texts, m.text)
	}
	return append(out, ']'), texts
}

// isWekaFile reports whether path is a .json file holding a Weka trace
// (for detection).
func isWekaFile(path string) bool {
	if !strings.EqualFold(filepath.Ext(path), ".json") {
		return false
	}
	data, err := readFile(path)
	if err != nil {
		return false
	}
	_, err = ParseWekaTrace(data, path)
	return err == nil
}
