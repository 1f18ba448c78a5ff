package dataset

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/aiperf-go/aiperf/internal/record"
)

// TraceRows is a trace of single-request sessions held compact: per row
// its timestamp, its lengths, its span of hash ids and where its fresh
// tail starts in the corpus, some 32 bytes plus 8 per hash id, where the
// same row as a Conversation with its Turn and Prompt is some 650 bytes.
// A million-row trace is then tens of megabytes. Conversation builds a
// row's conversation when asked, the one the loader would have built, so
// bodies and IDs do not change (the loader's TestCompactRowsMatch
// Conversations). Immutable once Finish has run; safe for concurrent use.
type TraceRows struct {
	prompts RowPrompts
	rows    []traceRow
	// hashIDs holds every row's hash ids back to back; a row's are
	// hashIDs[hashAt : hashAt+hashN].
	hashIDs []int
	ids     rowIDs
}

// RowPrompts builds a compact row's prompt from what the row keeps (the
// synthesis package's hash-id prompts).
type RowPrompts interface {
	RowPrompt(hashIDs []int, length, tail int) PromptSource
}

// TraceRow is one row as the loader gives it and Row returns it.
type TraceRow struct {
	At        time.Duration // the turn's Timestamp, valid when HasAt
	HasAt     bool
	Length    int // the prompt's length in corpus tokens, at least 1
	MaxTokens int
	// Tail is where the prompt's fresh tail starts in the corpus, -1
	// when its blocks cover it.
	Tail    int
	HashIDs []int
}

// traceRow is a TraceRow as kept.
type traceRow struct {
	at        time.Duration
	hashAt    uint32
	hashN     uint32
	length    int32
	maxTokens int32
	tail      int32
	hasAt     bool
}

// rowIDs names the rows' conversations as the loader's session IDs would
// have, in row order: "session_%06d" from first on when seeded, else one
// stored UUID each.
type rowIDs struct {
	seeded bool
	first  int
	uuids  [][16]byte
}

func (r *rowIDs) id(i int) string {
	if r.seeded {
		return fmt.Sprintf("session_%06d", r.first+i)
	}
	return record.UUIDv4(r.uuids[i])
}

// errRowsGob says compact rows were asked to travel.
var errRowsGob = errors.New("dataset: compact trace rows cannot be encoded (their prompts build from this process's corpus); materialize the dataset first")

// GobEncode refuses, as Prompt's does: a dataset sent to other processes
// is materialized first, and its Rows are nil.
func (t *TraceRows) GobEncode() ([]byte, error) { return nil, errRowsGob }

// GobDecode refuses, as GobEncode does.
func (t *TraceRows) GobDecode([]byte) error { return errRowsGob }

// Add appends a row (its Tail may be set later with SetTail) and reports
// whether it fits a compact row: a length and max tokens that fit 31
// bits, and at most 2^32 hash ids in all. Rows are added, then their tails
// set, then Finish names them.
func (t *TraceRows) Add(r TraceRow) bool {
	const max31 = 1<<31 - 1
	at := len(t.hashIDs)
	if r.Length < 1 || r.Length > max31 || r.MaxTokens < 0 || r.MaxTokens > max31 || r.Tail < -1 || r.Tail > max31 ||
		uint64(at)+uint64(len(r.HashIDs)) > 1<<32-1 {
		return false
	}
	t.hashIDs = append(t.hashIDs, r.HashIDs...)
	t.rows = append(t.rows, traceRow{at: r.At, hasAt: r.HasAt, hashAt: uint32(at), hashN: uint32(len(r.HashIDs)),
		length: int32(r.Length), maxTokens: int32(r.MaxTokens), tail: int32(r.Tail)})
	return true
}

// Grow makes room for n more rows and ids more hash ids, so that a load
// that knows about how many are coming does not copy the rows as they
// grow.
func (t *TraceRows) Grow(n, ids int) {
	t.rows = slices.Grow(t.rows, n)
	t.hashIDs = slices.Grow(t.hashIDs, ids)
}

// SetTail sets row i's Tail and reports whether it fits (31 bits).
func (t *TraceRows) SetTail(i, tail int) bool {
	if tail < -1 || tail > 1<<31-1 {
		return false
	}
	t.rows[i].tail = int32(tail)
	return true
}

// Finish gives the rows their prompt builder and their IDs: seeded, row i
// is "session_%06d" of first+i; otherwise uuids[i] (one per row).
func (t *TraceRows) Finish(prompts RowPrompts, seeded bool, first int, uuids [][16]byte) {
	t.prompts = prompts
	t.ids = rowIDs{seeded: seeded, first: first, uuids: uuids}
}

// MapTimestamps replaces every row's timestamp t with f(t) (a replay sped
// up). It is for the plan, before the rows are read concurrently.
func (t *TraceRows) MapTimestamps(f func(time.Duration) time.Duration) {
	for i := range t.rows {
		if t.rows[i].hasAt {
			t.rows[i].at = f(t.rows[i].at)
		}
	}
}

// Len returns the number of rows.
func (t *TraceRows) Len() int { return len(t.rows) }

// Row returns row i; its HashIDs are the rows' own (not to be changed).
func (t *TraceRows) Row(i int) TraceRow {
	r := &t.rows[i]
	return TraceRow{At: r.at, HasAt: r.hasAt, Length: int(r.length), MaxTokens: int(r.maxTokens), Tail: int(r.tail), HashIDs: t.hashes(r)}
}

func (t *TraceRows) hashes(r *traceRow) []int {
	at, end := int(r.hashAt), int(r.hashAt)+int(r.hashN)
	return t.hashIDs[at:end:end]
}

// Timestamp returns row i's timestamp and whether it has one.
func (t *TraceRows) Timestamp(i int) (time.Duration, bool) {
	return t.rows[i].at, t.rows[i].hasAt
}

// Conversation builds row i's conversation: one turn whose prompt is built
// when sent.
func (t *TraceRows) Conversation(i int) *Conversation {
	r := &t.rows[i]
	c := &Conversation{ID: t.ids.id(i), Turns: make([]Turn, 1)}
	c.Turns[0] = Turn{
		Prompt:       NewPrompt(t.prompts.RowPrompt(t.hashes(r), int(r.length), int(r.tail))),
		InputTokens:  -1,
		MaxTokens:    int(r.maxTokens),
		Timestamp:    r.at,
		HasTimestamp: r.hasAt,
	}
	return c
}

// RowTurn reports whether turn t sets nothing a compact row does not keep:
// besides its prompt and InputTokens (which the row's prompt gives), only
// its max tokens and timestamp; every other field is at its zero value.
func RowTurn(t *Turn) bool {
	return t.Role == "" && t.Texts == nil && t.TextNames == nil && t.Model == "" &&
		t.System == "" && t.UserContext == "" && t.Images == nil && t.Audios == nil &&
		t.Videos == nil && t.ImageUUIDs == nil && t.AudioSeconds == 0 && t.Extra == nil &&
		t.Messages == nil && t.Tools == nil && t.HistoryMessages == nil && !t.ResetContext &&
		t.Headers == nil && t.RawPayload == nil && t.Delay == 0 && t.TraceAt == 0 && !t.HasTraceAt
}
