package worker

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/endpoint"
	"github.com/aiperf-go/aiperf/internal/record"
	"github.com/aiperf-go/aiperf/internal/timing"
	"github.com/aiperf-go/aiperf/internal/transport"
)

// Budget is a phase's request bound shared by every worker: each turn takes
// one request from it before it is sent, so --request-count counts requests
// (turns), not conversations, as in AIPerf. Safe for concurrent use.
type Budget struct {
	left atomic.Int64
	// spent is closed the first time the budget reaches zero, so sessions
	// pausing between turns end at once instead of sleeping out a think
	// time after which they could send nothing. A Refund can make the
	// budget non-zero again after it closed, so a woken waiter re-checks
	// Exhausted.
	spent     chan struct{}
	spentOnce sync.Once
}

// NewBudget returns a budget of n requests.
func NewBudget(n int) *Budget {
	b := &Budget{spent: make(chan struct{})}
	b.left.Store(int64(n))
	if n <= 0 {
		b.markSpent()
	}
	return b
}

func (b *Budget) markSpent() { b.spentOnce.Do(func() { close(b.spent) }) }

// Spent is closed once the budget has reached zero (see Budget.spent);
// nil, which never fires, for a nil Budget.
func (b *Budget) Spent() <-chan struct{} {
	if b == nil {
		return nil
	}
	return b.spent
}

// Take claims one request; false once the budget is spent.
func (b *Budget) Take() bool {
	if left := b.left.Add(-1); left >= 0 {
		if left == 0 {
			b.markSpent()
		}
		return true
	}
	b.left.Add(1) // keep it at 0 so Exhausted stays exact
	return false
}

// TakeUpTo claims up to n requests at once and returns how many it got
// (0 once the budget is spent): a controller reserves a conversation's
// turns before handing it to a remote worker.
func (b *Budget) TakeUpTo(n int) int {
	for {
		left := b.left.Load()
		got := min(int64(n), left)
		if got <= 0 {
			return 0
		}
		if b.left.CompareAndSwap(left, left-got) {
			if left == got {
				b.markSpent()
			}
			return int(got)
		}
	}
}

// Refund gives back n requests reserved with TakeUpTo and never sent.
func (b *Budget) Refund(n int) {
	if n > 0 {
		b.left.Add(int64(n))
	}
}

// Exhausted reports whether no request is left. The scheduler polls it to
// stop issuing conversations that could send nothing.
func (b *Budget) Exhausted() bool { return b.left.Load() <= 0 }

// session sends one conversation's turns in order on this goroutine.
//
// Turn 0 is due at the credit's Due. A later turn is due after the previous
// response has been read plus its Delay (think time, clamped by
// Options.DelayCap), or, in a fixed-schedule replay, at its own trace
// timestamp if it has one (but never before the previous turn finished). A
// failed turn ends the conversation, since later turns would need its reply
// as history; so do StopSending, a spent Budget and a cancelled pool.
//
// Every turn carries the same session id (Options.SessionHeader). With an
// Endpoint, turns after the first are built now, with the history: each
// earlier turn followed by the reply text parsed from its response. Their
// record's InputTexts are then every text of the body, so ISL counts what
// was sent, as AIPerf 0.13 counts it from the wire payload.
func (p *Pool) session(workerID string, j job) {
	conv := p.o.Dataset.Conversation(j.conv)
	st := p.newStream(j.conv, conv, p.o.CacheBust.newSession(j.credit.Phase, conv.ID))
	var timer *time.Timer
	cancelled := false // how the session ended, for OnSessionEnd
	defer func() {
		if timer != nil {
			timer.Stop()
		}
		if st.started && p.o.OnSessionEnd != nil {
			p.o.OnSessionEnd(cancelled)
		}
		if !st.started && p.o.Started != nil {
			p.o.Started(j.credit) // nothing was sent
		}
		p.EndStream(st)
	}()
	turns := len(conv.Turns)
	if j.credit.Turns > 0 {
		turns = min(turns, j.credit.Turns) // a user-centric user with a virtual history
	}
	st.turns, st.credit = turns, j.credit
	var prevDue time.Duration
	for t := range turns {
		due, scheduled := j.credit.Due, p.o.FixedSchedule
		if t > 0 {
			if j.credit.TurnGap > 0 {
				due, scheduled = timing.UserTurnDue(prevDue, j.credit.TurnGap, p.o.Clock.Now()), false
			} else {
				due, scheduled = p.turnDue(conv, t, j.credit.Due)
			}
			if !p.waitUntil(&timer, due) {
				// Cut short by a cancellation, not by the end of sending.
				cancelled = !p.stopped() && p.ctx.Err() != nil
				return
			}
		}
		prevDue = due
		// A first turn was issued before any stop, so only later turns
		// check StopSending.
		if (t > 0 && p.stopped()) || (p.o.Budget != nil && !p.o.Budget.Take()) {
			return
		}
		res := p.sendTurn(workerID, st, TurnOptions{Seq: j.credit.Seq, Phase: j.credit.Phase, Due: due, Scheduled: scheduled}, t, t == turns-1)
		cancelled = res.Cancelled
		if !res.Sent || res.Failed {
			return
		}
	}
}

