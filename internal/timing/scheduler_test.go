package timing

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aiperf-go/aiperf/internal/clock"
	"github.com/aiperf-go/aiperf/internal/record"
)

const ms = time.Millisecond

// issued is one credit as the issue callback saw it.
type issued struct {
	c  Credit
	at time.Duration // clk.Now() inside issue
}

// harness runs a Scheduler inside a synctest bubble with fake workers that
// hold each credit for hold(c) of fake time and then call Done. It tracks
// how many credits are outstanding from the workers' side.
type harness struct {
	t   *testing.T
	clk *clock.Clock
	s   *Scheduler

	mu             sync.Mutex
	got            []issued
	outstanding    int
	maxOutstanding int
	wg             sync.WaitGroup
}

func newHarness(t *testing.T, o Options) *harness {
	t.Helper()
	s, err := New(o)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return &harness{t: t, clk: clock.New(), s: s}
}

// run runs the scheduler; hold == nil means credits are never returned.
func (h *harness) run(ctx context.Context, hold func(Credit) time.Duration) Stats {
	st := h.s.Run(ctx, h.clk, func(c Credit) {
		h.mu.Lock()
		h.got = append(h.got, issued{c, h.clk.Now()})
		h.outstanding++
		h.maxOutstanding = max(h.maxOutstanding, h.outstanding)
		h.mu.Unlock()
		if hold == nil {
			return
		}
		h.wg.Add(1)
		go func() {
			defer h.wg.Done()
			time.Sleep(hold(c))
			h.mu.Lock()
			h.outstanding--
			h.mu.Unlock()
			h.s.Done(c)
		}()
	})
	return st
}

func (h *harness) dues() []time.Duration {
	var out []time.Duration
	for _, g := range h.got {
		out = append(out, g.c.Due)
	}
	return out
}

func (h *harness) issueTimes() []time.Duration {
	var out []time.Duration
	for _, g := range h.got {
		out = append(out, g.at)
	}
	return out
}

// checkSeq checks credits carry Seq 0..n-1 and the phase, in order.
func (h *harness) checkSeq(phase record.Phase) {
	h.t.Helper()
	for i, g := range h.got {
		if g.c.Seq != uint64(i) || g.c.Phase != phase {
			h.t.Errorf("credit %d: Seq %d Phase %v, want Seq %d Phase %v", i, g.c.Seq, g.c.Phase, i, phase)
		}
	}
}

func msList(v ...int) []time.Duration {
	out := make([]time.Duration, len(v))
	for i, x := range v {
		out[i] = time.Duration(x) * ms
	}
	return out
}

func mustConstant(t *testing.T, rate float64) Arrivals {
	t.Helper()
	a, err := Constant(rate)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// mustGrid returns n arrivals on a grid at rate that starts at the phase
// start (0, 1/rate, 2/rate, ...), for scheduler tests that reason about a
// credit due at 0; Constant's own grid starts one interval later.
func mustGrid(t *testing.T, rate float64, n int) Arrivals {
	t.Helper()
	dues := make([]time.Duration, n)
	for i := range dues {
		dues[i] = time.Duration(float64(i) * 1e9 / rate)
	}
	a, err := Fixed(dues)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestSchedulerConstantRateCount(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, Options{Phase: record.Warmup, Arrivals: mustConstant(t, 10), Count: 5})
		st := h.run(t.Context(), nil)

		// The first constant arrival is one interval after the start.
		want := msList(100, 200, 300, 400, 500)
		if got := h.dues(); !slices.Equal(got, want) {
			t.Errorf("dues = %v, want %v", got, want)
		}
		if got := h.issueTimes(); !slices.Equal(got, want) {
			t.Errorf("issue times = %v, want %v", got, want)
		}
		h.checkSeq(record.Warmup)
		wantSt := Stats{Issued: 5, Start: 0, End: 500 * ms, Reason: StopCount, MaxOutstanding: 5}
		if st != wantSt {
			t.Errorf("stats = %+v, want %+v", st, wantSt)
		}
	})
}

