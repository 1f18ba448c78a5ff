package mockserver

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Batched scheduler ("--batch-slots N"): instead of giving every request its
// own TTFT + i*ITL clock, the server runs one continuous-batching engine, as
// vLLM, SGLang and TensorRT-LLM do, so that load has a capacity knee a
// benchmark can find.
//
// The engine works in iterations ("steps"). At the start of a step it admits
// waiting requests, oldest first, into free batch slots (at most Slots run at
// once; the rest queue); then the step runs for
//
//	step(b, p) = StepMs + StepPerSeqMs*b + PrefillPerTokenMs*p
//
// where b is the number of sequences in the batch (running plus admitted)
// and p the prompt tokens of the requests admitted in this step (their
// prefill shares the step with everyone's decode, as chunked prefill does).
// When the step ends every sequence in the batch emits one token: an
// admitted request its first (so TTFT = queueing + the rest of the step in
// progress + its admission step), a running one its next; a sequence that
// has emitted its output length leaves the batch and frees its slot for the
// next step. An idle engine starts a step the moment a request arrives.
//
// Where the knee is (closed loop, concurrency C, prompt I tokens, output O
// tokens, d(b) = StepMs + StepPerSeqMs*b):
//
//   - C <= Slots: nobody queues. TTFT is at most one step in progress plus
//     the admission step, about 2*d(C) + PrefillPerTokenMs*I, and ITL is
//     d(C) (a little more in steps that admit someone).
//   - C > Slots: C - Slots requests always wait for a slot, which frees only
//     when a running request finishes, so they add up to a whole service
//     time, O*d(Slots), to TTFT. The p95 TTFT jumps from ~2*d(Slots) to the
//     order of O*d(Slots) as soon as more than 5% of requests queue, which at
//     C = Slots+1 is 1/(Slots+1): for Slots <= 18 the p95-TTFT knee is
//     exactly Slots.
//   - Throughput rises as C/(O*d(C)) up to C = Slots and stays at
//     Slots/(O*d(Slots)) requests/s beyond it; an ITL SLA "ITL <= L" holds up
//     to C = floor((L - StepMs)/StepPerSeqMs), capped at Slots.
//
// docs/load-shapes.md works an example through.

// BatchConfig shapes the batched scheduler. Slots == 0 disables it; the
// latency coefficients are milliseconds, like the other model options.
type BatchConfig struct {
	// Slots is the number of sequences decoded at once (--batch-slots).
	Slots int
	// StepMs is the base duration of one engine step (--batch-step-ms).
	StepMs float64
	// StepPerSeqMs is added to a step per sequence in the batch
	// (--batch-step-per-seq-ms): decode slows as the batch grows.
	StepPerSeqMs float64
	// PrefillPerTokenMs is added to a step per prompt token of the requests
	// admitted in it (--batch-prefill-per-token-ms).
	PrefillPerTokenMs float64
}

// Default batch model: a step of 4 ms plus 1 ms per sequence, 0.01 ms per
// prompt token admitted. With 8 slots and 64-token outputs a full batch
// decodes at 12 ms per token.
const (
	DefaultBatchStepMs            = 4.0
	DefaultBatchStepPerSeqMs      = 1.0
	DefaultBatchPrefillPerTokenMs = 0.01
)

// stepDuration is the length of a step with b sequences in the batch and
// prefill prompt tokens admitted in it.
func (c *BatchConfig) stepDuration(b, prefill int) time.Duration {
	return millisDuration(c.StepMs + c.StepPerSeqMs*float64(b) + c.PrefillPerTokenMs*float64(prefill))
}

// registerBatchFlags binds the --batch-* options.
func (c *Config) registerBatchFlags(fs *flag.FlagSet) {
	b := &c.Batch
	fs.IntVar(&b.Slots, "batch-slots", b.Slots,
		"run a continuous-batching engine with this many batch slots (0 = off: every request gets its own TTFT/ITL clock); requests beyond the slots queue")
	fs.Float64Var(&b.StepMs, "batch-step-ms", b.StepMs, "batched scheduler: base duration of one engine step in milliseconds")
	fs.Float64Var(&b.StepPerSeqMs, "batch-step-per-seq-ms", b.StepPerSeqMs,
		"batched scheduler: extra step time in milliseconds per sequence in the batch")
	fs.Float64Var(&b.PrefillPerTokenMs, "batch-prefill-per-token-ms", b.PrefillPerTokenMs,
		"batched scheduler: extra step time in milliseconds per prompt token admitted in the step")
}

// validate reports the batch options' problems.
func (c *BatchConfig) validate() []error {
	var errs []error
	if c.Slots < 0 {
		errs = append(errs, fmt.Errorf("batch-slots: must be >= 0, got %d", c.Slots))
	}
	errs = append(errs, finiteNonNegative([]namedValue{
		{"batch-step-ms", c.StepMs},
		{"batch-step-per-seq-ms", c.StepPerSeqMs},
		{"batch-prefill-per-token-ms", c.PrefillPerTokenMs},
	})...)
	if c.Slots > 0 && c.StepMs+c.StepPerSeqMs <= 0 {
		errs = append(errs, errors.New("batch-step-ms: a batched scheduler needs steps that take time (batch-step-ms + batch-step-per-seq-ms > 0)"))
	}
	return errs
}