// Stream is one conversation instance (one session): its correlation id,
// the history its later turns carry and its cache-bust marking. Its turns
// are sent one request at a time, in order; the conversation loop sends
// them all on one goroutine, the agentic replay one by one with SendTurn
// (possibly from different goroutines, never two at once).
type Stream struct {
	conv int
	// c is conversation conv, got once: a compact dataset builds it on
	// each Conversation call.
	c           *dataset.Conversation
	correlation string
	history     []endpoint.Message
	bust        *sessionBust
	sent        bool // a turn has been sent: the history is under way
	// turns is how many turns the conversation loop may send (0 for a
	// stream driven by SendTurn, which reports no session start or end);
	// started is set once its first request went out (OnSessionStart).
	turns   int
	started bool
	credit  timing.Credit // the conversation loop's credit (Options.Started)
}

func (p *Pool) newStream(conv int, c *dataset.Conversation, bust *sessionBust) *Stream {
	return &Stream{conv: conv, c: c, correlation: newID(), bust: bust}
}

// NewStream starts a session of conversation conv whose requests carry
// the cache-bust marker (none when "" or without --cache-bust).
func (p *Pool) NewStream(conv int, marker string) *Stream {
	var bust *sessionBust
	if p.o.CacheBust != nil && marker != "" {
		bust = &sessionBust{c: p.o.CacheBust, marker: marker, pending: true}
	}
	return p.newStream(conv, p.o.Dataset.Conversation(conv), bust)
}

// Correlation returns the stream's session id (X-Correlation-ID).
func (s *Stream) Correlation() string { return s.correlation }

// EndStream tells a sticky transport the stream's session is over.
func (p *Pool) EndStream(s *Stream) {
	if e, ok := p.o.Sender.(SessionEnder); ok {
		e.EndSession(s.correlation)
	}
}

// TurnOptions say how one request is sent and recorded.
type TurnOptions struct {
	Seq   uint64
	Phase record.Phase
	// Due is when the schedule wanted the request sent (Record.Due);
	// Scheduled marks an absolute trace time (Record.Scheduled).
	Due       time.Duration
	Scheduled bool
	// MaxTokens, when > 0, replaces the turn's requested output length
	// (an agentic warmup's one-token priming request).
	MaxTokens int
}

// TurnResult is how a request ended, read before its record goes
// downstream.
type TurnResult struct {
	// Sent is false when nothing went out (the pool was cancelled while
	// the request waited for a prefill slot).
	Sent bool
	// Failed: the record carries an error; Cancelled: the client cancelled
	// it (code 499). Error is the error's message.
	Failed, Cancelled bool
	Error             string
}

// SendTurn sends turn t of stream s now, on the calling goroutine, and
// hands its record downstream; the stream's history then includes it.
// The first request of a stream that starts mid-conversation (t > 0)
// carries the recorded turns before t as history when the conversation's
// context holds its own replies (deltas_with_responses), as AIPerf's
// agentic warmup back-seeds them; otherwise it sends its turn alone.
// Unlike the conversation loop, a failed request does not end the
// stream: the caller decides what comes next.
func (p *Pool) SendTurn(workerID string, s *Stream, o TurnOptions, t int) TurnResult {
	conv := s.c
	if !s.sent && t > 0 && conv.Context == dataset.ContextDeltasWithResponses && p.o.Endpoint != nil {
		for k := range t {
			turn := &conv.Turns[k]
			if turn.Prompt != nil {
				built := turn.Materialize()
				turn = &built
			}
			if turn.ResetContext {
				s.history = s.history[:0]
			}
			sent, err := s.bust.mark(turn, conv.Context, k == 0)
			if sent == nil || err != nil {
				sent = turn
			}
			s.history = append(s.history, endpoint.Message{Turn: sent})
		}
	}
	return p.sendTurn(workerID, s, o, t, false)
}

