package cluster

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/aiperf-go/aiperf/internal/cluster/clusterpb"
	"github.com/aiperf-go/aiperf/internal/record"
	"github.com/aiperf-go/aiperf/internal/timing"
	"github.com/aiperf-go/aiperf/internal/worker"
)

// TypeWorkerLost is the error type of a request that was in flight on a
// load worker when the controller lost it (the process died, its pod was
// evicted, its machine vanished).
const TypeWorkerLost = "WorkerLostError"

// ErrNoWorkers is the cause NoWorkers reports when every worker of a
// phase is lost.
var ErrNoWorkers = errors.New("every load worker was lost")

// PhaseOptions are one phase's callbacks and identity: what a local
// worker.Pool would be given, for a pool that spans the workers.
type PhaseOptions struct {
	Phase          record.Phase
	Name           string
	Index          int
	ProfilingIndex int
	Named          bool
	// Fixed: the phase replays a fixed schedule (see worker.Options).
	Fixed bool
	// Prefill is --prefill-concurrency for the whole run; each worker
	// enforces its share (0 = none).
	Prefill int

	// Pick chooses each credit's conversation, on the controller, so the
	// dataset is sampled exactly as in one process.
	Pick func() int
	// Turns is the number of turns of a conversation; needed with Budget.
	Turns func(conv int) int
	// Budget, when set, bounds the requests (turns) of the phase. The
	// controller reserves each conversation's turns from it before the
	// credit goes out and gives back what was not sent.
	Budget *worker.Budget
	// Out receives every record: the workers' own, and one error record
	// (TypeWorkerLost) per request in flight on a worker that was lost.
	Out chan<- *record.Record
	// Done returns a credit once its conversation is over.
	Done func(timing.Credit)
	// OnSend is called as each request is reported sent (with its
	// identity, Due and Sent).
	OnSend func(*record.Record)
	// Describe fills a lost request's record with what its conversation
	// says (conversation id, model, prompt, requested output); optional.
	Describe func(rec *record.Record, conv int)
	// NoWorkers is called once, from any goroutine, when no worker is left
	// to send the phase's credits (the cause wraps ErrNoWorkers).
	NoWorkers func(cause error)
}

// Phase spreads one benchmark phase over the workers. It has the methods
// of a worker.Pool the phase runner uses: Dispatch hands each credit to the
// worker with the fewest credits outstanding (round robin among equals),
// and every record comes back through PhaseOptions.Out, so the single
// process's scheduler, concurrency limit and aggregation stay in charge.
type Phase struct {
	c       *Controller
	o       PhaseOptions
	epoch   uint32
	ended   chan struct{}
	endOnce sync.Once

	mu      sync.Mutex
	flights map[uint64]*flight
	load    map[*remote]int // credits outstanding per worker
	rr      int
	closing bool
	empty   chan struct{} // closed once closing and nothing is outstanding
	// losing counts lose calls still sending their lost records to Out:
	// Close waits for them too, since its caller closes Out.
	losing   int
	stopped  bool
	prefill  int
	noneLeft bool
}

// flight is one credit out on a worker.
type flight struct {
	credit   timing.Credit
	conv     int
	w        *remote
	reserved int // turns reserved from the budget; 0 without one
	sent     int
	open     map[string]*record.Record // sent, record not back yet
}

// StartPhase starts a phase on every ready worker. Cancelling ctx cancels
// every request in flight (Cancel). Only one phase runs at a time; Close
// ends it.
func (c *Controller) StartPhase(ctx context.Context, o PhaseOptions) (*Phase, error) {
	if o.Pick == nil || o.Out == nil || o.Done == nil || (o.Budget != nil && o.Turns == nil) {
		return nil, errors.New("cluster phase: missing required option")
	}
	c.mu.Lock()
	if c.phase != nil {
		c.mu.Unlock()
		return nil, errors.New("cluster phase: a phase is already running")
	}
	c.epoch++
	p := &Phase{
		c: c, o: o, epoch: c.epoch, ended: make(chan struct{}),
		flights: map[uint64]*flight{}, load: map[*remote]int{}, empty: make(chan struct{}),
		prefill: o.Prefill,
	}
	c.phase = p
	live := c.liveLocked()
	c.mu.Unlock()
	p.mu.Lock()
	for _, r := range live {
		p.load[r] = 0
	}
	shares := p.sharesLocked()
	for _, r := range live {
		r.out.push(p.startMessage(shares[r]))
	}
	p.mu.Unlock()
	go func() {
		select {
		case <-ctx.Done():
			p.Cancel()
		case <-p.ended:
		}
	}()
	return p, nil
}