func TestSchedulerDurationStop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, Options{Arrivals: mustConstant(t, 10), Duration: time.Second})
		st := h.run(t.Context(), func(Credit) time.Duration { return 50 * ms })
		h.wg.Wait()

		// The credit due at 1 s, the phase end, is not sent.
		want := msList(100, 200, 300, 400, 500, 600, 700, 800, 900)
		if got := h.dues(); !slices.Equal(got, want) {
			t.Errorf("dues = %v, want %v", got, want)
		}
		if got := h.issueTimes(); !slices.Equal(got, want) {
			t.Errorf("issue times = %v, want %v", got, want)
		}
		// Run returns at the end of the phase, not at the last credit.
		wantSt := Stats{Issued: 9, End: time.Second, Reason: StopDuration, MaxOutstanding: 1}
		if st != wantSt {
			t.Errorf("stats = %+v, want %+v", st, wantSt)
		}
	})
}

// TestSchedulerRateWithConcurrencyCap: rate 10/s with 2 slots and workers
// that hold each credit 250 ms. Dues stay on the 100 ms grid while issue
// times lag behind it; every late credit counts in Waited.
func TestSchedulerRateWithConcurrencyCap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, Options{Arrivals: mustConstant(t, 10), Concurrency: 2, Count: 8})
		st := h.run(t.Context(), func(Credit) time.Duration { return 250 * ms })
		h.wg.Wait()

		if got, want := h.dues(), msList(100, 200, 300, 400, 500, 600, 700, 800); !slices.Equal(got, want) {
			t.Errorf("dues = %v, want %v", got, want)
		}
		// Credit 2 is due at 300 but both slots are held until credit 0
		// returns at 350; credit 3 waits for credit 1 (450); and so on.
		if got, want := h.issueTimes(), msList(100, 200, 350, 450, 600, 700, 850, 950); !slices.Equal(got, want) {
			t.Errorf("issue times = %v, want %v", got, want)
		}
		if h.maxOutstanding > 2 {
			t.Errorf("workers saw %d outstanding, cap is 2", h.maxOutstanding)
		}
		wantSt := Stats{Issued: 8, End: 950 * ms, Reason: StopCount, MaxOutstanding: 2, Waited: 6}
		if st != wantSt {
			t.Errorf("stats = %+v, want %+v", st, wantSt)
		}
	})
}

// TestSchedulerClosedLoop: 3 slots, 7 credits, fake workers with fixed
// per-credit hold times. The first 3 credits are due at the start, every
// later one at the moment the Done that freed its slot arrived.
func TestSchedulerClosedLoop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		holds := msList(300, 100, 200, 150, 50, 400, 100)
		h := newHarness(t, Options{Concurrency: 3, Count: 7})
		st := h.run(t.Context(), func(c Credit) time.Duration { return holds[c.Seq] })
		h.wg.Wait() // credits 0, 5 and 6 return after Run has ended

		// c1 frees at 100 -> c3; c2 at 200 -> c4; c3 and c4 both at 250 -> c5, c6.
		want := msList(0, 0, 0, 100, 200, 250, 250)
		if got := h.dues(); !slices.Equal(got, want) {
			t.Errorf("dues = %v, want %v", got, want)
		}
		if got := h.issueTimes(); !slices.Equal(got, want) {
			t.Errorf("issue times = %v, want %v", got, want)
		}
		h.checkSeq(record.Profiling)
		if h.maxOutstanding > 3 {
			t.Errorf("workers saw %d outstanding, cap is 3", h.maxOutstanding)
		}
		wantSt := Stats{Issued: 7, End: 250 * ms, Reason: StopCount, MaxOutstanding: 3}
		if st != wantSt {
			t.Errorf("stats = %+v, want %+v", st, wantSt)
		}
	})
}

