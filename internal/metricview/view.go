// Package metricview reports a run's latencies as the peer tools define
// them (shared/reference/peers.md section 3), so a number can be put next
// to a vLLM, SGLang, GuideLLM or inference-perf report 1:1. The same name
// means different things across tools: vLLM's and SGLang's ITL is every
// gap between SSE chunks pooled over all requests, GuideLLM's is a
// per-request average weighted by tokens, inference-perf's is per token
// (the extra tokens of a multi-token chunk arrive with a 0 gap);
// GuideLLM's TPOT includes the time to the first token, the others' do
// not.
//
// Views are computed from the per-request records (profile_export.jsonl,
// this tool's or AIPerf's): time_to_first_token, request_latency,
// inter_chunk_latency and output_sequence_length per request, and
// http_req_duration (to the end of the stream) where the peer ends its
// latency at [DONE].
package metricview

import (
	"fmt"
	"slices"
	"strings"

	"github.com/aiperf-go/aiperf/internal/results"
)

// Tool is a peer whose definitions a view follows.
type Tool string

// The peers.
const (
	VLLM          Tool = "vllm"
	SGLang        Tool = "sglang"
	GuideLLM      Tool = "guidellm"
	InferencePerf Tool = "inference_perf"
)

// Tools lists the peers in report order.
func Tools() []Tool { return []Tool{VLLM, SGLang, GuideLLM, InferencePerf} }

