package worker

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/aiperf-go/aiperf/internal/endpoint"
	"github.com/aiperf-go/aiperf/internal/record"
	"github.com/aiperf-go/aiperf/internal/transport"
)

// Polling configures asynchronous job endpoints (video generation): the
// submit request is followed by GET <url>/<id> every Interval until the
// job completes, fails or Timeout passes, and with Download by a GET of
// the finished job's content. The record then spans the whole job: Sent
// is the submit's, End the last response's, and its Chunks are the submit
// answer and the final poll answer (what AIPerf parses); the downloaded
// bytes are counted in ResponseBytes, not kept.
type Polling struct {
	Poller   endpoint.Poller
	Interval time.Duration
	Timeout  time.Duration // 0 = no limit besides the run's cancellation
	Download bool
}

// Video job error types, as AIPerf reports them.
const (
	typeVideoGeneration = "VideoGenerationError"
	typeVideoDownload   = "VideoDownloadError"
)

// pollJob runs the job after rec holds the submit's outcome.
func (p *Pool) pollJob(req *transport.Request, rec *record.Record) {
	if rec.Error != nil {
		return
	}
	po := p.o.Polling
	if len(rec.Chunks) == 0 {
		rec.Error = &record.ErrorDetails{Code: 500, Type: typeVideoGeneration, Message: "No response from video submit"}
		return
	}
	id, err := po.Poller.JobID(rec.Chunks[len(rec.Chunks)-1].Data)
	if err != nil {
		rec.Error = &record.ErrorDetails{Code: 500, Type: typeVideoGeneration, Message: err.Error()}
		return
	}
	pollURL := strings.TrimRight(req.URL, "/") + "/" + id
	header := req.Header.Clone()
	header.Del("Content-Type")
	start := p.o.Clock.Now()
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		poll := &record.Record{}
		p.o.Sender.Do(p.ctx, p.o.Clock, &transport.Request{Method: http.MethodGet, URL: pollURL, Header: header}, poll)
		rec.ResponseBytes += poll.ResponseBytes
		rec.End = poll.End
		if poll.Error != nil {
			rec.Error, rec.Cancelled, rec.CancelledAt = poll.Error, poll.Cancelled, poll.CancelledAt
			return
		}
		if len(poll.Chunks) == 0 {
			rec.Error = &record.ErrorDetails{Code: 500, Type: typeVideoGeneration, Message: "No response from video poll"}
			return
		}
		last := poll.Chunks[len(poll.Chunks)-1]
		done, err := po.Poller.JobState(last.Data)
		if err != nil {
			rec.Error = &record.ErrorDetails{Code: 500, Type: typeVideoGeneration, Message: err.Error()}
			return
		}
		if done {
			rec.Chunks = append(rec.Chunks, last)
			if po.Download {
				p.download(po.Poller.ContentURL(last.Data, pollURL), header, rec)
			}
			return
		}
		if po.Timeout > 0 && p.o.Clock.Now()-start >= po.Timeout {
			rec.Error = &record.ErrorDetails{Code: 504, Type: record.TypeTimeout,
				Message: fmt.Sprintf("Video generation timed out after %.0fs", po.Timeout.Seconds())}
			return
		}
		if !p.sleep(&timer, po.Interval) {
			rec.Error = record.CancelledError(p.o.Clock.Now() - rec.Sent)
			rec.Cancelled, rec.CancelledAt = true, p.o.Clock.Now()
			return
		}
	}
}

// download fetches the finished video; its bytes count toward the
// response size and its time toward the request's latency.
func (p *Pool) download(url string, header http.Header, rec *record.Record) {
	d := &record.Record{}
	p.o.Sender.Do(p.ctx, p.o.Clock, &transport.Request{Method: http.MethodGet, URL: url, Header: header}, d)
	rec.ResponseBytes += d.ResponseBytes
	rec.End = d.End
	switch {
	case d.Error != nil:
		code := d.Error.Code
		if code == 0 {
			code = 500
		}
		rec.Error = &record.ErrorDetails{Code: code, Type: typeVideoDownload, Message: "Failed to download video: " + d.Error.Message}
	case len(d.Chunks) == 0 || len(d.Chunks[0].Data) == 0:
		rec.Error = &record.ErrorDetails{Code: 500, Type: typeVideoDownload, Message: "No content returned for video"}
	}
}

// sleep waits d unless the pool is cancelled; false when cancelled. A
// poll wait is not a turn boundary, so StopSending does not end it.
func (p *Pool) sleep(timer **time.Timer, d time.Duration) bool {
	if d <= 0 {
		return p.ctx.Err() == nil
	}
	if *timer == nil {
		*timer = time.NewTimer(d)
	} else {
		(*timer).Reset(d)
	}
	select {
	case <-(*timer).C:
		return true
	case <-p.ctx.Done():
		return false
	}
}
