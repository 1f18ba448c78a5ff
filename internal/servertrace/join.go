package servertrace

import (
	"time"

	"github.com/aiperf-go/aiperf/internal/record"
)

// DefaultWait is how long a finished record waits for its span. An OTLP
// exporter batches spans (the OpenTelemetry SDK's batch processor sends
// every 5 s by default), so a span usually arrives after its response.
const DefaultWait = 10 * time.Second

// Join passes every record from in to out, in order, after setting its
// Server from its span: a record whose span has arrived goes on at once;
// one whose span has not waits until it does or until wait has passed
// since the record came (then it goes on without). A failed record, or
// one that already has a server account, does not wait. Records behind a
// waiting one wait behind it, so out keeps in's order and at most wait
// times the record rate are held. Join closes out once in is closed and
// every held record has gone on.
func (r *Receiver) Join(in <-chan *record.Record, out chan<- *record.Record, wait time.Duration) {
	defer close(out)
	type held struct {
		rec      *record.Record
		deadline time.Time
	}
	var queue []held
	var timer *time.Timer
	var timerC <-chan time.Time
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	// release sends on the head of the queue while it can go.
	release := func(now time.Time) {
		for len(queue) > 0 {
			h := queue[0]
			if waits(h.rec) {
				if t, ok := r.Take(h.rec.XRequestID); ok {
					h.rec.Server = t
				} else if now.Before(h.deadline) {
					break
				}
			}
			out <- h.rec
			queue[0] = held{}
			queue = queue[1:]
		}
		if len(queue) == 0 {
			timerC = nil
			return
		}
		d := queue[0].deadline.Sub(now)
		if timer == nil {
			timer = time.NewTimer(d)
		} else {
			timer.Reset(d)
		}
		timerC = timer.C
	}
	for in != nil || len(queue) > 0 {
		arrived := r.Arrived()
		select {
		case rec, ok := <-in:
			if !ok {
				in = nil
				continue
			}
			if waits(rec) {
				if t, ok := r.Take(rec.XRequestID); ok {
					rec.Server = t
				}
			}
			if len(queue) == 0 && !waits(rec) {
				out <- rec
				continue
			}
			now := time.Now()
			queue = append(queue, held{rec, now.Add(wait)})
			release(now)
		case <-arrived:
			release(time.Now())
		case now := <-timerC:
			release(now)
		}
	}
}

// waits reports whether rec waits for a span: a good response without a
// server account yet.
func waits(rec *record.Record) bool {
	return rec.Error == nil && !rec.Server.Known() && rec.XRequestID != ""
}
