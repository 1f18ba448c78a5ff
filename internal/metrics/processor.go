package metrics

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aiperf-go/aiperf/internal/clock"
	"github.com/aiperf-go/aiperf/internal/metrics/stats"
	"github.com/aiperf-go/aiperf/internal/record"
	"github.com/aiperf-go/aiperf/internal/tokenizer"
)

// Parser turns one response chunk's data into text, reasoning, usage and
// in-band errors. Endpoints implement it; it is defined here, where it is
// consumed. Implementations must be safe for concurrent use.
type Parser interface {
	ParseResponse(data []byte) (record.Parsed, error)
}

// StreamParser is implemented by parsers whose reading of a chunk depends
// on the chunks before it in the same response (endpoint.Streamer): each
// record is parsed with a fresh NewStream, in chunk order.
type StreamParser interface {
	NewStream() record.ChunkParser
}

// StreamEndReporter is a parser whose Parsed.Done and Parsed.Finished tell
// how a stream ended (OpenAI's [DONE] and finish_reason). Only its streams
// are judged complete or not (Record.StreamIncomplete); APIs that end a
// stream otherwise are not flagged.
type StreamEndReporter interface {
	ReportsStreamEnd() bool
}

// ProcessorOptions configure a Processor.
type ProcessorOptions struct {
	// ID is the processor's identity, exported as record_processor_id.
	ID string
	// Parser parses response chunks. Required.
	Parser Parser
	// Tokenizer counts client-side tokens. Without one (and without
	// UseServerTokenCount), token counts are unknown except for a record's
	// own InputTokens.
	Tokenizer tokenizer.Tokenizer
	// UseServerTokenCount takes ISL, output and reasoning counts from the
	// server's usage instead of the tokenizer (--use-server-token-count).
	UseServerTokenCount bool
	// StrictStreams fails a streamed response that ended without [DONE]
	// and without a finish_reason (--strict-streams); without it the
	// record stays good and is only flagged Record.StreamIncomplete.
	StrictStreams bool
	// NonTextOutputTokens counts an answer without text (embeddings,
	// rankings, images) as an output of 0 tokens, as AIPerf does, so that
	// an endpoint that produces tokens (template, raw) reports OSL 0 for
	// it rather than none. Off for endpoints that produce no tokens, whose
	// output length is not one of their metrics.
	NonTextOutputTokens bool
	// Metrics are the metrics to compute, normally Registry.Select's result.
	// Only record and aggregate metrics are computed per record.
	Metrics []*Metric
	// Clock converts offsets to the wall-clock timestamps of
	// min_request_timestamp, max_response_timestamp and Processed.StartNs.
	// Without one, those hold run offsets.
	Clock *clock.Clock
	// SLOs are goodput thresholds in display units, by tag (config.ParseGoodput, checked with ValidateSLOs).
	SLOs map[string]float64
	// Thresholds for the discrepancy counters; nil means DefaultThresholds.
	Thresholds *Thresholds
	// Logger receives warnings about values that could not be computed from
	// inconsistent inputs (AIPerf logs the same). Optional.
	Logger *slog.Logger
	// KeepText keeps each valid record's generated text in
	// Processed.OutputText (--export-outputs-json needs it).
	KeepText bool
	// Misfit, when set, explains a response the Parser found no content
	// in or could not decode: what it looks like and which other endpoint
	// type reads it ("did you mean --endpoint-type chat?"), "" when none
	// does. It is appended to the record's error message.
	Misfit func(chunks []record.Chunk) string
}

// Processor turns records into per-record metric values: it parses every
// chunk, decides validity, counts tokens and computes the selected record
// and aggregate metrics in dependency order. It keeps no state between
// records (its scratch pool only recycles buffers) and is immutable after
// NewProcessor, so it is safe for concurrent use given a concurrency-safe
// Parser and Tokenizer; the pipeline still runs
// one per goroutine, each with its own ID, as AIPerf runs one per record
// processor service.
type Processor struct {
	reg      *Registry
	opts     ProcessorOptions
	th       Thresholds
	slos     []slo
	valid    []*Metric // for valid records: neither ERROR_ONLY nor derived
	failed   []*Metric // for failed records: ERROR_ONLY or EveryRecord
	nMetrics int
	// toDisplay[i] is metric i's factor from base to display unit, and
	// deps[i] the indices of its scalar Requires: resolved once here, so
	// computing a record's metrics looks up no unit or tag by name.
	toDisplay []float64
	deps      [][]int
	// scratch recycles the per-record working state (recordContext and
	// its value table) between Process calls; nothing of it outlives one.
	scratch sync.Pool
	// free holds Values arrays given back by Processed.Release, for the
	// next records' values (a channel: Release runs on the consumer,
	// Process on the processors).
	free chan []Value
}

