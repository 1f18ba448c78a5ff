package mockserver

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// TestBatchCoreSteps pins the engine's state machine: admission into free
// slots oldest first, the price of each step, and retirement after the
// output length.
func TestBatchCoreSteps(t *testing.T) {
	t.Parallel()
	cfg := BatchConfig{Slots: 2, StepMs: 10, StepPerSeqMs: 5, PrefillPerTokenMs: 0.5}
	c := batchCore{cfg: &cfg}
	seq := func(isl, osl int) *batchSeq {
		return &batchSeq{isl: isl, left: osl, tokens: make(chan struct{}, osl), gone: make(chan struct{})}
	}
	a, b, q := seq(20, 2), seq(40, 3), seq(10, 1)
	c.waiting = []*batchSeq{a, b, q}
	ms := time.Millisecond
	// step: batch size after admission, prompt tokens admitted -> duration;
	// then who holds how many tokens once it ends.
	steps := []struct {
		want   time.Duration
		tokens [3]int
	}{
		{10*ms + 2*5*ms + 30*ms, [3]int{1, 1, 0}}, // a, b admitted (60 prompt tokens)
		{10*ms + 2*5*ms, [3]int{2, 2, 0}},         // a finishes
		{10*ms + 2*5*ms + 5*ms, [3]int{2, 3, 1}},  // q takes a's slot (10 tokens); b, q finish
	}
	for i, st := range steps {
		d, ok := c.begin()
		if !ok || d != st.want {
			t.Fatalf("step %d: begin() = %v, %v; want %v, true", i, d, ok, st.want)
		}
		c.end()
		for j, s := range []*batchSeq{a, b, q} {
			if got := len(s.tokens); got != st.tokens[j] {
				t.Errorf("step %d: sequence %d holds %d tokens; want %d", i, j, got, st.tokens[j])
			}
		}
	}
	if d, ok := c.begin(); ok {
		t.Errorf("begin() after every sequence finished = %v, true; want idle", d)
	}

	// A sequence whose handler left is dropped before it takes a slot.
	g, h := seq(0, 5), seq(0, 5)
	g.leave()
	c.waiting = []*batchSeq{g, h}
	if d, ok := c.begin(); !ok || d != 15*ms || len(c.running) != 1 || c.running[0] != h {
		t.Errorf("begin() with a departed sequence = %v, %v, running %d; want 15ms, true, only the live one", d, ok, len(c.running))
	}
}

// TestBatchEngineTimes runs three streaming requests through the engine on
// the bubble's fake clock and checks every token time against the model:
// slots 2, step 10 ms + 5 ms per sequence, arrivals at 0, 5 and 7 ms,
// three tokens each.
func TestBatchEngineTimes(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		cfg := DefaultConfig()
		cfg.Batch = BatchConfig{Slots: 2, StepMs: 10, StepPerSeqMs: 5}
		s := newTimedServer(cfg)
		const body = `{"stream":true,"max_tokens":3,"ignore_eos":true,"messages":[{"role":"user","content":"hi"}]}`
		ms := time.Millisecond
		arrivals := []time.Duration{0, 5 * ms, 7 * ms}
		// A: steps end at 15 (alone), 35 and 55 (with B).
		// B: admitted at 15, tokens at 35, 55, 75.
		// C: waits for A's slot; admitted at 55, tokens at 75, 90, 105.
		want := [][]time.Duration{{15 * ms, 35 * ms, 55 * ms}, {35 * ms, 55 * ms, 75 * ms}, {75 * ms, 90 * ms, 105 * ms}}
		got := make([][]time.Duration, len(arrivals))
		var wg sync.WaitGroup
		for i, at := range arrivals {
			wg.Go(func() {
				time.Sleep(at)
				rec := serveTimed(s, "/v1/chat/completions", body)
				for _, w := range rec.writes {
					if strings.Contains(w.data, `"content":" `) {
						got[i] = append(got[i], at+w.at)
					}
				}
			})
		}
		wg.Wait()
		for i := range want {
			if len(got[i]) != len(want[i]) {
				t.Fatalf("request %d: %d tokens at %v; want %v", i, len(got[i]), got[i], want[i])
			}
			for j := range want[i] {
				if got[i][j] != want[i][j] {
					t.Errorf("request %d token %d at %v; want %v", i, j, got[i][j], want[i][j])
				}
			}
		}
		if v := s.batch.view(); v.MaxBatch != 2 || v.Running != 0 || v.Queued != 0 {
			t.Errorf("engine after the run: %+v; want max batch 2, idle", v)
		}
	})
}

