package record

import (
	"fmt"
	"strings"
	"time"
)

// ErrorDetails is AIPerf's error shape, {code, type, message}, carried on a
// failed record and grouped in the run's error_summary.
//
// Code is the HTTP status when the server answered with one, 499 for a
// client-side cancellation, and 0 (exported as null) when no status applies,
// as for a refused connection or a broken stream.
type ErrorDetails struct {
	Code    int    `json:"code"`
	Type    string `json:"type"`
	Message string `json:"message"`
}

// Error types used across the pipeline. They mirror the exception class
// names AIPerf reports so that error summaries read the same.
const (
	TypeCancelled      = "RequestCancellationError" // code 499
	TypeConnect        = "ConnectionError"          // no connection could be made
	TypeTimeout        = "TimeoutError"             // --request-timeout-seconds elapsed
	TypeStream         = "StreamError"              // the body broke off mid-read
	TypeJSON           = "JSONDecodeError"          // a response chunk was not valid JSON
	TypeInvalidResult  = "InvalidInferenceResultError"
	TypeServerReported = "ServerError" // an error object or SSE error event in a 200 response
	// TypePhaseEndCancelled (code 499) marks a request still in flight when
	// its phase ended that the client cancelled: the grace period ran out,
	// or the run was stopped (an interrupt, an abort rule). AIPerf cancels
	// those credits, writes no record for them and counts them nowhere.
	// Here they were sent, so their lines stay in the per-request files,
	// but they are no error and in no metric: the summary counts them apart
	// (cancelled_at_phase_end_count). See Record.CancelledAtPhaseEnd.
	TypePhaseEndCancelled = "PhaseEndCancellation"
)

// CancelledAtPhaseEnd reports a request cut off by the end of its phase
// (TypePhaseEndCancelled): sent, but no result, and no error.
func (r *Record) CancelledAtPhaseEnd() bool {
	return r.Error != nil && r.Error.Type == TypePhaseEndCancelled
}

// CancelledCode is the status AIPerf assigns to client-cancelled requests.
const CancelledCode = 499

// HTTPError is the error for a non-2xx response: the status, its reason
// phrase, and the (truncated) body as the message.
func HTTPError(status int, reason, body string) *ErrorDetails {
	return &ErrorDetails{Code: status, Type: reason, Message: body}
}

// CancelledError is the error for a request the client cancelled after it
// had been in flight for the given time.
func CancelledError(after time.Duration) *ErrorDetails {
	return &ErrorDetails{
		Code:    CancelledCode,
		Type:    TypeCancelled,
		Message: fmt.Sprintf("Request was cancelled after %.3f seconds", after.Seconds()),
	}
}

// contextOverflowNeedles are AIPerf's default substrings (case-insensitive)
// that mark an error as the context being too long.
var contextOverflowNeedles = []string{"context length", "maximum context", "context_length_exceeded", "prompt is too long"}

// ContextOverflow reports that an error message says the request's context
// was too long for the model (the message holds the server's body, so an
// OpenAI-style {"error":{"message":...}} is matched too).
func ContextOverflow(msg string) bool {
	m := strings.ToLower(msg)
	for _, n := range contextOverflowNeedles {
		if strings.Contains(m, n) {
			return true
		}
	}
	return false
}
