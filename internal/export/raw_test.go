package export

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/aiperf-go/aiperf/internal/record"
)

var fixturePayload = []byte(`{"messages":[{"role":"user","content":"Hello"}],"model":"mock-model","stream":true,"max_completion_tokens":8,"stream_options":{"include_usage":true}}`)

func TestRawLinesGolden(t *testing.T) {
	t.Parallel()
	recs := fixtureRecords()
	nonStream := *recs[0]
	r := *nonStream.Record
	r.Streaming = false
	r.Chunks = []record.Chunk{{At: 94316885, Data: []byte(`{"id":"x","choices":[{"message":{"content":"Hello world"}}]}`)}}
	nonStream.Record = &r

	var b []byte
	for _, p := range recs {
		b = AppendRawLine(b, p, fixturePayload, LineOptions{Clock: testWall})
		b = append(b, '\n')
	}
	b = AppendRawLine(b, &nonStream, []byte(`{"prompt":"Hi","model":"mock-model","stream":false}`), LineOptions{Clock: testWall})
	b = append(b, '\n')
	golden(t, "raw.jsonl.golden", b)
}

func TestRawLineShape(t *testing.T) {
	t.Parallel()
	recs := fixtureRecords()
	line := AppendRawLine(nil, recs[2], fixturePayload, LineOptions{Clock: testWall})
	if got, want := topKeys(t, line), []string{"metadata", "start_perf_ns", "status", "responses", "error", "payload"}; !slices.Equal(got, want) {
		t.Errorf("keys %v; want %v", got, want)
	}
	var doc struct {
		Responses []struct {
			PerfNS  int64 `json:"perf_ns"`
			Packets []struct {
				Name  string `json:"name"`
				Value string `json:"value"`
			} `json:"packets"`
		} `json:"responses"`
		Payload jsontext.Value `json:"payload"`
	}
	if err := json.Unmarshal(line, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Responses) != 1 || doc.Responses[0].PerfNS != 300000000 ||
		len(doc.Responses[0].Packets) != 2 || doc.Responses[0].Packets[0].Name != "event" {
		t.Errorf("responses = %+v", doc.Responses)
	}
	if string(doc.Payload) != string(fixturePayload) {
		t.Errorf("payload = %s; want it verbatim", doc.Payload)
	}
}

func TestRawPayloadForms(t *testing.T) {
	t.Parallel()
	p := fixtureRecords()[1]
	cases := []struct {
		name, payload, want string
	}{
		{"compact", `{"a":1}`, `"payload":{"a":1}}`},
		{"multiline is compacted", "{\n  \"a\": [1,\n 2]\n}", `"payload":{"a":[1,2]}}`},
		{"invalid is a string", `{"a":`, `"payload":"{\"a\":"}`},
	}
	for _, c := range cases {
		line := AppendRawLine(nil, p, []byte(c.payload), LineOptions{Clock: testWall})
		if !jsontext.Value(line).IsValid() || strings.ContainsAny(string(line), "\n") {
			t.Errorf("%s: not one valid line: %s", c.name, line)
		}
		if !strings.HasSuffix(string(line), c.want) {
			t.Errorf("%s: line ends %s; want suffix %s", c.name, line[len(line)-40:], c.want)
		}
	}
	if line := AppendRawLine(nil, p, nil, LineOptions{Clock: testWall}); strings.Contains(string(line), "payload") {
		t.Errorf("nil payload written: %s", line)
	}
}

func TestRawWriter(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "profile_export_raw.jsonl")
	w, err := NewRawWriter(path, LineOptions{Clock: testWall})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range fixtureRecords() {
		if err := w.Write(p, fixturePayload); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if n := len(readLines(t, path)); n != 3 {
		t.Errorf("%d lines; want 3", n)
	}
	if _, err := NewRawWriter(path, LineOptions{}); err == nil {
		t.Error("NewRawWriter without a clock succeeded")
	}
}
