package mockserver

import (
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

func TestLognormal(t *testing.T) {
	t.Parallel()
	if got := lognormal(0, 3); got != 1 {
		t.Errorf("lognormal(0, 3) = %v; want 1", got)
	}
	for _, cv := range []float64{0.05, 0.3, 1} {
		rng := rand.New(rand.NewPCG(1, 2))
		const n = 200_000
		var sum, sumSq float64
		for range n {
			f := lognormal(cv, rng.NormFloat64())
			if !(f > 0) {
				t.Fatalf("lognormal(%v, z) = %v; want > 0", cv, f)
			}
			sum += f
			sumSq += f * f
		}
		mean := sum / n
		gotCV := math.Sqrt(sumSq/n-mean*mean) / mean
		if math.Abs(mean-1) > 0.01 || math.Abs(gotCV-cv)/cv > 0.05 {
			t.Errorf("cv %v: sample mean %.4f, cv %.4f; want 1, %v", cv, mean, gotCV, cv)
		}
	}
}

func TestTokenClock(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	tests := []struct {
		name          string
		cfg           Config
		isl, osl, act int
		wantTTFT      time.Duration
		wantITL       time.Duration
	}{
		{"base", Config{TTFT: 40 * ms, ITL: 10 * ms}, 100, 32, 8, 40 * ms, 10 * ms},
		{"per isl token", Config{TTFT: 40 * ms, ITL: 10 * ms, TTFTPerISLToken: 0.5}, 100, 32, 1, 90 * ms, 10 * ms},
		{"concurrency quad", Config{TTFT: 40 * ms, ITL: 10 * ms, TTFTConcurrencyQuad: 0.25}, 0, 32, 4, 44 * ms, 10 * ms},
		{"per osl token", Config{TTFT: 40 * ms, ITL: 10 * ms, ITLPerOSLToken: 0.125}, 0, 32, 1, 40 * ms, 14 * ms},
		{"concurrency lin", Config{TTFT: 40 * ms, ITL: 10 * ms, ITLConcurrencyLin: 1.5}, 0, 32, 4, 40 * ms, 16 * ms},
		{"fractional", Config{TTFT: 1500 * time.Microsecond, ITL: 333333 * time.Nanosecond}, 0, 3, 1, 1500 * time.Microsecond, 333333 * time.Nanosecond},
	}
	for _, tc := range tests {
		c := newTokenClock(&tc.cfg, tc.isl, tc.osl, tc.act, 0, nil)
		for i := range 40 {
			if got, want := c.next(), tc.wantTTFT+time.Duration(i)*tc.wantITL; got != want {
				t.Fatalf("%s: token %d due at %v; want %v", tc.name, i, got, want)
			}
		}
		c = newTokenClock(&tc.cfg, tc.isl, tc.osl, tc.act, 0, nil)
		if got, want := c.complete(tc.osl), tc.wantTTFT+time.Duration(tc.osl)*tc.wantITL; got != want {
			t.Errorf("%s: non-streaming answer due at %v; want TTFT + ITL x %d = %v", tc.name, got, tc.osl, want)
		}
	}
}

func TestTokenClockJitter(t *testing.T) {
	t.Parallel()
	cfg := Config{TTFT: 40 * time.Millisecond, ITL: 10 * time.Millisecond, TTFTJitterCV: 0.2, ITLJitterCV: 0.2}
	run := func() []time.Duration {
		c := newTokenClock(&cfg, 0, 0, 1, 1.5, rand.New(rand.NewPCG(9, 9)))
		out := make([]time.Duration, 200)
		for i := range out {
			out[i] = c.next()
		}
		return out
	}
	a, b := run(), run()
	sigma := math.Sqrt(math.Log1p(0.04))
	if want := millisDuration(40 * math.Exp(sigma*1.5-sigma*sigma/2)); a[0] != want {
		t.Errorf("jittered TTFT = %v; want %v", a[0], want)
	}
	onGrid := 0
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("token %d: %v != %v for the same seed", i, a[i], b[i])
		}
		if i > 0 && a[i] <= a[i-1] {
			t.Fatalf("token %d due at %v, not after token %d at %v", i, a[i], i-1, a[i-1])
		}
		if a[i] == a[0]+time.Duration(i)*10*time.Millisecond {
			onGrid++
		}
	}
	if onGrid > 2 {
		t.Errorf("%d of %d jittered deadlines sit on the un-jittered grid", onGrid, len(a))
	}
	// Mean gap stays near the ITL (lognormal mean 1): 199 gaps, cv 0.2 gives
	// a standard error of about 0.14 ms.
	if mean := (a[len(a)-1] - a[0]) / time.Duration(len(a)-1); mean < 9*time.Millisecond || mean > 11*time.Millisecond {
		t.Errorf("mean jittered gap %v; want about 10ms", mean)
	}
}

// timedRecorder is a ResponseWriter that records when each write happened,
// relative to its creation. Under synctest the clock is the bubble's fake
// clock, so the recorded offsets are exact.
type timedRecorder struct {
	*httptest.ResponseRecorder
	start  time.Time
	mu     sync.Mutex
	writes []timedWrite
}

type timedWrite struct {
	at   time.Duration
	data string
}

func newTimedRecorder() *timedRecorder {
	return &timedRecorder{ResponseRecorder: httptest.NewRecorder(), start: time.Now()}
}

func (r *timedRecorder) Write(b []byte) (int, error) {
	r.mu.Lock()
	r.writes = append(r.writes, timedWrite{time.Since(r.start), string(b)})
	r.mu.Unlock()
	return r.ResponseRecorder.Write(b)
}

