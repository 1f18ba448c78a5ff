package timing

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

// TestSeededDueTimes pins the reproducibility contract: a seed always yields
// these due times (ns). A change here changes every seeded schedule, so it
// must be deliberate (the PCG stream constants, the gap formula, the
// rounding). The same values are rebuilt from first principles, so the
// formula is checked too: due_n = round(1e9 · Σ_{i<=n} gap_i) with the gaps
// drawn from PCG(seed, stream).
func TestSeededDueTimes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		a    func() (Arrivals, error)
		want []int64
		gap  func(r *rand.Rand) float64 // nil: no first-principles rebuild
		str  uint64
	}{
		{"poisson rate=100 seed=42", func() (Arrivals, error) { return Poisson(100, 42) },
			[]int64{17596125, 20841898, 88698470, 124003681, 165394039, 167469053},
			func(r *rand.Rand) float64 { return r.ExpFloat64() / 100 }, poissonStream},
		{"gamma rate=100 k=1 seed=42", func() (Arrivals, error) { return Gamma(100, 1, 42) },
			[]int64{6258585, 22431745, 25657396, 26321214, 35231330, 37635085},
			func(r *rand.Rand) float64 { return r.ExpFloat64() / 100 }, gammaStream},
		{"gamma rate=100 k=2 seed=42", func() (Arrivals, error) { return Gamma(100, 2, 42) },
			[]int64{12524620, 29601036, 35174009, 52384731, 75945769, 100454718},
			func(r *rand.Rand) float64 { return gammaDraw(r, 2) / 200 }, gammaStream},
		{"gamma rate=100 k=0.5 seed=42", func() (Arrivals, error) { return Gamma(100, 0.5, 42) },
			[]int64{14766299, 15543559, 17110527, 63391856, 68118953, 69859724},
			func(r *rand.Rand) float64 { return gammaDraw(r, 0.5) / 50 }, gammaStream},
		{"constant rate=100", func() (Arrivals, error) { return Constant(100) },
			[]int64{10e6, 20e6, 30e6, 40e6, 50e6, 60e6}, nil, 0},
	}
	for _, tt := range tests {
		a, err := tt.a()
		if err != nil {
			t.Fatal(err)
		}
		var got []int64
		for _, d := range take(t, a, len(tt.want)) {
			got = append(got, int64(d))
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: due times %v, want %v", tt.name, got, tt.want)
		}
		if tt.gap == nil {
			continue
		}
		r := rand.New(rand.NewPCG(42, tt.str))
		var sum float64
		for i, w := range tt.want {
			sum += tt.gap(r)
			if d := int64(math.Round(sum * 1e9)); d != w {
				t.Errorf("%s: due[%d] rebuilt as %d, pinned %d", tt.name, i, d, w)
			}
		}
	}
}

// TestGammaShapeStatistics checks more shapes' long-run mean gap and CV
// against theory (1/rate and 1/sqrt(k)) and that the gap distribution's
// median matches the exponential's ln 2/rate for k = 1, over 200k draws.
func TestGammaShapeStatistics(t *testing.T) {
	t.Parallel()
	const n = 200_000
	for _, k := range []float64{0.1, 0.75, 1.5, 3, 25} {
		a, err := Gamma(1000, k, 9)
		if err != nil {
			t.Fatal(err)
		}
		mean, cv := gapStats(t, a, n)
		if rel := math.Abs(mean-1e-3) / 1e-3; rel > 0.015 {
			t.Errorf("k=%v: mean gap %.6g s, want 1e-3 within 1.5%%", k, mean)
		}
		if want := 1 / math.Sqrt(k); math.Abs(cv-want)/want > 0.03 {
			t.Errorf("k=%v: CV %.4f, want %.4f within 3%%", k, cv, want)
		}
	}
	p, _ := Poisson(1000, 9)
	gaps := make([]float64, n)
	var prev time.Duration
	for i := range gaps {
		d, _ := p.Next()
		gaps[i] = (d - prev).Seconds()
		prev = d
	}
	slices.Sort(gaps)
	if med, want := gaps[n/2], math.Ln2/1000; math.Abs(med-want)/want > 0.02 {
		t.Errorf("poisson median gap %.6g, want ln2/rate = %.6g", med, want)
	}
}

