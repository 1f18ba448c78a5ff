// Package dataset is the model of what a benchmark sends: conversations of
// turns, lazy prompts, the conversation samplers and the seeded random
// streams every producer draws from. The producers live beside it: loader
// reads the file formats and traces, synthesis builds prompts from the
// corpus, media makes the synthetic images, audio and video.
//
// A Conversation is what one credit runs: its turns are sent in order, one at
// a time. Single-turn workloads are conversations of one turn.
package dataset

import (
	"strings"
	"time"
)

// Conversation is one session of turns sent in order.
type Conversation struct {
	// ID is AIPerf's conversation_id / session_id. It is derived from the
	// random seed so the same seed yields the same inputs.json.
	ID    string
	Turns []Turn
	// Context is how a multi-turn conversation's history is built (AIPerf's
	// context_mode); "" is ContextDeltas.
	Context ContextMode
	// Parent is the ID of the conversation whose turn spawns this one (a
	// Weka subagent: AIPerf's SPAWN branch child); "" for a root. Only the
	// agentic replay timing mode reads it and Branch: it samples roots and
	// starts their subagents itself. Other modes run every conversation on
	// its own.
	Parent string
	Branch Branch
}

// Branch places a subagent in its parent's recorded timeline.
type Branch struct {
	// ID groups the subagents that start and join together.
	ID string
	// SpawnTurn is the parent's turn after whose response the subagent
	// starts; -1 when no parent turn precedes it.
	SpawnTurn int
	// JoinTurn is the parent's turn that waits for every subagent of the
	// branch; -1 when the branch runs in the background.
	JoinTurn int
	// Start is the branch's recorded spawn time (from the trace start),
	// valid when HasStart.
	Start    time.Duration
	HasStart bool
}

// ContextMode says what a turn after the first carries besides itself.
type ContextMode string

// Context modes, AIPerf's ConversationContextMode values.
const (
	// ContextDeltas: earlier turns plus the server's live replies
	// (deltas_without_responses, the default).
	ContextDeltas ContextMode = ""
	// ContextDeltasWithResponses: earlier turns only; the dataset's turns
	// already hold the recorded assistant messages, and live replies are
	// discarded (deltas_with_responses).
	ContextDeltasWithResponses ContextMode = "deltas_with_responses"
	// ContextMessageArray: every turn is a complete recorded message array
	// sent alone (message_array_with_responses).
	ContextMessageArray ContextMode = "message_array_with_responses"
)

// Turn is one request's worth of input.
type Turn struct {
	Role  string   // message role; "user" when empty
	Texts []string // prompt texts; AIPerf's ISL counts strings.Join(Texts, " ")
	// TextNames names each entry of Texts (AIPerf's Text.name), parallel
	// to it; nil or "" entries are unnamed. Rankings read the texts named
	// "query" and "passages"; the template endpoint exposes texts_by_name.
	TextNames []string
	// Prompt, when non-nil, is the turn's prompt left to be built when it
	// is sent (LoadOptions.LazyPrompts): Texts is then empty and
	// InputTokens -1 until Materialize builds it.
	Prompt *Prompt
	// InputTokens is the client tokenizer's count of strings.Join(Texts, " "),
	// computed once when the dataset is built; -1 when unknown.
	InputTokens int
	// MaxTokens is the requested output length (sent as max_completion_tokens
	// or max_tokens); 0 means the request does not set one.
	MaxTokens int
	// Model overrides the run's model for this turn when non-empty.
	Model string
	// System and UserContext are the conversation's leading messages
	// (AIPerf's system_message and user_context_message): a system message
	// and a user message sent before the conversation's turns, at the start
	// of every request of the conversation. Every turn of a conversation
	// carries the same values; empty means none. Chat sends them; endpoints
	// without roles ignore them. InputTokens counts them.
	System      string
	UserContext string

	// Images and Audios are media inputs sent as OpenAI content parts: URLs
	// or data URLs ("data:image/png;base64,...", "data:audio/wav;base64,...").
	Images []string
	Audios []string
	// Videos are video inputs (chat video_url parts): URLs or data URLs
	// ("data:video/webm;base64,...").
	Videos []string
	// ImageUUIDs are cache identifiers of Images, parallel to it ("" =
	// none): chat sends them as the part's "uuid", and an image whose
	// bytes were stripped (--uuid-and-strip) is sent as the UUID alone.
	ImageUUIDs []string
	// AudioSeconds is the duration of the first audio clip in seconds
	// (AIPerf's audio_duration_seconds), feeding audio_duration and RTFx;
	// 0 when unknown. Audios entries are "wav,<base64>" (AIPerf's form) or
	// data URLs; the chat endpoint accepts both.
	AudioSeconds float64
	// Extra are body fields merged LAST into this turn's wire body, after
	// the run's --extra-inputs (AIPerf's per-turn dataset "extra"), in order.
	Extra []Field
	// Messages, when non-nil, is a JSON array of chat messages the turn
	// sends in place of a message built from its texts and media (a
	// recorded conversation snapshot: mooncake "messages", Exgentic spans,
	// Weka deltas); Texts then only feed ISL. Tools, when non-nil, is the
	// JSON array of tool definitions sent as "tools".
	Messages []byte
	Tools    []byte
	// HistoryMessages, when non-nil, is what Messages contributes to the
	// history of later turns (ContextDeltasWithResponses): the recorded
	// delta without the part only this request carries (a Weka turn's
	// partial last block).
	HistoryMessages []byte
	// ResetContext makes this turn drop the history before it: a recorded
	// context that does not extend the previous one (AIPerf's
	// reset_context).
	ResetContext bool
	// Headers are extra HTTP headers for this turn's request.
	Headers []Header
	// RawPayload, when non-nil, is the exact request body to send
	// (raw_payload and inputs_json datasets); Texts then only feed ISL.
	RawPayload []byte
	// Timestamp is when this turn is due, from the start of the trace
	// (fixed-schedule replay); valid when HasTimestamp.
	Timestamp    time.Duration
	HasTimestamp bool
	// Delay is the pause between the previous turn's response and this turn
	// (multi-turn think time); 0 for the first turn.
	Delay time.Duration
	// TraceAt is when this request started in the recording (from the
	// trace start), on every turn of a trace that records it, valid when
	// HasTraceAt (AIPerf's per-turn timestamp_ms). Unlike Timestamp it does
	// not make a run a fixed-schedule replay; the agentic replay samples
	// its trajectories on it.
	TraceAt    time.Duration
	HasTraceAt bool
}