// TestBatchNonStreamingAndHealth checks that a non-streamed answer comes
// when its last token is decoded, and that /health describes the engine.
func TestBatchNonStreamingAndHealth(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		cfg := DefaultConfig()
		cfg.Batch = BatchConfig{Slots: 4, StepMs: 8, StepPerSeqMs: 2}
		s := newTimedServer(cfg)
		rec := serveTimed(s, "/v1/chat/completions", `{"max_tokens":5,"ignore_eos":true,"messages":[{"role":"user","content":"hi"}]}`)
		if len(rec.writes) != 1 || rec.writes[0].at != 50*time.Millisecond {
			t.Fatalf("non-streamed answer: %d writes, first at %v; want one at 5 steps x 10ms", len(rec.writes), rec.writes)
		}
		var out struct {
			Usage struct {
				CompletionTokens int `json:"completion_tokens"`
			} `json:"usage"`
		}
		if err := json.Unmarshal([]byte(rec.writes[0].data), &out); err != nil || out.Usage.CompletionTokens != 5 {
			t.Errorf("answer %q: %v, %d completion tokens; want 5", rec.writes[0].data, err, out.Usage.CompletionTokens)
		}
		h := httptest.NewRecorder()
		s.ServeHTTP(h, httptest.NewRequest(http.MethodGet, "/health", nil))
		var health struct {
			Batch  *batchView `json:"batch"`
			Config struct {
				Batch *batchModelView `json:"batch"`
			} `json:"config"`
		}
		if err := json.Unmarshal(h.Body.Bytes(), &health); err != nil {
			t.Fatal(err)
		}
		if health.Batch == nil || health.Batch.Slots != 4 || health.Batch.MaxBatch != 1 ||
			health.Config.Batch == nil || health.Config.Batch.StepMs != 8 {
			t.Errorf("/health = %s; want the engine's slots, max batch and model", h.Body.String())
		}
	})
}

// TestBatchClientGoneFreesSlot: a client that leaves mid-stream gives its
// slot back at the next step, so a queued request is admitted.
func TestBatchClientGoneFreesSlot(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		cfg := DefaultConfig()
		cfg.Batch = BatchConfig{Slots: 1, StepMs: 10}
		s := newTimedServer(cfg)
		const long = `{"stream":true,"max_tokens":1000,"ignore_eos":true,"messages":[{"role":"user","content":"hi"}]}`
		ctx, cancel := context.WithCancel(t.Context())
		req := httptest.NewRequest(http.MethodPost, "/v1/chat/completions", strings.NewReader(long)).WithContext(ctx)
		var wg sync.WaitGroup
		wg.Go(func() { s.ServeHTTP(httptest.NewRecorder(), req) })
		time.Sleep(25 * time.Millisecond)
		cancel() // the first client leaves after two tokens, mid-step
		rec := serveTimed(s, "/v1/chat/completions", `{"stream":true,"max_tokens":1,"ignore_eos":true,"messages":[{"role":"user","content":"hi"}]}`)
		wg.Wait()
		first := time.Duration(-1)
		for _, w := range rec.writes {
			if strings.Contains(w.data, `"content":" `) {
				first = w.at
			}
		}
		// The departed sequence holds its slot until the step in progress
		// (20-30 ms) ends; the newcomer is admitted then and decoded at
		// 40 ms, 15 ms after it arrived.
		if first != 15*time.Millisecond {
			t.Errorf("queued request's first token %v after it arrived; want 15ms", first)
		}
	})
}
