package loader

import (
	"errors"
	"fmt"
	"time"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// msDuration converts AIPerf's millisecond timestamps and delays; ms must
// have passed checkMs.
func msDuration(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }

// maxMs bounds timestamps and delays (about 31 years) so that they fit a
// time.Duration.
const maxMs = 1e12

// checkMs validates a millisecond timestamp or delay.
func checkMs(ms float64) error {
	switch {
	case ms != ms:
		return errors.New("must be a number")
	case ms < 0:
		return fmt.Errorf("must not be negative, got %v", ms)
	case ms > maxMs:
		return fmt.Errorf("must be at most %g ms, got %v", maxMs, ms)
	}
	return nil
}

// turnSpec is a single_turn row (or one element of a multi_turn row's
// turns, or a random_pool entry) read into a Turn, and its session_id.
type turnSpec struct {
	turn      dataset.Turn
	sessionID string
}

// fieldErr is a problem with one field of a row.
type fieldErr struct {
	field string
	err   error
}

func (e *fieldErr) Error() string { return e.field + ": " + e.err.Error() }
func (e *fieldErr) Unwrap() error { return e.err }

// asInputErr turns a row error into an *InputError for file and line,
// adding prefix (e.g. "turns[2].") to the field it names.
func asInputErr(file string, line int, prefix string, err error) error {
	if ie, ok := err.(*dataset.InputError); ok {
		return ie // already placed
	}
	var fe *fieldErr
	if errors.As(err, &fe) {
		return &dataset.InputError{File: file, Line: line, Field: prefix + fe.field, Err: fe.err}
	}
	return &dataset.InputError{File: file, Line: line, Field: trimDot(prefix), Err: err}
}

func trimDot(s string) string {
	if n := len(s); n > 0 && s[n-1] == '.' {
		return s[:n-1]
	}
	return s
}

// parseTurnRow reads the single-turn fields of r: text/texts,
// image/images (and image_uuids), audio/audios, video/videos, timestamp or
// delay (ms), role, session_id, output_length and extra. pool rows
// (random_pool) carry only media. Media files are not read here (see
// resolveTurnMedia), so detection can parse rows cheaply.
func parseTurnRow(r row, pool bool) (turnSpec, error) {
	var ts turnSpec
	t := &ts.turn
	if err := readTurnMedia(r, t); err != nil {
		return ts, err
	}
	if len(t.Texts)+len(t.Images)+len(t.Audios)+len(t.Videos) == 0 {
		return ts, errors.New("at least one of text, texts, image, images, image_uuids, audio, audios, video, videos must be given")
	}
	if pool {
		return ts, nil
	}
	stamp, hasStamp, err := r.num("timestamp")
	if err != nil {
		return ts, &fieldErr{"timestamp", err}
	}
	delay, hasDelay, err := r.num("delay")
	if err != nil {
		return ts, &fieldErr{"delay", err}
	}
	if stamp != 0 && delay != 0 {
		return ts, &fieldErr{"delay", errors.New("timestamp and delay cannot be set together")}
	}
	if hasStamp {
		if err := checkMs(stamp); err != nil {
			return ts, &fieldErr{"timestamp", err}
		}
		t.Timestamp, t.HasTimestamp = msDuration(stamp), true
	}
	if hasDelay {
		if err := checkMs(delay); err != nil {
			return ts, &fieldErr{"delay", err}
		}
		t.Delay = msDuration(delay)
	}
	if t.Role, _, err = r.str("role"); err != nil {
		return ts, &fieldErr{"role", err}
	}
	if ts.sessionID, _, err = r.str("session_id"); err != nil {
		return ts, &fieldErr{"session_id", err}
	}
	if t.MaxTokens, _, err = r.int("output_length"); err != nil {
		return ts, &fieldErr{"output_length", err}
	}
	if t.MaxTokens < 0 {
		return ts, &fieldErr{"output_length", fmt.Errorf("must not be negative, got %d", t.MaxTokens)}
	}
	if t.Extra, _, err = r.object("extra"); err != nil {
		return ts, &fieldErr{"extra", err}
	}
	return ts, nil
}

// sessions groups turns by session ID in order of first appearance.
type sessions struct {
	order []string
	turns map[string][]dataset.Turn
	keep  int // > 0: sessions first seen after this many are dropped
}

func (s *sessions) add(id string, t ...dataset.Turn) {
	if s.turns == nil {
		s.turns = map[string][]dataset.Turn{}
	}
	if _, ok := s.turns[id]; !ok {
		if s.keep > 0 && len(s.order) >= s.keep {
			return
		}
		s.order = append(s.order, id)
	}
	s.turns[id] = append(s.turns[id], t...)
}

// noKeepIfTimed turns Keep off when the file's first turn has a
// timestamp: such a file is replayed on its own schedule, every entry.
func (s *sessions) noKeepIfTimed(t dataset.Turn) {
	if len(s.order) == 0 && t.HasTimestamp {
		s.keep = 0
	}
}

func (s *sessions) conversations() []dataset.Conversation {
	out := make([]dataset.Conversation, len(s.order))
	for i, id := range s.order {
		out[i] = dataset.Conversation{ID: id, Turns: s.turns[id]}
	}
	return out
}

// countTurns fills InputTokens of every turn.
func (l *loader) countTurns(convs []dataset.Conversation) {
	for c := range convs {
		for t := range convs[c].Turns {
			turn := &convs[c].Turns[t]
			turn.InputTokens = l.count(turn.Texts)
		}
	}
}

// singleTurn reads a single_turn JSONL file: one turn per line; lines
// sharing a session_id form one conversation, in file order.
func (l *loader) singleTurn() ([]dataset.Conversation, error) {
	file := l.opts.Path
	s := sessions{keep: l.opts.Keep}
	var p problems
	p.eachLine(file, func(_ int, line []byte) error {
		r, err := parseRow(line)
		if err != nil {
			return err
		}
		ts, err := parseTurnRow(r, false)
		if err != nil {
			return err
		}
		if err := resolveTurnMedia(&ts.turn); err != nil {
			return err
		}
		id := ts.sessionID
		if id == "" {
			id = l.sessionID()
		}
		s.noKeepIfTimed(ts.turn)
		s.add(id, ts.turn)
		return nil
	})
	if err := p.err(); err != nil {
		return nil, err
	}
	convs := s.conversations()
	if l.opts.UUIDAndStrip {
		for c := range convs {
			StripRepeatedImages(&convs[c])
		}
	}
	l.countTurns(convs)
	return convs, nil
}

// ErrUUIDAndStripMultiTurn refuses --uuid-and-strip with a multi_turn file.
var ErrUUIDAndStripMultiTurn = errors.New("--uuid-and-strip is not supported with --custom-dataset-type multi_turn: " +
	"repeated images are only stripped by the single_turn loader; use single_turn rows grouped by session_id")

// multiTurn reads a multi_turn JSONL file: each line is
// {"session_id": ..., "turns": [single-turn objects]}; lines with the same
// session_id are one conversation, their turns in file order.
func (l *loader) multiTurn() ([]dataset.Conversation, error) {
	if l.opts.UUIDAndStrip {
		return nil, ErrUUIDAndStripMultiTurn
	}
	file := l.opts.Path
	s := sessions{keep: l.opts.Keep}
	var p problems
	p.eachLine(file, func(_ int, line []byte) error {
		id, turns, err := parseMultiTurnRow(line)
		if err != nil {
			return err
		}
		for i := range turns {
			if err := resolveTurnMedia(&turns[i]); err != nil {
				var fe *fieldErr
				if errors.As(err, &fe) {
					return &fieldErr{fmt.Sprintf("turns[%d].%s", i, fe.field), fe.err}
				}
				return err
			}
		}
		if id == "" {
			id = l.sessionID()
		}
		if len(turns) > 0 {
			s.noKeepIfTimed(turns[0])
		}
		s.add(id, turns...)
		return nil
	})
	if err := p.err(); err != nil {
		return nil, err
	}
	convs := s.conversations()
	l.countTurns(convs)
	return convs, nil
}

func parseMultiTurnRow(line []byte) (string, []dataset.Turn, error) {
	r, err := parseRow(line)
	if err != nil {
		return "", nil, err
	}
	id, _, err := r.str("session_id")
	if err != nil {
		return "", nil, &fieldErr{"session_id", err}
	}
	raw := r.raw("turns")
	if raw == nil {
		return "", nil, &fieldErr{"turns", errors.New("missing")}
	}
	if jsontext.Value(raw).Kind() != '[' {
		return "", nil, &fieldErr{"turns", typeErr(raw, "an array of turns")}
	}
	var elems []jsontext.Value
	if err := json.Unmarshal(raw, &elems); err != nil {
		return "", nil, &fieldErr{"turns", err}
	}
	if len(elems) == 0 {
		return "", nil, &fieldErr{"turns", errors.New("must not be empty")}
	}
	turns := make([]dataset.Turn, len(elems))
	for i, e := range elems {
		tr, err := parseRow(e)
		if err == nil {
			var ts turnSpec
			if ts, err = parseTurnRow(tr, false); err == nil {
				turns[i] = ts.turn
				continue
			}
		}
		prefix := fmt.Sprintf("turns[%d]", i)
		var fe *fieldErr
		if errors.As(err, &fe) {
			return "", nil, &fieldErr{prefix + "." + fe.field, fe.err}
		}
		return "", nil, &fieldErr{prefix, err}
	}
	return id, turns, nil
}
