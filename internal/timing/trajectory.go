package timing

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/aiperf-go/aiperf/internal/metrics/stats"
	"github.com/aiperf-go/aiperf/internal/pyrand"
)

// AgenticConversation is one conversation of a trace replayed by the
// agentic replay strategy, reduced to what the schedule reads (AIPerf's
// ConversationMetadata): when each request started in the recording, the
// pause before each turn, and, for a subagent, the branch that spawns it.
type AgenticConversation struct {
	ID    string
	Turns []AgenticTurn
	// Parent is the index of the conversation whose turn spawns this one
	// (a subagent: AIPerf's SPAWN branch child); -1 for a root. Only roots
	// are sampled into lanes. A subagent without a spawning turn
	// (Branch.SpawnTurn -1, or Parent its own index when the parent is
	// missing) is never replayed, as AIPerf drops it.
	Parent int
	// Branch places a subagent in its parent's timeline; unused for a root.
	Branch AgenticBranch
}

// AgenticTurn is one recorded request.
type AgenticTurn struct {
	// At is when the request started in the recording, in milliseconds on
	// the trace's clock (AIPerf's timestamp_ms); NaN when not recorded.
	At float64
	// Delay is the pause between the previous turn's response and this
	// turn (AIPerf's delay_ms); 0 for none.
	Delay time.Duration
	// Opens reports whether the turn can be the first request of a
	// session: it has messages to send. A zero-new-token turn of a
	// recorded trace (an empty delta) cannot.
	Opens bool
}

// AgenticBranch is a subagent's place in its parent's timeline (AIPerf's
// ConversationBranchInfo of a SPAWN branch, with the parent turns that
// spawn and join it).
type AgenticBranch struct {
	// ID groups the children of one branch: they start together and the
	// join waits for all of them.
	ID string
	// SpawnTurn is the parent's turn whose response starts the child; -1
	// when no parent turn precedes it (AIPerf drops such a subagent).
	SpawnTurn int
	// JoinTurn is the parent's turn that waits until every child of the
	// branch has finished; -1 for a background branch.
	JoinTurn int
	// Start is the branch's recorded spawn time (ms, trace clock); NaN
	// when unknown, in which case the earliest first request of its
	// children stands in.
	Start float64
}

// Trajectory is one lane of an agentic replay: a root trace sampled at an
// instant t* of its recording (AIPerf's Trajectory with its snapshot).
// Requests before t* are history; the replay resumes every stream of the
// trace (the root and the subagents live at t*) at its first request at or
// after t*.
type Trajectory struct {
	// Root is the index of the root conversation.
	Root int
	// Timed is false for a trace without recorded times, split by turn
	// index instead (AIPerf's legacy timestamp-less path): the warmup sends
	// the root's turn StartTurn and the profiling resumes at StartTurn+1.
	Timed bool
	// TStar is the sampled instant in ms on the trace's clock (Timed only).
	TStar float64
	// StartTurn is the root's next turn at t* (Timed; 0 when the root has
	// no request left) or its warmup turn (untimed).
	StartTurn int
	// Streams are the live streams at t*, the root first (Timed only).
	Streams []SnapshotStream
}

// SnapshotStream is one conversation live at a trajectory's t*.
type SnapshotStream struct {
	Conv int
	// Next is its first turn at or after t*; the warmup primes Next-1.
	Next int
	// Offset is how long after t* turn Next was recorded, in ms (>= 0).
	Offset float64
	// Waiting: the stream is a parent whose turn Next waits for children
	// still running at t* (a join); it is not dispatched until they end.
	Waiting bool
}

// TrajectoryOptions configure the sampling of the lanes.
type TrajectoryOptions struct {
	// Lanes is the number of trajectories (the concurrency).
	Lanes int
	// Seed is the run's random seed (AIPerf's random_seed, 0 when unset).
	Seed uint64
	// MinRatio and MaxRatio bound t* within each trace's recorded span
	// (--trajectory-start-min-ratio / -max-ratio, defaults 0.25 / 0.75);
	// for an untimed trace they bound the start turn as a fraction of its
	// turns.
	MinRatio, MaxRatio float64
}