func (p *Phase) startMessage(prefill int) *clusterpb.ControllerMessage {
	return &clusterpb.ControllerMessage{Body: &clusterpb.ControllerMessage_PhaseStart{PhaseStart: &clusterpb.PhaseStart{
		Epoch: p.epoch, Phase: int32(p.o.Phase), Name: p.o.Name, Index: int32(p.o.Index),
		ProfilingIndex: int32(p.o.ProfilingIndex), Named: p.o.Named, FixedSchedule: p.o.Fixed,
		PrefillLimit: int32(prefill),
	}}}
}

// admit starts the phase on a worker that became ready while it runs,
// and gives every worker its new share of the prefill limit.
func (p *Phase) admit(r *remote) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.load[r]; ok {
		return
	}
	p.load[r] = 0
	shares := p.sharesLocked()
	r.out.push(p.startMessage(shares[r]))
	if p.stopped {
		r.out.push(control(p.epoch, clusterpb.PhaseControl_STOP_SENDING, 0))
	}
	p.pushSharesLocked(shares, r)
}

// SetPrefill changes --prefill-concurrency for the run (a ramp, adaptive
// scale); each worker gets its share.
func (p *Phase) SetPrefill(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.prefill = n
	p.pushSharesLocked(p.sharesLocked(), nil)
}

// sharesLocked splits the prefill limit over the live workers: n/k each,
// the remainder to the first ones, and at least 1 so none stalls (the
// total then exceeds n when n < k). Empty without a limit; p.mu is held.
func (p *Phase) sharesLocked() map[*remote]int {
	shares := map[*remote]int{}
	if p.prefill <= 0 {
		return shares
	}
	ws := p.workersLocked()
	for i, r := range ws {
		share := p.prefill / len(ws)
		if i < p.prefill%len(ws) {
			share++
		}
		shares[r] = max(1, share)
	}
	return shares
}

// pushSharesLocked sends each worker but skip its share; p.mu is held.
func (p *Phase) pushSharesLocked(shares map[*remote]int, skip *remote) {
	for r, n := range shares {
		if r != skip {
			r.out.push(control(p.epoch, clusterpb.PhaseControl_PREFILL_LIMIT, n))
		}
	}
}

// workersLocked lists the phase's live workers in index order; p.mu is held.
func (p *Phase) workersLocked() []*remote {
	ws := make([]*remote, 0, len(p.load))
	for r := range p.load {
		ws = append(ws, r)
	}
	slices.SortFunc(ws, func(a, b *remote) int { return a.index - b.index })
	return ws
}

// Dispatch hands a credit to a worker without blocking.
func (p *Phase) Dispatch(c timing.Credit) {
	conv := p.o.Pick()
	f := &flight{credit: c, conv: conv, open: map[string]*record.Record{}}
	if p.o.Budget != nil {
		turns := p.o.Turns(conv)
		if c.Turns > 0 {
			turns = min(turns, c.Turns)
		}
		f.reserved = p.o.Budget.TakeUpTo(turns)
		if f.reserved == 0 {
			p.o.Done(c)
			return
		}
		f.credit.Turns = f.reserved
	}
	p.mu.Lock()
	ok := p.placeLocked(f)
	p.mu.Unlock()
	if !ok {
		p.finishUnsent(f)
	}
}