// sendTurn sends turn t of stream s and hands its record downstream. last
// skips recording the turn in the history (nothing follows it).
func (p *Pool) sendTurn(workerID string, s *Stream, o TurnOptions, t int, last bool) TurnResult {
	conv := s.c
	turn := &conv.Turns[t]
	if turn.Prompt != nil {
		// A lazy trace prompt: built now, its body below, its tokens
		// counted on the record path.
		built := turn.Materialize()
		turn = &built
	}
	first := !s.sent
	s.sent = true
	rec := &record.Record{
		Seq:            o.Seq,
		Phase:          o.Phase,
		PhaseName:      p.o.PhaseName,
		PhaseIndex:     p.o.PhaseIndex,
		ProfilingIndex: p.o.ProfilingIndex,
		ConversationID: conv.ID,
		TurnIndex:      t,
		XRequestID:     newID(),
		XCorrelationID: s.correlation,
		WorkerID:       workerID,
		URLIndex:       int(o.Seq % uint64(len(p.o.URLs))),
		Model:          turn.Model,
		Due:            o.Due,
		Scheduled:      o.Scheduled,
		InputTexts:     turn.Texts,
		InputTokens:    turn.InputTokens,
		RequestedOSL:   turn.MaxTokens,
	}
	body, sent, err := p.turnBody(s, o, t, turn, conv.Context, rec, first)
	if err != nil {
		return p.buildFailed(rec, err)
	}
	header := p.requestHeader(turn, rec.XRequestID, s.correlation)
	wire, err := p.wire(body, header)
	if err != nil {
		return p.buildFailed(rec, err)
	}
	if p.o.KeepRequestHeader {
		rec.RequestHeader = header
	}
	req := &transport.Request{URL: p.o.URLs[rec.URLIndex], Body: wire, Header: header, Session: s.correlation}
	leave := func() {} // gives the request-concurrency slot back
	if g := p.o.Wire; g != nil {
		if g.Acquire(p.ctx) != nil {
			return TurnResult{}
		}
		leave = g.Release
	}
	release, ok := p.prefillSlot(req)
	if !ok {
		leave()
		return TurnResult{}
	}
	req.OnSent = p.o.OnSend // one hook for every request: no closure each
	p.sessionStarted(s)
	p.o.Sender.Do(p.ctx, p.o.Clock, req, rec)
	release()
	leave()
	if p.o.Polling != nil {
		p.pollJob(req, rec)
	}
	rec.Images, rec.AudioSeconds = p.countImages(body), turn.AudioSeconds
	res := TurnResult{Sent: true, Failed: rec.Error != nil}
	if rec.Error != nil {
		res.Error = rec.Error.Message
		res.Cancelled = rec.Error.Code == record.CancelledCode
	}
	if !res.Failed && !last && p.o.Endpoint != nil {
		p.remember(s, conv.Context, sent, rec)
	}
	if res.Cancelled && rec.Cancelled && p.ctx.Err() != nil {
		// Cut off by the end of the phase (Cancel: the grace period ran
		// out, or an interrupt), not by a planned cancellation, whose
		// context is the request's own.
		rec.Error.Type = record.TypePhaseEndCancelled
	}
	p.emit(rec)
	return res
}

// turnBody is the request body of turn t of stream s and the turn as
// sent (cache-busted, its max tokens overridden), with the history before
// it; it fills in the record's input and body when they differ from the
// dataset's.
func (p *Pool) turnBody(s *Stream, o TurnOptions, t int, turn *dataset.Turn, ctx dataset.ContextMode, rec *record.Record, first bool) (body []byte, sent *dataset.Turn, err error) {
	if turn.ResetContext {
		s.history = s.history[:0]
	}
	history := s.history
	if t < len(p.o.Payloads[s.conv]) { // compact rows have none
		body = p.o.Payloads[s.conv][t]
	}
	marked, err := s.bust.mark(turn, ctx, first && len(history) == 0)
	sent = turn
	if marked != nil {
		sent = marked
	}
	if err == nil && o.MaxTokens > 0 && turn.RawPayload == nil && p.o.Endpoint != nil {
		cp := *sent
		cp.MaxTokens = o.MaxTokens
		sent, rec.RequestedOSL = &cp, o.MaxTokens
	}
	if err == nil && (sent != turn || body == nil || (len(history) > 0 && turn.RawPayload == nil)) {
		if marked != nil {
			body, err = s.bust.c.body(sent, history)
			rec.CacheBustMarker, rec.CacheBustTarget = s.bust.marker, s.bust.c.Target
		} else {
			body, err = p.bodyWithHistory(sent, history)
		}
		switch {
		case len(history) > 0:
			rec.InputTexts, rec.InputTokens = historyTexts(history, sent), -1
		case sent.Messages == nil:
			rec.InputTexts, rec.InputTokens = inputParts(sent), -1
		}
		rec.RequestBody = body
	}
	return body, sent, err
}

