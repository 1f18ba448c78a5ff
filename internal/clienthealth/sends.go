package clienthealth

import (
	"time"

	"github.com/aiperf-go/aiperf/internal/record"
)

// Sends are the profiling records' figures the report judges: the send
// span, the connection retries and the connections opened. Observe is
// called from one goroutine (the run's record consumer).
type Sends struct {
	span    sendSpan
	retries int // ConnectionRetries, summed
	conns   connCounts
	// good counts the records without an error; unstreamed those of them
	// answered with one body instead of an event stream.
	good, unstreamed int
}

// Records is how many profiling records were observed: the requests sent.
func (s *Sends) Records() int { return s.span.n }

// Observe counts one finished profiling record.
func (s *Sends) Observe(r *record.Record) {
	s.span.observe(r)
	s.retries += r.ConnectionRetries
	s.conns.observe(r)
	if r.Error == nil {
		s.good++
		if !r.Streaming {
			s.unstreamed++
		}
	}
}

// NoteUnstreamed records, for a --streaming run, the good responses that
// came back as one body: the server ignored "stream": true.
func (h *Report) NoteUnstreamed(s *Sends) {
	h.UnstreamedResponses, h.goodResponses = s.unstreamed, s.good
}

// connCounts tracks, over the profiling records, the connections their
// requests opened on their own path: each of those paid a TCP (and TLS)
// handshake inside its latencies.
type connCounts struct {
	opened       int
	connect      time.Duration // the opened connections' connect time, summed
	preconnected int           // first requests on a --pre-connect connection
}

func (c *connCounts) observe(r *record.Record) {
	switch t := &r.Trace; {
	case t.Dialed:
		c.opened++
		c.connect += t.ConnectDone - t.ConnectStart
	case t.Preconnected:
		c.preconnected++
	}
}

// fill writes the counts into the report.
func (c *connCounts) fill(h *Report) {
	h.ConnectionsOpened = c.opened
	if c.opened > 0 {
		h.ConnectMeanMs = finitePtr(ms(c.connect) / float64(c.opened))
	}
}
