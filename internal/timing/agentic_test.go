package timing

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// agenticRef is testdata/agentic/reference.json: AIPerf 0.13's
// agentic_replay run by its own code (gen_reference.py) on small traces.
type agenticRef struct {
	Cases []struct {
		Case struct {
			Name        string
			Dataset     []refConv
			Concurrency int
			Seed        uint64
			Min, Max    float64
			Burst       bool
			TraceCap    *float64 `json:"trace_cap"`
			SystemCap   *float64 `json:"system_cap"`
			CacheWarmup *float64 `json:"cache_warmup"`
			Simulate    bool
			ServiceS    float64 `json:"service_s"`
			DurationS   float64 `json:"duration_s"`
		}
		Trajectories []refTrajectory
		Handoff      []refTrajectory
		WarmupEndS   float64 `json:"warmup_end_s"`
		Dispatches   []refDispatch
	}
}

// refConv is one conversation of a reference case; a subagent names its
// parent and branch.
type refConv struct {
	ID     string
	Parent *string
	Branch *struct {
		ID    string
		Spawn int
		Join  *int
		Start *float64
	}
	Turns []struct {
		TS    *float64
		Delay *float64
	}
}

type refTrajectory struct {
	Root      string
	StartTurn int      `json:"start_turn"`
	TStarMs   *float64 `json:"t_star_ms"`
	States    []struct {
		Conv     string
		Next     int
		OffsetMs float64 `json:"offset_ms"`
		Waiting  bool
	}
}

type refDispatch struct {
	Phase      string
	T          float64
	Lane       *int
	Conv       string
	Turn       int
	MaxTokens1 bool `json:"max_tokens_1"`
}

func loadAgenticRef(t *testing.T) agenticRef {
	t.Helper()
	b, err := os.ReadFile("testdata/agentic/reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref agenticRef
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	return ref
}

// sequential is AIPerf's sequential sampler over the roots of convs.
func sequential(convs []AgenticConversation) func() int {
	var roots []int
	for i := range convs {
		if convs[i].Parent < 0 {
			roots = append(roots, i)
		}
	}
	i := 0
	return func() int {
		c := roots[i%len(roots)]
		i++
		return c
	}
}

func refConversations(t *testing.T, ds []refConv) ([]AgenticConversation, map[string]int) {
	t.Helper()
	idx := map[string]int{}
	for i, c := range ds {
		idx[c.ID] = i
	}
	var convs []AgenticConversation
	for _, c := range ds {
		ac := AgenticConversation{ID: c.ID, Parent: -1}
		if c.Parent != nil {
			p, ok := idx[*c.Parent]
			if !ok || c.Branch == nil {
				t.Fatalf("%s: unknown parent or no branch", c.ID)
			}
			ac.Parent = p
			ac.Branch = AgenticBranch{ID: c.Branch.ID, SpawnTurn: c.Branch.Spawn, JoinTurn: -1, Start: math.NaN()}
			if c.Branch.Join != nil {
				ac.Branch.JoinTurn = *c.Branch.Join
			}
			if c.Branch.Start != nil {
				ac.Branch.Start = *c.Branch.Start
			}
		}
		for _, turn := range c.Turns {
			at := math.NaN()
			if turn.TS != nil {
				at = *turn.TS
			}
			var d time.Duration
			if turn.Delay != nil {
				d = time.Duration(math.Round(*turn.Delay * float64(time.Millisecond)))
			}
			ac.Turns = append(ac.Turns, AgenticTurn{At: at, Delay: d, Opens: true})
		}
		convs = append(convs, ac)
	}
	return convs, idx
}

func checkTrajectories(t *testing.T, convs []AgenticConversation, got []Trajectory, want []refTrajectory) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d trajectories, want %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		if convs[g.Root].ID != w.Root || g.StartTurn != w.StartTurn {
			t.Errorf("lane %d: root %s start turn %d, want %s %d", i, convs[g.Root].ID, g.StartTurn, w.Root, w.StartTurn)
		}
		if (w.TStarMs != nil) != g.Timed {
			t.Errorf("lane %d: timed %v, want %v", i, g.Timed, w.TStarMs != nil)
			continue
		}
		if w.TStarMs == nil {
			continue
		}
		if g.TStar != *w.TStarMs {
			t.Errorf("lane %d: t* = %v ms, want %v (AIPerf's draw)", i, g.TStar, *w.TStarMs)
		}
		if len(g.Streams) != len(w.States) {
			t.Errorf("lane %d: %d streams, want %d", i, len(g.Streams), len(w.States))
			continue
		}
		for j, ws := range w.States {
			gs := g.Streams[j]
			if convs[gs.Conv].ID != ws.Conv || gs.Next != ws.Next || math.Abs(gs.Offset-ws.OffsetMs) > 1e-9 || gs.Waiting != ws.Waiting {
				t.Errorf("lane %d stream %d: %s next %d offset %v ms waiting %v, want %s %d %v %v", i, j, convs[gs.Conv].ID, gs.Next, gs.Offset, gs.Waiting,
					ws.Conv, ws.Next, ws.OffsetMs, ws.Waiting)
			}
		}
	}
}

