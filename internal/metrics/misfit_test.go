package metrics

import (
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/record"
)

// TestMisfitHintOnlyForUnreadableResponses: the Misfit hint is appended to
// the error of a response the parser could not use (no content, or not
// decodable), and to no other: a server's own error and a transport error
// keep their words, and a good response gets no error.
func TestMisfitHintOnlyForUnreadableResponses(t *testing.T) {
	t.Parallel()
	reg := Builtin()
	sel := reg.Select(chatStreaming(false))
	proc, err := NewProcessor(reg, ProcessorOptions{Parser: testParser{}, Tokenizer: wordTokenizer{}, Metrics: sel,
		Misfit: func([]record.Chunk) string { return "did you mean --endpoint-type other?" }})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		rec    *record.Record
		hinted bool
	}{
		{"no content", &record.Record{Sent: 0, End: 5 * ms, Chunks: []record.Chunk{chunk(1, "USAGE 1 1 2 -1 -1"), chunk(2, "[DONE]")}}, true},
		{"not decodable", &record.Record{Sent: 0, End: 5 * ms, Chunks: []record.Chunk{chunk(1, "!oops")}}, true},
		{"in-band server error", &record.Record{Sent: 0, End: 5 * ms, Chunks: []record.Chunk{chunk(1, "ERR:overloaded")}}, false},
		{"transport error", &record.Record{Sent: 0, End: 5 * ms, Error: &record.ErrorDetails{Code: 503, Type: "Service Unavailable", Message: "busy"}, Chunks: []record.Chunk{chunk(1, "busy")}}, false},
		{"good response", streamRec(0, 2, 10, 20), false},
	} {
		p := proc.Process(tc.rec)
		got := tc.rec.Error != nil && strings.HasSuffix(tc.rec.Error.Message, "; did you mean --endpoint-type other?")
		if got != tc.hinted || (tc.name == "good response") != p.Valid {
			t.Errorf("%s: error %+v (valid %v); want the hint %v", tc.name, tc.rec.Error, p.Valid, tc.hinted)
		}
	}
}
