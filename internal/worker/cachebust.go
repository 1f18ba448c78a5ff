package worker

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/endpoint"
	"github.com/aiperf-go/aiperf/internal/record"
)

// Cache-bust targets (--cache-bust), AIPerf's names.
const (
	BustSystemPrefix       = "system_prefix"
	BustSystemSuffix       = "system_suffix"
	BustFirstTurnPrefix    = "first_turn_prefix"
	BustFirstTurnSuffix    = "first_turn_suffix"
	BustWarmupSystem       = "warmup_isolation_system"
	BustWarmupFirstTurn    = "warmup_isolation_first_turn"
	warmupIsolationMarker  = "[warmup]\n\n"
	cacheBustDigestLength  = 12
	cacheBustMarkerSamples = 8
)

// CacheBust injects a marker into requests so that the server's prefix
// cache cannot serve one conversation's prompt to another, as AIPerf's
// --cache-bust does.
//
// The RID targets give each conversation instance (each credit) its own
// marker, "[rid:<digest>]", the first 12 hex digits of
// SHA-256("<benchmark id>:<pass>:<pass>:<conversation id>"), where pass
// counts instances over the whole run: "[rid:…]\n\n" ahead of the text
// (the prefix targets) or "\n\n[rid:…]" after it (the suffix targets).
// The warmup-isolation targets put a constant "[warmup]\n\n" ahead of the
// text of warmup requests only, so profiling starts cold.
//
// System targets mark the conversation's system message (every request
// carries it), else the leading system message of a recorded message
// array, else fall back to the first user message; first-turn targets mark
// the first user message of the conversation's context (its text, or the
// first user message of a recorded array), which later requests carry in
// their history. One CacheBust serves every phase of a run; it is safe for
// concurrent use.
type CacheBust struct {
	// Target is the --cache-bust target (one of the Bust constants).
	Target string
	// BenchmarkID seeds the RID digests (the run's benchmark_id).
	BenchmarkID string
	// Endpoint and EOptions build the marked bodies.
	Endpoint endpoint.Endpoint
	EOptions *endpoint.Options

	pass atomic.Int64
}

// system reports a target that marks the system message.
func (c *CacheBust) system() bool {
	return c.Target == BustSystemPrefix || c.Target == BustSystemSuffix || c.Target == BustWarmupSystem
}

// prefix reports a target that marks ahead of the text.
func (c *CacheBust) prefix() bool {
	return c.Target != BustSystemSuffix && c.Target != BustFirstTurnSuffix
}

// warmupOnly reports a warmup-isolation target.
func (c *CacheBust) warmupOnly() bool {
	return c.Target == BustWarmupSystem || c.Target == BustWarmupFirstTurn
}

// marker returns the marker of a new instance of conversation convID in
// phase; "" when the phase's requests carry none.
func (c *CacheBust) marker(phase record.Phase, convID string) string {
	if c.warmupOnly() {
		if phase == record.Warmup {
			return warmupIsolationMarker
		}
		return ""
	}
	pass := c.pass.Add(1) - 1
	return RIDMarker(c.BenchmarkID, pass, convID, c.prefix())
}

// RIDMarker renders the RID marker of instance pass of conversation
// convID: "[rid:<digest>]\n\n" for prefix targets, "\n\n[rid:<digest>]"
// for suffix targets.
func RIDMarker(benchmarkID string, pass int64, convID string, prefix bool) string {
	return ridMarker(benchmarkID, pass, pass, convID, prefix)
}

// TreeMarker returns the marker every stream of an agentic replay tree
// shares (AIPerf's resolve_tree_marker): the digest of
// "<benchmark id>:<pass>:<lane>:<trace>", where trace is the root trace
// id and pass counts the trees of that trace over the run; "" when the
// target marks no profiling request. The warmup-isolation targets are
// refused with agentic replay (see config).
func (c *CacheBust) TreeMarker(pass int64, lane int, trace string) string {
	if c == nil || c.warmupOnly() {
		return ""
	}
	return ridMarker(c.BenchmarkID, pass, int64(lane), trace, c.prefix())
}

func ridMarker(benchmarkID string, pass, index int64, id string, prefix bool) string {
	p := strconv.FormatInt(pass, 10)
	sum := sha256.Sum256([]byte(benchmarkID + ":" + p + ":" + strconv.FormatInt(index, 10) + ":" + id))
	rid := "[rid:" + hex.EncodeToString(sum[:])[:cacheBustDigestLength] + "]"
	if prefix {
		return rid + "\n\n"
	}
	return "\n\n" + rid
}

// MarkerTokenCost is the mean token count of a target's marker, as AIPerf
// estimates it to shorten synthetic prompts (8 sample markers); 0 for none
// and for the warmup-isolation targets, whose profiling requests carry no
// marker.
func MarkerTokenCost(target string, count func(string) int) int {
	switch target {
	case BustSystemPrefix, BustFirstTurnPrefix, BustSystemSuffix, BustFirstTurnSuffix:
	default:
		return 0
	}
	prefix := target == BustSystemPrefix || target == BustFirstTurnPrefix
	total := 0
	for i := range cacheBustMarkerSamples {
		total += count(RIDMarker("estimator", int64(i), fmt.Sprintf("estimator-%d", i), prefix))
	}
	// Python's round: half to even.
	q, r := total/cacheBustMarkerSamples, total%cacheBustMarkerSamples
	if 2*r > cacheBustMarkerSamples || (2*r == cacheBustMarkerSamples && q%2 == 1) {
		q++
	}
	return q
}

