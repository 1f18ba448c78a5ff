package timing

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aiperf-go/aiperf/internal/clock"
	"github.com/aiperf-go/aiperf/internal/record"
)

// DefaultBacklog is the Options.Backlog a benchmark's request-rate phases
// use: 1,024 credits handed out and not yet sent is 0.1 s of backlog at
// 10,000 requests/s, far past any lag worth measuring, and a few tens of
// MB of goroutines and records, where an unbounded queue grew to 19,000
// goroutines and 964 MB (BENCHMARKS.md, "Connection set-up, HTTP trace, the machine's ceiling").
const DefaultBacklog = 1024

// Options configures one phase's Scheduler.
type Options struct {
	// Phase is stamped on every credit.
	Phase record.Phase
	// Arrivals is the schedule. nil selects closed-loop mode (AIPerf's
	// "concurrency_burst"): a credit is issued whenever a slot is free.
	Arrivals Arrivals
	// Concurrency is the most credits outstanding (issued, not yet Done) at
	// once; 0 means unlimited, which needs Arrivals. With ConcurrencySteps
	// it is the limit at the phase start (a ramp's start value).
	Concurrency int
	// ConcurrencySteps changes the limit during the phase (a concurrency
	// ramp): from Start+At on, the limit is Limit. Sorted by At; every
	// Limit must be > 0. A limit that rises frees slots at once (in the
	// closed loop their credits are Due at the step's time); one that
	// falls takes effect as credits finish, never by cancelling any.
	ConcurrencySteps []LimitStep
	// Count stops issuing after this many credits; 0 means no count limit.
	Count int
	// Duration stops issuing this long after Run started: no credit is
	// issued at or after start+Duration. 0 means no time limit.
	Duration time.Duration
	// Sleeper waits for due times; nil means a Coarse sleeper. Run closes
	// it when it implements io.Closer (a Wake's timerfd).
	Sleeper Sleeper
	// Backlog, in rate mode, is the most credits issued and not yet
	// Started (handed to a worker that has not sent their first request):
	// the client-side queue. When it is full the scheduler stops issuing
	// until a credit starts; the credits it holds back keep their Due, so
	// the shortfall shows as schedule lag, counts in Stats.Backlogged, and
	// what is still unissued at the phase's end in Stats.Unsent. It bounds
	// the goroutines and records an overloaded client piles up, so memory
	// stays bounded and the phase ends on time. 0 means no bound (a caller
	// that never calls Started must leave it 0).
	Backlog int
	// Quantum, in rate mode, is the shortest time between two of the
	// scheduler's wake-ups (see wakeAt): credits due within one quantum of
	// the last wake-up are issued together at the next, each with its own
	// Due. 0 wakes for every due time.
	Quantum time.Duration
	// Exhausted, when set, is polled before each credit; once it returns
	// true the run stops with StopCount. It is a stop condition in its own
	// right (a shared request budget that multi-turn conversations spend
	// turn by turn), so Count and Duration may then both be 0. It must not
	// block; it is called on the scheduler goroutine.
	Exhausted func() bool
}

// StopReason says why Run stopped issuing credits.
type StopReason uint8

const (
	// StopCount: Options.Count credits were issued, or Options.Exhausted
	// reported the budget spent.
	StopCount StopReason = iota
	// StopDuration: Options.Duration elapsed.
	StopDuration
	// StopCtx: the context passed to Run was done.
	StopCtx
	// StopExhausted: the Arrivals schedule ended (a Fixed schedule ran out,
	// or a due time would overflow a time.Duration).
	StopExhausted
)

// String returns the reason's lower-case name.
func (r StopReason) String() string {
	switch r {
	case StopCount:
		return "count"
	case StopDuration:
		return "duration"
	case StopCtx:
		return "ctx"
	case StopExhausted:
		return "exhausted"
	}
	return fmt.Sprintf("StopReason(%d)", uint8(r))
}