// TestAgenticTrajectoriesMatchAIPerf pins the sampled lanes (t*, the
// streams live at t* and their offsets, the untimed start turns) to the
// values AIPerf's TrajectorySource computes for the same traces and seeds.
func TestAgenticTrajectoriesMatchAIPerf(t *testing.T) {
	for _, c := range loadAgenticRef(t).Cases {
		t.Run(c.Case.Name, func(t *testing.T) {
			convs, _ := refConversations(t, c.Case.Dataset)
			got, err := SampleTrajectories(convs, TrajectoryOptions{Lanes: c.Case.Concurrency, Seed: c.Case.Seed, MinRatio: c.Case.Min, MaxRatio: c.Case.Max},
				sequential(convs))
			if err != nil {
				t.Fatal(err)
			}
			checkTrajectories(t, convs, got, c.Trajectories)
		})
	}
}

// simDispatch is one request the simulated replay sent.
type simDispatch struct {
	phase    string
	t        time.Duration
	lane     int
	conv     string
	turn     int
	oneToken bool
}

func (d simDispatch) String() string {
	return fmt.Sprintf("%s t=%.6fs lane=%d %s[%d] one_token=%v", d.phase, d.t.Seconds(), d.lane, d.conv, d.turn, d.oneToken)
}

// simulate drives r as the thin loop does, against a server that answers
// request (conversation c, turn k) after service(c, k): an event
// simulation on a virtual clock, returns and timers in time order (at a
// tie, returns first). The warmup ends when r says it is done; the
// profiling phase stops duration after it started.
func simulate(t *testing.T, r *AgenticReplay, convs []AgenticConversation, service func(conv, turn int) time.Duration, duration time.Duration) (out []simDispatch, warmupEnd time.Duration) {
	t.Helper()
	type ret struct {
		at time.Duration
		s  AgenticSend
	}
	var pending []ret
	var now time.Duration
	phase := "warmup"
	record := func(sends []AgenticSend) {
		for _, s := range sends {
			if s.Due > now {
				t.Fatalf("%s: send %+v due after now %v", phase, s, now)
			}
			out = append(out, simDispatch{phase, now, s.Lane, convs[s.Conv].ID, s.Turn, s.OneToken})
			p := ret{now + service(s.Conv, s.Turn), s}
			i, _ := slices.BinarySearchFunc(pending, p.at, func(e ret, at time.Duration) int { return cmpDur(e.at, at+1) })
			pending = slices.Insert(pending, i, p)
		}
	}
	step := func(until time.Duration, limit bool) bool {
		next, ok := r.Next()
		if len(pending) > 0 && (!ok || pending[0].at <= next) {
			if limit && pending[0].at > until {
				return false
			}
			p := pending[0]
			pending = pending[1:]
			now = p.at
			record(r.Returned(now, p.s, AgenticOutcome{}))
			return true
		}
		if !ok || (limit && next >= until) {
			return false
		}
		now = next
		record(r.Due(now))
		return true
	}
	record(r.StartWarmup(now))
	for steps := 0; !r.Done(); steps++ {
		if steps > 100000 || !step(0, false) {
			t.Fatalf("warmup does not end (in flight %d)", r.InFlight())
		}
	}
	warmupEnd = now
	r.FinishWarmup(now)
	phase = "profiling"
	record(r.StartProfiling(now))
	end := warmupEnd + duration
	for steps := 0; steps < 100000 && step(end, true); steps++ {
	}
	return out, warmupEnd
}

