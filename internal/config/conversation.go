package config

import (
	"math"
	"strings"
)

// Default values of the conversation options, as in AIPerf 0.13.
const (
	DefaultSessionTurnsMean  = 1
	DefaultSessionDelayRatio = 1.0
)

// Conversation shapes multi-turn sessions (AIPerf's "Conversation Input"
// group plus --session-header and --num-warmup-sessions).
//
// A session is a conversation whose turns go out in order, each carrying
// the history of the turns before it with the server's actual responses.
// Concurrency counts sessions. Delays are in milliseconds, as AIPerf.
type Conversation struct {
	// NumSessions (--num-sessions) is the number of conversations to
	// generate and the profiling phase's stop condition: it ends once that
	// many sessions have started and finished. nil = not given.
	NumSessions *int `json:"conversation_num,omitempty"`
	// TurnsMean and TurnsStddev are the normal distribution of turns per
	// synthetic conversation.
	TurnsMean   int `json:"conversation_turn_mean"`
	TurnsStddev int `json:"conversation_turn_stddev"`
	// TurnDelayMean and TurnDelayStddev (ms) are the normal distribution of
	// the pause before each synthetic turn after the first; DelayRatio
	// scales every delay.
	TurnDelayMean   float64 `json:"conversation_turn_delay_mean"`
	TurnDelayStddev float64 `json:"conversation_turn_delay_stddev"`
	DelayRatio      float64 `json:"conversation_turn_delay_ratio"`
	// InterTurnDelayCapSeconds clamps every inter-turn delay, synthetic or
	// from a file, to at most this many seconds; nil = no cap.
	InterTurnDelayCapSeconds *float64 `json:"inter_turn_delay_cap_seconds,omitempty"`
	// SessionHeader replaces the X-Correlation-ID header name that carries
	// the session id; empty = X-Correlation-ID.
	SessionHeader string `json:"session_header,omitempty"`
	// NumWarmupSessions (--num-warmup-sessions) runs a warmup phase of that
	// many sessions; nil = not given.
	NumWarmupSessions *int `json:"warmup_num_sessions,omitempty"`
}

// defaultConversation returns AIPerf's defaults: one turn per conversation,
// no delay, ratio 1.
func defaultConversation() Conversation {
	return Conversation{TurnsMean: DefaultSessionTurnsMean, DelayRatio: DefaultSessionDelayRatio}
}

// InterTurnDelayCap returns the cap on inter-turn delays in nanoseconds, or
// 0 when there is none.
func (c *Config) InterTurnDelayCap() (nanos int64, ok bool) {
	p := c.Conversation.InterTurnDelayCapSeconds
	if p == nil || !(*p >= 0) || math.IsInf(*p, 0) {
		return 0, false
	}
	return int64(*p * 1e9), true
}

// InterTurnDelayCapApplies reports whether --inter-turn-delay-cap-seconds
// reaches the run's pauses. AIPerf clamps the delays its file and trace
// loaders read (multi_turn and the trace formats, Weka traces included) and
// leaves the others alone: synthetic sessions' --session-turn-delay-mean
// pauses and the public conversation datasets'.
func (c *Config) InterTurnDelayCapApplies() bool {
	pub := c.Dataset.ResolvedPublic()
	return c.Dataset.InputFile != "" || pub == PublicWekaHF || strings.HasPrefix(string(pub), "semianalysis_cc_traces_weka")
}

// validateConversation checks the conversation options. --num-sessions
// may be given with --request-count (and --num-warmup-sessions with
// --warmup-request-count), as AIPerf allows: the phase stops at whichever
// bound it reaches first, no new session once the sessions are all
// started and no request once the count is spent.
func (c *Config) validateConversation(p *problems) {
	v := &c.Conversation
	if v.NumSessions != nil {
		atLeast1(p, "--num-sessions", *v.NumSessions)
	}
	atLeast1(p, "--session-turns-mean", v.TurnsMean)
	if v.TurnsStddev < 0 {
		p.add("--session-turns-stddev", "must be >= 0, got %d", v.TurnsStddev)
	}
	nonNegative(p, "--session-turn-delay-mean", v.TurnDelayMean)
	nonNegative(p, "--session-turn-delay-stddev", v.TurnDelayStddev)
	nonNegative(p, "--session-delay-ratio", v.DelayRatio)
	if v.InterTurnDelayCapSeconds != nil {
		nonNegative(p, "--inter-turn-delay-cap-seconds", *v.InterTurnDelayCapSeconds)
		if *v.InterTurnDelayCapSeconds > float64(math.MaxInt64)/1e9 {
			p.add("--inter-turn-delay-cap-seconds", "must be at most %d seconds", math.MaxInt64/int64(1e9))
		}
	}
	if v.SessionHeader != "" && !isToken(v.SessionHeader) {
		p.add("--session-header", "%q is not a valid header name", v.SessionHeader)
	}
	if v.NumWarmupSessions != nil {
		atLeast1(p, "--num-warmup-sessions", *v.NumWarmupSessions)
	}
}