func TestSchedulerClosedLoopDuration(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, Options{Concurrency: 2, Duration: time.Second})
		st := h.run(t.Context(), func(Credit) time.Duration { return 300 * ms })
		h.wg.Wait()

		want := msList(0, 0, 300, 300, 600, 600, 900, 900)
		if got := h.dues(); !slices.Equal(got, want) {
			t.Errorf("dues = %v, want %v", got, want)
		}
		wantSt := Stats{Issued: 8, End: time.Second, Reason: StopDuration, MaxOutstanding: 2}
		if st != wantSt {
			t.Errorf("stats = %+v, want %+v", st, wantSt)
		}
	})
}

// TestSchedulerDurationEndsSlotWait: a credit waiting for a slot when the
// phase ends is never issued; it and the seven later credits due before
// the end (200 ms ... 900 ms) count as Unsent.
func TestSchedulerDurationEndsSlotWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, Options{Arrivals: mustConstant(t, 10), Concurrency: 1, Duration: time.Second})
		st := h.run(t.Context(), func(Credit) time.Duration { return 2 * time.Second })
		h.wg.Wait()
		wantSt := Stats{Issued: 1, End: time.Second, Reason: StopDuration, MaxOutstanding: 1, Unsent: 8}
		if st != wantSt {
			t.Errorf("stats = %+v, want %+v", st, wantSt)
		}
	})
}

// TestSchedulerCatchUp: when the scheduler wakes late, credits already due
// go out at once and the schedule resumes on its original grid (no drift).
func TestSchedulerCatchUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, Options{
			Arrivals: mustConstant(t, 10),
			Count:    6,
			Sleeper:  &lateSleeper{lateOn: 1, by: 250 * ms},
		})
		st := h.run(t.Context(), nil)
		if got, want := h.dues(), msList(100, 200, 300, 400, 500, 600); !slices.Equal(got, want) {
			t.Errorf("dues = %v, want %v", got, want)
		}
		if got, want := h.issueTimes(), msList(100, 450, 450, 450, 500, 600); !slices.Equal(got, want) {
			t.Errorf("issue times = %v, want %v", got, want)
		}
		if st.Waited != 0 || st.Issued != 6 {
			t.Errorf("stats = %+v", st)
		}
	})
}

// lateSleeper is a Coarse sleeper that oversleeps its lateOn-th wait.
type lateSleeper struct {
	Coarse
	lateOn, calls int
	by            time.Duration
}

func (l *lateSleeper) SleepUntil(ctx context.Context, clk *clock.Clock, d time.Duration) error {
	if l.calls == l.lateOn {
		d += l.by
	}
	l.calls++
	return l.Coarse.SleepUntil(ctx, clk, d)
}

func TestSchedulerCancel(t *testing.T) {
	tests := []struct {
		name   string
		rate   float64 // 0: closed loop
		o      Options
		issued uint64
	}{
		// Cancelled while sleeping until the next due time (1 s, 2 s issued).
		{"rate/sleeping", 1, Options{Count: 100}, 2},
		// Cancelled while waiting for a slot (rate mode).
		{"rate/slot", 1, Options{Concurrency: 1, Count: 100}, 1},
		// Cancelled while waiting for a slot (closed loop).
		{"closed/slot", 0, Options{Concurrency: 2, Count: 100}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				o := tt.o
				if tt.rate > 0 {
					o.Arrivals = mustConstant(t, tt.rate)
				}
				h := newHarness(t, o)
				ctx, cancel := context.WithCancel(t.Context())
				go func() {
					time.Sleep(2500 * ms)
					cancel()
				}()
				st := h.run(ctx, nil) // credits are never returned
				if st.Reason != StopCtx || st.Issued != tt.issued || st.End != 2500*ms {
					t.Errorf("stats = %+v, want reason ctx, %d issued, end 2.5s", st, tt.issued)
				}
			})
		})
	}

	// Already cancelled: nothing is issued.
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, Options{Concurrency: 1, Count: 5})
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if st := h.run(ctx, nil); st.Reason != StopCtx || st.Issued != 0 {
			t.Errorf("stats = %+v", st)
		}
	})
}

