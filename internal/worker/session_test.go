package worker

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aiperf-go/aiperf/internal/clock"
	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/dataset/loader"
	"github.com/aiperf-go/aiperf/internal/endpoint"
	"github.com/aiperf-go/aiperf/internal/record"
	"github.com/aiperf-go/aiperf/internal/timing"
	"github.com/aiperf-go/aiperf/internal/tokenizer"
	"github.com/aiperf-go/aiperf/internal/transport"
)

// fakeSender answers every request after latency (fake time) with one
// chunk whose data is the reply text, and keeps the bodies it was sent.
type fakeSender struct {
	latency time.Duration
	mu      sync.Mutex
	bodies  []string
}

func (f *fakeSender) Do(ctx context.Context, clk *clock.Clock, req *transport.Request, rec *record.Record) {
	f.mu.Lock()
	f.bodies = append(f.bodies, string(req.Body))
	f.mu.Unlock()
	rec.Sent = clk.Now()
	if req.OnSent != nil { // Sender's contract: told once, as Sent is stamped
		req.OnSent(rec)
	}
	time.Sleep(f.latency)
	rec.End = clk.Now()
	rec.Chunks = []record.Chunk{{At: rec.End, Data: []byte("reply")}}
}

// echoEndpoint renders a body as the texts of the history and the turn,
// and parses a response's data as its text.
type echoEndpoint struct{}

func (echoEndpoint) Metadata() endpoint.Metadata { return endpoint.Metadata{} }
func (echoEndpoint) AppendPayload(dst []byte, t *dataset.Turn, o *endpoint.Options) ([]byte, error) {
	for _, m := range o.History {
		if m.Turn != nil {
			dst = append(dst, m.Turn.Texts[0]...)
		} else {
			dst = append(dst, m.Text...)
		}
		dst = append(dst, '|')
	}
	return append(dst, t.Texts[0]...), nil
}
func (echoEndpoint) ParseResponse(data []byte) (record.Parsed, error) {
	return record.Parsed{Text: string(data)}, nil
}

func sessionPool(t *testing.T, ds *dataset.Dataset, o Options) (*Pool, chan *record.Record) {
	t.Helper()
	out := make(chan *record.Record, 64)
	payloads := make([][][]byte, ds.Len())
	for c, conv := range ds.Conversations {
		for _, turn := range conv.Turns {
			payloads[c] = append(payloads[c], []byte(turn.Texts[0]))
		}
	}
	o.Clock, o.Dataset, o.Payloads, o.URLs = clock.New(), ds, payloads, []string{"http://x"}
	o.Pick, o.Out, o.Done = func() int { return 0 }, out, func(timing.Credit) {}
	p, err := NewPool(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return p, out
}

func conversation(delays ...time.Duration) *dataset.Dataset {
	conv := dataset.Conversation{ID: "c"}
	for i, d := range delays {
		conv.Turns = append(conv.Turns, dataset.Turn{Texts: []string{string(rune('a' + i))}, InputTokens: 1, Delay: d})
	}
	return &dataset.Dataset{Conversations: []dataset.Conversation{conv}}
}

// TestSessionHistoryDelaysAndCap: later turns carry the history with the
// replies, are due their (capped) delay after the previous response, and
// count the whole body's texts for ISL.
func TestSessionHistoryDelaysAndCap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &fakeSender{latency: 10 * time.Millisecond}
		p, out := sessionPool(t, conversation(0, 200*time.Millisecond, time.Hour), Options{
			Sender: s, Endpoint: echoEndpoint{}, EOptions: &endpoint.Options{},
			CapDelays: true, DelayCap: time.Second,
		})
		p.Dispatch(timing.Credit{})
		p.Close()
		close(out)
		var recs []*record.Record
		for r := range out {
			recs = append(recs, r)
		}
		if len(recs) != 3 {
			t.Fatalf("%d records, want 3", len(recs))
		}
		wantBodies := []string{"a", "a|reply|b", "a|reply|b|reply|c"}
		for i, b := range s.bodies {
			if b != wantBodies[i] {
				t.Errorf("turn %d body %q, want %q", i, b, wantBodies[i])
			}
		}
		wantDelay := []time.Duration{0, 200 * time.Millisecond, time.Second} // the hour is capped
		for i := 1; i < 3; i++ {
			if got := recs[i].Due - recs[i-1].End; got != wantDelay[i] {
				t.Errorf("turn %d due %v after the previous response, want %v", i, got, wantDelay[i])
			}
			if recs[i].Sent != recs[i].Due || recs[i].Scheduled {
				t.Errorf("turn %d: sent %v, due %v, scheduled %v", i, recs[i].Sent, recs[i].Due, recs[i].Scheduled)
			}
			if recs[i].XCorrelationID != recs[0].XCorrelationID {
				t.Errorf("turn %d has another session id", i)
			}
			if recs[i].InputTokens != -1 || len(recs[i].InputTexts) != 2*i+1 {
				t.Errorf("turn %d ISL texts %v (tokens %d), want the whole body's", i, recs[i].InputTexts, recs[i].InputTokens)
			}
		}
	})
}

