package loader

import (
	"fmt"
	"github.com/aiperf-go/aiperf/internal/dataset"
	"math"
	"strings"
	"testing"
	"time"
)

// wekaJSON builds a Weka trace: main requests at the given start times
// (seconds), and subagents given as "t:duration_ms:inner_t" after the
// main request with the same index.
func wekaJSON(id string, mains []float64, subs map[int][]string) string {
	var reqs []string
	hash := 1
	for i, t := range mains {
		reqs = append(reqs, fmt.Sprintf(`{"t":%v,"type":"n","model":"m","in":128,"out":8,"hash_ids":[%d,%d],"api_time":0.5}`, t, hash, hash+1))
		hash += 2
		for j, s := range subs[i] {
			var at, dur, inner float64
			fmt.Sscanf(strings.ReplaceAll(s, ":", " "), "%g %g %g", &at, &dur, &inner)
			reqs = append(reqs, fmt.Sprintf(`{"t":%v,"type":"subagent","agent_id":"s%d_%d","duration_ms":%v,"requests":[{"t":%v,"type":"n","model":"m","in":128,"out":8,"hash_ids":[%d,%d],"api_time":0.2}]}`,
				at, i, j, dur, inner, 100+hash, 101+hash))
			hash += 2
		}
	}
	return fmt.Sprintf(`{"id":%q,"models":["m"],"block_size":64,"hash_id_scope":"local","requests":[%s]}`, id, strings.Join(reqs, ","))
}

func wekaConvs(t *testing.T, trace string, o WekaOptions) []dataset.Conversation {
	t.Helper()
	tr, err := ParseWekaTrace([]byte(trace), "test")
	if err != nil {
		t.Fatal(err)
	}
	tok, err := formatsTok()
	if err != nil {
		t.Fatal(err)
	}
	convs, err := WekaConversations([]*WekaTrace{tr}, o, tok)
	if err != nil {
		t.Fatal(err)
	}
	return convs
}

// TestWekaSubagentBranches pins AIPerf's Weka join rule (its loader's own
// examples): a subagent is spawned by the main request before its marker
// and joined by the first later main request starting at or after its
// end; one that outlives every later main request runs in the background;
// subagents with the same spawn and join share a branch.
func TestWekaSubagentBranches(t *testing.T) {
	t.Parallel()
	// parent[0] t=0; A ends at 6, B at 12.5, C at 24, D and E at 4 and 5;
	// parent[1] t=6, parent[2] t=20.
	trace := wekaJSON("tr", []float64{0, 6, 20}, map[int][]string{
		0: {"1:5000:1.1", "1.5:11000:1.6", "2:22000:2.1", "0.5:3500:0.6", "0.7:4300:0.8"},
	})
	convs := wekaConvs(t, trace, WekaOptions{})
	want := map[string]dataset.Branch{
		"tr::sa:s0_0": {ID: "tr:spawn:s0_0", SpawnTurn: 0, JoinTurn: 1, Start: 500 * time.Millisecond, HasStart: true},
		"tr::sa:s0_1": {ID: "tr:spawn:s0_1", SpawnTurn: 0, JoinTurn: 2, Start: 1500 * time.Millisecond, HasStart: true},
		"tr::sa:s0_2": {ID: "tr:spawn:s0_2", SpawnTurn: 0, JoinTurn: -1, Start: 2 * time.Second, HasStart: true},
		// D and E end by parent[1] too: A's branch (the first of the
		// group), starting at the earliest marker.
		"tr::sa:s0_3": {ID: "tr:spawn:s0_0", SpawnTurn: 0, JoinTurn: 1, Start: 500 * time.Millisecond, HasStart: true},
		"tr::sa:s0_4": {ID: "tr:spawn:s0_0", SpawnTurn: 0, JoinTurn: 1, Start: 500 * time.Millisecond, HasStart: true},
	}
	if len(convs) != 6 || convs[0].ID != "tr" || convs[0].Parent != "" {
		t.Fatalf("conversations %v", ids(convs))
	}
	for _, c := range convs[1:] {
		if c.Parent != "tr" || c.Branch != want[c.ID] {
			t.Errorf("%s: parent %q branch %+v, want %+v", c.ID, c.Parent, c.Branch, want[c.ID])
		}
		if !c.Turns[0].HasTraceAt {
			t.Errorf("%s: no recorded time", c.ID)
		}
	}
	// Every main turn records its start; only the first schedules.
	for k, at := range []time.Duration{0, 6 * time.Second, 20 * time.Second} {
		if tt := convs[0].Turns[k]; !tt.HasTraceAt || tt.TraceAt != at || tt.HasTimestamp != (k == 0) {
			t.Errorf("main turn %d: trace at %v (%v), timestamp %v", k, tt.TraceAt, tt.HasTraceAt, tt.HasTimestamp)
		}
	}
	// --ignore-trace-delays: no recorded times, branches without a start.
	nd := wekaConvs(t, trace, WekaOptions{IgnoreDelays: true})
	if nd[0].Turns[1].HasTraceAt || nd[1].Branch.HasStart {
		t.Error("--ignore-trace-delays kept recorded times")
	}
}

// TestIdleGapWarp pins the timeline compression to AIPerf's
// _IdleGapTimeWarp on the same request starts and cap (values printed by
// AIPerf 0.13's aiperf.dataset.loader.weka_trace._IdleGapTimeWarp).
func TestIdleGapWarp(t *testing.T) {
	t.Parallel()
	w := idleGapWarp([]float64{0, 20, 220, 221, 400, 1000}, 60)
	for _, c := range [][2]float64{
		{0, 0}, {10, 10}, {20, 20}, {50, 50}, {79.9, 79.9}, {80, 80}, {100, 80}, {219.9, 80}, {220, 80},
		{221, 81}, {250, 110}, {300, 141}, {399, 141}, {400, 141}, {999, 201}, {1000, 201}, {1200, 401},
	} {
		if got := w(c[0]); math.Abs(got-c[1]) > 1e-9 {
			t.Errorf("warp(%v) = %v, want %v", c[0], got, c[1])
		}
	}
}

// TestWekaIdleGapCap compresses a trace's timeline over its main and
// subagent requests together: the 100 s idle after the subagent keeps 10 s,
// the delay before the next main request shrinks by the 90 s lost, and the
// join follows the compressed subagent end.
func TestWekaIdleGapCap(t *testing.T) {
	t.Parallel()
	trace := wekaJSON("g", []float64{0, 110}, map[int][]string{0: {"1:2000:1.5"}})
	plain := wekaConvs(t, trace, WekaOptions{})
	capped := wekaConvs(t, trace, WekaOptions{IdleGapCap: 10 * time.Second, DelayCap: time.Second})
	// Starts 0, 1.5, 110: the 1.5 -> 110 gap keeps 10 s, so 110 -> 11.5.
	if at := capped[0].Turns[1].TraceAt; at != 11500*time.Millisecond {
		t.Errorf("main turn 1 at %v, want 11.5s", at)
	}
	if d, want := capped[0].Turns[1].Delay, plain[0].Turns[1].Delay-98500*time.Millisecond; d != want {
		t.Errorf("main turn 1 delay %v, want %v (the uncapped %v less the 98.5 s lost)", d, want, plain[0].Turns[1].Delay)
	}
	if b := capped[1].Branch; b.JoinTurn != 1 || b.Start != time.Second {
		t.Errorf("branch %+v", b)
	}
}