// serveTimed runs one request through s on a fresh recorder.
func serveTimed(s *Server, path, body string) *timedRecorder {
	rec := newTimedRecorder()
	s.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, path, strings.NewReader(body)))
	return rec
}

// newTimedServer is a server for synctest bubbles: fine sleeping parks OS
// threads in real time, which the bubble's fake clock cannot see, so it is
// disabled; the timer path is then exact.
func newTimedServer(cfg Config) *Server {
	s := New(cfg)
	s.fine = nil
	return s
}

func TestStreamDeadlines(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		cfg := DefaultConfig()
		cfg.TTFT, cfg.ITL = 40*time.Millisecond, 10*time.Millisecond
		s := newTimedServer(cfg)
		for _, tc := range []struct{ path, body string }{
			{"/v1/chat/completions", `{"stream":true,"max_tokens":32,"ignore_eos":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}`},
			{"/v1/completions", `{"stream":true,"max_tokens":32,"ignore_eos":true,"prompt":"hi"}`},
		} {
			rec := serveTimed(s, tc.path, tc.body)
			var tokens []time.Duration
			for _, w := range rec.writes {
				if strings.Contains(w.data, `"content":" `) || strings.Contains(w.data, `"text":" `) {
					tokens = append(tokens, w.at)
				} else if strings.Contains(w.data, `"role"`) && w.at != 0 {
					t.Errorf("%s: role chunk at %v; want at arrival", tc.path, w.at)
				}
			}
			if len(tokens) != 32 {
				t.Fatalf("%s: %d token writes; want 32", tc.path, len(tokens))
			}
			for i, at := range tokens {
				if want := 40*time.Millisecond + time.Duration(i)*10*time.Millisecond; at != want {
					t.Errorf("%s: token %d written at %v; want %v", tc.path, i, at, want)
				}
			}
			last := rec.writes[len(rec.writes)-1]
			if last.data != sseDone || last.at != 350*time.Millisecond {
				t.Errorf("%s: last write %q at %v; want [DONE] at 350ms", tc.path, last.data, last.at)
			}
		}
	})
}

func TestNonStreamDeadline(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		cfg := DefaultConfig()
		cfg.TTFT, cfg.ITL = 40*time.Millisecond, 10*time.Millisecond
		s := newTimedServer(cfg)
		rec := serveTimed(s, "/v1/chat/completions", `{"max_tokens":32,"ignore_eos":true,"messages":[{"role":"user","content":"hi"}]}`)
		// AIPerf's non-streaming latency: TTFT + ITL x tokens.
		if len(rec.writes) != 1 || rec.writes[0].at != 360*time.Millisecond {
			t.Errorf("writes %v; want one body at 360ms", rec.writes)
		}
	})
}

func TestFastHasNoLatency(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		cfg := DefaultConfig()
		cfg.Fast = true
		s := newTimedServer(cfg)
		for _, body := range []string{
			`{"stream":true,"max_tokens":8,"messages":[{"role":"user","content":"hi"}]}`,
			`{"max_tokens":8,"messages":[{"role":"user","content":"hi"}]}`,
		} {
			rec := serveTimed(s, "/v1/chat/completions", body)
			if last := rec.writes[len(rec.writes)-1]; last.at != 0 {
				t.Errorf("fast response finished at %v; want 0", last.at)
			}
		}
	})
}

func TestConcurrencyScaling(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		cfg := DefaultConfig()
		cfg.TTFT, cfg.ITL = 40*time.Millisecond, 10*time.Millisecond
		cfg.TTFTConcurrencyQuad, cfg.ITLConcurrencyLin = 1, 2
		s := newTimedServer(cfg)
		body := `{"stream":true,"max_tokens":2,"ignore_eos":true,"messages":[{"role":"user","content":"hi"}]}`
		recs := make([]*timedRecorder, 3)
		var wg sync.WaitGroup
		for i := range recs {
			wg.Go(func() { recs[i] = serveTimed(s, "/v1/chat/completions", body) })
			synctest.Wait() // request i is waiting before request i+1 arrives
			if got := s.Active(); got != i+1 {
				t.Errorf("Active() = %d; want %d", got, i+1)
			}
		}
		wg.Wait()
		if got := s.Active(); got != 0 {
			t.Errorf("Active() after all = %d; want 0", got)
		}
		for i, rec := range recs {
			active := time.Duration(i + 1)
			var tokens []time.Duration
			for _, w := range rec.writes {
				if strings.Contains(w.data, `"content":" `) {
					tokens = append(tokens, w.at)
				}
			}
			ttft := 40*time.Millisecond + active*active*time.Millisecond
			itl := 10*time.Millisecond + 2*active*time.Millisecond
			if len(tokens) != 2 || tokens[0] != ttft || tokens[1]-tokens[0] != itl {
				t.Errorf("request %d (active %d): tokens at %v; want TTFT %v, ITL %v", i, active, tokens, ttft, itl)
			}
		}
	})
}

func TestSeededJitterReproducible(t *testing.T) {
	t.Parallel()
	offsets := func() []time.Duration {
		var out []time.Duration
		synctest.Test(t, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.TTFTJitterCV, cfg.ITLJitterCV = 0.5, 0.5
			cfg.RandomSeed, cfg.SeedSet = 11, true
			s := newTimedServer(cfg)
			for range 3 {
				rec := serveTimed(s, "/v1/completions", `{"stream":true,"max_tokens":16,"ignore_eos":true,"prompt":"hi"}`)
				for _, w := range rec.writes {
					out = append(out, w.at)
				}
			}
		})
		return out
	}
	a, b := offsets(), offsets()
	if len(a) != len(b) {
		t.Fatalf("write counts differ: %d vs %d", len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("write %d at %v vs %v with the same seed", i, a[i], b[i])
		}
	}
}
