package connbudget

import (
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/fdlimit"
)

// A run whose connections do not fit under one process's hard limit is
// told the limit and the --workers count that fits, unless it already
// runs that many workers.
func TestShortMessageSuggestsWorkers(t *testing.T) {
	short := func(soft, want uint64) fdlimit.Result {
		l := fdlimit.Limit{Soft: soft, Hard: soft}
		return fdlimit.Result{Want: want, Before: l, After: l}
	}
	for _, tc := range []struct {
		name    string
		b       Budget
		r       fdlimit.Result
		want    []string
		wantNot string
	}{
		{"one process over 20,000", Budget{Peak: 100000}, short(20000, 100256),
			[]string{"open-file limit 20000 is below the 100256", "hard limit is 20000", "--workers 6 (19744 connections each at most)"}, ""},
		{"just over", Budget{Peak: 19800}, short(20000, 20056),
			[]string{"--workers 2"}, ""},
		{"workers too few", Budget{Peak: 100000, Workers: 4}, short(20000, 25256),
			[]string{"--workers 6"}, ""},
		{"workers' shares over the limit", Budget{Peak: 100000, Workers: 6}, short(16000, 16923),
			[]string{"open-file limit 16000 is below the 16923", "--workers 7"}, ""},
		{"tiny limit: only the limit", Budget{Peak: 1000}, short(256, 1256),
			[]string{"open-file limit 256"}, "--workers"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.b.shortMessage(tc.r)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("%q\nlacks %q", got, w)
				}
			}
			if tc.wantNot != "" && strings.Contains(got, tc.wantNot) {
				t.Errorf("%q\nsays %q", got, tc.wantNot)
			}
		})
	}
}