// TestSchedulerDoneAfterRun: Done after Run has returned, including more
// calls than credits, neither blocks nor panics.
func TestSchedulerDoneAfterRun(t *testing.T) {
	for _, o := range []Options{
		{Concurrency: 2, Count: 4},
		{Arrivals: &fixedArrivals{dues: msList(0, 0, 0, 0)}, Concurrency: 2, Count: 4},
		{Arrivals: &fixedArrivals{dues: msList(0, 0, 0, 0)}, Count: 4},
	} {
		synctest.Test(t, func(t *testing.T) {
			h := newHarness(t, o)
			ctx, cancel := context.WithTimeout(t.Context(), time.Second)
			defer cancel()
			st := h.run(ctx, nil)
			for _, g := range h.got {
				h.s.Done(g.c)
			}
			for range 10 {
				h.s.Done(Credit{})
			}
			if st.Issued == 0 {
				t.Errorf("stats = %+v", st)
			}
		})
	}
}

// TestSchedulerDoneInsideIssue: an issue callback that finishes the credit
// on the spot (Done on the scheduler goroutine) must not deadlock.
func TestSchedulerDoneInsideIssue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, a := range []Arrivals{nil, mustConstant(t, 1000)} {
			s, err := New(Options{Arrivals: a, Concurrency: 1, Count: 5})
			if err != nil {
				t.Fatal(err)
			}
			var n int
			st := s.Run(t.Context(), clock.New(), func(c Credit) { n++; s.Done(c) })
			if n != 5 || st.Issued != 5 || st.MaxOutstanding != 1 || st.Waited != 0 {
				t.Errorf("arrivals %T: issued %d, stats %+v", a, n, st)
			}
		}
	})
}

func TestSchedulerExhausted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, err := Fixed(msList(0, 10, 30))
		if err != nil {
			t.Fatal(err)
		}
		h := newHarness(t, Options{Arrivals: a, Count: 10})
		st := h.run(t.Context(), nil)
		if st.Reason != StopExhausted || st.Issued != 3 || st.End != 30*ms {
			t.Errorf("stats = %+v", st)
		}
	})
}

func TestSchedulerRunTwicePanics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, Options{Arrivals: mustConstant(t, 10), Count: 1})
		h.run(t.Context(), nil)
		defer func() {
			if recover() == nil {
				t.Error("second Run did not panic")
			}
		}()
		h.run(t.Context(), nil)
	})
}

func TestNewValidates(t *testing.T) {
	a := mustConstant(t, 1)
	tests := []struct {
		name string
		o    Options
		want []string // substrings; nil means valid
	}{
		{"rate count", Options{Arrivals: a, Count: 1}, nil},
		{"rate duration capped", Options{Arrivals: a, Duration: time.Second, Concurrency: 4}, nil},
		{"closed", Options{Concurrency: 1, Count: 1}, nil},
		{"no stop", Options{Arrivals: a}, []string{"count or a duration"}},
		{"closed no concurrency", Options{Count: 1}, []string{"closed-loop"}},
		{"everything wrong", Options{Count: -1, Duration: -1, Concurrency: -2}, []string{
			"count must be >= 0", "duration must be >= 0", "concurrency must be >= 0", "closed-loop",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := New(tt.o)
			if tt.want == nil {
				if err != nil || s == nil {
					t.Fatalf("New: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("want error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestStopReasonString(t *testing.T) {
	for r, want := range map[StopReason]string{
		StopCount: "count", StopDuration: "duration", StopCtx: "ctx", StopExhausted: "exhausted", 9: "StopReason(9)",
	} {
		if got := r.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", r, got, want)
		}
	}
}

func TestDefaultCount(t *testing.T) {
	for c, want := range map[int]int{0: 10, 1: 10, 5: 10, 6: 12, 100: 200} {
		if got := DefaultCount(c); got != want {
			t.Errorf("DefaultCount(%d) = %d, want %d", c, got, want)
		}
	}
}
