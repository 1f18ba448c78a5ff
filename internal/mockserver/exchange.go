package mockserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The APIs beyond OpenAI chat and completions (apis.go) share one request
// cycle, exchange: read the body, let the API parse it into a prompt and
// options, draw a fault, plan the output from the prompt exactly as for
// chat, and fix the latency; the API then writes its own answer, streaming
// or not, against the same token clock.

// apiRequest is what an API's parser makes of a request.
type apiRequest struct {
	Model     string
	Prompt    prompt // counted for usage and ISL latency; seeds the output
	MaxTokens *int   // output cap; nil = the mock's default budget
	MinTokens *int
	IgnoreEOS bool
	Stream    bool
	// Items is how many things the request asks to process (texts to
	// embed, passages to rank, images to analyse): the answer has one
	// result per item.
	Items int
	// Fields are a multipart request's form values (files excluded).
	Fields map[string]string
	// Files are a multipart request's file parts: field name -> size.
	Files map[string]int
}

// apiSpec describes one API to exchange.
type apiSpec struct {
	name   string // for ids and errors
	method string // POST unless set
	parse  func(r *http.Request, body []byte) (apiRequest, error)
	// answer writes the response; ex has the plan, the clock and the
	// waiter set up.
	answer func(s *Server, ex *exchange)
}

// exchange is one request of an apiSpec API in flight.
type exchange struct {
	w       http.ResponseWriter
	r       *http.Request
	req     apiRequest
	plan    outputPlan
	id      string
	arrival time.Time
	clock   *tokenClock // nil in Fast mode
	wt      *waiter
	fault   Fault
	model   string
}

// serveAPI runs the request cycle for spec.
func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request, spec *apiSpec, arrival time.Time) {
	active := int(s.active.Add(1))
	defer s.active.Add(-1)
	wt := waiter{done: s.done, fine: s.fine}
	defer wt.stop()
	req, fault, ok := admit(s, w, r, &wt, &arrival, func(body []byte) (apiRequest, error) { return spec.parse(r, body) })
	if !ok {
		return
	}
	pr := parsedRequest{Prompt: req.Prompt}
	pr.MaxTokens, pr.MinTokens, pr.IgnoreEOS = req.MaxTokens, req.MinTokens, req.IgnoreEOS
	ex := &exchange{
		w: w, r: r, req: req, plan: planOutput(&pr, s.count),
		id: spec.name + "-mock-" + strconv.FormatUint(s.ids.Add(1), 10), arrival: arrival,
		wt: &wt, fault: fault, model: req.Model,
	}
	if ex.model == "" {
		ex.model = s.cfg.DefaultModel
	}
	if !s.cfg.Fast {
		clk := s.newClock(ex.plan, active)
		ex.clock = &clk
	}
	spec.answer(s, ex)
}

// waitTokens sleeps until a non-streaming answer of n tokens is due (TTFT +
// n x ITL); false when the client went away or the server is closing.
func (ex *exchange) waitTokens(n int) bool {
	if ex.clock == nil {
		return ex.r.Context().Err() == nil
	}
	return ex.wt.until(ex.r.Context(), ex.arrival.Add(ex.clock.complete(n))) == nil
}

// waitNext sleeps until the next streamed token is due.
func (ex *exchange) waitNext() bool {
	if ex.clock == nil {
		return ex.r.Context().Err() == nil
	}
	return ex.wt.until(ex.r.Context(), ex.arrival.Add(ex.clock.next())) == nil
}

// outputWords returns the plan's output as its word tokens (each with its
// leading space).
func (s *Server) outputWords(p outputPlan) []string {
	out := make([]string, p.Count)
	ws := p.words
	for i := range out {
		out[i] = s.words[ws.next(len(s.words))]
	}
	return out
}

// writeBody answers with a JSON value, applying a body fault when the
// request drew one.
func (s *Server) writeBody(ex *exchange, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		writeError(ex.w, http.StatusInternalServerError, "server_error", "encoding response: "+err.Error())
		return
	}
	if ex.fault != FaultNone && s.faultBody(ex.w, ex.r, ex.fault, b) {
		return
	}
	h := ex.w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	ex.w.WriteHeader(http.StatusOK)
	_, _ = ex.w.Write(b)
}

// eventStream writes server-sent events, each flushed at once.
type eventStream struct {
	w   http.ResponseWriter
	rc  *http.ResponseController
	buf []byte
}

// startStream sends the event-stream headers.
func startStream(w http.ResponseWriter) *eventStream {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	e := &eventStream{w: w, rc: http.NewResponseController(w)}
	_ = e.rc.Flush()
	return e
}

// send writes one event: "event: typ" when typ is not empty, then the
// JSON of v as its data.
func (e *eventStream) send(typ string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	e.buf = e.buf[:0]
	if typ != "" {
		e.buf = append(e.buf, "event: "...)
		e.buf = append(e.buf, typ...)
		e.buf = append(e.buf, '\n')
	}
	e.buf = append(e.buf, "data: "...)
	e.buf = append(e.buf, b...)
	e.buf = append(e.buf, "\n\n"...)
	if _, err := e.w.Write(e.buf); err != nil {
		return err
	}
	return e.rc.Flush()
}

// sendRaw writes a literal data line (e.g. [DONE]).
func (e *eventStream) sendRaw(data string) error {
	if _, err := e.w.Write([]byte("data: " + data + "\n\n")); err != nil {
		return err
	}
	return e.rc.Flush()
}

// wantsStream reports whether the client asked for an event stream by its
// Accept header (for APIs whose body has no stream flag).
func wantsStream(r *http.Request) bool {
	return strings.Contains(r.Header.Get("Accept"), "text/event-stream")
}

// decodeJSON decodes a JSON request body into v.
func decodeJSON(body []byte, v any) error {
	if err := json.Unmarshal(body, v); err != nil {
		return badRequest("body is not a valid JSON request: %v", err)
	}
	return nil
}

// badRequest is an errBadRequest with a message.
func badRequest(format string, args ...any) error {
	return &requestError{msg: fmt.Sprintf(format, args...)}
}

type requestError struct{ msg string }

func (e *requestError) Error() string { return e.msg }
func (e *requestError) Unwrap() error { return errBadRequest }
