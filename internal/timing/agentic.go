package timing

import (
	"container/heap"
	"errors"
	"github.com/aiperf-go/aiperf/internal/metrics/stats"
	"math"
	"time"
)

// AgenticOptions configure an agentic replay (AIPerf's agentic_replay
// timing strategy).
type AgenticOptions struct {
	// Burst fires each phase's first requests together
	// (--burst-phase-starts) instead of spreading them by their recorded
	// offsets from t*.
	Burst bool
	// TraceIdleCap (--trace-idle-gap-cap-seconds) bounds how long before
	// t* a warmup request may be sent and the idle between t* and a lane's
	// first profiling request; valid when HasTraceIdleCap.
	TraceIdleCap    time.Duration
	HasTraceIdleCap bool
	// SystemIdleCap (--system-idle-gap-cap-seconds) bounds the time the
	// replay stays globally idle: when no request is in flight, every
	// pending request timer moves earlier by the same amount so that the
	// next one fires at most this long after the idle began. Valid when
	// HasSystemIdleCap.
	SystemIdleCap    time.Duration
	HasSystemIdleCap bool
	// CacheWarmup (--agentic-cache-warmup-duration), when > 0, continues
	// the warmup after the priming requests: every lane replays on from
	// its snapshot with no recorded delays and one-token outputs for this
	// long, and the profiling phase resumes from where that left off.
	CacheWarmup time.Duration
	// MaxRequests and MaxSessions bound the profiling phase's requests
	// and root session starts; 0 means no bound.
	MaxRequests, MaxSessions int
	// NextRoot returns the root conversation that a drained lane recycles
	// into: the dataset sampler over roots.
	NextRoot func() int
}

// AgenticPhase is the phase an agentic replay is in.
type AgenticPhase uint8

// The phases of an agentic replay.
const (
	AgenticIdle AgenticPhase = iota
	AgenticWarmup
	AgenticProfiling
)

// AgenticSend is one request the replay sends now.
type AgenticSend struct {
	// Stream identifies the conversation instance (one session: one
	// correlation id and history); its turns are sent one at a time, in
	// order.
	Stream int
	// Fresh marks the first request of the stream: a new session, whose
	// history before Turn comes from the recording.
	Fresh bool
	Lane  int
	// Tree identifies the lane's trajectory tree the stream belongs to
	// (the root's stream, or a rootless snapshot's first subagent): every
	// stream of a tree shares one cache-bust marker.
	Tree int
	Conv int
	Turn int
	// Due is when the schedule wanted it sent: the moment it was released
	// (a return, the phase start) or its timer's time.
	Due time.Duration
	// OneToken: a warmup request that primes the server's cache and asks
	// for one output token.
	OneToken bool
	// SessionStart: it starts a root session (counted in the phase's
	// sessions).
	SessionStart bool
}

// AgenticOutcome is how a request ended.
type AgenticOutcome struct {
	// Failed: the request got an error; Cancelled: the client cancelled
	// it. Overflow: the error says the context was too long, which ends
	// the trajectory (its later turns would only grow).
	Failed, Cancelled, Overflow bool
}