// Stats describes one Run.
type Stats struct {
	// Issued is how many credits were handed to issue.
	Issued uint64
	// Start and End are run-clock offsets: the phase start all due times
	// count from, and the moment Run stopped issuing. For a duration stop End
	// is at (or just after) Start+Duration.
	Start, End time.Duration
	// Reason is the stop condition that ended the run.
	Reason StopReason
	// MaxOutstanding is the highest number of credits outstanding at once
	// as seen right after an issue.
	MaxOutstanding int
	// Waited counts rate-mode credits whose due time arrived while every
	// concurrency slot was taken, so they were issued late. Closed-loop
	// credits never count: their Due is the moment their slot freed.
	Waited uint64
	// Backlogged counts rate-mode credits held back because Options.Backlog
	// credits were issued and not yet started: the client itself was behind.
	Backlogged uint64
	// Unsent counts the rate-mode credits due before a duration-bound
	// phase's end that were never issued, because the client (or the
	// concurrency cap) was still behind when the phase ended.
	Unsent uint64
}

// Scheduler issues a phase's credits from one goroutine, against absolute
// deadlines measured from one start, with an optional concurrency gate.
//
// Run is called once, on the goroutine that owns the schedule; Done may be
// called from any goroutine, before or after Run returns, and never blocks.
type Scheduler struct {
	o       Options
	sleeper Sleeper
	ran     atomic.Bool

	// notify has capacity 1: Done posts to it without blocking, and the
	// scheduler re-checks the slot count after every wake, so coalesced or
	// stale notifications are harmless.
	notify chan struct{}

	mu          sync.Mutex
	clk         *clock.Clock // set by Run; Done stamps slot-free times with it
	outstanding int          // credits issued and not yet Done
	pending     int          // rate mode with a Backlog: issued, not yet Started
	limit       int          // the current cap on outstanding; 0 = unlimited
	// Closed loop only: the moments the free slots became free, oldest
	// first. Invariant once Run has started: len(freed) + outstanding ==
	// limit, or len(freed) == 0 while a lowered limit is still above
	// outstanding (those Dones then free nothing).
	freed []time.Duration
}

