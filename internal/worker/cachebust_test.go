package worker

import (
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/record"
)

// TestRIDMarker pins the markers to AIPerf 0.13's build_cache_bust_marker.
func TestRIDMarker(t *testing.T) {
	t.Parallel()
	if got := RIDMarker("bench-1", 3, "session_000002", true); got != "[rid:19e1bceecc20]\n\n" {
		t.Errorf("prefix marker = %q", got)
	}
	if got := RIDMarker("bench-1", 0, "c", false); got != "\n\n[rid:3411bfdd82f6]" {
		t.Errorf("suffix marker = %q", got)
	}
	c := &CacheBust{Target: BustFirstTurnSuffix, BenchmarkID: "bench-1"}
	if a, b := c.marker(record.Profiling, "c"), c.marker(record.Warmup, "c"); a != "\n\n[rid:3411bfdd82f6]" || a == b {
		t.Errorf("markers of two instances: %q, %q; want the first pass's, then another", a, b)
	}
	// An agentic replay tree's marker digests its lane and trace (AIPerf's
	// resolve_tree_marker / build_cache_bust_marker('bench', 2, 3, 'trace-a')).
	tree := &CacheBust{Target: BustFirstTurnPrefix, BenchmarkID: "bench"}
	if got := tree.TreeMarker(2, 3, "trace-a"); got != "[rid:96c1ff681cbd]\n\n" {
		t.Errorf("tree marker = %q", got)
	}
	if got := (&CacheBust{Target: BustSystemSuffix, BenchmarkID: "bench"}).TreeMarker(0, 1, "t"); got != "\n\n[rid:399781905e98]" {
		t.Errorf("suffix tree marker = %q", got)
	}
	w := &CacheBust{Target: BustWarmupFirstTurn}
	if w.marker(record.Warmup, "c") != "[warmup]\n\n" || w.marker(record.Profiling, "c") != "" {
		t.Error("warmup isolation marks other than the warmup requests")
	}
	// Eight sample markers of 3, 3, ..., 4 words: mean rounds half to even.
	calls := 0
	cost := MarkerTokenCost(BustSystemPrefix, func(s string) int {
		calls++
		if !strings.HasPrefix(s, "[rid:") || !strings.HasSuffix(s, "\n\n") {
			t.Errorf("sample %q is not a prefix marker", s)
		}
		if calls > 4 {
			return 3
		}
		return 2
	})
	if calls != 8 || cost != 2 {
		t.Errorf("MarkerTokenCost = %d over %d samples; want 2 (mean 2.5) over 8", cost, calls)
	}
	if MarkerTokenCost(BustWarmupSystem, func(string) int { return 9 }) != 0 {
		t.Error("warmup isolation has a profiling token cost")
	}
}

// TestCacheBustMarking walks the turns each target marks.
func TestCacheBustMarking(t *testing.T) {
	t.Parallel()
	const m = "[rid:x]\n\n"
	texts := func(s ...string) dataset.Turn { return dataset.Turn{Texts: s} }
	t.Run("first turn", func(t *testing.T) {
		s := &sessionBust{c: &CacheBust{Target: BustFirstTurnPrefix}, marker: m}
		turns := []dataset.Turn{texts("a", "b"), texts("c"), {Texts: []string{"d"}, ResetContext: true}}
		var got []string
		for i := range turns {
			cp, err := s.mark(&turns[i], dataset.ContextDeltas, i == 0)
			if err != nil {
				t.Fatal(err)
			}
			if cp == nil {
				got = append(got, "-")
				continue
			}
			got = append(got, strings.Join(cp.Texts, ","))
		}
		if want := []string{m + "a,b", "-", m + "d"}; strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("marked %q; want %q", got, want)
		}
		if turns[0].Texts[0] != "a" {
			t.Error("the dataset turn itself was marked")
		}
	})
	t.Run("system suffix on every turn", func(t *testing.T) {
		s := &sessionBust{c: &CacheBust{Target: BustSystemSuffix}, marker: "\n\n[rid:x]"}
		for i := range 2 {
			cp, _ := s.mark(&dataset.Turn{System: "sys", Texts: []string{"u"}}, dataset.ContextDeltas, i == 0)
			if cp == nil || cp.System != "sys\n\n[rid:x]" || cp.Texts[0] != "u" {
				t.Errorf("turn %d: %+v", i, cp)
			}
		}
	})
	t.Run("recorded messages", func(t *testing.T) {
		s := &sessionBust{c: &CacheBust{Target: BustSystemPrefix}, marker: m}
		turn := dataset.Turn{Messages: []byte(`[{"role":"system","content":"be brief"},{"role":"user","content":[{"type":"text","text":"hi"}]}]`)}
		cp, err := s.mark(&turn, dataset.ContextMessageArray, true)
		if err != nil || cp == nil {
			t.Fatal(cp, err)
		}
		if want := `[{"role":"system","content":"[rid:x]\n\nbe brief"},{"role":"user","content":[{"type":"text","text":"hi"}]}]`; string(cp.Messages) != want {
			t.Errorf("messages = %s\nwant %s", cp.Messages, want)
		}
		// Without a leading system message a system target falls back to
		// the first user message: a list of parts gets a text part.
		s = &sessionBust{c: &CacheBust{Target: BustSystemSuffix}, marker: "\n\n[rid:x]"}
		turn = dataset.Turn{Messages: []byte(`[{"role":"assistant","content":"a"},{"role":"user","content":[{"type":"text","text":"hi"}]}]`)}
		cp, err = s.mark(&turn, dataset.ContextMessageArray, true)
		if err != nil || cp == nil {
			t.Fatal(cp, err)
		}
		if want := `[{"role":"assistant","content":"a"},{"role":"user","content":[{"type":"text","text":"hi"},{"type":"text","text":"[rid:x]"}]}]`; string(cp.Messages) != want {
			t.Errorf("messages = %s\nwant %s", cp.Messages, want)
		}
		// Message-array mode: every snapshot is marked again.
		if cp, _ := s.mark(&turn, dataset.ContextMessageArray, false); cp == nil {
			t.Error("second snapshot not marked")
		}
	})
	t.Run("raw payload", func(t *testing.T) {
		s := &sessionBust{c: &CacheBust{Target: BustFirstTurnPrefix}, marker: m}
		if cp, _ := s.mark(&dataset.Turn{RawPayload: []byte(`{}`)}, dataset.ContextDeltas, true); cp != nil {
			t.Error("a verbatim payload was marked")
		}
	})
}