func sortDispatches(d []simDispatch) {
	slices.SortStableFunc(d, func(a, b simDispatch) int {
		switch {
		case a.phase != b.phase:
			return strings.Compare(b.phase, a.phase) // warmup first
		case a.t != b.t:
			return int(a.t - b.t)
		case a.lane != b.lane:
			return a.lane - b.lane
		case a.conv != b.conv:
			return strings.Compare(a.conv, b.conv)
		}
		return a.turn - b.turn
	})
}

// TestAgenticScheduleMatchesAIPerf replays each simulated case of the
// reference and pins every request of the warmup and profiling phases
// (phase, time, lane, conversation, turn, one-token warmup) to the
// schedule AIPerf's AgenticReplayStrategy produced on a virtual clock
// against the same fixed-latency server: spread and burst phase starts,
// the trace idle cap on warmup leads and leading idle, the system idle
// cap, the cache warmup and its handoff, untimed traces. Times agree to
// within a microsecond (AIPerf adds float seconds).
func TestAgenticScheduleMatchesAIPerf(t *testing.T) {
	for _, c := range loadAgenticRef(t).Cases {
		if !c.Case.Simulate {
			continue
		}
		t.Run(c.Case.Name, func(t *testing.T) {
			convs, _ := refConversations(t, c.Case.Dataset)
			// The sampler that builds the lanes goes on to recycle them.
			next := sequential(convs)
			trajs, err := SampleTrajectories(convs, TrajectoryOptions{Lanes: c.Case.Concurrency, Seed: c.Case.Seed, MinRatio: c.Case.Min, MaxRatio: c.Case.Max}, next)
			if err != nil {
				t.Fatal(err)
			}
			checkTrajectories(t, convs, trajs, c.Trajectories)
			o := AgenticOptions{Burst: c.Case.Burst, NextRoot: next}
			if c.Case.TraceCap != nil {
				o.TraceIdleCap, o.HasTraceIdleCap = sec(*c.Case.TraceCap), true
			}
			if c.Case.SystemCap != nil {
				o.SystemIdleCap, o.HasSystemIdleCap = sec(*c.Case.SystemCap), true
			}
			if c.Case.CacheWarmup != nil {
				o.CacheWarmup = sec(*c.Case.CacheWarmup)
			}
			r, err := NewAgenticReplay(convs, trajs, o)
			if err != nil {
				t.Fatal(err)
			}
			// gen_reference.py's server: service_s + 10.1 ms per
			// conversation index + 3.7 ms per turn index.
			service := func(conv, turn int) time.Duration {
				return sec(c.Case.ServiceS + 0.0101*float64(conv) + 0.0037*float64(turn))
			}
			got, warmEnd := simulate(t, r, convs, service, sec(c.Case.DurationS))
			if d := warmEnd - sec(c.WarmupEndS); d > time.Microsecond || d < -time.Microsecond {
				t.Errorf("warmup ended at %v, want %vs", warmEnd, c.WarmupEndS)
			}
			if c.Handoff != nil {
				checkTrajectories(t, convs, r.Trajectories(), c.Handoff)
			}
			if o.HasSystemIdleCap && r.IdleJumps == 0 {
				t.Errorf("the system idle cap never moved a timer: the case does not exercise it")
			}
			var want []simDispatch
			for _, d := range c.Dispatches {
				lane := -1
				if d.Lane != nil {
					lane = *d.Lane
				}
				want = append(want, simDispatch{d.Phase, sec(d.T), lane, d.Conv, d.Turn, d.MaxTokens1})
			}
			sortDispatches(got)
			sortDispatches(want)
			n := max(len(got), len(want))
			bad := 0
			for i := range n {
				var g, w simDispatch
				if i < len(got) {
					g = got[i]
				}
				if i < len(want) {
					w = want[i]
				}
				dt := g.t - w.t
				if g.phase != w.phase || g.lane != w.lane || g.conv != w.conv || g.turn != w.turn || g.oneToken != w.oneToken || dt > time.Microsecond || dt < -time.Microsecond {
					if bad++; bad <= 5 {
						t.Errorf("request %d:\n got  %v\n want %v", i, g, w)
					}
				}
			}
			if len(got) != len(want) {
				t.Errorf("%d requests, want %d", len(got), len(want))
			}
		})
	}
}

func cmpDur(a, b time.Duration) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func sec(s float64) time.Duration { return time.Duration(math.Round(s * float64(time.Second))) }
