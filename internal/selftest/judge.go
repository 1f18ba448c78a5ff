package selftest

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/aiperf-go/aiperf/internal/metrics/stats"
	"github.com/aiperf-go/aiperf/internal/mockserver"
)

// timedKinds are the recorded chunks that carry output text.
var timedKinds = []string{mockserver.ChunkReasoning, mockserver.ChunkToken, mockserver.ChunkTool}

// sides is one request's timings in ms: the client's metric and the
// truth from the mock's record.
type sides struct {
	ttft, ttfot, ttst, latency, itl [2]float64
	gaps                            [][2]float64 // per consecutive pair of chunks
	ok                              bool
}

// timings reads one joined request.
func timings(j joined) (s sides) {
	if j.server == nil {
		return s
	}
	var chunks []mockserver.RecordedChunk
	firstOutput := -1
	for _, c := range j.server.Chunks {
		if slices.Contains(timedKinds, c.Kind) {
			if firstOutput < 0 && c.Kind != mockserver.ChunkReasoning {
				firstOutput = len(chunks)
			}
			chunks = append(chunks, c)
		}
	}
	if len(chunks) < 2 || firstOutput < 0 {
		return s
	}
	ms := func(ns int64) float64 { return float64(ns-j.server.ReceivedNs) / 1e6 }
	get := func(tag string) float64 { v, _ := j.client.Scalar(tag); return v }
	// As the metrics define them: from the request's start to the first
	// chunk with text or reasoning, to the first with output text, to the
	// last with either; the second token from the first.
	s.ttft = [2]float64{get("time_to_first_token"), ms(chunks[0].WriteNs)}
	s.ttfot = [2]float64{get("time_to_first_output_token"), ms(chunks[firstOutput].WriteNs)}
	s.ttst = [2]float64{get("time_to_second_token"), float64(chunks[1].WriteNs-chunks[0].WriteNs) / 1e6}
	s.latency = [2]float64{get("request_latency"), ms(chunks[len(chunks)-1].WriteNs)}
	s.itl = [2]float64{get("inter_token_latency"), (s.latency[1] - s.ttft[1]) / (OSL - 1)}
	if icl, ok := j.client.Metrics["inter_chunk_latency"]; ok && len(icl.List) == len(chunks)-1 {
		for i, g := range icl.List {
			s.gaps = append(s.gaps, [2]float64{g, float64(chunks[i+1].WriteNs-chunks[i].WriteNs) / 1e6})
		}
	}
	s.ok = true
	return s
}

// exact is a per-request count that must equal its truth.
type exact struct {
	name string
	want float64
	got  func(j joined) (float64, bool)
}

func tag(t string) func(joined) (float64, bool) {
	return func(j joined) (float64, bool) { return j.client.Scalar(t) }
}

// exactChecks are the counts every request must report exactly.
func exactChecks() []exact {
	m := Shape(false)
	layout := m.ChunkLayout(OSL)
	kinds := func(j joined) (float64, bool) {
		if j.server == nil {
			return 0, false
		}
		n := 0
		for _, c := range j.server.Chunks {
			if slices.Contains(timedKinds, c.Kind) {
				if n >= len(layout) || c.Kind != chunkKind(layout[n].Part) {
					return -1, true
				}
				n++
			}
		}
		return float64(n), true
	}
	return []exact{
		{"input_sequence_length", ISL, tag("input_sequence_length")},
		{"output_sequence_length", OSL, tag("output_sequence_length")},
		{"reasoning_token_count", Reasoning, tag("reasoning_token_count")},
		{"output_token_count", OSL - Reasoning, tag("output_token_count")},
		{"usage_prompt_tokens", ISL, tag("usage_prompt_tokens")},
		{"usage_completion_tokens", OSL, tag("usage_completion_tokens")},
		{"usage_reasoning_tokens", Reasoning, tag("usage_reasoning_tokens")},
		{"inter_chunk_latency entries", float64(len(layout) - 1), func(j joined) (float64, bool) {
			v, ok := j.client.Metrics["inter_chunk_latency"]
			return float64(len(v.List)), ok && v.IsList
		}},
		{"chunks written as laid out", float64(len(layout)), kinds},
	}
}

