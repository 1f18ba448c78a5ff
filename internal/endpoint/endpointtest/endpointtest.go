// Package endpointtest holds what the endpoint packages' tests share:
// reading recorded SSE and inputs.json fixtures, parsing a response's
// chunks the way the metrics processor does, and comparing request bodies
// with the ones AIPerf 0.13 sent. It is imported by tests only.
package endpointtest

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/aiperf-go/aiperf/internal/endpoint"
	"github.com/aiperf-go/aiperf/internal/record"
)

// Events reads an SSE fixture (as a server sent it, e.g. copied from an
// API's documentation): the data of each event in order, its "data:" lines
// joined with newlines; comments, event names and blank events carry no
// data and are skipped, as the transport skips them.
func Events(t testing.TB, path string) [][]byte {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			out = append(out, []byte(strings.Join(cur, "\n")))
		}
		cur = nil
	}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		switch {
		case line == "":
			flush()
		case strings.HasPrefix(line, "data:"):
			cur = append(cur, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
	}
	flush()
	return out
}

// Body reads a whole-body fixture.
func Body(t testing.TB, path string) [][]byte {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return [][]byte{raw}
}

// Result is what a response's chunks parsed into, summed as the metrics
// processor sums them.
type Result struct {
	Text, Reasoning string
	Usage           *record.Usage // the last non-empty usage
	Content         int           // content responses
	Errors          []*record.ErrorDetails
	Done            bool
	Video           *record.VideoStats
}

// Parse runs chunks through ep in order (a fresh stream reader for a
// Streamer) and fails the test on a parse error.
func Parse(t testing.TB, ep endpoint.Endpoint, chunks [][]byte) Result {
	t.Helper()
	var p record.ChunkParser = ep
	if s, ok := ep.(endpoint.Streamer); ok {
		p = s.NewStream()
	}
	var r Result
	for i, c := range chunks {
		parsed, err := p.ParseResponse(c)
		if err != nil {
			t.Fatalf("chunk %d (%.80s): %v", i, c, err)
		}
		if parsed.HasContent() {
			r.Content++
		}
		r.Text += parsed.Text
		r.Reasoning += parsed.Reasoning
		if parsed.Usage != nil && !parsed.Usage.Empty() {
			r.Usage = parsed.Usage
		}
		if parsed.Error != nil {
			r.Errors = append(r.Errors, parsed.Error)
		}
		if parsed.Video != nil {
			r.Video = parsed.Video
		}
		r.Done = r.Done || parsed.Done
	}
	return r
}

// Count is a present record.Count.
func Count(n int64) record.Count { return record.Some(n) }

// AIPerfPayloads reads the request bodies of an inputs.json AIPerf wrote
// (testdata/aiperf/<case>.json), compacted, in order.
func AIPerfPayloads(t testing.TB, path string) [][]byte {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Data []struct {
			Payloads []jsontext.Value `json:"payloads"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out [][]byte
	for _, d := range doc.Data {
		for _, p := range d.Payloads {
			c, err := endpoint.Compact(p)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, c)
		}
	}
	return out
}

// SameBody fails the test unless got is byte for byte want, and strictly
// valid JSON.
func SameBody(t testing.TB, name string, got, want []byte) {
	t.Helper()
	if !jsontext.Value(got).IsValid() {
		t.Errorf("%s: body is not strictly valid JSON: %s", name, got)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s: body differs from AIPerf 0.13's\n got %s\nwant %s", name, got, want)
	}
}

// Extras builds extra inputs from key, JSON-value pairs.
func Extras(kv ...string) []endpoint.ExtraInput {
	var out []endpoint.ExtraInput
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, endpoint.ExtraInput{Key: kv[i], Value: []byte(kv[i+1])})
	}
	return out
}

// Fixture is the path of a file in the test's testdata directory.
func Fixture(name string) string { return filepath.Join("testdata", name) }
