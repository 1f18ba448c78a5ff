package benchmark

import (
	"io"
	"log/slog"
	"slices"
	"testing"

	"github.com/aiperf-go/aiperf/internal/config"
)

// TestHeldByUserLimits: a limit the user chose (a concurrency cap under a
// request rate, a prefill gate) is named, so client health reports the
// lag it causes without judging it, and the live overload watch leaves
// such phases alone; a plain rate or a closed loop is judged as before.
func TestHeldByUserLimits(t *testing.T) {
	t.Parallel()
	ramp := &config.Ramp{}
	tests := []struct {
		name string
		spec PhaseSpec
		want []string
	}{
		{"rate only", PhaseSpec{Rate: 2000}, nil},
		{"closed loop", PhaseSpec{Concurrency: 8}, nil},
		{"rate with a concurrency cap", PhaseSpec{Rate: 100, Concurrency: 8}, []string{"--concurrency"}},
		{"rate ramp with a concurrency ramp", PhaseSpec{RateRamp: ramp, ConcurrencyRamp: ramp}, []string{"--concurrency"}},
		{"prefill gate in a closed loop", PhaseSpec{Concurrency: 8, Prefill: 2}, []string{"--prefill-concurrency"}},
		{"both", PhaseSpec{Rate: 50, Concurrency: 4, Prefill: 1}, []string{"--concurrency", "--prefill-concurrency"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.spec.heldBy(); !slices.Equal(got, tc.want) {
				t.Fatalf("heldBy = %q; want %q", got, tc.want)
			}
			p := &Plan{Phases: []*PhaseSpec{&tc.spec}}
			if w := newOverloadWatch(p, slog.New(slog.NewTextHandler(io.Discard, nil))); (w != nil) != (tc.spec.Rate > 0 && tc.want == nil) {
				t.Errorf("overload watch %v; want one only for a plain fixed rate", w)
			}
		})
	}
}