// freeValues is how many released Values arrays a Processor keeps: more
// than the records between the processors and the consumer at any moment
// in steady state; beyond it released arrays are dropped.
const freeValues = 256

// NewProcessor checks opts against reg: a Parser is required, every metric
// must belong to reg and have its Requires among opts.Metrics, and every SLO
// must name a selected metric. All problems are reported together.
func NewProcessor(reg *Registry, opts ProcessorOptions) (*Processor, error) {
	var errs []error
	if opts.Parser == nil {
		errs = append(errs, errors.New("metrics processor: a Parser is required"))
	}
	selected := make([]bool, len(reg.metrics))
	for _, m := range opts.Metrics {
		if !reg.owns(m) {
			errs = append(errs, fmt.Errorf("metrics processor: metric %q is not from this registry", m.Tag))
			continue
		}
		selected[m.idx] = true
	}
	for _, m := range opts.Metrics {
		for _, dep := range m.Requires {
			if d, ok := reg.byTag[dep]; ok && !selected[d.idx] {
				errs = append(errs, fmt.Errorf("metrics processor: metric %q requires %q, which is not selected", m.Tag, dep))
			}
		}
	}
	if err := ValidateSLOs(opts.SLOs, opts.Metrics); err != nil {
		errs = append(errs, err)
	}
	slos, err := compileSLOs(reg, opts.SLOs)
	if err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	th := DefaultThresholds()
	if opts.Thresholds != nil {
		th = *opts.Thresholds
	}
	p := &Processor{reg: reg, opts: opts, th: th, slos: slos, nMetrics: len(reg.metrics),
		toDisplay: make([]float64, len(reg.metrics)), deps: make([][]int, len(reg.metrics)),
		free: make(chan []Value, freeValues)}
	p.scratch.New = func() any { return new(recordContext) }
	for _, m := range opts.Metrics {
		f, _ := scale(m.Unit, m.displayUnit()) // what ToDisplay multiplies by
		p.toDisplay[m.idx] = f
		for _, dep := range m.Requires {
			if d := reg.byTag[dep]; d != nil && !d.List { // list metrics are never dependencies
				p.deps[m.idx] = append(p.deps[m.idx], d.idx)
			}
		}
	}
	// Registry order is dependency order. good_request_count depends on the
	// SLO metrics, which only the run knows, so it goes last.
	ordered := slices.Clone(opts.Metrics)
	slices.SortStableFunc(ordered, func(a, b *Metric) int {
		if c := cmpBool(isGoodCount(a), isGoodCount(b)); c != 0 {
			return c
		}
		return a.idx - b.idx
	})
	for _, m := range ordered {
		if m.Kind == KindDerived || m.Kind == KindSweep {
			continue
		}
		if m.EveryRecord || !m.Flags.Has(FlagErrorOnly) {
			p.valid = append(p.valid, m)
		}
		if m.EveryRecord || m.Flags.Has(FlagErrorOnly) {
			p.failed = append(p.failed, m)
		}
	}
	return p, nil
}

func isGoodCount(m *Metric) bool { return m.Tag == tagGoodRequestCount }

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// Process computes rec's metrics. It may set rec.Error: a chunk the Parser
// rejects (JSONDecodeError), an in-band error object or SSE "error" event,
// and a response without any content or with End <= Sent
// (InvalidInferenceResultError, as AIPerf) all turn the record into a failed
// one. Failed records get only ERROR_ONLY metrics and the EveryRecord ones.
// Every value in the result is finite and in display units.
func (p *Processor) Process(rec *record.Record) Processed {
	c := p.newContext(rec)
	defer p.scratch.Put(c)
	out := Processed{
		Record:      rec,
		ProcessorID: p.opts.ID,
		StartNs:     c.startNs,
		EndNs:       p.wallNanos(rec.End),
		free:        p.free,
	}
	text, reasoning := &c.text, &c.reasoning
	if rec.Error == nil {
		record.ReadLlamaTimings(rec) // the server's own timings, when it is llama.cpp
		record.ReadSpecDecode(rec)   // speculative-decoding acceptance, when the server reports it
		rec.Error = p.parse(c, text, reasoning)
	}
	if rec.Error == nil && rec.Streaming && !c.done && !c.finished && reportsStreamEnd(p.opts.Parser) {
		rec.StreamIncomplete = true
		if p.opts.StrictStreams {
			rec.Error = &record.ErrorDetails{Type: TypeStreamIncomplete, Message: msgStreamIncomplete}
		}
	}
	if rec.Error == nil {
		rec.Error = invalidResult(c)
	}
	p.explainMisfit(rec)
	out.Valid = rec.Error == nil
	if out.Valid {
		out.firstContent, out.lastContent = c.content[0].at, c.content[len(c.content)-1].at
		if p.opts.KeepText {
			out.OutputText = text.String()
			text.keep(out.OutputText)
		}
	}
	c.tokens = p.countTokens(c, out.Valid, text, reasoning)

	metrics := p.failed
	if out.Valid {
		metrics = p.valid
	}
	// Values are gathered in the recycled buffer and copied out at their
	// count: a record has values for about half its selected metrics.
	vals := c.gathered[:0]
	for _, m := range metrics {
		if v, ok := p.compute(c, m); ok {
			vals = append(vals, v)
		}
	}
	c.gathered = vals
	out.Values = p.valuesArray(len(vals))
	copy(out.Values, vals)
	for i := range vals { // the buffer keeps no list alive between records
		vals[i].List = nil
	}
	return out
}