// TestSessionStopSendingCutsThePause: StopSending ends a conversation at
// its next turn boundary, also in the middle of a pause.
func TestSessionStopSendingCutsThePause(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &fakeSender{}
		p, out := sessionPool(t, conversation(0, time.Hour), Options{Sender: s})
		p.Dispatch(timing.Credit{})
		<-out
		synctest.Wait() // the worker is in its pause
		p.StopSending()
		p.Close()
		if len(s.bodies) != 1 {
			t.Fatalf("%d requests sent, want only the first turn", len(s.bodies))
		}
	})
}

// TestSessionFixedScheduleTimestamps: in a replay, a later turn with its
// own timestamp is due at the credit's Due plus its distance from the first
// turn's timestamp, and is marked Scheduled.
func TestSessionFixedScheduleTimestamps(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ds := conversation(0, 0)
		ds.Conversations[0].Turns[0].Timestamp, ds.Conversations[0].Turns[0].HasTimestamp = 5*time.Second, true
		ds.Conversations[0].Turns[1].Timestamp, ds.Conversations[0].Turns[1].HasTimestamp = 8*time.Second, true
		p, out := sessionPool(t, ds, Options{Sender: &fakeSender{latency: time.Millisecond}, FixedSchedule: true})
		p.Dispatch(timing.Credit{Due: 0})
		p.Close()
		first, second := <-out, <-out
		if !first.Scheduled || !second.Scheduled {
			t.Errorf("scheduled = %v, %v; want both", first.Scheduled, second.Scheduled)
		}
		if second.Due != 3*time.Second || second.Sent != second.Due {
			t.Errorf("second turn due %v sent %v, want both 3s", second.Due, second.Sent)
		}
	})
}

// TestSessionSpentBudgetCutsThePause: once the request budget is spent,
// a conversation in its think time ends at once instead of sleeping out
// a pause after which it could send nothing; a budget that was spent and
// then refunded lets the pause run its course.
func TestSessionSpentBudgetCutsThePause(t *testing.T) {
	for _, refund := range []bool{false, true} {
		t.Run(map[bool]string{false: "spent", true: "refunded"}[refund], func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := &fakeSender{latency: time.Millisecond}
				b := NewBudget(1)
				if refund {
					b.Take()
					b.Refund(2) // spent once, then two requests given back
				}
				p, out := sessionPool(t, conversation(0, time.Hour), Options{Sender: s, Budget: b})
				start := time.Now()
				p.Dispatch(timing.Credit{})
				<-out
				p.Close()
				wantSent, wantPause := 1, time.Duration(0)
				if refund {
					wantSent, wantPause = 2, time.Hour
				}
				if len(s.bodies) != wantSent {
					t.Fatalf("%d requests sent, want %d", len(s.bodies), wantSent)
				}
				if got := time.Since(start) - time.Millisecond*time.Duration(wantSent); got != wantPause {
					t.Errorf("the conversation ended %v after its requests, want %v", got, wantPause)
				}
			})
		})
	}
}