// ParseTools reads a comma list of tools, or "all"; "-" and "_" are the
// same.
func ParseTools(s string) ([]Tool, error) {
	var out []Tool
	for _, p := range strings.Split(s, ",") {
		p = strings.ReplaceAll(strings.ToLower(strings.TrimSpace(p)), "-", "_")
		switch {
		case p == "":
		case p == "all":
			return Tools(), nil
		case slices.Contains(Tools(), Tool(p)):
			if !slices.Contains(out, Tool(p)) {
				out = append(out, Tool(p))
			}
		default:
			return nil, fmt.Errorf("unknown metric view %q (choose from vllm, sglang, guidellm, inference-perf, all)", p)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no metric view given (choose from vllm, sglang, guidellm, inference-perf, all)")
	}
	return out, nil
}

// Title is the tool as its users know it.
func (t Tool) Title() string {
	switch t {
	case VLLM:
		return "vLLM bench serve"
	case SGLang:
		return "SGLang bench_serving"
	case GuideLLM:
		return "GuideLLM"
	case InferencePerf:
		return "inference-perf"
	}
	return string(t)
}

// Metric is one latency as a peer defines it.
type Metric struct {
	// Name is the peer's name for it (ttft, itl, tpot, e2el, ntpot).
	Name string `json:"name"`
	// Definition says how it is computed from the records.
	Definition string `json:"definition"`
	Stats      Stats  `json:"stats"`
}

// View is a run's latencies in one peer's definitions.
type View struct {
	Tool    Tool     `json:"tool"`
	Title   string   `json:"title"`
	Metrics []Metric `json:"metrics"`
	// Notes say where the records cannot reproduce the peer exactly.
	Notes []string `json:"notes,omitempty"`
}

// metricDef is one metric of a tool: how a request contributes to it.
type metricDef struct {
	name, definition string
	// add contributes request r to s.
	add func(s *sample, r *req)
}

// req is the per-request values the definitions read (ms, tokens).
type req struct {
	ttft, e2e, streamEnd float64
	hasTTFT, hasStream   bool
	icl                  []float64
	n                    float64 // output tokens
}

var (
	ttftDef = metricDef{"ttft", "time_to_first_token per request", func(s *sample, r *req) {
		if r.hasTTFT {
			s.add(r.ttft, 1)
		}
	}}
	pooledChunkITL = metricDef{"itl", "every gap between consecutive SSE chunks, pooled over all requests (inter_chunk_latency values)", func(s *sample, r *req) {
		for _, g := range r.icl {
			s.add(g, 1)
		}
	}}
	tpotExclFirst = metricDef{"tpot", "per request (request_latency - ttft) / (output tokens - 1), requests with more than one token", func(s *sample, r *req) {
		if r.hasTTFT && r.n > 1 {
			s.add((r.e2e-r.ttft)/(r.n-1), 1)
		}
	}}
	e2eLastToken = metricDef{"e2el", "request_latency: send to the last token-bearing chunk", func(s *sample, r *req) { s.add(r.e2e, 1) }}
	e2eStreamEnd = metricDef{"e2el", "send to the end of the stream ([DONE] included): http_req_duration, request_latency when the records lack it", func(s *sample, r *req) {
		if r.hasStream {
			s.add(r.streamEnd, 1)
		} else {
			s.add(r.e2e, 1)
		}
	}}
)

// defs are each tool's metrics, in the tool's report order.
var defs = map[Tool][]metricDef{
	VLLM:   {ttftDef, tpotExclFirst, pooledChunkITL, e2eLastToken},
	SGLang: {ttftDef, tpotExclFirst, pooledChunkITL, e2eStreamEnd},
	GuideLLM: {ttftDef,
		{"itl", "per request (request_latency - ttft) / (output tokens - 1), weighted by output tokens - 1", func(s *sample, r *req) {
			if r.hasTTFT && r.n > 1 {
				s.add((r.e2e-r.ttft)/(r.n-1), r.n-1)
			}
		}},
		{"tpot", "per request request_latency / output tokens (includes the time to the first token), weighted by output tokens", func(s *sample, r *req) {
			if r.n >= 1 {
				s.add(r.e2e/r.n, r.n)
			}
		}},
		e2eStreamEnd,
	},
	InferencePerf: {ttftDef,
		{"itl", "per token, pooled: each chunk gap goes to the chunk's first token, the chunk's other tokens get 0", func(s *sample, r *req) {
			for _, g := range r.icl {
				s.add(g, 1)
			}
			if extra := r.n - 1 - float64(len(r.icl)); extra > 0 && r.hasTTFT {
				s.add(0, extra)
			}
		}},
		tpotExclFirst,
		{"ntpot", "per request request_latency / output tokens", func(s *sample, r *req) {
			if r.n >= 1 {
				s.add(r.e2e/r.n, 1)
			}
		}},
		e2eLastToken,
	},
}

// notes are what the records cannot reproduce, per tool.
var notes = map[Tool][]string{
	VLLM:          {"vLLM's chat path stamps TTFT at the first SSE message with choices, even a role-only delta; the records' TTFT is the first content-bearing response, so vLLM can report a slightly smaller TTFT"},
	SGLang:        {"SGLang takes its token count from the server's usage (or the requested length when absent); the records' output_sequence_length is this run's token count"},
	GuideLLM:      {"GuideLLM reports rate and concurrency distributions over time, which the per-request records do not carry"},
	InferencePerf: {"inference-perf re-tokenizes each chunk; here a chunk's token count is inferred from output tokens and chunk count, which gives the same pooled distribution"},
}

// Builder accumulates records into views. The zero value is not usable;
// call NewBuilder.
type Builder struct {
	tools   []Tool
	samples map[Tool][]*sample
	seen    int
}

// NewBuilder prepares views for tools.
func NewBuilder(tools []Tool) *Builder {
	b := &Builder{tools: tools, samples: map[Tool][]*sample{}}
	for _, t := range tools {
		ss := make([]*sample, len(defs[t]))
		for i := range ss {
			ss[i] = &sample{}
		}
		b.samples[t] = ss
	}
	return b
}

// Add folds one record in: profiling requests that succeeded only (the
// peers report successful requests).
func (b *Builder) Add(rec *results.Record) {
	if rec.Failed || (rec.Phase != "" && rec.Phase != "profiling") {
		return
	}
	e2e, ok := rec.Scalar("request_latency")
	if !ok {
		return
	}
	r := req{e2e: e2e}
	r.ttft, r.hasTTFT = rec.Scalar("time_to_first_token")
	r.streamEnd, r.hasStream = rec.Scalar("http_req_duration")
	if v, ok := rec.Metrics["inter_chunk_latency"]; ok && v.IsList {
		r.icl = v.List
	}
	r.n, _ = rec.Scalar("output_sequence_length")
	b.seen++
	for _, t := range b.tools {
		for i, d := range defs[t] {
			d.add(b.samples[t][i], &r)
		}
	}
}

// Views returns one view per tool; a metric no request contributed to is
// left out (a non-streaming run has no TTFT or ITL).
func (b *Builder) Views() []View {
	var out []View
	for _, t := range b.tools {
		v := View{Tool: t, Title: t.Title(), Notes: notes[t]}
		for i, d := range defs[t] {
			if st, ok := b.samples[t][i].stats(); ok {
				v.Metrics = append(v.Metrics, Metric{Name: d.name, Definition: d.definition, Stats: st})
			}
		}
		out = append(out, v)
	}
	return out
}

// Requests is how many records were folded in.
func (b *Builder) Requests() int { return b.seen }

// FromRecords computes the views of a profile_export.jsonl.
func FromRecords(path string, tools []Tool) ([]View, int, error) {
	b := NewBuilder(tools)
	err := results.ReadRecords(path, func(r *results.Record) error {
		b.Add(r)
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	return b.Views(), b.Requests(), nil
}