// valuesArray returns an array for n values: a released one when one
// that is large enough is free, else a new one.
func (p *Processor) valuesArray(n int) []Value {
	select {
	case vals := <-p.free:
		if cap(vals) >= n {
			return vals[:n]
		}
	default:
	}
	return make([]Value, n)
}

// newContext returns a cleared recordContext for rec, recycled from an
// earlier record when one is free.
func (p *Processor) newContext(rec *record.Record) *recordContext {
	c := p.scratch.Get().(*recordContext)
	vals, has, content := c.vals, c.has, c.content[:0]
	if len(vals) != p.nMetrics {
		vals, has = make([]float64, p.nMetrics), make([]bool, p.nMetrics)
	} else {
		clear(has) // a value is read only where has says it was set
	}
	text, reasoning, gathered := c.text, c.reasoning, c.gathered
	text.reset()
	reasoning.reset()
	*c = recordContext{
		reg:        p.reg,
		rec:        rec,
		content:    content,
		startNs:    p.wallNanos(rec.Sent),
		slos:       p.slos,
		thresholds: p.th,
		log:        p.opts.Logger,
		vals:       vals,
		has:        has,
		text:       text,
		reasoning:  reasoning,
		gathered:   gathered,
	}
	return c
}

// compute evaluates one metric, records its base value for dependents and
// returns it in display units (the value times its factor, as
// Metric.ToDisplay). Non-finite results count as no value.
func (p *Processor) compute(c *recordContext, m *Metric) (Value, bool) {
	// AIPerf's required-metrics check: a missing scalar dependency means no
	// value. (List metrics are never dependencies.)
	for _, d := range p.deps[m.idx] {
		if !c.has[d] {
			return Value{}, false
		}
	}
	f := p.toDisplay[m.idx]
	if m.List {
		vs, ok := m.list(c)
		if !ok {
			return Value{}, false
		}
		disp := make([]float64, len(vs))
		for i, v := range vs {
			disp[i] = v * f
			if !stats.Finite(disp[i]) {
				return Value{}, false
			}
		}
		return Value{Metric: m, List: disp}, true
	}
	v, ok := m.record(c)
	if !ok || !stats.Finite(v) {
		return Value{}, false
	}
	d := v * f
	if !stats.Finite(d) {
		return Value{}, false
	}
	c.vals[m.idx], c.has[m.idx] = v, true
	return Value{Metric: m, Scalar: d}, true
}

func (p *Processor) wallNanos(offset time.Duration) int64 {
	if p.opts.Clock == nil {
		return int64(offset)
	}
	return p.opts.Clock.WallNanos(offset)
}

// parse reads every chunk. It returns the error that makes the record a
// failed one, or nil. Chunks with no data (SSE comments, keep-alives) carry
// nothing to parse and are skipped, as AIPerf skips empty bodies.
func (p *Processor) parse(c *recordContext, text, reasoning *textJoin) *record.ErrorDetails {
	var parser record.ChunkParser = p.opts.Parser
	if s, ok := parser.(StreamParser); ok {
		parser = s.NewStream()
	}
	for i := range c.rec.Chunks {
		ch := &c.rec.Chunks[i]
		if len(bytes.TrimSpace(ch.Data)) == 0 {
			continue
		}
		parsed, err := parser.ParseResponse(ch.Data)
		c.done = c.done || parsed.Done
		c.finished = c.finished || parsed.Finished
		if parsed.Error != nil {
			e := *parsed.Error
			return &e
		}
		if strings.EqualFold(ch.Event, "error") {
			// AIPerf raises SSEResponseError with code 502 for these.
			return &record.ErrorDetails{Code: sseErrorCode, Type: record.TypeServerReported,
				Message: "Error occurred in SSE response: " + string(ch.Data)}
		}
		if err != nil {
			msg := err.Error()
			if ct := c.rec.ContentType; !c.rec.Streaming && ct != "" && !strings.Contains(strings.ToLower(ct), "json") {
				// Name what came instead: a streamed request answered
				// with a text/html error page reads as broken JSON.
				msg += " (the response's Content-Type is " + ct + ", not application/json or text/event-stream)"
			}
			return &record.ErrorDetails{Type: record.TypeJSON, Message: msg}
		}
		if parsed.HasContent() {
			c.content = append(c.content, content{at: ch.At, output: parsed.Text != ""})
			c.outputSeen = c.outputSeen || parsed.Text != "" || parsed.Output && p.opts.NonTextOutputTokens
			text.add(parsed.Text)
			reasoning.add(parsed.Reasoning)
		}
		if parsed.Usage != nil && !parsed.Usage.Empty() {
			c.usage = parsed.Usage
		}
		if v := parsed.Video; v != nil {
			if !c.video.InferenceSeconds.OK {
				c.video.InferenceSeconds = v.InferenceSeconds
			}
			if !c.video.PeakMemoryMB.OK {
				c.video.PeakMemoryMB = v.PeakMemoryMB
			}
		}
	}
	return nil
}