// JoinInputs is the text AIPerf counts as a turn's ISL: its non-empty
// system, user-context and prompt texts joined with spaces.
func JoinInputs(t *Turn) string {
	parts := make([]string, 0, len(t.Texts)+2)
	for _, s := range append([]string{t.System, t.UserContext}, t.Texts...) {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, " ")
}

// Header is one HTTP header.
type Header struct{ Name, Value string }

// Field is one JSON body field: a key and its raw JSON value.
type Field struct {
	Key   string
	Value []byte // valid JSON
}

// Dataset is an immutable, indexable set of conversations: Conversations,
// or a trace's compact rows (Rows) that build each conversation when it is
// asked for, or Conversations whose content is built in order as they are
// asked for (NewDeferred). Code that reads any dataset goes through Len,
// FirstTurn and Conversation; code that needs the slice calls Expand
// first.
type Dataset struct {
	Conversations []Conversation
	// Rows, when non-nil, holds the dataset instead of Conversations
	// (nil then): a trace loaded with LoadOptions.CompactRows.
	Rows *TraceRows
	// Pending, when non-nil, builds Conversations' content in order
	// (NewDeferred).
	Pending *Pending
}

// Len returns the number of conversations.
func (d *Dataset) Len() int {
	if d.Rows != nil {
		return d.Rows.Len()
	}
	return len(d.Conversations)
}

// Conversation returns conversation i. Of compact rows it is built anew
// on each call: changing it changes nothing in the dataset. Of a deferred
// dataset it waits until conversation i is built.
func (d *Dataset) Conversation(i int) *Conversation {
	if d.Rows != nil {
		return d.Rows.Conversation(i)
	}
	if d.Pending != nil {
		d.Pending.wait(i, Lookahead)
	}
	return &d.Conversations[i]
}

// FirstTurn returns conversation i's number of turns and its first turn's
// timestamp (valid when has), without building a compact row's or a
// deferred conversation.
func (d *Dataset) FirstTurn(i int) (turns int, at time.Duration, has bool) {
	if d.Rows != nil {
		at, has := d.Rows.Timestamp(i)
		return 1, at, has
	}
	c := &d.Conversations[i]
	if len(c.Turns) == 0 {
		return 0, 0, false
	}
	return len(c.Turns), c.Turns[0].Timestamp, c.Turns[0].HasTimestamp
}

// Expand turns compact rows into Conversations (with their prompts still
// lazy) and builds every deferred conversation (Pending is nil after),
// for code that reads or changes the slice, before the run: it is not
// safe alongside Conversation. A dataset held as Conversations is left as
// it is.
func (d *Dataset) Expand() {
	d.Complete()
	d.Pending = nil
	if d.Rows == nil {
		return
	}
	convs := make([]Conversation, d.Rows.Len())
	for i := range convs {
		convs[i] = *d.Rows.Conversation(i)
	}
	d.Conversations, d.Rows = convs, nil
}
