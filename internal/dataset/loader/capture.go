package loader

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// TypeSageMakerDataCapture is Amazon SageMaker real-time endpoint data
// capture: JSONL records of {captureData: {endpointInput, endpointOutput},
// eventMetadata: {eventId, inferenceTime}}.
const TypeSageMakerDataCapture = "sagemaker_data_capture"

// captureEntry is one captured request.
type captureEntry struct {
	at      time.Duration // since the epoch
	turn    dataset.Turn
	inputTk int // usage.prompt_tokens of the captured response; 0 if none
}

// sageMakerCapture replays captured chat requests: each record is its own
// single-turn conversation sending the captured messages (and tools) as
// they were, at its inferenceTime relative to the earliest record, with
// the captured max_tokens (or max_completion_tokens). A file or every
// *.jsonl file under a directory is read; records are replayed in time
// order.
func (l *loader) sageMakerCapture() ([]dataset.Conversation, error) {
	files := []string{l.opts.Path}
	if isDir(l.opts.Path) {
		files = nil
		err := filepath.WalkDir(l.opts.Path, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() && strings.HasSuffix(p, ".jsonl") {
				files = append(files, p)
			}
			return err
		})
		if err != nil {
			return nil, &dataset.InputError{File: l.opts.Path, Err: err}
		}
		sort.Strings(files)
		if len(files) == 0 {
			return nil, &dataset.InputError{File: l.opts.Path, Err: errors.New("no .jsonl capture files under the directory")}
		}
	}
	var entries []captureEntry
	var p problems
	for _, f := range files {
		p.eachLine(f, func(_ int, line []byte) error {
			e, err := parseCaptureRecord(line)
			if err != nil {
				return err
			}
			entries = append(entries, e)
			return nil
		})
	}
	if err := p.err(); err != nil {
		return nil, err
	}
	if len(entries) == 0 {
		return nil, nil
	}
	first := entries[0].at
	for _, e := range entries {
		first = min(first, e.at)
	}
	sort.SliceStable(entries, func(a, b int) bool { return entries[a].at < entries[b].at })
	turns := make([]*dataset.Turn, len(entries))
	in := make([]int, len(entries))
	for i := range entries {
		t := &entries[i].turn
		t.Timestamp, t.HasTimestamp = entries[i].at-first, true
		turns[i], in[i] = t, entries[i].inputTk
	}
	keep := l.opts.Synthesis.recorded(in, turns, l.seed)
	convs := make([]dataset.Conversation, 0, len(entries))
	for i, t := range turns {
		if !keep[i] {
			continue
		}
		t.InputTokens = l.count(t.Texts)
		convs = append(convs, dataset.Conversation{ID: l.sessionID(), Context: dataset.ContextMessageArray, Turns: []dataset.Turn{*t}})
	}
	return convs, nil
}

func parseCaptureRecord(line []byte) (captureEntry, error) {
	var e captureEntry
	r, err := parseRow(line)
	if err != nil {
		return e, err
	}
	meta, ok, err := r.object("eventMetadata")
	if err != nil || !ok {
		return e, &fieldErr{"eventMetadata", orMissing(err, ok)}
	}
	mr := row{fields: meta}
	when, ok, err := mr.str("inferenceTime")
	if err == nil && !ok {
		err = errors.New("missing")
	}
	if err != nil {
		return e, &fieldErr{"eventMetadata.inferenceTime", err}
	}
	t, err := ParseISOTime(when)
	if err != nil {
		return e, &fieldErr{"eventMetadata.inferenceTime", err}
	}
	e.at = time.Duration(t.UnixNano())
	capture, ok, err := r.object("captureData")
	if err != nil || !ok {
		return e, &fieldErr{"captureData", orMissing(err, ok)}
	}
	cr := row{fields: capture}
	in, err := capturePayload(cr, "endpointInput")
	if err != nil {
		return e, err
	}
	if in == nil {
		return e, &fieldErr{"captureData.endpointInput", errors.New("missing, or not JSON or BASE64 encoded")}
	}
	msgs := in.raw("messages")
	if msgs == nil || jsontext.Value(msgs).Kind() != '[' {
		return e, &fieldErr{"captureData.endpointInput.data", errors.New("the request has no messages array: only OpenAI-compatible chat captures can be replayed")}
	}
	if err := checkMessages(msgs); err != nil {
		return e, &fieldErr{"captureData.endpointInput.data.messages", err}
	}
	e.turn = dataset.Turn{Messages: msgs, Texts: payloadTexts(*in)}
	if tools := in.raw("tools"); tools != nil {
		e.turn.Tools = tools
	}
	for _, k := range []string{"max_tokens", "max_completion_tokens"} {
		if n, ok, err := in.int(k); err == nil && ok {
			e.turn.MaxTokens = n
			break
		}
	}
	if out, err := capturePayload(cr, "endpointOutput"); err == nil && out != nil {
		if usage, ok, _ := out.object("usage"); ok {
			e.inputTk, _, _ = row{fields: usage}.int("prompt_tokens")
		}
	}
	return e, nil
}

// capturePayload decodes captureData.<key>: {data, encoding} with encoding
// JSON or BASE64 (the default); nil for another encoding (CSV).
func capturePayload(cr row, key string) (*row, error) {
	fs, ok, err := cr.object(key)
	if err != nil {
		return nil, &fieldErr{"captureData." + key, err}
	}
	if !ok {
		return nil, nil
	}
	pr := row{fields: fs}
	data, ok, err := pr.str("data")
	if err != nil {
		return nil, &fieldErr{"captureData." + key + ".data", err}
	}
	if !ok {
		return nil, nil
	}
	enc, _, _ := pr.str("encoding")
	var raw []byte
	switch enc {
	case "JSON":
		raw = []byte(data)
	case "", "BASE64":
		if raw, err = base64.StdEncoding.DecodeString(data); err != nil {
			return nil, &fieldErr{"captureData." + key + ".data", fmt.Errorf("bad base64: %v", err)}
		}
	default:
		return nil, nil
	}
	out, err := parseRow(raw)
	if err != nil {
		return nil, &fieldErr{"captureData." + key + ".data", err}
	}
	return &out, nil
}

// checkMessages requires a non-empty array of objects that each have a
// role, as chat messages must.
func checkMessages(raw []byte) error {
	var msgs []jsontext.Value
	if err := json.Unmarshal(raw, &msgs); err != nil {
		return err
	}
	if len(msgs) == 0 {
		return errors.New("must be a non-empty list")
	}
	for i, m := range msgs {
		r, err := parseRow(m)
		if err != nil || !r.has("role") {
			return fmt.Errorf("message %d must be an object with a role", i)
		}
	}
	return nil
}

// ParseISOTime parses an ISO-8601 time (Python's datetime.fromisoformat;
// no zone means UTC).
func ParseISOTime(s string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999"} {
		if t, err := time.Parse(layout, strings.TrimSpace(s)); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not an ISO-8601 time", s)
}

// isCaptureRow reports whether a first line looks like a data capture
// record.
func isCaptureRow(r row) bool { return r.has("captureData") && r.has("eventMetadata") }
