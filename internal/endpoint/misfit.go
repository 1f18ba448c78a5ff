package endpoint

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/go-json-experiment/json"

	"github.com/aiperf-go/aiperf/internal/record"
)

// Misfit names the endpoint type a response fits when the run's own
// endpoint could not read it: a chat reply read with --endpoint-type
// completions has no choices[0].text, so the run's endpoint sees a
// response without content, while the chat endpoint reads it whole. The
// other endpoint types' own parsers decide the fit, so the hint can never
// disagree with what the suggested type would do. Safe for concurrent
// use.
type Misfit struct {
	asked string
	cands []Candidate
}

// Candidate is an endpoint type a response may fit.
type Candidate struct {
	Type     string
	Endpoint Endpoint
}

// NewMisfit returns the hint for a run of endpoint type asked; cands are
// the other types, most likely first (the first that fits is suggested).
// Types that read any body as content say nothing about a body's shape:
// those that read plain text are left out here; the caller leaves out
// those that read any JSON (media generation).
func NewMisfit(asked string, cands []Candidate) *Misfit {
	m := &Misfit{asked: asked}
	for _, c := range cands {
		if c.Type != asked && c.Endpoint != nil && !readsAnything(c.Endpoint) {
			m.cands = append(m.cands, c)
		}
	}
	return m
}

// readsAnything reports an endpoint that takes a body that is not JSON as
// content (plain-text transcriptions, raw): its reading says nothing
// about a body's shape.
func readsAnything(ep Endpoint) bool {
	return readsContent(ep, []record.Chunk{{Data: []byte("plain text, not JSON")}})
}

// Hint returns, for a response the run's endpoint found no content in or
// could not decode, what the body looks like and which endpoint type reads
// it, e.g. `the body is a JSON object with "object": "chat.completion" and
// members choices, id, model, object, usage, which the chat endpoint reads
// and the completions endpoint does not: did you mean --endpoint-type
// chat?`. It is "" when no other type reads every
// chunk without an error and finds content. The text depends only on the
// response's shape, never on its content, so that the error summary, which
// groups records by message, shows it once.
func (m *Misfit) Hint(chunks []record.Chunk) string {
	if m == nil {
		return ""
	}
	var fits []string
	for _, c := range m.cands {
		if readsContent(c.Endpoint, chunks) {
			fits = append(fits, c.Type)
		}
	}
	if len(fits) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("the body is ")
	b.WriteString(Shape(firstData(chunks)))
	fmt.Fprintf(&b, ", which the %s endpoint reads and the %s endpoint does not: did you mean --endpoint-type %s?", fits[0], m.asked, fits[0])
	if len(fits) > 1 {
		fmt.Fprintf(&b, " (%s read it too)", strings.Join(fits[1:], ", "))
	}
	return b.String()
}

// readsContent reports that ep parses every chunk without an error (in
// band or not) and finds content in at least one, as the metrics pipeline
// would judge the record had ep been the run's endpoint.
func readsContent(ep Endpoint, chunks []record.Chunk) bool {
	var parser record.ChunkParser = ep
	if s, ok := ep.(Streamer); ok {
		parser = s.NewStream()
	}
	content := false
	for i := range chunks {
		data := chunks[i].Data
		if len(bytes.TrimSpace(data)) == 0 {
			continue
		}
		p, err := parser.ParseResponse(data)
		if err != nil || p.Error != nil || strings.EqualFold(chunks[i].Event, "error") {
			return false
		}
		content = content || p.HasContent()
	}
	return content
}

func firstData(chunks []record.Chunk) []byte {
	for i := range chunks {
		if d := bytes.TrimSpace(chunks[i].Data); len(d) > 0 && string(d) != "[DONE]" {
			return d
		}
	}
	return nil
}

// maxShapeMembers bounds the members Shape names.
const maxShapeMembers = 8

// Shape describes a body by its form, not its content: a JSON object by
// its "object" or "type" value and its top-level member names (sorted),
// an array by its length and element kind, anything else as not JSON.
func Shape(data []byte) string {
	data = bytes.TrimSpace(data)
	var doc any
	if len(data) == 0 {
		return "empty"
	}
	if err := json.Unmarshal(data, &doc, DecodeOptions); err != nil {
		return "not JSON"
	}
	switch v := doc.(type) {
	case map[string]any:
		names := make([]string, 0, len(v))
		for k := range v {
			names = append(names, k)
		}
		slices.Sort(names)
		if len(names) > maxShapeMembers {
			names = append(names[:maxShapeMembers], "...")
		}
		var b strings.Builder
		b.WriteString("a JSON object with ")
		for _, tag := range []string{"object", "type"} {
			if s, ok := v[tag].(string); ok {
				fmt.Fprintf(&b, `%q: %q and `, tag, s)
				break
			}
		}
		if len(names) == 0 {
			b.WriteString("no members")
		} else {
			b.WriteString("members ")
			b.WriteString(strings.Join(names, ", "))
		}
		return b.String()
	case []any:
		if len(v) > 0 {
			if _, ok := v[0].(map[string]any); ok {
				return "a JSON array of objects"
			}
		}
		return "a JSON array"
	}
	switch doc.(type) {
	case string:
		return "a JSON string"
	case bool:
		return "a JSON boolean"
	case nil:
		return "JSON null"
	}
	return "a JSON number"
}