// wire is body as sent: a multipart form when the endpoint takes one
// (its Content-Type set in header), else body itself.
func (p *Pool) wire(body []byte, header http.Header) ([]byte, error) {
	if !p.o.Multipart {
		return body, nil
	}
	wire, ctype, err := endpoint.Multipart(body)
	if err != nil {
		return nil, err
	}
	header.Set("Content-Type", ctype)
	return wire, nil
}

// sessionStarted reports a session's first sent turn, once.
func (p *Pool) sessionStarted(s *Stream) {
	if s.started || s.turns == 0 {
		return
	}
	s.started = true
	if p.o.OnSessionStart != nil {
		p.o.OnSessionStart(s.turns)
	}
	if p.o.Started != nil {
		p.o.Started(s.credit)
	}
}

// remember adds a successful turn and its reply to the stream's history,
// as the conversation's context mode asks.
func (p *Pool) remember(s *Stream, ctx dataset.ContextMode, sent *dataset.Turn, rec *record.Record) {
	switch ctx {
	case dataset.ContextMessageArray:
		// Every turn is a complete recorded snapshot.
	case dataset.ContextDeltasWithResponses:
		// The recorded deltas hold the assistant messages.
		s.history = append(s.history, endpoint.Message{Turn: sent})
	default:
		// Read the reply before handing the record on: it belongs
		// downstream after the send.
		s.history = append(s.history,
			endpoint.Message{Turn: sent},
			endpoint.Message{Role: "assistant", Text: p.replyText(rec)})
	}
}

// requestKeyID is X-Request-ID's canonical form (http.Header's key).
var requestKeyID = http.CanonicalHeaderKey("X-Request-ID")

// requestHeader is Options.Header, then the turn's own headers,
// X-Request-ID and the session headers, each later one replacing an
// earlier value (Header.Set's order). It costs one map and one array of
// values: the base values are shared, capacity-capped so an Add copies,
// and the session keys were canonicalised once (Clone and Set cost a
// slice per value and, for a key such as X-Request-ID, a new string).
func (p *Pool) requestHeader(turn *dataset.Turn, requestID, session string) http.Header {
	h := make(http.Header, len(p.o.Header)+len(turn.Headers)+2+len(p.sessionKeys))
	for k, v := range p.o.Header {
		h[k] = v[:len(v):len(v)]
	}
	vals := make([]string, 0, len(turn.Headers)+2+len(p.sessionKeys)+len(p.requestIDKeys))
	set := func(k, v string) {
		vals = append(vals, v)
		n := len(vals)
		h[k] = vals[n-1 : n : n]
	}
	for _, th := range turn.Headers {
		set(http.CanonicalHeaderKey(th.Name), th.Value)
	}
	set(requestKeyID, requestID)
	for _, k := range p.requestIDKeys {
		set(k, requestID)
	}
	for _, k := range p.sessionKeys {
		set(k, session)
	}
	return h
}

// buildFailed records a request whose body could not be built.
func (p *Pool) buildFailed(rec *record.Record, err error) TurnResult {
	now := p.o.Clock.Now()
	rec.Sent, rec.End = now, now
	rec.Error = &record.ErrorDetails{Type: "RequestBuildError", Message: err.Error()}
	msg := err.Error()
	p.emit(rec)
	return TurnResult{Sent: true, Failed: true, Error: msg}
}

// emit hands a finished record downstream.
func (p *Pool) emit(rec *record.Record) {
	if p.o.Emit != nil {
		p.o.Emit(rec)
		return
	}
	p.o.Out <- rec
}

// prefillSlot waits for a prefill slot when the pool has a prefill gate,
// and arranges for it to be released at the response's first content
// chunk; release (idempotent) frees it if the request ended without one.
// ok is false when the pool was cancelled while waiting: nothing is sent.
func (p *Pool) prefillSlot(req *transport.Request) (release func(), ok bool) {
	g := p.o.Prefill
	if g == nil {
		return func() {}, true
	}
	if g.Acquire(p.ctx) != nil {
		return nil, false
	}
	held := true
	release = func() {
		if held {
			held = false
			g.Release()
		}
	}
	req.OnChunk = func(data []byte) {
		if !held {
			return
		}
		if parsed, err := p.o.Parser.ParseResponse(data); err == nil && parsed.HasContent() {
			release()
		}
	}
	return release, true
}