// placeLocked sends f to the least loaded live worker; false when none is
// left. p.mu is held.
func (p *Phase) placeLocked(f *flight) bool {
	ws := p.workersLocked()
	if len(ws) == 0 {
		return false
	}
	best := -1
	for k := range ws {
		i := (p.rr + k) % len(ws)
		if best < 0 || p.load[ws[i]] < p.load[ws[best]] {
			best = i
		}
	}
	p.rr = best + 1
	r := ws[best]
	f.w = r
	p.load[r]++
	p.flights[f.credit.Seq] = f
	r.out.pushCredit(p.epoch, &clusterpb.Credit{
		Seq: f.credit.Seq, DueNs: int64(f.credit.Due), Turns: int32(f.credit.Turns),
		TurnGapNs: int64(f.credit.TurnGap), Conversation: int32(f.conv),
	})
	return true
}

// finishUnsent returns a credit that no worker could take.
func (p *Phase) finishUnsent(f *flight) {
	if p.o.Budget != nil {
		p.o.Budget.Refund(f.reserved)
	}
	p.o.Done(f.credit)
	p.reportNoWorkers(nil)
}

func (p *Phase) reportNoWorkers(cause error) {
	p.mu.Lock()
	first := !p.noneLeft
	p.noneLeft = true
	p.mu.Unlock()
	if first && p.o.NoWorkers != nil {
		if cause != nil {
			cause = fmt.Errorf("%w (the last: %v)", ErrNoWorkers, cause)
		} else {
			cause = ErrNoWorkers
		}
		p.o.NoWorkers(cause)
	}
}

// events applies a batch of a worker's events in order. The worker's
// counts are brought up to date before each credit is marked done: the
// last one ends the phase, and the run may then report the counts
// (cluster.json) before this batch is over.
func (p *Phase) events(r *remote, evs []*clusterpb.Event) {
	var sent, records int
	for _, ev := range evs {
		switch b := ev.Body.(type) {
		case *clusterpb.Event_Sent:
			if b.Sent.Epoch == p.epoch {
				sent++
				p.sent(b.Sent)
			}
		case *clusterpb.Event_Record:
			records++
			p.record(RecordFromWire(b.Record))
		case *clusterpb.Event_Done:
			r.count(sent, records)
			sent, records = 0, 0
			if b.Done.Epoch == p.epoch {
				p.done(b.Done.Seq)
			}
		}
	}
	r.count(sent, records)
}

func (p *Phase) sent(s *clusterpb.Sent) {
	rec := &record.Record{
		Seq: s.Seq, Phase: p.o.Phase, TurnIndex: int(s.Turn),
		XRequestID: s.XRequestId, XCorrelationID: s.XCorrelationId, WorkerID: s.WorkerId,
		Due: time.Duration(s.DueNs), Sent: time.Duration(s.SentNs),
	}
	if p.o.Named {
		rec.PhaseName, rec.PhaseIndex, rec.ProfilingIndex = p.o.Name, p.o.Index, p.o.ProfilingIndex
	}
	p.mu.Lock()
	if f := p.flights[s.Seq]; f != nil {
		f.sent++
		f.open[s.XRequestId] = rec
	}
	p.mu.Unlock()
	if p.o.OnSend != nil {
		p.o.OnSend(rec)
	}
}

func (p *Phase) record(rec *record.Record) {
	p.mu.Lock()
	if f := p.flights[rec.Seq]; f != nil && rec.Phase == p.o.Phase {
		delete(f.open, rec.XRequestID)
	}
	p.mu.Unlock()
	p.o.Out <- rec
}

func (p *Phase) done(seq uint64) {
	p.mu.Lock()
	f := p.flights[seq]
	if f == nil {
		p.mu.Unlock()
		return
	}
	p.removeLocked(f)
	p.mu.Unlock()
	if p.o.Budget != nil {
		p.o.Budget.Refund(f.reserved - f.sent)
	}
	p.o.Done(f.credit)
}

// removeLocked forgets a finished flight; p.mu is held.
func (p *Phase) removeLocked(f *flight) {
	delete(p.flights, f.credit.Seq)
	if _, ok := p.load[f.w]; ok {
		p.load[f.w]--
	}
	p.signalEmptyLocked()
}