// SampleTrajectories builds the lanes of an agentic replay as AIPerf's
// TrajectorySource does: lane i takes the root next returns (the dataset
// sampler over roots, which also decides repeats when lanes outnumber
// traces) and samples it on its own:
//
//   - A trace with recorded times (the root's and its subagents' requests,
//     spanning [start, end]) gets t* drawn uniformly from
//     [start + MinRatio*span, start + MaxRatio*span] by numpy's
//     default_rng seeded with the first 8 bytes (big-endian) of
//     SHA-256("<seed>:<root id>:<lane>"), so the draws are AIPerf's. Its
//     snapshot (see snapshot) must have a stream to dispatch.
//   - An untimed trace of n >= 2 turns gets a start turn k drawn (numpy's
//     choice, same seed) among min(int(r*n), n-2) for r in
//     [MinRatio, MaxRatio] whose turns k and k+1 both open a session.
//
// A trace that qualifies for neither is skipped and the sampler asked
// again, at most Lanes + 2*roots times, so the result may hold fewer
// lanes than asked when too few traces qualify (an error when none).
func SampleTrajectories(convs []AgenticConversation, o TrajectoryOptions, next func() int) ([]Trajectory, error) {
	var errs []error
	if o.Lanes < 1 {
		errs = append(errs, fmt.Errorf("agentic replay: lanes must be >= 1, got %d", o.Lanes))
	}
	if !(o.MinRatio >= 0 && o.MaxRatio <= 1 && o.MinRatio <= o.MaxRatio) {
		errs = append(errs, fmt.Errorf("agentic replay: start ratios must satisfy 0 <= min (%v) <= max (%v) <= 1", o.MinRatio, o.MaxRatio))
	}
	roots := 0
	for i := range convs {
		if convs[i].Parent < 0 {
			roots++
		}
	}
	if roots == 0 {
		errs = append(errs, errors.New("agentic replay: the dataset has no root conversation"))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	tree := newTraceTree(convs)
	var out []Trajectory
	for attempts := 0; len(out) < o.Lanes && attempts < o.Lanes+2*roots; attempts++ {
		c := next()
		if c < 0 || c >= len(convs) || len(convs[c].Turns) == 0 {
			continue
		}
		if t, ok := tree.sample(c, len(out), o); ok {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("agentic replay: no trace yields a trajectory (every sampled trace is too short or has nothing to send after its start point)")
	}
	return out, nil
}

// traceTree indexes the subagents of every conversation.
type traceTree struct {
	convs    []AgenticConversation
	children [][]int // by parent, in dataset order
}

func newTraceTree(convs []AgenticConversation) *traceTree {
	t := &traceTree{convs: convs, children: make([][]int, len(convs))}
	for i := range convs {
		if p := convs[i].Parent; p >= 0 && p < len(convs) && p != i && convs[i].Branch.SpawnTurn >= 0 {
			t.children[p] = append(t.children[p], i)
		}
	}
	return t
}

// laneRNG is AIPerf's per-(trace, lane) generator.
func laneRNG(seed uint64, id string, lane int) *pyrand.Numpy {
	h := sha256.Sum256(fmt.Appendf(nil, "%d:%s:%d", seed, id, lane))
	return pyrand.NewNumpy(binary.BigEndian.Uint64(h[:8]))
}

func (t *traceTree) sample(root, lane int, o TrajectoryOptions) (Trajectory, bool) {
	if lo, hi, ok := t.bounds(root); ok {
		span := hi - lo
		a, b := lo+o.MinRatio*span, lo+o.MaxRatio*span
		if b < a {
			b = a
		}
		tStar := a
		if b != a {
			tStar = a + (b-a)*laneRNG(o.Seed, t.convs[root].ID, lane).Random()
		}
		streams, ok := t.snapshot(root, tStar)
		if !ok {
			return Trajectory{}, false
		}
		tr := Trajectory{Root: root, Timed: true, TStar: tStar, Streams: streams}
		if streams[0].Conv == root {
			tr.StartTurn = streams[0].Next
		}
		return tr, true
	}
	turns := t.convs[root].Turns
	n := len(turns)
	if n <= 1 {
		return Trajectory{}, false
	}
	cands := []int{0}
	if n > 2 {
		kmin, kmax := min(int(o.MinRatio*float64(n)), n-2), min(int(o.MaxRatio*float64(n)), n-2)
		kmin = min(kmin, kmax)
		cands = cands[:0]
		for k := kmin; k <= kmax; k++ {
			cands = append(cands, k)
		}
	}
	usable := cands[:0]
	for _, k := range cands {
		if turns[k].Opens && turns[k+1].Opens {
			usable = append(usable, k)
		}
	}
	if len(usable) == 0 {
		return Trajectory{}, false
	}
	k := usable[laneRNG(o.Seed, t.convs[root].ID, lane).Integers(0, int64(len(usable)))]
	return Trajectory{Root: root, StartTurn: k}, true
}

// bounds is the span of the recorded request times of root and every
// conversation it (transitively) spawns.
func (t *traceTree) bounds(root int) (lo, hi float64, ok bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	seen := map[int]bool{}
	stack := []int{root}
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[c] {
			continue
		}
		seen[c] = true
		for _, turn := range t.convs[c].Turns {
			if stats.Finite(turn.At) {
				lo, hi, ok = min(lo, turn.At), max(hi, turn.At), true
			}
		}
		stack = append(stack, t.children[c]...)
	}
	return lo, hi, ok
}

// nextAt is the first turn of c recorded at or after at; -1 when none.
func nextAt(c *AgenticConversation, at float64) int {
	for i, turn := range c.Turns {
		if stats.Finite(turn.At) && turn.At >= at {
			return i
		}
	}
	return -1
}

// turnAt is turn i's recorded time, NaN when out of range or unrecorded.
func turnAt(c *AgenticConversation, i int) float64 {
	if i < 0 || i >= len(c.Turns) {
		return math.NaN()
	}
	return c.Turns[i].At
}

// offsetMs is AIPerf's _offset_ms: how long after tStar at lies (0 when
// unrecorded or before).
func offsetMs(at, tStar float64) float64 {
	if !stats.Finite(at) {
		return 0
	}
	return max(0, at-tStar)
}

// branchGroup is one branch of a parent: its children, in dataset order.
type branchGroup struct {
	b        AgenticBranch
	children []int
}

// branches groups the subagents of parent by branch, in order of first
// appearance, with the branch start falling back to the children's
// earliest first request.
func (t *traceTree) branches(parent int) []branchGroup {
	var out []branchGroup
	idx := map[string]int{}
	for _, c := range t.children[parent] {
		b := t.convs[c].Branch
		i, ok := idx[b.ID]
		if !ok {
			i = len(out)
			idx[b.ID] = i
			out = append(out, branchGroup{b: b})
		}
		out[i].children = append(out[i].children, c)
	}
	for i := range out {
		if !stats.Finite(out[i].b.Start) {
			start := math.NaN()
			for _, c := range out[i].children {
				if at := turnAt(&t.convs[c], 0); stats.Finite(at) && (!stats.Finite(start) || at < start) {
					start = at
				}
			}
			out[i].b.Start = start
		}
	}
	return out
}

// snapshot is AIPerf's _snapshot_for: the streams of root's trace live at
// tStar. The root resumes at its first request at or after tStar. A
// branch that started by tStar, or whose spawning root turn was sent
// before tStar, contributes every child with a request left; a root whose
// next turn joins such children waits for them. ok is false when nothing
// is live or every live stream waits.
func (t *traceTree) snapshot(root int, tStar float64) ([]SnapshotStream, bool) {
	rc := &t.convs[root]
	rootNext := nextAt(rc, tStar)
	var kids []SnapshotStream
	joins := map[int]bool{}
	for _, g := range t.branches(root) {
		if stats.Finite(g.b.Start) && tStar < g.b.Start {
			spawn := g.b.SpawnTurn
			spawnAt := turnAt(rc, spawn)
			if spawn < 0 || !stats.Finite(spawnAt) || tStar < spawnAt || (rootNext >= 0 && rootNext <= spawn) {
				continue // spawned later, by the replay itself
			}
		}
		added := false
		for _, c := range g.children {
			cc := &t.convs[c]
			n := nextAt(cc, tStar)
			if n < 0 {
				continue
			}
			if !stats.Finite(g.b.Start) {
				if first := turnAt(cc, 0); stats.Finite(first) && tStar < first {
					continue
				}
			}
			kids = append(kids, SnapshotStream{Conv: c, Next: n, Offset: offsetMs(turnAt(cc, n), tStar)})
			added = true
		}
		if added && g.b.JoinTurn >= 0 {
			joins[g.b.JoinTurn] = true
		}
	}
	var out []SnapshotStream
	if rootNext >= 0 {
		out = append(out, SnapshotStream{Conv: root, Next: rootNext, Offset: offsetMs(turnAt(rc, rootNext), tStar), Waiting: joins[rootNext]})
	}
	out = append(out, kids...)
	for _, s := range out {
		if !s.Waiting {
			return out, true
		}
	}
	return nil, false
}
