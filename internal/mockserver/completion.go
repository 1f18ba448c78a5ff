package mockserver

import (
	"encoding/json"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// maxBodyBytes bounds a request body.
const maxBodyBytes = 64 << 20

// admit reads a request's body and parses it with parse, draws its fault
// (--error-rate's draw included) and answers the faults that end a
// request at once; a slow-headers fault holds the request FaultDelay on
// wt, moving *arrival, since everything, the latency model included,
// starts that late. ok is false when the request has been answered (a
// bad body, such a fault) or ended while held.
func admit[T any](s *Server, w http.ResponseWriter, r *http.Request, wt *waiter, arrival *time.Time, parse func([]byte) (T, error)) (req T, fault Fault, ok bool) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	if err != nil {
		status := http.StatusBadRequest
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			status = http.StatusRequestEntityTooLarge
		}
		writeError(w, status, "invalid_request_error", "reading request body: "+err.Error())
		return req, fault, false
	}
	if req, err = parse(body); err == nil {
		fault, err = s.pickFault(r)
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", err.Error())
		return req, fault, false
	}
	if answerFault(w, fault) {
		return req, fault, false
	}
	if fault == FaultSlowHeaders {
		*arrival = arrival.Add(s.cfg.FaultDelay)
		if wt.until(r.Context(), *arrival) != nil {
			return req, fault, false
		}
	}
	return req, fault, true
}

// complete serves /v1/chat/completions and /v1/completions: it parses the
// request, maybe injects a failure, plans the output, and answers streaming
// or not against the latency model, counting from arrival.
func (s *Server) complete(w http.ResponseWriter, r *http.Request, api apiKind, arrival time.Time) {
	active := int(s.active.Add(1)) // includes this request, as AIPerf samples after its own bump
	defer s.active.Add(-1)

	wt := waiter{done: s.done, fine: s.fine}
	defer wt.stop()
	req, fault, ok := admit(s, w, r, &wt, &arrival, func(body []byte) (parsedRequest, error) { return parseRequest(api, body) })
	if !ok {
		return
	}
	if q := s.cfg.ServerQueue; q > 0 { // the queue the server account reports
		arrival = arrival.Add(q)
		if wt.until(r.Context(), arrival) != nil {
			return
		}
	}
	plan := planOutput(&req, s.count)
	track := s.stats.begin(arrival, plan.ISL, plan.Seed)
	defer track.abort() // a no-op once the request finished
	model := req.Model
	if model == "" {
		model = s.cfg.DefaultModel
	}
	resp := response{
		api:     api,
		id:      s.nextID(api),
		created: arrival.Unix(),
		model:   model,
		plan:    plan,
		arrival: arrival,
		fault:   fault,
		track:   track,
		predict: s.cfg.PredictionAcceptRate,
		queue:   s.cfg.ServerQueue,
		reqID:   r.Header.Get("X-Request-ID"),
	}
	switch {
	case s.batch != nil && plan.Count > 0:
		resp.batch = s.batch.submit(plan.ISL, plan.Count)
		defer resp.batch.leave()
	case !s.cfg.Fast:
		clk := s.newClock(plan, active)
		resp.clock = &clk
	}
	if req.Stream {
		s.stream(w, r, &resp, &wt, req.includeUsage())
		return
	}
	if resp.batch != nil {
		for range plan.Count {
			if resp.batch.await(r.Context(), s.done) != nil {
				return
			}
		}
	} else if resp.clock != nil {
		if wt.until(r.Context(), arrival.Add(resp.clock.complete(plan.Count))) != nil {
			return
		}
	}
	answer := resp.body(s.text(plan))
	if fault == FaultEmptyChoices {
		answer.Choices = []choiceOut{}
	}
	if fault != FaultNone {
		b, _ := json.Marshal(answer) // strings and ints always marshal
		if s.faultBody(w, r, fault, b) {
			return
		}
	}
	now := time.Now()
	track.token(now, plan.Count)
	track.finish(now, plan.Finish)
	s.accountBody(r, w, &resp, &answer)
	s.specDecodeBody(&resp, &answer)
	writeJSON(w, http.StatusOK, answer)
}

// injectError draws whether this request fails (ErrorRate percent do).
func (s *Server) injectError() bool {
	if s.cfg.ErrorRate <= 0 {
		return false
	}
	s.rngMu.Lock()
	defer s.rngMu.Unlock()
	return s.errRNG.Float64()*100 < s.cfg.ErrorRate
}

// newClock fixes a request's latencies, drawing its jitter. Each request
// with ITL jitter gets its own generator, seeded from the server's, so the
// per-token draws need no lock.
func (s *Server) newClock(p outputPlan, active int) tokenClock {
	var z float64
	var rng *rand.Rand
	if s.cfg.TTFTJitterCV > 0 || s.cfg.ITLJitterCV > 0 {
		s.rngMu.Lock()
		if s.cfg.TTFTJitterCV > 0 {
			z = s.jitterRNG.NormFloat64()
		}
		if s.cfg.ITLJitterCV > 0 {
			rng = rand.New(rand.NewPCG(s.jitterRNG.Uint64(), s.jitterRNG.Uint64()))
		}
		s.rngMu.Unlock()
	}
	return newTokenClock(&s.cfg, p.ISL, p.Count, active, z, rng)
}