// batchSeq is one request inside the engine. The engine sends one value on
// tokens per emitted token (the channel holds the whole output, so the
// engine never blocks); the handler closes gone when it stops listening.
type batchSeq struct {
	isl    int
	left   int // tokens still to emit; owned by the engine
	tokens chan struct{}
	gone   chan struct{}
}

// await blocks until the sequence's next token, the request's context ends
// or the server closes.
func (q *batchSeq) await(ctx context.Context, done <-chan struct{}) error {
	select {
	case <-q.tokens:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-done:
		return errStopped
	}
}

// leave tells the engine the handler is gone; idempotent via the caller's
// single defer.
func (q *batchSeq) leave() { close(q.gone) }

// batchCore is the engine's state machine, free of clocks and goroutines so
// that its steps can be table-tested: begin admits and prices a step, end
// emits its tokens.
type batchCore struct {
	cfg     *BatchConfig
	waiting []*batchSeq // FIFO
	running []*batchSeq // admission order
}

// begin drops sequences whose handler left, admits waiting sequences into
// free slots, and returns the step's duration; ok is false when nothing is
// left to run.
func (c *batchCore) begin() (d time.Duration, ok bool) {
	c.waiting = dropGone(c.waiting)
	c.running = dropGone(c.running)
	prefill := 0
	for len(c.waiting) > 0 && len(c.running) < c.cfg.Slots {
		q := c.waiting[0]
		c.waiting[0] = nil
		c.waiting = c.waiting[1:]
		c.running = append(c.running, q)
		prefill += q.isl
	}
	if len(c.running) == 0 {
		return 0, false
	}
	return c.cfg.stepDuration(len(c.running), prefill), true
}

// end emits one token to every sequence in the batch and retires those
// that are complete.
func (c *batchCore) end() {
	kept := c.running[:0]
	for _, q := range c.running {
		q.tokens <- struct{}{}
		q.left--
		if q.left > 0 {
			kept = append(kept, q)
		}
	}
	clear(c.running[len(kept):])
	c.running = kept
}

// dropGone removes sequences whose handler has returned.
func dropGone(qs []*batchSeq) []*batchSeq {
	kept := qs[:0]
	for _, q := range qs {
		select {
		case <-q.gone:
		default:
			kept = append(kept, q)
		}
	}
	clear(qs[len(kept):])
	return kept
}

// batchEngine runs a batchCore on its own goroutine while there is work:
// the goroutine starts with the first request and exits when the engine is
// idle, so a Server needs no Close for it.
type batchEngine struct {
	done <-chan struct{} // server shutdown

	mu       sync.Mutex
	core     batchCore // waiting is shared with submit under mu; running is the loop's
	looping  bool
	running  atomic.Int64 // sequences in the batch, for /health
	queued   atomic.Int64 // sequences waiting for a slot, for /health
	maxBatch atomic.Int64 // the largest batch so far
}

// newBatchEngine returns an idle engine for cfg.
func newBatchEngine(cfg *BatchConfig, done <-chan struct{}) *batchEngine {
	return &batchEngine{done: done, core: batchCore{cfg: cfg}}
}

// submit queues a request of isl prompt tokens and osl (> 0) output tokens
// and returns its sequence. The caller must call leave when done with it.
func (e *batchEngine) submit(isl, osl int) *batchSeq {
	q := &batchSeq{isl: isl, left: osl, tokens: make(chan struct{}, osl), gone: make(chan struct{})}
	e.mu.Lock()
	e.core.waiting = append(e.core.waiting, q)
	e.queued.Store(int64(len(e.core.waiting)))
	if !e.looping {
		e.looping = true
		go e.loop(time.Now())
	}
	e.mu.Unlock()
	return q
}

// loop runs steps back to back from start, each ending at an absolute
// deadline (a late wake-up does not stretch the next step), until the
// engine is idle or the server closes.
func (e *batchEngine) loop(start time.Time) {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		e.mu.Lock()
		d, ok := e.core.begin()
		e.queued.Store(int64(len(e.core.waiting)))
		if !ok {
			e.looping = false
			e.running.Store(0)
			e.mu.Unlock()
			return
		}
		b := int64(len(e.core.running))
		e.mu.Unlock()
		e.running.Store(b)
		if b > e.maxBatch.Load() {
			e.maxBatch.Store(b)
		}

		end := start.Add(d)
		timer.Reset(time.Until(end))
		select {
		case <-timer.C:
		case <-e.done:
			e.mu.Lock()
			e.looping = false
			e.mu.Unlock()
			return
		}
		e.core.end() // running is only touched by this goroutine
		start = end
		if late := time.Since(end); late > d {
			// A stall longer than a step (a descheduled process): re-anchor
			// rather than run the missed steps back to back.
			start = time.Now()
		}
	}
}

// batchView is the engine's state in /health.
type batchView struct {
	Slots    int   `json:"slots"`
	Running  int64 `json:"running"`
	Queued   int64 `json:"queued"`
	MaxBatch int64 `json:"max_batch"`
}

// view returns the engine's live counters.
func (e *batchEngine) view() *batchView {
	if e == nil {
		return nil
	}
	return &batchView{Slots: e.core.cfg.Slots, Running: e.running.Load(), Queued: e.queued.Load(), MaxBatch: e.maxBatch.Load()}
}