// New validates o and returns a Scheduler for it. Every problem is reported,
// joined into one error: a stop condition is required (Count or Duration),
// negative values are rejected, and closed-loop mode (nil Arrivals) needs
// Concurrency > 0.
func New(o Options) (*Scheduler, error) {
	var errs []error
	if o.Count < 0 {
		errs = append(errs, fmt.Errorf("timing: count must be >= 0, got %d", o.Count))
	}
	if o.Duration < 0 {
		errs = append(errs, fmt.Errorf("timing: duration must be >= 0, got %v", o.Duration))
	}
	if o.Count == 0 && o.Duration == 0 && o.Exhausted == nil {
		errs = append(errs, errors.New("timing: a request count or a duration is required to stop the phase"))
	}
	if o.Concurrency < 0 {
		errs = append(errs, fmt.Errorf("timing: concurrency must be >= 0, got %d", o.Concurrency))
	}
	if o.Arrivals == nil && o.Concurrency <= 0 {
		errs = append(errs, errors.New("timing: closed-loop mode (no arrival schedule) needs concurrency > 0"))
	}
	for i, st := range o.ConcurrencySteps {
		if st.Limit <= 0 {
			errs = append(errs, fmt.Errorf("timing: concurrency step %d sets a limit of %d; it must be > 0", i, st.Limit))
		}
		if o.Concurrency <= 0 {
			errs = append(errs, errors.New("timing: concurrency steps need a starting concurrency > 0"))
			break
		}
		if i > 0 && st.At < o.ConcurrencySteps[i-1].At {
			errs = append(errs, fmt.Errorf("timing: concurrency step %d (%v) is before step %d", i, st.At, i-1))
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	s := &Scheduler{o: o, sleeper: o.Sleeper, notify: make(chan struct{}, 1), limit: o.Concurrency}
	if s.sleeper == nil {
		s.sleeper = &Coarse{}
	}
	return s, nil
}

// Run issues credits until a stop condition holds and returns what it did.
//
// It records the phase start as clk.Now(), then calls issue synchronously,
// on its own goroutine, once per credit, in Seq order with non-decreasing
// Due. issue must not block: it should hand the credit to a worker and
// return. Run does not wait for outstanding credits; the caller drains them
// (with its grace period) and keeps calling Done.
//
// Rate mode (Arrivals set): credit n is due at start + the schedule's n-th
// offset. Run sleeps until then; when it is already late it issues at once
// (catch-up), so lateness never accumulates. If Concurrency slots are all
// taken it waits for a Done, and the credit keeps its scheduled Due.
//
// Closed-loop mode (Arrivals nil): Concurrency credits are issued at start
// with Due = start, then one more each time a Done frees a slot, with Due =
// the moment of that Done.
//
// Run stops when Count credits have been issued, when start+Duration is
// reached (no credit is issued at or after it; Run returns at that moment
// rather than earlier, so the caller's grace period starts on time), when
// ctx is done, or when the schedule is exhausted. Run may be called once.
func (s *Scheduler) Run(ctx context.Context, clk *clock.Clock, issue func(Credit)) Stats {
	if s.ran.Swap(true) {
		panic("timing: Scheduler.Run called twice")
	}
	if c, ok := s.sleeper.(io.Closer); ok {
		defer c.Close()
	}
	l := loop{s: s, ctx: ctx, clk: clk, issue: issue}

	s.mu.Lock()
	s.clk = clk
	l.st.Start = clk.Now()
	if s.o.Arrivals == nil {
		for range s.limit {
			s.freed = append(s.freed, l.st.Start)
		}
	}
	s.mu.Unlock()
	if len(s.o.ConcurrencySteps) > 0 {
		// One timer for the next limit change; waits for a slot also end
		// when it fires.
		l.stepTimer = time.NewTimer(time.Hour)
		defer l.stepTimer.Stop()
		l.armStep()
	}

	if s.o.Duration > 0 {
		l.end = l.st.Start + s.o.Duration
		// One timer, armed once, for the end of the phase: it bounds every
		// wait for a slot. The Sleeper's own timer handles due times.
		l.endTimer = time.NewTimer(s.o.Duration)
		defer l.endTimer.Stop()
	}
	if s.o.Arrivals == nil {
		l.st.Reason = l.closed()
	} else {
		l.st.Reason = l.rate()
	}
	l.st.End = clk.Now()
	return l.st
}

// Done reports that c's work has finished, freeing its concurrency slot.
// Call it exactly once per issued credit, from any goroutine, at any time
// (also after Run has returned); it never blocks. Extra calls are ignored
// once nothing is outstanding. The gate only counts slots, so c is not
// inspected today; it is taken so callers return the credit they were given
// and per-credit gates can be added without changing call sites.
func (s *Scheduler) Done(c Credit) {
	s.mu.Lock()
	if s.outstanding > 0 {
		s.outstanding--
		if s.o.Arrivals == nil && s.outstanding+len(s.freed) < s.limit {
			s.freed = append(s.freed, s.clk.Now())
		}
	}
	s.mu.Unlock()
	s.wake()
}

// Started reports that c's first request is going out (or that its work
// ended without sending any), freeing its place in Options.Backlog. Call
// it at most once per issued credit, from any goroutine; it never blocks.
// It is not needed without a Backlog.
func (s *Scheduler) Started(c Credit) {
	s.mu.Lock()
	if s.pending > 0 {
		s.pending--
	}
	s.mu.Unlock()
	s.wake()
}

// SetConcurrency changes the concurrency limit now, for a controller that
// adjusts load online (adaptive scale). n must be > 0; a scheduler created
// without a limit in rate mode gains one. Raising it frees slots at once
// (closed-loop credits Due now); lowering it takes effect as credits
// finish. Safe from any goroutine, also before Run has started.
func (s *Scheduler) SetConcurrency(n int) {
	if n <= 0 {
		return
	}
	s.mu.Lock()
	if s.clk == nil {
		// Run has not started (a controller goroutine may call first):
		// Run frees the limit's slots at its start.
		s.limit = n
	} else {
		s.setLimit(n, s.clk.Now())
	}
	s.mu.Unlock()
	s.wake()
}

// Concurrency returns the current concurrency limit (0 = unlimited).
func (s *Scheduler) Concurrency() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.limit
}

// setLimit moves the limit to n at run-clock time at; s.mu must be held.
// In the closed loop a rise adds free slots stamped at, and a fall drops
// the newest free slots (the credits they would have released are never
// issued) and leaves the rest to finishing credits.
func (s *Scheduler) setLimit(n int, at time.Duration) {
	s.limit = n
	if s.o.Arrivals != nil {
		return
	}
	for s.outstanding+len(s.freed) < n {
		s.freed = append(s.freed, at)
	}
	if extra := s.outstanding + len(s.freed) - n; extra > 0 {
		s.freed = s.freed[:max(0, len(s.freed)-extra)]
	}
}

// wake tells the loop something changed, without blocking.
func (s *Scheduler) wake() {
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

// loop is the state of one Run, owned by the scheduler goroutine.
type loop struct {
	s        *Scheduler
	ctx      context.Context
	clk      *clock.Clock
	issue    func(Credit)
	end      time.Duration // start+Duration; valid when endTimer != nil
	endTimer *time.Timer   // nil without a duration limit
	// step is the next ConcurrencySteps entry to apply; stepTimer fires at
	// its time (nil without steps).
	step      int
	stepTimer *time.Timer
	// lastWake is when the rate loop last woke from a sleep (wakeAt).
	lastWake time.Duration
	st       Stats
}

// armStep points the step timer at the next limit change, if any.
func (l *loop) armStep() {
	steps := l.s.o.ConcurrencySteps
	if l.step < len(steps) {
		l.stepTimer.Reset(l.clk.Until(l.st.Start + steps[l.step].At))
	}
}

// applySteps applies every limit change that is due, each stamped with
// its own scheduled time, and re-arms the step timer.
func (l *loop) applySteps() {
	steps := l.s.o.ConcurrencySteps
	if l.step >= len(steps) {
		return
	}
	now := l.clk.Now()
	applied := false
	l.s.mu.Lock()
	for l.step < len(steps) && l.st.Start+steps[l.step].At <= now {
		l.s.setLimit(steps[l.step].Limit, l.st.Start+steps[l.step].At)
		l.step++
		applied = true
	}
	l.s.mu.Unlock()
	if applied {
		l.armStep()
	}
}

// stopped reports whether the loop must stop before issuing another
// credit, and why: the count is reached or the dataset is exhausted
// (StopCount), or ctx is done (StopCtx).
func (l *loop) stopped() (StopReason, bool) {
	o := &l.s.o
	if (o.Count > 0 && l.st.Issued >= uint64(o.Count)) || (o.Exhausted != nil && o.Exhausted()) {
		return StopCount, true
	}
	if l.ctx.Err() != nil {
		return StopCtx, true
	}
	return 0, false
}

// rate runs the open-loop schedule and returns why it stopped.
func (l *loop) rate() StopReason {
	o := &l.s.o
	for {
		if r, stop := l.stopped(); stop {
			return r
		}
		off, ok := o.Arrivals.Next()
		if !ok {
			return StopExhausted
		}
		due := l.st.Start + off
		if l.endTimer != nil && due >= l.end {
			// The next credit falls outside the phase: wait out the phase.
			if l.s.sleeper.SleepUntil(l.ctx, l.clk, l.end) != nil {
				return StopCtx
			}
			return StopDuration
		}
		wake, slept := due, due > l.clk.Now()
		if slept {
			wake = wakeAt(due, l.lastWake, o.Quantum)
			if l.endTimer != nil && wake >= l.end {
				wake = due // a batch must not spill past the phase's end
			}
		}
		// A past due time returns at once (catch-up).
		if l.s.sleeper.SleepUntil(l.ctx, l.clk, wake) != nil {
			return StopCtx
		}
		if slept {
			l.lastWake = l.clk.Now()
		}
		if l.s.limited() {
			waited := false
			for l.applySteps(); !l.s.slotFree(); l.applySteps() {
				waited = true
				if r, stop := l.waitForSlot(); stop {
					l.countUnsent(r, due)
					return r
				}
			}
			if waited {
				l.st.Waited++
			}
		}
		if o.Backlog > 0 && !l.s.backlogFree() {
			l.st.Backlogged++
			for !l.s.backlogFree() {
				if r, stop := l.waitForSlot(); stop {
					l.countUnsent(r, due)
					return r
				}
			}
		}
		if l.endTimer != nil && l.clk.Now() >= l.end {
			l.countUnsent(StopDuration, due)
			return StopDuration
		}
		l.send(due)
	}
}

// closed runs the closed loop and returns why it stopped.
func (l *loop) closed() StopReason {
	for {
		if r, stop := l.stopped(); stop {
			return r
		}
		if l.endTimer != nil && l.clk.Now() >= l.end {
			return StopDuration
		}
		l.applySteps()
		due, ok := l.s.takeFreed()
		if !ok {
			if r, stop := l.waitForSlot(); stop {
				return r
			}
			continue
		}
		l.send(due)
	}
}

// send issues the next credit; the caller has reserved its slot or there is
// no limit.
func (l *loop) send(due time.Duration) {
	s := l.s
	s.mu.Lock()
	if s.o.Arrivals != nil {
		// Closed-loop slots are reserved by takeFreed.
		s.outstanding++
		if s.o.Backlog > 0 {
			s.pending++
		}
	}
	n := s.outstanding
	s.mu.Unlock()
	l.st.MaxOutstanding = max(l.st.MaxOutstanding, n)
	c := Credit{Seq: l.st.Issued, Phase: s.o.Phase, Due: due}
	if sh, ok := s.o.Arrivals.(sessionShaper); ok {
		c.Turns, c.TurnGap = sh.shape()
	}
	l.issue(c)
	l.st.Issued++
}

// waitForSlot blocks until a Done arrives, the phase ends or ctx is done.
// stop is true when the run must end, with the reason.
func (l *loop) waitForSlot() (r StopReason, stop bool) {
	var endC, stepC <-chan time.Time
	if l.endTimer != nil {
		endC = l.endTimer.C
	}
	if l.stepTimer != nil && l.step < len(l.s.o.ConcurrencySteps) {
		stepC = l.stepTimer.C
	}
	select {
	case <-l.s.notify:
		return 0, false
	case <-stepC:
		return 0, false // applySteps picks the change up
	case <-l.ctx.Done():
		return StopCtx, true
	case <-endC:
		return StopDuration, true
	}
}

// countUnsent counts, when a duration-bound rate phase stops, the credit
// due at due that was not issued and every later one of the schedule that
// was also due before the phase's end (Stats.Unsent).
func (l *loop) countUnsent(r StopReason, due time.Duration) {
	if r != StopDuration || l.endTimer == nil || due >= l.end {
		return
	}
	l.st.Unsent++
	// The schedule is pure arithmetic (or a finite list): draining it costs
	// no waiting.
	for {
		off, ok := l.s.o.Arrivals.Next()
		if !ok || l.st.Start+off >= l.end {
			return
		}
		l.st.Unsent++
	}
}

// backlogFree reports whether a rate-mode credit may be issued under
// Options.Backlog.
func (s *Scheduler) backlogFree() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pending < s.o.Backlog
}

// limited reports whether rate-mode credits need a slot: a limit was set
// at the start, or by SetConcurrency since.
func (s *Scheduler) limited() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.limit > 0
}

// slotFree reports whether a rate-mode credit can take a slot now.
func (s *Scheduler) slotFree() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.limit <= 0 || s.outstanding < s.limit
}

// takeFreed reserves a closed-loop slot, returning when it became free.
func (s *Scheduler) takeFreed() (time.Duration, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.freed) == 0 {
		return 0, false
	}
	t := s.freed[0]
	s.freed = s.freed[1:]
	s.outstanding++
	return t, true
}