func reportsStreamEnd(parser record.ChunkParser) bool {
	r, ok := parser.(StreamEndReporter)
	return ok && r.ReportsStreamEnd()
}

// TypeStreamIncomplete and msgStreamIncomplete are the error of an
// incomplete stream under StrictStreams.
const (
	TypeStreamIncomplete = "StreamIncompleteError"
	msgStreamIncomplete  = "the stream ended without [DONE] and without a finish_reason (cut short?)"
)

// sseErrorCode is the status AIPerf gives an SSE "error" event.
const sseErrorCode = 502

// AIPerf's messages for a response that parsed but is unusable; the type is
// the exception class and the message its repr.
const (
	msgNoContent = "InvalidInferenceResultError('Invalid inference result: No responses with actual content " +
		"were received from the server (only usage/metadata, null/empty data, or [DONE] markers)')"
	msgBadTiming = "InvalidInferenceResultError('Invalid inference result: ')"
)

// explainMisfit appends the Misfit hint to the error of a record whose
// responses the Parser could not use: undecodable (JSONDecodeError) or
// without content. Server-reported errors are the server's word and keep
// it.
func (p *Processor) explainMisfit(rec *record.Record) {
	e := rec.Error
	if p.opts.Misfit == nil || e == nil || len(rec.Chunks) == 0 {
		return
	}
	if e.Type != record.TypeJSON && e.Message != msgNoContent {
		return
	}
	if hint := p.opts.Misfit(rec.Chunks); hint != "" {
		c := *e
		c.Message += "; " + hint
		rec.Error = &c
	}
}

// invalidResult applies AIPerf's validity rule to a record without an error:
// at least one content response and Sent < End.
func invalidResult(c *recordContext) *record.ErrorDetails {
	switch {
	case len(c.content) == 0:
		return &record.ErrorDetails{Type: record.TypeInvalidResult, Message: msgNoContent}
	case c.rec.Sent >= c.rec.End:
		return &record.ErrorDetails{Type: record.TypeInvalidResult, Message: msgBadTiming}
	}
	return nil
}

// countTokens implements AIPerf's token accounting. Server mode reads the
// last usage (ISL = prompt, reasoning = reasoning, output = completion -
// reasoning clamped at 0) for valid records and counts nothing for failed
// ones. Client mode uses the record's known input count or tokenizes
// " ".join(InputTexts), and, for valid records, tokenizes the concatenated
// output and reasoning texts; a kind of text that never appeared has no
// count, except that with NonTextOutputTokens a non-text answer counts as
// an output of 0 tokens, as in AIPerf.
func (p *Processor) countTokens(c *recordContext, valid bool, text, reasoning *textJoin) tokenCounts {
	var t tokenCounts
	if p.opts.UseServerTokenCount {
		if !valid || c.usage == nil {
			return t
		}
		u := c.usage
		t.input = count{u.PromptTokens.N, u.PromptTokens.OK}
		t.reasoning = count{u.ReasoningTokens.N, u.ReasoningTokens.OK}
		if u.CompletionTokens.OK {
			out := u.CompletionTokens.N - t.reasoning.n
			if out < 0 {
				if c.log != nil {
					c.log.Warn("server reported inconsistent token counts; clamping output tokens to 0",
						"completion_tokens", u.CompletionTokens.N, "reasoning_tokens", t.reasoning.n)
				}
				out = 0
			}
			t.output = count{out, true}
		}
		return t
	}
	tok := p.opts.Tokenizer
	switch {
	case c.rec.InputTokens >= 0:
		t.input = count{int64(c.rec.InputTokens), true}
	case tok != nil && len(c.rec.InputTexts) > 0:
		t.input = count{int64(tok.Count(strings.Join(c.rec.InputTexts, " "))), true}
	}
	if !valid || tok == nil {
		return t
	}
	if c.outputSeen {
		t.output = count{int64(tok.Count(text.String())), true}
	}
	if r := reasoning.String(); r != "" {
		t.reasoning = count{int64(tok.Count(r)), true}
	}
	return t
}