// signalEmptyLocked wakes Close once nothing is outstanding: no flight,
// and no lost record still on its way to Out; p.mu is held.
func (p *Phase) signalEmptyLocked() {
	if p.closing && len(p.flights) == 0 && p.losing == 0 {
		close(p.empty)
		p.closing = false
		p.empty = nil
	}
}

// lose accounts for a worker that is gone: each request it had in flight
// becomes an error record (TypeWorkerLost); a credit of which nothing had
// been sent goes to another worker with its original Due (its lateness
// shows); the other credits are over.
func (p *Phase) lose(r *remote, cause error) {
	now := p.c.o.Clock.Now()
	var lost []*record.Record
	var over []*flight
	p.mu.Lock()
	delete(p.load, r)
	var mine []*flight
	for _, f := range p.flights {
		if f.w == r {
			mine = append(mine, f)
		}
	}
	slices.SortFunc(mine, func(a, b *flight) int { return cmp.Compare(a.credit.Seq, b.credit.Seq) })
	for _, f := range mine {
		for _, rec := range f.open {
			rec.End = now
			rec.Error = &record.ErrorDetails{Type: TypeWorkerLost, Message: fmt.Sprintf(
				"load worker %s (%s) was lost with this request in flight: %v", r.id, r.describe(), cause)}
			if p.o.Describe != nil {
				p.o.Describe(rec, f.conv)
			}
			lost = append(lost, rec)
		}
		delete(p.flights, f.credit.Seq)
		if f.sent == 0 && p.placeLocked(f) {
			continue // resent elsewhere
		}
		over = append(over, f)
	}
	noneLeft := len(p.load) == 0
	p.losing++ // Close waits until the lost records below are in Out
	p.pushSharesLocked(p.sharesLocked(), nil)
	p.mu.Unlock()
	r.mu.Lock()
	r.lostInFlight += len(lost)
	r.mu.Unlock()
	slices.SortFunc(lost, func(a, b *record.Record) int { return cmp.Compare(a.Sent, b.Sent) })
	for _, rec := range lost {
		p.o.Out <- rec
	}
	for _, f := range over {
		if p.o.Budget != nil {
			p.o.Budget.Refund(f.reserved - f.sent)
		}
		p.o.Done(f.credit)
	}
	p.mu.Lock()
	p.losing--
	p.signalEmptyLocked()
	p.mu.Unlock()
	if noneLeft {
		p.reportNoWorkers(cause)
	}
}

func (p *Phase) broadcast(a clusterpb.PhaseControl_Action) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, r := range p.workersLocked() {
		r.out.push(control(p.epoch, a, 0))
	}
}

// StopSending ends every conversation at its next turn boundary, on every
// worker (see worker.Pool.StopSending).
func (p *Phase) StopSending() {
	p.mu.Lock()
	p.stopped = true
	p.mu.Unlock()
	p.broadcast(clusterpb.PhaseControl_STOP_SENDING)
}

// Cancel aborts every request in flight on every worker; their records
// end as client cancellations.
func (p *Phase) Cancel() { p.broadcast(clusterpb.PhaseControl_CANCEL) }

// InFlight is the number of credits out on workers.
func (p *Phase) InFlight() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.flights)
}

// Close waits for every credit to come back (or its worker to be lost),
// then ends the phase on every worker. Dispatch must not be called
// concurrently with or after Close.
func (p *Phase) Close() {
	p.mu.Lock()
	var wait chan struct{}
	if len(p.flights) > 0 || p.losing > 0 {
		p.closing = true
		wait = p.empty
	}
	p.mu.Unlock()
	if wait != nil {
		<-wait
	}
	p.broadcast(clusterpb.PhaseControl_END)
	p.c.mu.Lock()
	if p.c.phase == p {
		p.c.phase = nil
	}
	p.c.mu.Unlock()
	p.endOnce.Do(func() { close(p.ended) })
}