// chunkKind is the recorder's kind of a part.
func chunkKind(p mockserver.Part) string {
	switch p {
	case mockserver.PartReasoning:
		return mockserver.ChunkReasoning
	case mockserver.PartTool:
		return mockserver.ChunkTool
	}
	return mockserver.ChunkToken
}

// judge compares the timed phase with the truth, its timings within the
// floor phase's tolerance.
func judge(n int, floor, timed []joined) *Report {
	r := &Report{}
	var floorErr []float64
	for _, j := range floor {
		if s := timings(j); s.ok {
			floorErr = append(floorErr, s.ttft[0]-s.ttft[1])
		}
	}
	r.Budget.FloorP50, r.Budget.FloorP99 = pct(floorErr, 50), pct(floorErr, 99)
	tol := r.Budget.FloorP99 + r.Budget.FloorP50

	// Counts.
	good, failed, joinedN := 0, 0, 0
	for _, j := range timed {
		if j.client.Failed {
			failed++
		} else {
			good++
		}
		if j.server != nil {
			joinedN++
		}
	}
	r.Checks = append(r.Checks,
		Check{Name: "requests reported", Got: float64(len(timed)), Want: float64(n)},
		Check{Name: "requests failed", Got: float64(failed), Want: 0},
		Check{Name: "requests joined to the mock's record", Got: float64(joinedN), Want: float64(n)},
		Check{Name: "floor requests measured", Got: float64(len(floorErr)), Want: float64(n)})
	for _, e := range exactChecks() {
		c := Check{Name: e.name, Got: e.want, Want: e.want}
		for _, j := range timed {
			v, ok := e.got(j)
			if !ok || v != e.want {
				c.Got, c.Detail = v, fmt.Sprintf("request %s reports %g", j.client.Meta.XRequestID, v)
				if !ok {
					c.Detail = fmt.Sprintf("request %s reports none", j.client.Meta.XRequestID)
				}
				break
			}
		}
		r.Checks = append(r.Checks, c)
	}

	// Timings.
	var all []sides
	var jitter, lag, mockLag []float64
	m := Shape(false)
	first := m.ChunkLayout(OSL)[0].Last
	for _, j := range timed {
		s := timings(j)
		if !s.ok {
			continue
		}
		all = append(all, s)
		for _, g := range s.gaps {
			jitter = append(jitter, math.Abs(g[0]-g[1]))
		}
		if v, ok := j.client.Scalar("schedule_lag"); ok {
			lag = append(lag, v)
		}
		mockLag = append(mockLag, s.ttft[1]-ms(TTFT+ITLs(first)))
	}
	r.Budget.ITLJitterP50, r.Budget.ITLJitterP99 = pct(jitter, 50), pct(jitter, 99)
	r.Budget.SendLagP50, r.Budget.SendLagP99 = pct(lag, 50), pct(lag, 99)
	r.Budget.MockLagP50 = pct(mockLag, 50)
	timing := func(name string, pick func(sides) [2]float64, tol float64) {
		var errs []float64
		for _, s := range all {
			p := pick(s)
			errs = append(errs, p[0]-p[1])
		}
		c := Check{Name: name, Got: pct(errs, 50), Tol: tol, Unit: "ms"}
		if len(errs) == 0 {
			c.Detail = "no request to time"
		}
		r.Checks = append(r.Checks, c)
	}
	timing("time_to_first_token", func(s sides) [2]float64 { return s.ttft }, tol)
	timing("time_to_first_output_token", func(s sides) [2]float64 { return s.ttfot }, tol)
	timing("time_to_second_token", func(s sides) [2]float64 { return s.ttst }, tol)
	timing("request_latency", func(s sides) [2]float64 { return s.latency }, tol)
	timing("inter_token_latency", func(s sides) [2]float64 { return s.itl }, tol/(OSL-1))
	var gapErr []float64
	for _, s := range all {
		for _, g := range s.gaps {
			gapErr = append(gapErr, g[0]-g[1])
		}
	}
	c := Check{Name: "inter_chunk_latency", Got: pct(gapErr, 50), Tol: tol, Unit: "ms"}
	if len(gapErr) == 0 {
		c.Detail = "no chunk gap to time"
	}
	r.Checks = append(r.Checks, c)
	return r
}

// ITLs is i inter-token latencies.
func ITLs(i int) time.Duration { return time.Duration(i) * ITL }

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// pct is numpy's linear percentile of xs; 0 for none.
func pct(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return stats.Percentile(s, p)
}