// nextID returns a unique response id in OpenAI's style.
func (s *Server) nextID(api apiKind) string {
	prefix := "chatcmpl-mock-"
	if api == completionAPI {
		prefix = "cmpl-mock-"
	}
	return prefix + strconv.FormatUint(s.ids.Add(1), 10)
}

// text returns the whole output text of p.
func (s *Server) text(p outputPlan) string {
	var b strings.Builder
	words := p.words
	for range p.Count {
		b.WriteString(s.words[words.next(len(s.words))])
	}
	return b.String()
}

// response carries what one answer needs.
type response struct {
	api     apiKind
	id      string
	created int64
	model   string
	plan    outputPlan
	arrival time.Time
	clock   *tokenClock   // nil in Fast mode and with the batched scheduler
	batch   *batchSeq     // the request's place in the batched scheduler; nil when it is off
	fault   Fault         // a fault acting inside the answer (fault.go)
	track   *request      // the request in the server's statistics
	predict float64       // Config.PredictionAcceptRate
	queue   time.Duration // Config.ServerQueue: how long it was held before arrival
	reqID   string        // X-Request-ID, for the vllm-otlp span
	// reasoning is how many output tokens a shaped stream sends as
	// reasoning (usage's reasoning_tokens); 0 otherwise.
	reasoning int
}

// usage is OpenAI's token usage object.
type usage struct {
	PromptTokens      int                `json:"prompt_tokens"`
	CompletionTokens  int                `json:"completion_tokens"`
	TotalTokens       int                `json:"total_tokens"`
	CompletionDetails *completionDetails `json:"completion_tokens_details,omitempty"`
}

// completionDetails is OpenAI's reasoning and predicted-output accounting.
type completionDetails struct {
	Reasoning int  `json:"reasoning_tokens,omitempty"`
	Accepted  *int `json:"accepted_prediction_tokens,omitempty"`
	Rejected  *int `json:"rejected_prediction_tokens,omitempty"`
}

// usage returns the usage of the response: with a prediction accept rate,
// that fraction of the completion tokens (rounded) came from the
// prediction and the rest were rejected.
func (r *response) usage() usage {
	u := usage{PromptTokens: r.plan.PromptTokens, CompletionTokens: r.plan.Count, TotalTokens: r.plan.PromptTokens + r.plan.Count}
	if r.predict > 0 {
		acc := int(math.Round(r.predict * float64(r.plan.Count)))
		rej := r.plan.Count - acc
		u.CompletionDetails = &completionDetails{Accepted: &acc, Rejected: &rej}
	}
	if r.reasoning > 0 {
		if u.CompletionDetails == nil {
			u.CompletionDetails = &completionDetails{}
		}
		u.CompletionDetails.Reasoning = r.reasoning
	}
	return u
}

// chatMessageOut is the assistant message of a chat completion.
type chatMessageOut struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// choiceOut is one choice of a non-streaming response; Message is set for
// chat, Text for completions.
type choiceOut struct {
	Index        int             `json:"index"`
	Message      *chatMessageOut `json:"message,omitempty"`
	Text         *string         `json:"text,omitempty"`
	FinishReason string          `json:"finish_reason"`
	// SpeculativeDecoding is TensorRT-LLM's acceptance (--spec-decode trtllm).
	SpeculativeDecoding json.RawMessage `json:"speculative_decoding,omitempty"`
}

// completionBody is a non-streaming chat.completion or text_completion.
type completionBody struct {
	ID      string      `json:"id"`
	Object  string      `json:"object"`
	Created int64       `json:"created"`
	Model   string      `json:"model"`
	Choices []choiceOut `json:"choices"`
	Usage   usage       `json:"usage"`
	// Timings is llama.cpp's timings object (--server-timing llamacpp).
	Timings json.RawMessage `json:"timings,omitempty"`
	// Metrics is vLLM's per-request metrics object (--spec-decode vllm).
	Metrics json.RawMessage `json:"metrics,omitempty"`
}

// body builds the non-streaming answer carrying text.
func (r *response) body(text string) completionBody {
	c := choiceOut{FinishReason: r.plan.Finish}
	object := "chat.completion"
	if r.api == chatAPI {
		c.Message = &chatMessageOut{Role: "assistant", Content: text}
	} else {
		object = "text_completion"
		c.Text = &text
	}
	return completionBody{ID: r.id, Object: object, Created: r.created, Model: r.model, Choices: []choiceOut{c}, Usage: r.usage()}
}
