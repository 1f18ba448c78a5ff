package loader

import (
	"github.com/aiperf-go/aiperf/internal/dataset"
	"math"
	"sort"
	"time"
)

// wekaJoinEpsilon is AIPerf's tolerance when a main request starts as a
// subagent ends (seconds).
const wekaJoinEpsilon = 1e-6

// wekaSub is one subagent of a trace: the index of its marker among the
// trace's requests and its conversation.
type wekaSub struct {
	outer int
	conv  dataset.Conversation
}

// tree ties a trace's subagents to its main agent as AIPerf's Weka loader
// does, and returns the trace's conversations (the main agent first).
//
// A subagent is spawned by the last main request before its marker (none:
// SpawnTurn -1, and AIPerf drops it) and joined by the first later main
// request that starts at or after the subagent's recorded end (duration_ms
// after its marker, else its last request's end); none makes it a
// background branch. Subagents with the same spawning and joining turns
// form one branch, named after the first and starting at the earliest
// marker.
//
// With IdleGapCap the trace's timeline is compressed first (idleGapWarp
// over the start of every main and subagent request), and the recorded
// times, delays, branch starts and subagent ends follow it.
func (w *wekaBuilder) tree(tr *WekaTrace, main dataset.Conversation, subs []wekaSub) []dataset.Conversation {
	var mainOuter []int // main turn position -> index among tr.Requests
	for i, q := range tr.Requests {
		if q.Type != "subagent" && w.keep(q) {
			mainOuter = append(mainOuter, i)
		}
	}
	mainOuter = mainOuter[:min(len(mainOuter), len(main.Turns))]
	spawnOf := func(outer int) int {
		p := -1
		for pos, o := range mainOuter {
			if o < outer {
				p = pos
			}
		}
		return p
	}
	warp := func(t float64) float64 { return t }
	if w.o.IdleGapCap > 0 && !w.o.IgnoreDelays {
		var starts []float64
		for _, t := range main.Turns {
			starts = append(starts, t.TraceAt.Seconds())
		}
		for _, s := range subs {
			if spawnOf(s.outer) < 0 {
				continue // AIPerf drops it: not part of the trace's timeline
			}
			for _, t := range s.conv.Turns {
				starts = append(starts, t.TraceAt.Seconds())
			}
		}
		warp = idleGapWarp(starts, w.o.IdleGapCap.Seconds())
		warpTurns(main.Turns, warp)
		for i := range subs {
			warpTurns(subs[i].conv.Turns, warp)
		}
	}
	type group struct {
		spawn, join int
		id          string
		start       float64
		members     []int
	}
	var groups []*group
	for i, s := range subs {
		q := &tr.Requests[s.outer]
		spawn, join := spawnOf(s.outer), -1
		end := warp(wekaSubagentEnd(q))
		for pos, o := range mainOuter {
			if o > s.outer && warp(tr.Requests[o].T)+wekaJoinEpsilon >= end {
				join = pos
				break
			}
		}
		var g *group
		for _, x := range groups {
			if x.spawn == spawn && x.join == join {
				g = x
			}
		}
		if g == nil {
			g = &group{spawn: spawn, join: join, id: tr.ID + ":spawn:" + q.AgentID, start: math.Inf(1)}
			groups = append(groups, g)
		}
		g.start = min(g.start, warp(q.T))
		g.members = append(g.members, i)
	}
	var out []dataset.Conversation
	if len(main.Turns) > 0 {
		out = append(out, main)
	}
	for _, g := range groups {
		for _, i := range g.members {
			c := subs[i].conv
			c.Parent = main.ID
			c.Branch = dataset.Branch{ID: g.id, SpawnTurn: g.spawn, JoinTurn: g.join}
			if !w.o.IgnoreDelays {
				c.Branch.Start, c.Branch.HasStart = secDuration(g.start), true
			}
			subs[i].conv = c
		}
	}
	for _, s := range subs {
		out = append(out, s.conv)
	}
	return out
}

// wekaSubagentEnd is a subagent's recorded end in seconds (AIPerf's
// _sa_end_seconds): its marker time plus duration_ms, else the latest end
// of its requests, else the marker time.
func wekaSubagentEnd(q *WekaRequest) float64 {
	if q.DurationMs != nil {
		d := float64(*q.DurationMs) / 1000
		if math.IsNaN(d) || math.IsInf(d, 0) || d < 0 {
			d = 0
		}
		return q.T + d
	}
	if len(q.Requests) == 0 {
		return q.T
	}
	end := math.Inf(-1)
	for _, r := range q.Requests {
		t := r.T
		if t+wekaJoinEpsilon < q.T {
			t += q.T // relative to the spawn in older captures
		}
		api := r.APITime
		if math.IsNaN(api) || math.IsInf(api, 0) || api < 0 {
			api = 0
		}
		end = max(end, t+api)
	}
	return end
}

// warpTurns moves recorded times onto the compressed timeline: TraceAt
// (and a first turn's Timestamp) map through warp, and each later turn's
// delay shrinks by what its gap to the previous request lost (AIPerf
// derives it from the compressed starts minus the previous request's
// api_time, which is the same number).
func warpTurns(turns []dataset.Turn, warp func(float64) float64) {
	var prevRaw, prevNew float64
	for k := range turns {
		t := &turns[k]
		if !t.HasTraceAt {
			continue
		}
		raw := t.TraceAt.Seconds()
		mapped := warp(raw)
		if k > 0 {
			lost := (raw - prevRaw) - (mapped - prevNew)
			t.Delay = max(0, t.Delay-secDuration(lost))
		}
		t.TraceAt = secDuration(mapped)
		if t.HasTimestamp {
			t.Timestamp = t.TraceAt
		}
		prevRaw, prevNew = raw, mapped
	}
}

// idleGapWarp is AIPerf's _IdleGapTimeWarp: over the sorted request starts,
// every gap longer than capSec keeps its first capSec and loses the rest;
// a time inside a collapsed stretch maps to the end of the kept part, and
// later times move earlier by everything collapsed before them.
func idleGapWarp(starts []float64, capSec float64) func(float64) float64 {
	s := append([]float64(nil), starts...)
	sort.Float64s(s)
	type gap struct{ start, end, before, excess float64 }
	var gaps []gap
	shift := 0.0
	for i := 1; i < len(s); i++ {
		if d := s[i] - s[i-1]; d > capSec {
			gaps = append(gaps, gap{s[i-1], s[i], shift, d - capSec})
			shift += d - capSec
		}
	}
	return func(t float64) float64 {
		total := 0.0
		for _, g := range gaps {
			if t < g.start {
				return t - g.before
			}
			if t < g.end {
				if t-g.start <= capSec {
					return t - g.before
				}
				return g.start - g.before + capSec
			}
			total = g.before + g.excess
		}
		return t - total
	}
}

func secDuration(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
