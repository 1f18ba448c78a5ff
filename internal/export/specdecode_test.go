package export

import (
	"strings"
	"testing"
)

// AIPerf's console cases for the pooled acceptance histogram.
func TestAcceptanceHistogramLine(t *testing.T) {
	t.Parallel()
	if got, want := acceptanceHistogramLine([]int64{6100, 300, 1800, 1800}),
		"Accepted-draft histogram (% steps):  0: 61%   1: 3%   2: 18%   3: 18%"; got != want {
		t.Errorf("line = %q; want %q", got, want)
	}
	twelve := make([]int64, 12) // buckets 0..11, one step each
	for j := range twelve {
		twelve[j] = 1
	}
	line := acceptanceHistogramLine(twelve)
	if !strings.Contains(line, ">=8: 33%") {
		t.Errorf("line = %q; want buckets 8..11 folded into >=8: 33%%", line)
	}
	if body := strings.SplitN(line, "):  ", 2)[1]; len(strings.Split(body, "   ")) != specHistogramCap+1 {
		t.Errorf("line = %q; want %d entries", line, specHistogramCap+1)
	}
	for _, h := range [][]int64{nil, {0, 0}} {
		if got := acceptanceHistogramLine(h); got != "" {
			t.Errorf("line(%v) = %q; want none", h, got)
		}
	}
}
