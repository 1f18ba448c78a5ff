package worker

import (
	"fmt"
	"net/http"
	"strings"
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
}

// NewBudget returns a budget of n requests.
func NewBudget(n int) *Budget {
	b := &Budget{}
	b.left.Store(int64(n))
	return b
}

// Take claims one request; false once the budget is spent.
func (b *Budget) Take() bool {
	if b.left.Add(-1) >= 0 {
		return true
	}
	b.left.Add(1) // keep it at 0 so Exhausted stays exact
	return false
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
	conv := &p.o.Dataset.Conversations[j.conv]
	correlation := newID()
	bust := p.o.CacheBust.newSession(j.credit.Phase, conv.ID)
	var history []endpoint.Message
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
		if e, ok := p.o.Sender.(SessionEnder); ok {
			e.EndSession(correlation)
		}
	}()
	turns := len(conv.Turns)
	if j.credit.Turns > 0 {
		turns = min(turns, j.credit.Turns) // a user-centric user with a virtual history
	}
	var prevDue time.Duration
	for t := range turns {
		turn := &conv.Turns[t]
		due, scheduled := j.credit.Due, p.o.FixedSchedule
		if t > 0 {
			if j.credit.TurnGap > 0 {
				due, scheduled = timing.UserTurnDue(prevDue, j.credit.TurnGap, p.o.Clock.Now()), false
			} else {
				due, scheduled = p.turnDue(conv, t, j.credit.Due)
			}
			if !p.waitUntil(&timer, due) {
				return
			}
		}
		prevDue = due
		// A first turn was issued before any stop, so only later turns
		// check StopSending.
		if (t > 0 && p.stopped()) || (p.o.Budget != nil && !p.o.Budget.Take()) {
			return
		}
		rec := &record.Record{
			Seq:            j.credit.Seq,
			Phase:          j.credit.Phase,
			PhaseName:      p.o.PhaseName,
			PhaseIndex:     p.o.PhaseIndex,
			ProfilingIndex: p.o.ProfilingIndex,
			ConversationID: conv.ID,
			TurnIndex:      t,
			XRequestID:     newID(),
			XCorrelationID: correlation,
			WorkerID:       workerID,
			URLIndex:       int(j.credit.Seq % uint64(len(p.o.URLs))),
			Model:          turn.Model,
			Due:            due,
			Scheduled:      scheduled,
			InputTexts:     turn.Texts,
			InputTokens:    turn.InputTokens,
			RequestedOSL:   turn.MaxTokens,
		}
		if turn.ResetContext {
			history = history[:0]
		}
		body := p.o.Payloads[j.conv][t]
		sent, err := bust.mark(turn, conv.Context, t == 0)
		if sent == nil {
			sent = turn
		}
		if err == nil && (sent != turn || (len(history) > 0 && turn.RawPayload == nil)) {
			if sent != turn {
				body, err = bust.c.body(sent, history)
				rec.CacheBustMarker, rec.CacheBustTarget = bust.marker, bust.c.Target
			} else {
				body, err = p.bodyWithHistory(turn, history)
			}
			switch {
			case len(history) > 0:
				rec.InputTexts, rec.InputTokens = historyTexts(history, sent), -1
			case sent.Messages == nil:
				rec.InputTexts, rec.InputTokens = inputParts(sent), -1
			}
			rec.RequestBody = body
		}
		if err != nil {
			now := p.o.Clock.Now()
			rec.Sent, rec.End = now, now
			rec.Error = &record.ErrorDetails{Type: "RequestBuildError", Message: err.Error()}
			p.o.Out <- rec
			return
		}
		header := p.o.Header.Clone()
		if header == nil {
			header = http.Header{}
		}
		for _, h := range turn.Headers {
			header.Set(h.Name, h.Value)
		}
		header.Set("X-Request-ID", rec.XRequestID)
		header.Set(p.o.SessionHeader, correlation)
		for _, h := range p.o.AffinityHeaders {
			header.Set(h, correlation)
		}
		wire := body
		if p.o.Multipart {
			var ctype string
			var err error
			if wire, ctype, err = endpoint.Multipart(body); err != nil {
				now := p.o.Clock.Now()
				rec.Sent, rec.End = now, now
				rec.Error = &record.ErrorDetails{Type: "RequestBuildError", Message: err.Error()}
				p.o.Out <- rec
				return
			}
			header.Set("Content-Type", ctype)
		}
		if p.o.KeepRequestHeader {
			rec.RequestHeader = header
		}
		req := &transport.Request{URL: p.o.URLs[rec.URLIndex], Body: wire, Header: header, Session: correlation}
		release, ok := p.prefillSlot(req)
		if !ok {
			return
		}
		if p.o.OnSend != nil {
			p.o.OnSend()
		}
		p.o.Sender.Do(p.ctx, p.o.Clock, req, rec)
		release()
		if p.o.Polling != nil {
			p.pollJob(req, rec)
		}
		rec.Images, rec.AudioSeconds = p.countImages(body), turn.AudioSeconds
		failed := rec.Error != nil
		last := t == turns-1
		if !failed && !last && p.o.Endpoint != nil {
			switch conv.Context {
			case dataset.ContextMessageArray:
				// Every turn is a complete recorded snapshot.
			case dataset.ContextDeltasWithResponses:
				// The recorded deltas hold the assistant messages.
				history = append(history, endpoint.Message{Turn: sent})
			default:
				// Read the reply before handing the record on: it belongs
				// downstream after the send.
				history = append(history,
					endpoint.Message{Turn: sent},
					endpoint.Message{Role: "assistant", Text: p.replyText(rec)})
			}
		}
		p.o.Out <- rec
		if failed {
			return
		}
	}
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
// told to stop sending or cancelled meanwhile.
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
	select {
	case <-(*timer).C:
		return !p.stopped()
	case <-p.stop:
		return false
	case <-p.ctx.Done():
		return false
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
	o := *p.o.EOptions
	o.History = history
	body, err := p.o.Endpoint.AppendPayload(nil, turn, endpoint.WithTurnExtra(&o, turn))
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
