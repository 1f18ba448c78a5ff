package loader

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// TypeTraceLab is the TraceLab (uw-syfi) agentic-coding corpus: one JSONL
// row per LLM round, optionally gzipped.
const TypeTraceLab = "tracelab"

// traceLabKeys are the members that together identify a TraceLab row.
var traceLabKeys = []string{"session_id", "round_index", "input_tokens_total", "prefix_tokens", "newly_append_tokens", "timing_events"}

// TraceLab timing event types: what feeds a round and what it emits.
var (
	traceLabInput  = map[string]bool{"user_message": true, "tool_result": true}
	traceLabOutput = map[string]bool{"text": true, "reasoning": true, "tool_call": true}
)

// traceLabRound is one row, with its submission time and API time.
type traceLabRound struct {
	submitted, api float64 // seconds; api NaN when not derivable
	index          int     // round_index
	model          string
	in, prefix     int
	out            int
}

// traceLab reads TraceLab rounds, groups them by session and replays each
// session as a Weka trace: rounds ordered by submission time (the latest
// input event), hash-id blocks minted so that each round reuses the first
// prefix_tokens/block_size blocks of the round before (the engine-reported
// cache split), delays the recorded idle gaps. Sessions are replayed as
// independent traces; AIPerf's recovery of subagent nesting from timing
// containment is not reproduced.
func (l *loader) traceLab() ([]dataset.Conversation, error) {
	file := l.opts.Path
	bs := l.opts.BlockSize
	if bs <= 0 {
		bs = DefaultWekaBlockSize
	}
	rounds := map[string][]traceLabRound{}
	var order []string
	var p problems
	p.eachLine(file, func(_ int, line []byte) error {
		id, rd, ok, err := parseTraceLabRow(line)
		if err != nil || !ok {
			return err
		}
		if _, seen := rounds[id]; !seen {
			order = append(order, id)
		}
		rounds[id] = append(rounds[id], rd)
		return nil
	})
	if err := p.err(); err != nil {
		return nil, err
	}
	if len(order) == 0 {
		return nil, &dataset.InputError{File: file, Err: errors.New("no TraceLab session found: every row needs a session_id and timing events")}
	}
	traces := make([]*WekaTrace, 0, len(order))
	for _, id := range order {
		if tr := traceLabTrace(id, rounds[id], bs); tr != nil {
			traces = append(traces, tr)
		}
	}
	o := l.opts.Weka
	o.Seed = l.seed
	o.BlockSize = bs
	if o.Corpus == nil {
		o.Corpus = l.opts.Corpus
	}
	return WekaConversations(traces, o, l.tok)
}

func parseTraceLabRow(line []byte) (string, traceLabRound, bool, error) {
	var rd traceLabRound
	r, err := parseRow(line)
	if err != nil {
		return "", rd, false, err
	}
	id, ok, err := r.str("session_id")
	if err != nil {
		return "", rd, false, &fieldErr{"session_id", err}
	}
	if !ok || id == "" {
		return "", rd, false, nil // AIPerf skips rows without a session
	}
	ints := map[string]*int{"round_index": &rd.index, "input_tokens_total": &rd.in, "prefix_tokens": &rd.prefix, "output_tokens": &rd.out}
	for k, dst := range ints {
		if v, _, err := r.int(k); err != nil {
			return "", rd, false, &fieldErr{k, err}
		} else {
			*dst = v
		}
	}
	if v, ok, err := r.int("reasoning_output_tokens"); err != nil {
		return "", rd, false, &fieldErr{"reasoning_output_tokens", err}
	} else if ok {
		rd.out += v // reasoning is generated output too
	}
	rd.model, _, _ = r.str("model")
	if rd.model == "" {
		rd.model = "unknown"
	}
	var events []struct {
		Type      string `json:"event_type"`
		Timestamp string `json:"timestamp"`
	}
	if raw := r.raw("timing_events"); raw != nil {
		if jsontext.Value(raw).Kind() != '[' || json.Unmarshal(raw, &events) != nil {
			return "", rd, false, &fieldErr{"timing_events", errors.New("want an array of {event_type, timestamp}")}
		}
	}
	var ins, outs []float64
	for i, e := range events {
		if e.Timestamp == "" {
			continue
		}
		t, err := ParseISOTime(e.Timestamp)
		if err != nil {
			return "", rd, false, &fieldErr{fmt.Sprintf("timing_events[%d].timestamp", i), err}
		}
		s := float64(t.UnixNano()) / 1e9
		switch {
		case traceLabInput[e.Type]:
			ins = append(ins, s)
		case traceLabOutput[e.Type]:
			outs = append(outs, s)
		}
	}
	if len(ins) == 0 && len(outs) == 0 {
		return "", rd, false, nil // an undated round is dropped
	}
	rd.api = math.NaN()
	if len(ins) > 0 {
		rd.submitted = maxOf(ins)
	} else {
		rd.submitted = minOf(outs)
	}
	if len(outs) > 0 {
		rd.api = max(maxOf(outs)-rd.submitted, 0)
	}
	return id, rd, true, nil
}

func maxOf(v []float64) float64 {
	m := v[0]
	for _, x := range v[1:] {
		m = max(m, x)
	}
	return m
}

func minOf(v []float64) float64 {
	m := v[0]
	for _, x := range v[1:] {
		m = min(m, x)
	}
	return m
}

// traceLabTrace converts one session's rounds into a Weka trace.
func traceLabTrace(id string, rounds []traceLabRound, bs int) *WekaTrace {
	sort.SliceStable(rounds, func(a, b int) bool {
		if rounds[a].submitted != rounds[b].submitted {
			return rounds[a].submitted < rounds[b].submitted
		}
		return rounds[a].index < rounds[b].index
	})
	if len(rounds) == 0 {
		return nil
	}
	tr := &WekaTrace{ID: id, BlockSize: bs, Where: "session " + id}
	t0 := rounds[0].submitted
	next := 1
	var prev []int
	prevEnd := math.NaN()
	seen := map[string]bool{}
	for _, rd := range rounds {
		total := max(rd.in, 0)
		prefix := min(max(rd.prefix, 0), total)
		blocks := total / bs
		reuse := min(prefix/bs, len(prev), blocks)
		ids := append(append([]int(nil), prev[:reuse]...), make([]int, blocks-reuse)...)
		for i := reuse; i < blocks; i++ {
			ids[i] = next
			next++
		}
		prev = ids
		t := rd.submitted - t0
		think := math.NaN()
		if !math.IsNaN(prevEnd) {
			think = max(t-prevEnd, 0)
		}
		api := rd.api
		end := t
		if !math.IsNaN(api) {
			end += api
		}
		prevEnd = end
		if !seen[rd.model] {
			seen[rd.model] = true
			tr.Models = append(tr.Models, rd.model)
		}
		tr.Requests = append(tr.Requests, WekaRequest{T: t, Type: "n", Model: rd.model, In: max(total, 1), Out: max(rd.out, 1),
			HashIDs: ids, APITime: api, ThinkTime: think})
	}
	return tr
}

// isTraceLabRow reports whether a first line looks like a TraceLab row.
func isTraceLabRow(r row) bool {
	for _, k := range traceLabKeys {
		if !r.has(k) {
			return false
		}
	}
	return true
}