// sessionBust is one conversation instance's marking state.
type sessionBust struct {
	c      *CacheBust
	marker string
	// pending: the context's first user message is not marked yet.
	pending bool
}

// newSession starts the marking of one conversation instance; nil when
// its requests carry no marker.
func (c *CacheBust) newSession(phase record.Phase, convID string) *sessionBust {
	if c == nil {
		return nil
	}
	m := c.marker(phase, convID)
	if m == "" {
		return nil
	}
	return &sessionBust{c: c, marker: m, pending: true}
}

// mark returns turn's marked copy, or nil when this turn sends as built.
// A turn that starts a context (the first, a reset, or every recorded
// snapshot in message-array mode) makes the first user message pending
// again.
func (s *sessionBust) mark(turn *dataset.Turn, ctx dataset.ContextMode, first bool) (*dataset.Turn, error) {
	if s == nil || turn.RawPayload != nil {
		return nil, nil
	}
	if first || turn.ResetContext || ctx == dataset.ContextMessageArray {
		s.pending = true
	}
	pre := s.c.prefix()
	if s.c.system() {
		if turn.System != "" {
			cp := *turn
			if pre {
				cp.System = s.marker + turn.System
			} else {
				cp.System = turn.System + s.marker
			}
			return &cp, nil
		}
		if s.pending && turn.Messages != nil {
			cp := *turn
			ok, err := markMessages(&cp, "system", true, s.marker, pre)
			if err != nil || ok {
				s.pending = !ok
				return &cp, err
			}
		}
	}
	if !s.pending {
		return nil, nil
	}
	cp := *turn
	if turn.Messages != nil {
		ok, err := markMessages(&cp, "user", false, s.marker, pre)
		if err != nil || !ok {
			return nil, err
		}
		s.pending = false
		return &cp, nil
	}
	cp.Texts = append([]string(nil), turn.Texts...)
	switch {
	case len(cp.Texts) == 0:
		cp.Texts = []string{s.marker}
	case pre:
		cp.Texts[0] = s.marker + cp.Texts[0]
	default:
		cp.Texts[0] += s.marker
	}
	s.pending = false
	return &cp, nil
}

// markMessages marks, in t's recorded message array (and its history
// form), the first message of role (only when it comes first, for
// leadingOnly); ok is false when there is none.
func markMessages(t *dataset.Turn, role string, leadingOnly bool, marker string, prefix bool) (ok bool, err error) {
	out, ok, err := markMessageArray(t.Messages, role, leadingOnly, marker, prefix)
	if err != nil || !ok {
		return false, err
	}
	t.Messages = out
	if t.HistoryMessages != nil {
		if h, hok, err := markMessageArray(t.HistoryMessages, role, leadingOnly, marker, prefix); err == nil && hok {
			t.HistoryMessages = h
		}
	}
	return true, nil
}

func markMessageArray(raw []byte, role string, leadingOnly bool, marker string, prefix bool) ([]byte, bool, error) {
	var msgs []json.RawMessage
	if err := json.Unmarshal(raw, &msgs); err != nil {
		return nil, false, fmt.Errorf("cache bust: recorded messages: %w", err)
	}
	for i, m := range msgs {
		obj, err := endpoint.ParseObject(m)
		if err != nil {
			if leadingOnly {
				return nil, false, nil
			}
			continue
		}
		var r string
		if v, ok := obj.Get("role"); ok {
			json.Unmarshal(v, &r)
		}
		if r != role {
			if leadingOnly {
				return nil, false, nil
			}
			continue
		}
		content, _ := obj.Get("content")
		marked, ok := markContent(content, marker, prefix)
		if !ok {
			return nil, false, nil // content of another shape: the marker is dropped, as in AIPerf
		}
		obj.Set("content", marked)
		msgs[i] = obj.AppendTo(nil)
		return joinArray(msgs), true, nil
	}
	return nil, false, nil
}

// markContent marks a message content: a string gets the marker at its
// edge, a list of parts a text part holding the trimmed marker at its
// start or end. A content already marked is kept.
func markContent(content []byte, marker string, prefix bool) ([]byte, bool) {
	var s string
	if len(content) == 0 || string(content) == "null" {
		content = []byte(`""`)
	}
	if json.Unmarshal(content, &s) == nil {
		if (prefix && strings.HasPrefix(s, marker)) || (!prefix && strings.HasSuffix(s, marker)) {
			return content, true
		}
		if prefix {
			return endpoint.AppendString(nil, marker+s), true
		}
		return endpoint.AppendString(nil, s+marker), true
	}
	var parts []json.RawMessage
	if json.Unmarshal(content, &parts) != nil {
		return nil, false
	}
	part := []byte(`{"type":"text","text":` + string(endpoint.AppendString(nil, strings.TrimSpace(marker))) + `}`)
	if prefix {
		parts = append([]json.RawMessage{part}, parts...)
	} else {
		parts = append(parts, part)
	}
	return joinArray(parts), true
}

// joinArray writes items as a JSON array, each verbatim.
func joinArray(items []json.RawMessage) []byte {
	out := []byte{'['}
	for i, m := range items {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, m...)
	}
	return append(out, ']')
}

// body builds the marked turn's request body, with the history when there
// is one.
func (c *CacheBust) body(turn *dataset.Turn, history []endpoint.Message) ([]byte, error) {
	o := *c.EOptions
	o.History = history
	body, err := c.Endpoint.AppendPayload(nil, turn, endpoint.WithTurnExtra(&o, turn))
	if err != nil {
		return nil, fmt.Errorf("building the cache-busted request body: %w", err)
	}
	return body, nil
}