// AgenticReplay is the agentic replay schedule: a pure state machine of
// (time, state, observations). The loop around it tells it when a phase
// starts, when a request returns and when a timer is due, always with the
// current time, and sends what it returns; it never reads a clock.
//
// Warmup. For every stream live at its lane's t*, the warmup sends the
// stream's last request before t* (turn Next-1; the turn StartTurn of an
// untimed lane) with one output token, priming the server's cache with the
// stream's context at t*. By default the requests are spread so that every
// trajectory reaches its t* at the same moment: a request recorded lead
// before its t* (lead capped by TraceIdleCap) is sent at max lead - lead;
// with Burst they all go at once. The warmup ends when every priming
// request has returned; a root whose priming request failed fails the run
// (WarmupFailures).
//
// Cache warmup. With CacheWarmup, the lanes then replay on from their
// snapshots for that long with no delays and one-token outputs (drained
// lanes recycle), and once the requests in flight have drained every live
// stream hands its next turn to profiling with the rest of its recorded
// delay (less the time spent draining, capped by TraceIdleCap).
//
// Profiling. Every stream resumes at turn Next, Offset after the phase
// start, less the excess of the lane's earliest offset over TraceIdleCap
// (one shift for the whole lane, so its streams keep their spacing); with
// Burst the lane's earliest request goes at the phase start. A later turn
// follows its previous turn's response after its recorded Delay. A
// subagent starts when its parent's spawning turn returns, after its
// recorded offset from the branch start; a parent's join turn waits until
// every child of the branch has finished and then goes at once. When a
// lane's whole tree (root and subagents) has finished, the lane recycles
// into a fresh root from NextRoot, at turn 0. A context-overflow error ends
// its stream early.
//
// System idle cap. Whenever no request is in flight (after a return, or
// at a phase start), the pending timers of turns move earlier together so
// that the earliest fires within SystemIdleCap of the idle's start
// (AIPerf's cap_pending_delay; a subagent waiting out its spawn offset is
// not such a timer, and the cache warmup disables the cap).
type AgenticReplay struct {
	tree  *traceTree
	o     AgenticOptions
	trajs []Trajectory

	streams []agStream
	lanes   []agLane
	timers  agTimers
	tseq    uint64

	phase       AgenticPhase
	inFlight    int
	idleSince   time.Duration
	idleOpen    bool
	closed      bool // no request is sent any more in this phase
	accelerated bool // the cache warmup is running (or ran, in this warmup)
	finished    bool // the cache warmup's time is up

	warmTotal, warmReturned int
	failures                []int // root conversations whose warmup request failed
	handoff                 map[int]agHandoff
	primed                  map[int]bool // streams the warmup primed

	sent, sessions int
	laneIDs        [][]int // the streams of each lane's snapshot, in its order
	// IdleJumps and IdleSkipped count the system idle cap's shifts.
	IdleJumps   int
	IdleSkipped time.Duration
}

type agStream struct {
	conv, lane int
	tree       int
	child      bool // a subagent (its conversation has a parent)
	parent     int  // the spawning stream; -1 for a root or an orphan subagent
	next       int  // the next turn to send
	done       bool
	waitJoin   int         // the turn this parent waits at, -1 when none
	joins      map[int]int // join turn -> children still running
	joinTurn   int         // the parent's join turn this child counts toward, -1
	fresh      bool        // nothing of it has been sent
}

type agLane struct {
	live int // streams of the lane's current tree not finished
}

type agHandoff struct {
	turn     int
	returned time.Duration
}

type agTimer struct {
	due       time.Duration
	seq       uint64
	stream    int
	turn      int
	finish    bool // the cache warmup's end
	fixed     bool // not moved by the system idle cap (a spawn offset)
	oneToken  bool
	session   bool
	cancelled bool
}

type agTimers []*agTimer

