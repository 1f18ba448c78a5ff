package record

import (
	"net/http"
	"testing"
	"time"
)

func TestParseLlamaTimings(t *testing.T) {
	ms := time.Millisecond
	cases := []struct {
		name string
		data string
		ok   bool
		want ServerTiming
	}{
		{"body", `{"choices":[],"timings":{"cache_n":0,"prompt_n":12,"prompt_ms":30.5,"prompt_per_token_ms":2.5,"prompt_per_second":400,"predicted_n":8,"predicted_ms":17.25,"predicted_per_token_ms":2.1,"predicted_per_second":463}}`,
			true, ServerTiming{Source: LlamaCpp, Has: HasPrefill | HasDecode | HasInference, Prefill: 30500 * time.Microsecond, Decode: 17250 * time.Microsecond, Inference: 47750 * time.Microsecond, PromptTokens: 12, DecodedTokens: 8}},
		{"no counts", `{"timings":{"prompt_ms":1,"predicted_ms":2}}`,
			true, ServerTiming{Source: LlamaCpp, Has: HasPrefill | HasDecode | HasInference, Prefill: ms, Decode: 2 * ms, Inference: 3 * ms, PromptTokens: -1, DecodedTokens: -1}},
		{"no timings", `{"choices":[]}`, false, ServerTiming{}},
		{"timings in text only", `{"choices":[{"delta":{"content":"\"timings\""}}]}`, false, ServerTiming{}},
		{"null", `{"timings":null}`, false, ServerTiming{}},
		{"missing predicted", `{"timings":{"prompt_ms":1}}`, false, ServerTiming{}},
		{"negative", `{"timings":{"prompt_ms":-1,"predicted_ms":2}}`, false, ServerTiming{}},
		{"string", `{"timings":{"prompt_ms":"1","predicted_ms":2}}`, false, ServerTiming{}},
		{"not json", `data: {"timings"`, false, ServerTiming{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := ParseLlamaTimings([]byte(c.data))
			if ok != c.ok || got != c.want {
				t.Errorf("got %+v, %v; want %+v, %v", got, ok, c.want, c.ok)
			}
		})
	}
}

// TestReadLlamaTimings: the totals are on the last content chunk of a
// stream, before a usage-only chunk and [DONE]; an earlier per-token
// timings object is not taken.
func TestReadLlamaTimings(t *testing.T) {
	rec := &Record{Chunks: []Chunk{
		{Data: []byte(`{"choices":[{"delta":{"content":"a"}}],"timings":{"prompt_ms":1,"predicted_ms":1}}`)},
		{Data: []byte(`{"choices":[{"delta":{},"finish_reason":"stop"}],"timings":{"prompt_ms":5,"predicted_ms":7}}`)},
		{Data: []byte(`{"choices":[],"usage":{}}`)},
		{Data: []byte(`[DONE]`)},
	}}
	ReadLlamaTimings(rec)
	if rec.Server.Prefill != 5*time.Millisecond || rec.Server.Decode != 7*time.Millisecond {
		t.Errorf("server timing %+v, want the last chunk's (5 ms, 7 ms)", rec.Server)
	}
	// A record that already has a server account keeps it.
	rec.Server = ServerTiming{Source: TGI, Has: HasQueue, Queue: time.Second}
	ReadLlamaTimings(rec)
	if rec.Server.Source != TGI {
		t.Errorf("overwrote the existing account: %+v", rec.Server)
	}
}

func TestParseTGIHeaders(t *testing.T) {
	ms := time.Millisecond
	cases := []struct {
		name string
		h    map[string]string
		ok   bool
		want ServerTiming
	}{
		{"all", map[string]string{"x-queue-time": "12", "x-validation-time": "1", "x-inference-time": "40", "x-time-per-token": "5", "x-prompt-tokens": "7", "x-generated-tokens": "8"},
			true, ServerTiming{Source: TGI, Has: HasQueue | HasValidation | HasInference, Queue: 12 * ms, Validation: ms, Inference: 40 * ms, PromptTokens: 7, DecodedTokens: 8}},
		{"minimal", map[string]string{"x-queue-time": "0", "x-inference-time": "3"},
			true, ServerTiming{Source: TGI, Has: HasQueue | HasInference, Inference: 3 * ms, PromptTokens: -1, DecodedTokens: -1}},
		{"no inference", map[string]string{"x-queue-time": "1"}, false, ServerTiming{}},
		{"garbage", map[string]string{"x-queue-time": "soon", "x-inference-time": "3"}, false, ServerTiming{}},
		{"negative", map[string]string{"x-queue-time": "-4", "x-inference-time": "3"}, false, ServerTiming{}},
		{"NaN", map[string]string{"x-queue-time": "NaN", "x-inference-time": "3"}, false, ServerTiming{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range c.h {
				h.Set(k, v)
			}
			got, ok := ParseTGIHeaders(h.Get)
			if ok != c.ok || got != c.want {
				t.Errorf("got %+v, %v; want %+v, %v", got, ok, c.want, c.ok)
			}
		})
	}
}

