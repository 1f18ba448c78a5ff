package loader

import (
	"github.com/aiperf-go/aiperf/internal/dataset"
	"slices"
	"testing"
	"time"
)

// TestSynthesisMatchesAIPerf pins the Synthesis options to AIPerf 0.13's
// Synthesizer.synthesize_traces on the same traces (seed 42, block size
// 16; the expected values are its output).
func TestSynthesisMatchesAIPerf(t *testing.T) {
	t.Parallel()
	type tr struct {
		in  int // 0 = a text_input trace
		out int
		ids []int
		ts  int // ms
	}
	traces := []tr{
		{40, 5, []int{1, 2, 3}, 1000}, {48, 7, []int{1, 2, 4}, 1500}, {50, 3, []int{1, 5, 6, 7}, 2001}, {20, 4, nil, 2500},
		{70, 6, []int{1, 2, 4, 8}, 3333}, {0, 2, nil, 4000}, {70, 9, []int{9, 10}, 5000}, {33, 1, []int{9, 10, 11}, 5001},
	}
	for _, tc := range []struct {
		s    Synthesis
		want []tr
	}{
		{Synthesis{Transform: true, SpeedupRatio: 2, PrefixLenMultiplier: 2.5, PromptLenMultiplier: 1.3, PrefixRootMultiplier: 4, OutputLenMultiplier: 0.5, MaxISL: 100, MaxOSL: 3},
			[]tr{{90, 2, []int{2, 3, 4, 5, 23, 24}, 500}, {100, 3, []int{2, 3, 4, 5, 8, 9, 25, 26}, 750}, {92, 2, []int{2, 3, 27, 28, 29, 30}, 1000},
				{20, 2, nil, 1250}, {100, 3, []int{44, 45, 46, 47, 50, 51, 73, 74, 75, 76}, 1666}, {0, 1, nil, 2000},
				{100, 3, []int{60, 61, 62, 63, 77, 78, 79, 80, 81}, 2500}, {81, 1, []int{144, 145, 146, 147, 166, 167}, 2500}}},
		{Synthesis{Transform: true, SpeedupRatio: 0.75, PrefixLenMultiplier: 0.4, PromptLenMultiplier: 0.5, PrefixRootMultiplier: 1, OutputLenMultiplier: 2.5},
			[]tr{{20, 12, []int{1, 12}, 1333}, {16, 18, []int{1}, 2000}, {33, 8, []int{1, 13, 14}, 2668}, {20, 10, nil, 3333},
				{27, 15, []int{1, 15}, 4444}, {0, 5, nil, 5333}, {35, 22, []int{9, 16, 17}, 6666}, {16, 2, []int{9}, 6668}}},
	} {
		items := make([]*synthItem, len(traces))
		for i, x := range traces {
			items[i] = &synthItem{hashIDs: slices.Clone(x.ids), inputLen: x.in, hasInput: x.in > 0, ts: time.Duration(x.ts) * time.Millisecond, hasTS: true, out: x.out}
		}
		if err := tc.s.apply(items, 16, 42); err != nil {
			t.Fatal(err)
		}
		for i, it := range items {
			w := tc.want[i]
			if it.inputLen != w.in && w.in != 0 || it.out != w.out || !slices.Equal(it.hashIDs, w.ids) || it.ts != time.Duration(w.ts)*time.Millisecond {
				t.Errorf("%+v: trace %d = in %d out %d ids %v ts %v; want %+v", tc.s, i, it.inputLen, it.out, it.hashIDs, it.ts, w)
			}
		}
	}
	// MaxISL drops longer recorded requests; MaxOSL alone caps.
	s := Synthesis{MaxISL: 45, MaxOSL: 4}
	if !s.keep(&synthItem{inputLen: 45, hasInput: true}) || s.keep(&synthItem{inputLen: 46, hasInput: true}) || !s.keep(&synthItem{}) {
		t.Error("MaxISL keeps the wrong requests")
	}
	it := &synthItem{out: 9}
	s.apply([]*synthItem{it}, 16, 1)
	if it.out != 4 {
		t.Errorf("MaxOSL: out = %d; want 4", it.out)
	}
	// A trace shorter than its shared prefix is an error naming its line.
	bad := []*synthItem{{hashIDs: []int{1, 2}, inputLen: 10, hasInput: true, file: "t.jsonl", line: 3}, {hashIDs: []int{1, 2}, inputLen: 40, hasInput: true}}
	if err := (Synthesis{Transform: true, SpeedupRatio: 1, PrefixLenMultiplier: 2, PromptLenMultiplier: 1, PrefixRootMultiplier: 1, OutputLenMultiplier: 1}).apply(bad, 16, 1); err == nil || err.Error() == "" {
		t.Error("no error for a trace shorter than its prefix")
	} else if ie, ok := err.(*dataset.InputError); !ok || ie.Line != 3 {
		t.Errorf("error %v; want one naming line 3", err)
	}
}