func (h agTimers) Len() int { return len(h) }
func (h agTimers) Less(i, j int) bool {
	if h[i].due != h[j].due {
		return h[i].due < h[j].due
	}
	return h[i].seq < h[j].seq
}
func (h agTimers) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *agTimers) Push(x any)   { *h = append(*h, x.(*agTimer)) }
func (h *agTimers) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// NewAgenticReplay returns the replay of trajs (from SampleTrajectories
// over the same conversations).
func NewAgenticReplay(convs []AgenticConversation, trajs []Trajectory, o AgenticOptions) (*AgenticReplay, error) {
	var errs []error
	if len(trajs) == 0 {
		errs = append(errs, errors.New("agentic replay: no trajectory"))
	}
	if o.NextRoot == nil {
		errs = append(errs, errors.New("agentic replay: NextRoot is required"))
	}
	if o.TraceIdleCap < 0 || o.SystemIdleCap < 0 || o.CacheWarmup < 0 || o.MaxRequests < 0 || o.MaxSessions < 0 {
		errs = append(errs, errors.New("agentic replay: caps, durations and bounds must be >= 0"))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	r := &AgenticReplay{tree: newTraceTree(convs), o: o, trajs: append([]Trajectory(nil), trajs...),
		lanes: make([]agLane, len(trajs)), handoff: map[int]agHandoff{}, primed: map[int]bool{}}
	return r, nil
}

// Trajectories returns the lanes as the profiling phase starts them (after
// a cache warmup, the handed-off state with t* = 0).
func (r *AgenticReplay) Trajectories() []Trajectory { return r.trajs }

// Phase returns the current phase.
func (r *AgenticReplay) Phase() AgenticPhase { return r.phase }

// InFlight returns the requests sent and not yet returned.
func (r *AgenticReplay) InFlight() int { return r.inFlight }

// StreamConv returns the conversation of a stream.
func (r *AgenticReplay) StreamConv(stream int) int { return r.streams[stream].conv }

// WarmupFailures returns the root conversations whose warmup request
// failed or was cancelled; profiling must not start when there are any.
func (r *AgenticReplay) WarmupFailures() []int { return r.failures }

// Next returns when the earliest timer is due.
func (r *AgenticReplay) Next() (time.Duration, bool) {
	for r.timers.Len() > 0 && r.timers[0].cancelled {
		heap.Pop(&r.timers)
	}
	if r.timers.Len() == 0 {
		return 0, false
	}
	return r.timers[0].due, true
}

// SendingDone reports that the phase will send nothing more unless a
// request returns: no timer is pending. In the warmup it also means the
// spread has ended (the grace period starts) and, with a cache warmup,
// that its time is up.
func (r *AgenticReplay) SendingDone() bool {
	if _, ok := r.Next(); ok && !r.closed {
		return false
	}
	if r.phase == AgenticWarmup && r.o.CacheWarmup > 0 {
		return r.finished
	}
	return true
}

// Done reports that the phase is over: nothing in flight and nothing left
// to send. The warmup is over when every priming request has returned
// (and the cache warmup, if any, has drained); the profiling phase when
// every lane has stopped (its bounds are reached) or Stop was called and
// the requests drained.
func (r *AgenticReplay) Done() bool {
	if r.inFlight > 0 {
		return false
	}
	if r.phase == AgenticWarmup && r.o.CacheWarmup > 0 {
		return r.finished
	}
	_, pending := r.Next()
	return r.closed || !pending
}

// Stop ends the phase's sending (its duration is over, or it is
// interrupted): pending timers are dropped and returns send nothing more.
func (r *AgenticReplay) Stop() {
	r.closed = true
	r.timers = r.timers[:0]
}

// StartWarmup starts the warmup phase at now.
func (r *AgenticReplay) StartWarmup(now time.Duration) []AgenticSend {
	r.phase, r.idleOpen, r.closed = AgenticWarmup, false, false
	type prep struct {
		stream, turn int
		lead         float64 // ms; NaN when unknown
	}
	var prepared []prep
	for lane, tr := range r.trajs {
		if !tr.Timed {
			s := r.newStream(tr.Root, lane, -1, tr.StartTurn)
			prepared = append(prepared, prep{s, tr.StartTurn, math.NaN()})
			continue
		}
		ids := r.addSnapshot(lane, tr)
		for i, st := range tr.Streams {
			if st.Next < 1 {
				continue
			}
			lead := math.NaN()
			if at := turnAt(&r.tree.convs[st.Conv], st.Next-1); stats.Finite(at) {
				lead = tr.TStar - at
				if r.o.HasTraceIdleCap {
					lead = min(lead, toMs(r.o.TraceIdleCap))
				}
			}
			prepared = append(prepared, prep{ids[i], st.Next - 1, lead})
		}
	}
	r.warmTotal, r.warmReturned = len(prepared), 0
	var out []AgenticSend
	if len(prepared) == 0 {
		if r.o.CacheWarmup > 0 {
			out = r.startAccelerated(now, out)
		} else {
			r.closed = true
		}
		return out
	}
	maxLead := math.Inf(-1)
	for _, p := range prepared {
		if !math.IsNaN(p.lead) {
			maxLead = max(maxLead, p.lead)
		}
	}
	for _, p := range prepared {
		r.primed[p.stream] = true
		off := time.Duration(0)
		if !r.o.Burst && !math.IsNaN(p.lead) {
			off = dur(maxLead - p.lead)
		}
		if off > 0 {
			r.schedule(&agTimer{due: now + off, stream: p.stream, turn: p.turn, oneToken: true, session: true})
			continue
		}
		out = r.send(now, now, p.stream, p.turn, true, true, out)
	}
	if r.o.Burst && r.o.CacheWarmup == 0 {
		r.closed = true
	}
	r.enforceIdle(now, false)
	return out
}

// FinishWarmup ends the warmup at now. After a cache warmup it hands the
// live streams over to profiling (Trajectories).
func (r *AgenticReplay) FinishWarmup(now time.Duration) {
	r.timers = r.timers[:0]
	if r.accelerated {
		r.buildHandoff(now)
	}
	r.phase = AgenticIdle
}

// StartProfiling starts the profiling phase at now.
func (r *AgenticReplay) StartProfiling(now time.Duration) []AgenticSend {
	r.phase, r.idleOpen, r.closed, r.accelerated = AgenticProfiling, false, false, false
	r.sent, r.sessions = 0, 0
	var out []AgenticSend
	for lane, tr := range r.trajs {
		if !tr.Timed {
			s := r.laneRoot(lane)
			if tr.StartTurn+1 >= len(r.tree.convs[tr.Root].Turns) {
				r.finish(s)
				out = r.recycle(now, lane, out)
				continue
			}
			out = r.send(now, now, s, tr.StartTurn+1, false, true, out)
			continue
		}
		ids := r.snapshotStreams(lane, tr)
		var offs []float64
		for i, st := range tr.Streams {
			if !st.Waiting && ids[i] >= 0 {
				offs = append(offs, st.Offset)
			}
		}
		if len(offs) == 0 {
			continue
		}
		lo := offs[0]
		for _, o := range offs {
			lo = min(lo, o)
		}
		shift := 0.0
		if r.o.HasTraceIdleCap {
			shift = max(0, lo-toMs(r.o.TraceIdleCap))
		}
		t0 := 0.0
		if r.o.Burst {
			t0 = lo - shift
		}
		for i, st := range tr.Streams {
			if st.Waiting || ids[i] < 0 {
				continue
			}
			root := !r.streams[ids[i]].child
			if d := dur(st.Offset - shift - t0); d > 0 {
				r.schedule(&agTimer{due: now + d, stream: ids[i], turn: st.Next, session: root})
				continue
			}
			out = r.send(now, now, ids[i], st.Next, false, root, out)
		}
	}
	r.enforceIdle(now, false)
	return out
}

// Due fires the timers due at or before now.
func (r *AgenticReplay) Due(now time.Duration) []AgenticSend {
	var out []AgenticSend
	for {
		t, ok := r.Next()
		if !ok || t > now {
			return out
		}
		tm := heap.Pop(&r.timers).(*agTimer)
		if tm.finish {
			r.finished, r.closed = true, true
			r.timers = r.timers[:0]
			return out
		}
		if r.closed {
			continue
		}
		out = r.send(now, tm.due, tm.stream, tm.turn, tm.oneToken, tm.session, out)
	}
}

// Returned reports at now that request s ended as out, and returns what
// to send because of it.
func (r *AgenticReplay) Returned(now time.Duration, s AgenticSend, res AgenticOutcome) []AgenticSend {
	r.inFlight--
	st := &r.streams[s.Stream]
	c := &r.tree.convs[st.conv]
	final := s.Turn == len(c.Turns)-1
	var out []AgenticSend
	if r.phase == AgenticWarmup {
		if !st.child && (res.Failed || res.Cancelled) {
			r.failures = append(r.failures, st.conv)
		}
		if r.accelerated {
			if final {
				delete(r.handoff, s.Stream)
			} else {
				r.handoff[s.Stream] = agHandoff{turn: s.Turn, returned: now}
			}
			// After the cache warmup's time is up this only keeps the
			// books (a finished child releases its join, unsent).
			return r.advance(now, s, final, false, out)
		}
		r.warmReturned++
		if r.o.CacheWarmup > 0 && r.warmReturned >= r.warmTotal {
			out = r.startAccelerated(now, out)
			return out
		}
		r.enforceIdle(now, true)
		return out
	}
	overflow := !final && res.Overflow
	out = r.advance(now, s, final, overflow, out)
	r.enforceIdle(now, true)
	return out
}

// advance moves stream s on after its request returned: spawn the
// subagents of the turn, then the next turn (after its delay, or waiting
// for a join), or finish the stream and maybe its lane's tree.
func (r *AgenticReplay) advance(now time.Duration, s AgenticSend, final, overflow bool, out []AgenticSend) []AgenticSend {
	st := &r.streams[s.Stream]
	if final || overflow {
		return r.finishAndDrain(now, s.Stream, out)
	}
	if r.closed {
		return out
	}
	out = r.spawn(now, s.Stream, s.Turn, out)
	st = &r.streams[s.Stream]
	next := s.Turn + 1
	if st.joins[next] > 0 {
		st.waitJoin = next
		return out
	}
	delay := r.tree.convs[st.conv].Turns[next].Delay
	if r.accelerated || delay <= 0 {
		return r.send(now, now, s.Stream, next, r.accelerated, false, out)
	}
	r.schedule(&agTimer{due: now + delay, stream: s.Stream, turn: next})
	return out
}

// spawn starts the children of the branches stream id spawns at turn.
func (r *AgenticReplay) spawn(now time.Duration, id, turn int, out []AgenticSend) []AgenticSend {
	conv, lane := r.streams[id].conv, r.streams[id].lane
	for _, g := range r.tree.branches(conv) {
		if g.b.SpawnTurn != turn {
			continue
		}
		for _, c := range g.children {
			child := r.newStream(c, lane, id, 0)
			r.register(child, g.b.JoinTurn)
			off := time.Duration(0)
			if at := turnAt(&r.tree.convs[c], 0); stats.Finite(g.b.Start) && stats.Finite(at) && !r.accelerated {
				off = dur(max(0, at-g.b.Start))
			}
			if off > 0 {
				r.schedule(&agTimer{due: now + off, stream: child, turn: 0, fixed: true})
				continue
			}
			out = r.send(now, now, child, 0, r.accelerated, false, out)
		}
	}
	return out
}

// register counts child toward its parent's join turn.
func (r *AgenticReplay) register(child, join int) {
	st := &r.streams[child]
	st.joinTurn = join
	if join < 0 || st.parent < 0 {
		return
	}
	p := &r.streams[st.parent]
	if p.joins == nil {
		p.joins = map[int]int{}
	}
	p.joins[join]++
}

// finishAndDrain ends stream id; a join it completes releases its
// parent's gated turn, and a drained tree recycles its lane.
func (r *AgenticReplay) finishAndDrain(now time.Duration, id int, out []AgenticSend) []AgenticSend {
	st := &r.streams[id]
	if st.done {
		return out
	}
	lane, parent, join := st.lane, st.parent, st.joinTurn
	r.finish(id)
	if parent >= 0 && join >= 0 {
		p := &r.streams[parent]
		if p.joins[join]--; p.joins[join] <= 0 {
			delete(p.joins, join)
			if p.waitJoin == join && !p.done {
				p.waitJoin = -1
				if !r.closed {
					out = r.send(now, now, parent, join, r.accelerated, false, out)
				}
			}
		}
	}
	if r.lanes[lane].live == 0 {
		out = r.recycle(now, lane, out)
	}
	return out
}

func (r *AgenticReplay) finish(id int) {
	st := &r.streams[id]
	if !st.done {
		st.done = true
		r.lanes[st.lane].live--
	}
}

// recycle starts a fresh root on lane, at turn 0.
func (r *AgenticReplay) recycle(now time.Duration, lane int, out []AgenticSend) []AgenticSend {
	if r.closed || (r.phase == AgenticProfiling && r.o.MaxSessions > 0 && r.sessions >= r.o.MaxSessions) {
		return out
	}
	if r.phase == AgenticWarmup && !r.accelerated {
		return out
	}
	c, ok := r.nextRoot()
	if !ok {
		return out
	}
	s := r.newStream(c, lane, -1, 0)
	return r.send(now, now, s, 0, r.accelerated, true, out)
}

// nextRoot draws the next root with turns, at most one pass over the roots.
func (r *AgenticReplay) nextRoot() (int, bool) {
	roots := 0
	for i := range r.tree.convs {
		if r.tree.convs[i].Parent < 0 {
			roots++
		}
	}
	for range max(1, roots) {
		c := r.o.NextRoot()
		if c >= 0 && c < len(r.tree.convs) && len(r.tree.convs[c].Turns) > 0 {
			return c, true
		}
	}
	return 0, false
}

// startAccelerated starts the cache warmup: every lane replays on from its
// snapshot at once, with one-token outputs.
func (r *AgenticReplay) startAccelerated(now time.Duration, out []AgenticSend) []AgenticSend {
	if r.accelerated {
		return out
	}
	r.accelerated = true
	r.schedule(&agTimer{due: now + r.o.CacheWarmup, finish: true, fixed: true})
	for lane, tr := range r.trajs {
		if !tr.Timed {
			out = r.send(now, now, r.laneRoot(lane), tr.StartTurn+1, true, false, out)
			continue
		}
		ids := r.snapshotStreams(lane, tr)
		for i, st := range tr.Streams {
			if st.Waiting || ids[i] < 0 {
				continue
			}
			root := !r.streams[ids[i]].child
			out = r.send(now, now, ids[i], st.Next, true, root && !r.primed[ids[i]], out)
		}
	}
	return out
}

// buildHandoff turns the drained cache warmup into the profiling phase's
// trajectories: each live stream resumes at its next turn after the rest
// of its recorded delay; a lane with nothing live takes a fresh root.
func (r *AgenticReplay) buildHandoff(now time.Duration) {
	byLane := make([][]SnapshotStream, len(r.trajs))
	ids := make([][]int, len(r.trajs))
	for id := range r.streams {
		st := &r.streams[id]
		h, ok := r.handoff[id]
		if !ok || st.done || h.turn+1 >= len(r.tree.convs[st.conv].Turns) {
			continue
		}
		delay := r.tree.convs[st.conv].Turns[h.turn+1].Delay - (now - h.returned)
		delay = max(0, delay)
		if r.o.HasTraceIdleCap {
			delay = min(delay, r.o.TraceIdleCap)
		}
		ss := SnapshotStream{Conv: st.conv, Next: h.turn + 1, Offset: toMs(delay), Waiting: st.waitJoin == h.turn+1}
		st.next = h.turn + 1
		if !st.child {
			byLane[st.lane] = append([]SnapshotStream{ss}, byLane[st.lane]...)
			ids[st.lane] = append([]int{id}, ids[st.lane]...)
		} else {
			byLane[st.lane] = append(byLane[st.lane], ss)
			ids[st.lane] = append(ids[st.lane], id)
		}
	}
	// Streams not handed over are over; a lane's tree is what remains.
	keep := map[int]bool{}
	for _, l := range ids {
		for _, id := range l {
			keep[id] = true
		}
	}
	for id := range r.streams {
		if !keep[id] {
			r.finish(id)
		}
	}
	trajs := make([]Trajectory, len(r.trajs))
	r.laneIDs = make([][]int, len(r.trajs))
	for lane := range r.trajs {
		if len(byLane[lane]) == 0 {
			c, ok := r.nextRoot()
			if !ok {
				trajs[lane] = r.trajs[lane]
				continue
			}
			id := r.newStream(c, lane, -1, 0)
			byLane[lane], ids[lane] = []SnapshotStream{{Conv: c}}, []int{id}
		}
		root := byLane[lane][0].Conv
		start := 0
		if !r.streams[ids[lane][0]].child {
			start = byLane[lane][0].Next
		} else {
			root = r.trajs[lane].Root
		}
		trajs[lane] = Trajectory{Root: root, Timed: true, StartTurn: start, Streams: byLane[lane]}
		r.laneIDs[lane] = ids[lane]
	}
	r.trajs = trajs
}

// addSnapshot creates the streams of a timed lane's snapshot and
// registers the joins its subagents count toward.
func (r *AgenticReplay) addSnapshot(lane int, tr Trajectory) []int {
	ids := make([]int, len(tr.Streams))
	rootID, rootNext := -1, 0
	for i, st := range tr.Streams {
		if r.tree.convs[st.Conv].Parent < 0 {
			ids[i] = r.newStream(st.Conv, lane, -1, st.Next)
			rootID, rootNext = ids[i], st.Next
			if st.Waiting {
				r.streams[rootID].waitJoin = st.Next
			}
		}
	}
	orphanTree := -1 // a rootless snapshot's subagents share a tree
	for i, st := range tr.Streams {
		c := &r.tree.convs[st.Conv]
		if c.Parent < 0 {
			continue
		}
		ids[i] = r.newStream(st.Conv, lane, rootID, st.Next)
		if rootID < 0 {
			if orphanTree < 0 {
				orphanTree = ids[i]
			}
			r.streams[ids[i]].tree = orphanTree
		}
		if j := c.Branch.JoinTurn; rootID >= 0 && j >= rootNext {
			r.register(ids[i], j)
		}
	}
	if r.laneIDs == nil {
		r.laneIDs = make([][]int, len(r.trajs))
	}
	r.laneIDs[lane] = ids
	return ids
}

// snapshotStreams returns the streams of a timed lane, creating them when
// the warmup did not.
func (r *AgenticReplay) snapshotStreams(lane int, tr Trajectory) []int {
	if r.laneIDs != nil && r.laneIDs[lane] != nil && len(r.laneIDs[lane]) == len(tr.Streams) {
		return r.laneIDs[lane]
	}
	return r.addSnapshot(lane, tr)
}

// laneRoot is the root stream of an untimed lane (the warmup created it).
func (r *AgenticReplay) laneRoot(lane int) int {
	for id := range r.streams {
		if st := &r.streams[id]; st.lane == lane && !st.child && !st.done {
			return id
		}
	}
	tr := r.trajs[lane]
	return r.newStream(tr.Root, lane, -1, tr.StartTurn)
}

func (r *AgenticReplay) newStream(conv, lane, parent, next int) int {
	id := len(r.streams)
	tree := id
	if parent >= 0 {
		tree = r.streams[parent].tree
	}
	r.streams = append(r.streams, agStream{conv: conv, lane: lane, tree: tree, child: r.tree.convs[conv].Parent >= 0, parent: parent,
		next: next, waitJoin: -1, joinTurn: -1, fresh: true})
	r.lanes[lane].live++
	return id
}

// send sends turn of stream id now (released at due), unless the phase is
// closed or its request bound is reached; a refused request ends its
// stream.
func (r *AgenticReplay) send(now, due time.Duration, id, turn int, oneToken, session bool, out []AgenticSend) []AgenticSend {
	if r.closed || (r.phase == AgenticProfiling && r.o.MaxRequests > 0 && r.sent >= r.o.MaxRequests) {
		if r.phase == AgenticProfiling && r.o.MaxRequests > 0 && r.sent >= r.o.MaxRequests {
			r.closed = true
		}
		return out
	}
	st := &r.streams[id]
	s := AgenticSend{Stream: id, Fresh: st.fresh, Lane: st.lane, Tree: st.tree, Conv: st.conv, Turn: turn, Due: due, OneToken: oneToken,
		SessionStart: session && !st.child}
	st.fresh, st.next = false, turn+1
	r.inFlight++
	if r.phase == AgenticProfiling {
		r.sent++
		if s.SessionStart {
			r.sessions++
		}
	}
	return append(out, s)
}

func (r *AgenticReplay) schedule(t *agTimer) {
	t.seq = r.tseq
	r.tseq++
	heap.Push(&r.timers, t)
}

// enforceIdle applies the system idle cap at now; fromReturn: a request
// just returned (a new idle interval starts if nothing is in flight).
func (r *AgenticReplay) enforceIdle(now time.Duration, fromReturn bool) {
	if !r.o.HasSystemIdleCap || (r.phase == AgenticWarmup && r.accelerated) {
		return
	}
	if r.inFlight > 0 {
		r.idleOpen = false
		return
	}
	if fromReturn || !r.idleOpen {
		r.idleSince, r.idleOpen = now, true
	}
	earliest, any := time.Duration(0), false
	for _, t := range r.timers {
		if !t.cancelled && !t.fixed && (!any || t.due < earliest) {
			earliest, any = t.due, true
		}
	}
	if !any {
		return
	}
	shift := earliest - max(now, r.idleSince+r.o.SystemIdleCap)
	if shift <= 0 {
		return
	}
	for _, t := range r.timers {
		if !t.cancelled && !t.fixed {
			t.due = max(now, t.due-shift)
		}
	}
	heap.Init(&r.timers)
	r.IdleJumps++
	r.IdleSkipped += shift
}

// toMs converts a duration to float milliseconds; dur converts back,
// rounded to the nanosecond.
func toMs(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
func dur(msec float64) time.Duration {
	return time.Duration(math.Round(msec * float64(time.Millisecond)))
}