// TestDecompose: the parts partition the latency exactly.
func TestDecompose(t *testing.T) {
	ms := time.Millisecond
	rec := &Record{
		Due: 10 * ms, Sent: 12 * ms, End: 112 * ms,
		Trace:  HTTPTrace{GetConn: 12 * ms, GotConn: 15 * ms, WroteRequest: 16 * ms},
		Server: ServerTiming{Source: TGI, Has: HasQueue | HasValidation | HasInference, Queue: 20 * ms, Validation: ms, Inference: 70 * ms},
	}
	d, ok := rec.Decompose()
	if !ok {
		t.Fatal("not decomposed")
	}
	want := Decomposition{Dispatch: 2 * ms, Connect: 3 * ms, Send: ms, Server: rec.Server, Unexplained: 5 * ms}
	if d != want {
		t.Errorf("got %+v, want %+v", d, want)
	}
	if sum := d.Connect + d.Send + d.Server.Total() + d.Unexplained; sum != rec.Latency() {
		t.Errorf("parts sum to %v, latency %v", sum, rec.Latency())
	}
	// A send stamped late (the client descheduled after its write, while
	// the server already worked): the overlap is the server's, so Send
	// shrinks to what the server's account leaves and nothing is negative.
	late := *rec
	late.Trace.WroteRequest = 25 * ms // 10 ms after GotConn; the server's 91 ms leave 6
	d, _ = late.Decompose()
	want = Decomposition{Dispatch: 2 * ms, Connect: 3 * ms, Send: 6 * ms, Server: rec.Server, Unexplained: 0}
	if d != want {
		t.Errorf("late send stamp: got %+v, want %+v", d, want)
	}
	// A server reporting more than the whole window the client saw keeps
	// the excess visible as a negative rest.
	over := *rec
	over.Server.Inference = 100 * ms // 121 ms of server time in 97 ms
	d, _ = over.Decompose()
	want = Decomposition{Dispatch: 2 * ms, Connect: 3 * ms, Send: 0, Server: over.Server, Unexplained: -24 * ms}
	if d != want {
		t.Errorf("over-reporting server: got %+v, want %+v", d, want)
	}
	for name, r := range map[string]*Record{
		"no server timing": {Sent: ms, End: 2 * ms, Trace: rec.Trace},
		"no trace":         {Sent: ms, End: 2 * ms, Server: rec.Server},
	} {
		if _, ok := r.Decompose(); ok {
			t.Errorf("%s: decomposed", name)
		}
	}
}

func FuzzParseLlamaTimings(f *testing.F) {
	f.Add([]byte(`{"timings":{"prompt_ms":30.5,"predicted_ms":17.25,"prompt_n":3}}`))
	f.Add([]byte(`{"timings":{}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, ok := ParseLlamaTimings(data)
		if !ok {
			return
		}
		if got.Prefill < 0 || got.Decode < 0 || got.Inference != got.Prefill+got.Decode {
			t.Errorf("inconsistent %+v from %q", got, data)
		}
	})
}

func FuzzParseTGIHeaders(f *testing.F) {
	f.Add("12", "40", "1")
	f.Add("1.5", "x", "")
	f.Fuzz(func(t *testing.T, queue, inference, validation string) {
		h := map[string]string{HeaderTGIQueue: queue, HeaderTGIInference: inference, HeaderTGIValidation: validation}
		got, ok := ParseTGIHeaders(func(k string) string { return h[k] })
		if ok && (got.Queue < 0 || got.Inference < 0 || got.Validation < 0) {
			t.Errorf("negative part %+v", got)
		}
	})
}
