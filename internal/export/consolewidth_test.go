package export

import (
	"fmt"
	"strings"
	"testing"
)

// TestConsoleWidths renders the fixture run at 80 and 120 columns: every
// line fits, and each metric row keeps its label whole (a label's second
// line is only ever its unit), because the stat columns give way in
// statColumnsFor's order (std, min, p90, max) before the labels wrap.
func TestConsoleWidths(t *testing.T) {
	t.Parallel()
	for _, width := range []int{80, 120} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			t.Parallel()
			out := renderConsole(t, fixtureSummary(), fixtureConsoleOptions(width))
			golden(t, fmt.Sprintf("console_%d.golden", width), []byte(out))
			for _, l := range strings.Split(out, "\n") {
				if cells(l) > width {
					t.Errorf("line wider than %d cells (%d): %q", width, cells(l), l)
				}
			}
			for _, label := range []string{"Time to First Token (ms)", "Request Latency (ms)", "Inter Token Latency (ms)", "Output Token Throughput Per User"} {
				if !strings.Contains(out, label+" │") {
					t.Errorf("at %d columns the label %q does not stay on one line:\n%s", width, label, out)
				}
			}
			if !strings.Contains(out, "┃    avg ┃") || !strings.Contains(out, "p99 ┃") || !strings.Contains(out, "p50 ┃") {
				t.Errorf("at %d columns avg, p99 and p50 must stay:\n%s", width, out)
			}
		})
	}
}

// TestStatColumnsFor: all seven columns when they fit; else std, min, p90
// and max give way in that order, never avg, p99 or p50.
func TestStatColumnsFor(t *testing.T) {
	t.Parallel()
	row := []string{"Time to First Token (ms)", "1,234.56", "1,234.56", "1,234.56", "1,234.56", "1,234.56", "1,234.56", "1,234.56"}
	shown := func(width int) string {
		keep := statColumnsFor([][]string{row}, width)
		var out []string
		for i, k := range consoleStatColumns {
			if keep[i] {
				out = append(out, k)
			}
		}
		return strings.Join(out, " ")
	}
	for _, tc := range []struct {
		width int
		want  string
	}{
		{140, "avg min max p99 p90 p50 std"},
		{105, "avg min max p99 p90 p50 std"}, // 1 + 24+3 + 7 x (8+3)
		{104, "avg min max p99 p90 p50"},
		{93, "avg max p99 p90 p50"},
		{80, "avg max p99 p50"},
		{60, "avg p99 p50"},
		{20, "avg p99 p50"},
	} {
		if got := shown(tc.width); got != tc.want {
			t.Errorf("width %d: %q; want %q", tc.width, got, tc.want)
		}
	}
}
