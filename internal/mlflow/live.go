package mlflow

import (
	"context"
	"sync"
	"time"

	"github.com/aiperf-go/aiperf/internal/live"
)

// Live metrics: what AIPerf's fanout logs while a run goes, under
// live.<name>: each request's GenAI histogram values (seconds, tokens)
// and the phases' cumulative timing counters (per phase:
// live.aiperf.timing.requests.sent.profiling, ...), each key with its own
// increasing step.
var liveRecordMetrics = map[string]struct {
	name  string
	scale float64 // display unit -> logged unit
}{
	"request_latency":     {"gen_ai.client.operation.duration", 1e-3},
	"time_to_first_token": {"gen_ai.client.operation.time_to_first_chunk", 1e-3},
	"inter_token_latency": {"gen_ai.client.operation.time_per_output_chunk", 1e-3},
	"output_token_count":  {"gen_ai.client.token.usage", 1},
}

// Streamer logs live metrics to a run; it is a live.Observer and a
// live.RecordObserver. Values are buffered and sent with log-batch every
// interval or maxBuffered values, from one goroutine; when the server
// falls behind, the oldest values beyond 5x the batch are dropped.
type Streamer struct {
	c        *Client
	run      *StartedRun
	interval time.Duration
	in       chan []Metric
	done     chan struct{}
	once     sync.Once
	warn     func(string)

	// publisher-owned
	steps map[string]int64
	prev  map[string]float64
	// record-consumer-owned, under recMu (Close may race a late record)
	recMu    sync.Mutex
	recSteps map[string]int64
}

const maxBuffered = 500

// StartLive creates the run and starts streaming to it.
func StartLive(ctx context.Context, o Options, interval time.Duration) (*Streamer, error) {
	c, err := NewClient(o.TrackingURI, o.Getenv)
	if err != nil {
		return nil, err
	}
	run, err := startRun(ctx, c, o)
	if err != nil {
		return nil, err
	}
	if interval <= 0 {
		interval = 2 * time.Second
	}
	s := &Streamer{c: c, run: run, interval: interval, in: make(chan []Metric, 4096), done: make(chan struct{}),
		warn: o.Warn, steps: map[string]int64{}, prev: map[string]float64{}}
	if s.warn == nil {
		s.warn = func(string) {}
	}
	go s.loop()
	return s, nil
}

// Run is the live run, for the final export to reuse.
func (s *Streamer) Run() *StartedRun { return s.run }

func (s *Streamer) send(ms []Metric) {
	select {
	case s.in <- ms:
	default: // the uploader is behind: drop rather than slow the run
	}
}

// step numbers one key's values from 0.
func (s *Streamer) step(key string) int64 {
	n := s.steps[key]
	s.steps[key] = n + 1
	return n
}

// ObserveRecord queues a request's GenAI values (record consumer only).
func (s *Streamer) ObserveRecord(r *live.Record) {
	now := time.Now().UnixMilli()
	var ms []Metric
	for _, m := range r.Metrics {
		spec, ok := liveRecordMetrics[m.Tag]
		if !ok || m.List != nil {
			continue
		}
		key := "live." + spec.name
		ms = append(ms, Metric{Key: key, Value: m.Value * spec.scale, Timestamp: now, Step: s.stepRec(key)})
	}
	if len(ms) > 0 {
		s.send(ms)
	}
}

// stepRec is step for the record side: records and snapshots come from
// different goroutines, so they number separate keys.
func (s *Streamer) stepRec(key string) int64 {
	s.recMu.Lock()
	defer s.recMu.Unlock()
	if s.recSteps == nil {
		s.recSteps = map[string]int64{}
	}
	n := s.recSteps[key]
	s.recSteps[key] = n + 1
	return n
}

// Observe queues the phases' timing counters when they changed.
func (s *Streamer) Observe(snap *live.Snapshot) {
	now := time.Now().UnixMilli()
	phases := append([]live.Progress(nil), snap.Finished...)
	if snap.Phase.Phase != "" {
		phases = append(phases, snap.Phase)
	}
	var ms []Metric
	for _, p := range phases {
		for _, c := range []struct {
			name string
			v    float64
		}{
			{"aiperf.timing.requests.sent", float64(p.Sent)},
			{"aiperf.timing.requests.completed", float64(p.Done)},
			{"aiperf.timing.requests.errors", float64(p.Errors)},
			{"aiperf.timing.requests.in_flight", float64(p.InFlight)},
			{"aiperf.timing.phase.elapsed_sec", p.Elapsed.Seconds()},
		} {
			key := "live." + c.name + "." + p.Phase
			if old, ok := s.prev[key]; ok && old == c.v {
				continue
			}
			s.prev[key] = c.v
			ms = append(ms, Metric{Key: key, Value: c.v, Timestamp: now, Step: s.step(key)})
		}
	}
	if snap.Final {
		s.in <- ms // always delivered
		return
	}
	if len(ms) > 0 {
		s.send(ms)
	}
}

// Close sends what is buffered. The run stays open for the export.
func (s *Streamer) Close() {
	s.once.Do(func() { close(s.in) })
	<-s.done
}

func (s *Streamer) loop() {
	defer close(s.done)
	t := time.NewTicker(s.interval)
	defer t.Stop()
	var buf []Metric
	failing := false
	flush := func() {
		if len(buf) == 0 {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err := s.c.LogBatch(ctx, s.run.ID, buf, nil, nil)
		cancel()
		if err == nil {
			buf, failing = buf[:0], false
			return
		}
		if !failing {
			s.warn("MLflow live metrics: " + err.Error() + "; retrying")
			failing = true
		}
		if len(buf) > 5*maxBuffered {
			buf = append(buf[:0], buf[len(buf)-maxBuffered:]...)
		}
	}
	for {
		select {
		case ms, ok := <-s.in:
			if !ok {
				flush()
				return
			}
			buf = append(buf, ms...)
			if len(buf) >= maxBuffered {
				flush()
			}
		case <-t.C:
			flush()
		}
	}
}