// TestSchedulerCatchUpAfterStall pins the catch-up rule, with the client
// waking 50 ms late at 1,000 requests/s:
//
//   - Which requests go out: every credit whose due time has passed by the
//     moment the scheduler wakes, in Seq order; none is skipped, merged or
//     rescheduled.
//   - With what Due: each keeps its scheduled Due (1, 2, ..., 51 ms), so its
//     lateness (Sent - Due) is measured and reported as schedule_lag.
//   - How many at once: all of them, back to back, without sleeping: the
//     burst is bounded by the stall (stall x rate + 1 = 51 credits here), and
//     by the free concurrency slots when a cap is set (the rest wait for
//     slots and count in Stats.Waited).
//   - Afterwards the schedule resumes on its original grid (52 ms, 53 ms,
//     ...): lateness never accumulates and the mean rate is unchanged.
func TestSchedulerCatchUpAfterStall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, Options{
			Arrivals: mustGrid(t, 1000, 60),
			Count:    60,
			Sleeper:  &lateSleeper{lateOn: 1, by: 50 * ms}, // the wait for due 1 ms wakes at 51 ms
		})
		st := h.run(t.Context(), nil)
		dues, at := h.dues(), h.issueTimes()
		for i := range 60 {
			if dues[i] != time.Duration(i)*ms {
				t.Fatalf("credit %d: Due %v, want %v (the schedule's own time)", i, dues[i], time.Duration(i)*ms)
			}
		}
		burst := 0
		for i, a := range at {
			switch {
			case i == 0 && a != 0:
				t.Errorf("credit 0 issued at %v, want 0", a)
			case i >= 1 && i <= 51:
				if a != 51*ms {
					t.Errorf("credit %d issued at %v, want 51ms (in the catch-up burst)", i, a)
				}
				burst++
			case i > 51 && a != dues[i]:
				t.Errorf("credit %d issued at %v, want on time at %v", i, a, dues[i])
			}
		}
		if burst != 51 {
			t.Errorf("burst of %d credits, want 51", burst)
		}
		// Lateness: 50 ms for due 1 ms down to 0 for due 51 ms.
		if lag := at[1] - dues[1]; lag != 50*ms {
			t.Errorf("worst lag %v, want 50ms", lag)
		}
		if st.Issued != 60 || st.Waited != 0 || st.End != 59*ms {
			t.Errorf("stats = %+v", st)
		}
	})
}

// TestSchedulerCatchUpBoundedBySlots: the same stall with a concurrency cap
// of 10 and requests that take 20 ms: the burst is cut at the free slots;
// the other overdue credits go out as slots free, still with their own Due,
// and count as having waited.
func TestSchedulerCatchUpBoundedBySlots(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, Options{
			Arrivals:    mustGrid(t, 1000, 30),
			Count:       30,
			Concurrency: 10,
			Sleeper:     &lateSleeper{lateOn: 1, by: 50 * ms},
		})
		st := h.run(t.Context(), func(Credit) time.Duration { return 20 * ms })
		h.wg.Wait()
		at := h.issueTimes()
		dues := h.dues()
		atWake := 0
		for i, a := range at {
			if dues[i] != time.Duration(i)*ms {
				t.Errorf("credit %d: Due %v, want %v", i, dues[i], time.Duration(i)*ms)
			}
			if a == 51*ms {
				atWake++
			}
		}
		// Credit 0 (0-20 ms) is done by 51 ms, so all 10 slots are free.
		if atWake != 10 {
			t.Errorf("%d credits issued at the wake-up, want 10 (the free slots)", atWake)
		}
		// Credits 11-20 wait for the burst's slots (free at 71 ms).
		for i := 11; i <= 20; i++ {
			if at[i] != 71*ms {
				t.Errorf("credit %d issued at %v, want 71ms when slots free", i, at[i])
			}
		}
		if h.maxOutstanding > 10 {
			t.Errorf("%d outstanding, cap 10", h.maxOutstanding)
		}
		if st.Issued != 30 || st.Waited == 0 {
			t.Errorf("stats = %+v, want 30 issued and some waited", st)
		}
	})
}