// turnDue returns when turn t (> 0) of conv is due, and whether that is an
// absolute trace time.
func (p *Pool) turnDue(conv *dataset.Conversation, t int, first time.Duration) (time.Duration, bool) {
	now := p.o.Clock.Now()
	turn, head := &conv.Turns[t], &conv.Turns[0]
	if p.o.FixedSchedule && turn.HasTimestamp && head.HasTimestamp {
		return first + (turn.Timestamp - head.Timestamp), true
	}
	delay := max(turn.Delay, 0)
	if p.o.CapDelays {
		delay = min(delay, p.o.DelayCap)
	}
	return now + delay, false
}

// waitUntil sleeps until the run-clock offset due; false when the pool was
// told to stop sending or cancelled meanwhile, or the request budget ran
// out (the turn after the pause could not be sent).
func (p *Pool) waitUntil(timer **time.Timer, due time.Duration) bool {
	wait := p.o.Clock.Until(due)
	if wait <= 0 {
		return !p.stopped() && p.ctx.Err() == nil
	}
	if *timer == nil {
		*timer = time.NewTimer(wait)
	} else {
		(*timer).Reset(wait)
	}
	spent := p.o.Budget.Spent()
	for {
		select {
		case <-(*timer).C:
			return !p.stopped()
		case <-p.stop:
			return false
		case <-p.ctx.Done():
			return false
		case <-spent:
			// Nothing can be sent after the pause: end it now rather
			// than idle until the think time is over (a --request-count
			// cap on a trace with long recorded delays).
			if p.o.Budget.Exhausted() {
				return false
			}
			spent = nil // refunded: wait out the pause
		}
	}
}

func (p *Pool) stopped() bool {
	select {
	case <-p.stop:
		return true
	default:
		return false
	}
}

// bodyWithHistory builds turn's request body with the history before it
// and the turn's own extra fields merged last, as the first turn's body has.
func (p *Pool) bodyWithHistory(turn *dataset.Turn, history []endpoint.Message) ([]byte, error) {
	ep, eo := p.o.Endpoint, p.o.EOptions
	if ep == nil {
		ep, eo = p.o.BodyEndpoint, p.o.BodyOptions
	}
	if ep == nil {
		return nil, errors.New("building a request body at send time needs the pool's Endpoint or BodyEndpoint")
	}
	o := *eo
	o.History = history
	body, err := ep.AppendPayload(nil, turn, endpoint.WithTurnExtra(&o, turn))
	if err != nil {
		return nil, fmt.Errorf("building the request body with history: %w", err)
	}
	return body, nil
}

// countImages counts the image parts of a request body.
func (p *Pool) countImages(body []byte) int {
	if p.o.CountImages != nil {
		return p.o.CountImages(body)
	}
	return endpoint.CountImageParts(body)
}

// replyText is the response's output text as the endpoint parses it:
// every chunk's Text concatenated (reasoning is not part of the reply),
// read as one stream when the endpoint's chunks depend on each other.
// Unparseable chunks contribute nothing.
func (p *Pool) replyText(rec *record.Record) string {
	var b strings.Builder
	var parser record.ChunkParser = p.o.Endpoint
	if s, ok := p.o.Endpoint.(endpoint.Streamer); ok {
		parser = s.NewStream()
	}
	for _, c := range rec.Chunks {
		parsed, err := parser.ParseResponse(c.Data)
		if err != nil {
			continue
		}
		b.WriteString(parsed.Text)
	}
	return b.String()
}

// inputParts is what a turn's ISL counts without history: its non-empty
// system, user-context and prompt texts (dataset.JoinInputs).
func inputParts(t *dataset.Turn) []string {
	return []string{dataset.JoinInputs(t)}
}

// historyTexts lists every text a body with history carries, in order:
// each earlier turn's texts, each reply, then the turn's own texts.
func historyTexts(history []endpoint.Message, turn *dataset.Turn) []string {
	var out []string
	for _, m := range history {
		if m.Turn != nil {
			out = append(out, m.Turn.Texts...)
		} else {
			out = append(out, m.Text)
		}
	}
	return append(out, turn.Texts...)
}