func TestBudget(t *testing.T) {
	t.Parallel()
	b := NewBudget(100)
	var wg sync.WaitGroup
	var mu sync.Mutex
	taken := 0
	for range 8 {
		wg.Go(func() {
			for b.Take() {
				mu.Lock()
				taken++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if taken != 100 || !b.Exhausted() || b.Take() {
		t.Fatalf("taken %d, exhausted %v", taken, b.Exhausted())
	}
}

// TestSessionStartEndHooks: a conversation reports its start with its
// turns at its first send and its end once: completed when it sent every
// turn or was told to stop sending, cancelled when the pool was cancelled
// in its pause.
func TestSessionStartEndHooks(t *testing.T) {
	for _, tc := range []struct {
		name   string
		delays []time.Duration
		end    func(p *Pool, out chan *record.Record) // after the first record
		want   []string
	}{
		{"every turn", []time.Duration{0, 0}, func(*Pool, chan *record.Record) {}, []string{"start 2", "end false"}},
		{"stop sending", []time.Duration{0, time.Hour}, func(p *Pool, _ chan *record.Record) { synctest.Wait(); p.StopSending() }, []string{"start 2", "end false"}},
		{"cancelled in the pause", []time.Duration{0, time.Hour, 0}, func(p *Pool, _ chan *record.Record) { synctest.Wait(); p.Cancel() }, []string{"start 3", "end true"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var mu sync.Mutex
				var got []string
				note := func(s string) { mu.Lock(); got = append(got, s); mu.Unlock() }
				p, out := sessionPool(t, conversation(tc.delays...), Options{
					Sender:         &fakeSender{},
					OnSessionStart: func(turns int) { note("start " + strconv.Itoa(turns)) },
					OnSessionEnd:   func(cancelled bool) { note("end " + strconv.FormatBool(cancelled)) },
				})
				p.Dispatch(timing.Credit{})
				<-out
				tc.end(p, out)
				p.Close()
				if !slices.Equal(got, tc.want) {
					t.Errorf("hooks %v; want %v", got, tc.want)
				}
			})
		})
	}
}

// TestSessionBuildsLazyPrompts: a trace turn whose prompt is left lazy
// (no payload) is built when sent, by BodyEndpoint, into the body the
// load-time path builds, and its record carries the text to count.
func TestSessionBuildsLazyPrompts(t *testing.T) {
	tok, err := tokenizer.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	if err := os.WriteFile(path, []byte(`{"input_length": 40, "hash_ids": [1, 2, 3]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := loader.LoadOptions{Path: path, Type: loader.TypeMooncakeTrace, BlockSize: 16, Seed: 1, SeedSet: true}
	eager, err := loader.Load(o, tok)
	if err != nil {
		t.Fatal(err)
	}
	o.LazyPrompts = true
	lazy, err := loader.Load(o, tok)
	if err != nil {
		t.Fatal(err)
	}
	if lazy.Dataset.Conversations[0].Turns[0].Prompt == nil {
		t.Fatal("the prompt was built at load time")
	}
	synctest.Test(t, func(t *testing.T) {
		s := &fakeSender{}
		out := make(chan *record.Record, 1)
		p, err := NewPool(context.Background(), Options{Sender: s, Clock: clock.New(), Dataset: lazy.Dataset,
			Payloads: [][][]byte{{nil}}, URLs: []string{"http://x"}, Pick: func() int { return 0 }, Out: out,
			Done: func(timing.Credit) {}, BodyEndpoint: echoEndpoint{}, BodyOptions: &endpoint.Options{}})
		if err != nil {
			t.Fatal(err)
		}
		p.Dispatch(timing.Credit{})
		p.Close()
		rec := <-out
		want := eager.Dataset.Conversations[0].Turns[0].Texts[0]
		if len(s.bodies) != 1 || s.bodies[0] != want {
			t.Fatalf("bodies %q, want [%q]", s.bodies, want)
		}
		if rec.Failed() || rec.InputTokens != -1 || len(rec.InputTexts) != 1 || rec.InputTexts[0] != want || string(rec.RequestBody) != want {
			t.Errorf("record: error %v, input %q (%d tokens), body %q", rec.Error, rec.InputTexts, rec.InputTokens, rec.RequestBody)
		}
	})
}
