package benchmark

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/aiperf-go/aiperf/internal/clock"
	"github.com/aiperf-go/aiperf/internal/endpoint"
	"github.com/aiperf-go/aiperf/internal/endpoint/openai"
	"github.com/aiperf-go/aiperf/internal/export"
	"github.com/aiperf-go/aiperf/internal/metrics"
	"github.com/aiperf-go/aiperf/internal/record"
	"github.com/aiperf-go/aiperf/internal/tokenizer"
)

// The record path (parse -> metrics.Processor -> export.AppendRecordLine,
// and the Accumulator -> summary JSON/CSV) was made cheaper
// without changing one output byte. TestRecordPathGolden pins its whole
// output on a fixed set of records (the mock's real response bodies, odd
// timings, escapes, reasoning, tool calls, usage, every failure kind),
// through the real chat and completions parsers, registry and builtin
// tokenizer: the goldens were written by the code before the change
// (7a91b44 for chat, 98bf99b for completions, with this file copied in),
// and every later change must reproduce them byte for byte. They grew once,
// by additions only, when the error-adjusted adj_* metrics were added.

// mockChatBody is what `mock-server --fast` answers to a non-streaming chat
// request (captured with curl).
const mockChatBody = `{"id":"chatcmpl-mock-1","object":"chat.completion","created":1796187831,"model":"m",` +
	`"choices":[{"index":0,"message":{"role":"assistant","content":" known period stone clear time role stone warm data early war"},` +
	`"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":11,"total_tokens":14}}`

// recordPathWall is the fixed wall-clock start of the golden's run.
const recordPathWall = 1796003971870762149

var updateRecordPath = flag.Bool("update-recordpath", false, "rewrite testdata/recordpath/*.golden (only with the code from before a change)")

func us(v float64) time.Duration { return time.Duration(v * float64(time.Microsecond)) }

// nonStreamingRecords are chat.completion answers and failures.
func nonStreamingRecords() []*record.Record {
	type body struct {
		data        string
		contentType string
		status      int
	}
	bodies := []body{
		{data: mockChatBody},
		{data: "  \n" + mockChatBody + "\n"},
		{data: `{"id":"x","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant",` +
			`"content":"Line1\nLine \"two\" \u00e9 \ud83d\ude00 tab\t/\\ end","reasoning_content":"let me think\u2026 ok"},"logprobs":null,"finish_reason":"length"}],` +
			`"usage":{"prompt_tokens":12,"completion_tokens":40,"total_tokens":52,"completion_tokens_details":{"reasoning_tokens":7}}}`},
		{data: `{"object":"chat.completion","choices":[{"message":{"content":"a","reasoning":"r1 r2"},"finish_reason":null}],"usage":null}`},
		{data: `{"object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":null,` +
			`"tool_calls":[{"id":"c1","type":"function","function":{"name":"get_weather","arguments":"{\"city\": \"Paris\"}"}}]},"finish_reason":"tool_calls"}]}`},
		{data: `{"object":"chat.completion","choices":[{"index":0,"message":{"content":"first"}},{"index":1,"message":{"content":"second"}}],"choices":[{"message":{"content":"dup wins"}}]}`},
		{data: `{"object":"chat.completion","choices":[{"message":{"content":["not","a","string"]}}],"usage":{"prompt_tokens":5.0,"completion_tokens":"7"}}`},
		{data: "{\"object\":\"chat.completion\",\"choices\":[{\"message\":{\"content\":\"bad utf8 \xff\xfe here\"}}]}"},
		{data: `{"object":"chat.completion","choices":[{"message":{"content":""}}]}`},
		{data: `{"object":"chat.completion","choices":[]}`},
		{data: `{"error":{"message":"The model 'x' does not exist","type":"NotFoundError","code":404}}`, status: 404},
		{data: `{"object":"error","message":"max_tokens too large","type":"BadRequestError","code":400}`, status: 400},
		{data: `{"id":"cut","object":"chat.comp`},
		{data: `<html><body>502 Bad Gateway</body></html>`, contentType: "text/html", status: 502},
		{data: `[1,2,3]`},
		{data: `{"object":"chat.completion","choices":[{"message":{"content":"trailing"}}]} x`},
		{data: `{"object":"text_completion","choices":[{"text":"not chat"}]}`},
		{data: `{"object":"chat.completion","created":1e3,"system_fingerprint":"fp_1","choices":[{"index":0,"message":{"role":"assistant","content":"ok then"},"finish_reason":"stop","stop_reason":null}],"usage":{"prompt_tokens":100,"total_tokens":116,"completion_tokens":16,"prompt_tokens_details":{"cached_tokens":64}}}`},
	}
	var recs []*record.Record
	for i, b := range bodies {
		sent := us(1000 + 137.25*float64(i))
		r := &record.Record{
			Seq: uint64(i), Phase: record.Profiling, ConversationID: fmt.Sprintf("conv-%d", i),
			XRequestID: fmt.Sprintf("req-%04d", i), WorkerID: "worker_0",
			Due: sent - us(3.5*float64(i%3)), Sent: sent, Ack: sent + us(211.7), End: sent + us(1234.567+float64(i)*3.3),
			Status: 200, ContentType: "application/json", InputTokens: 16 + i, RequestedOSL: 16,
			Chunks: []record.Chunk{{At: sent + us(1200), Data: []byte(b.data)}},
		}
		if b.status != 0 {
			r.Status = b.status
		}
		if b.contentType != "" {
			r.ContentType = b.contentType
		}
		if i%4 == 1 {
			r.InputTokens, r.InputTexts = -1, []string{"hello there", "general kenobi"}
		}
		r.Trace = record.HTTPTrace{GetConn: sent + us(1), GotConn: sent + us(2.5), WroteHeaders: sent + us(20), WroteRequest: sent + us(21),
			FirstByte: sent + us(205), BodyStart: sent + us(212), BodyEnd: sent + us(1200), BytesSent: 300, BytesReceived: int64(len(b.data)),
			ChunksSent: 1, ChunksReceived: 1, Reused: i > 0}
		if i == 0 {
			r.Trace.ConnectStart, r.Trace.ConnectDone, r.Trace.Dialed = sent+us(3), sent+us(90.125), true
		}
		recs = append(recs, r)
	}
	// A cancelled request with nothing read, and one whose End is not after
	// its Sent.
	recs = append(recs,
		&record.Record{Seq: 90, Phase: record.Profiling, WorkerID: "worker_1", Due: us(5000), Sent: us(5000), End: us(9000),
			Cancelled: true, CancelledAt: us(9000), InputTokens: 8,
			Error: &record.ErrorDetails{Code: 499, Type: "RequestCancellationError", Message: "cancelled after 4.0 ms"}},
		&record.Record{Seq: 91, Phase: record.Warmup, WorkerID: "worker_1", Due: us(6000), Sent: us(6000), End: us(6000), InputTokens: 8,
			Status: 200, Chunks: []record.Chunk{{At: us(6000), Data: []byte(mockChatBody)}}},
	)
	return recs
}

// streamingRecords are chat.completion.chunk streams as the mock sends
// them, and a few odd ones.
func streamingRecords() []*record.Record {
	chunk := func(delta, finish string) string {
		f := "null"
		if finish != "" {
			f = `"` + finish + `"`
		}
		return `{"id":"chatcmpl-mock-2","object":"chat.completion.chunk","created":1796187831,"model":"m","choices":[{"index":0,"delta":` +
			delta + `,"finish_reason":` + f + `}]}`
	}
	usage := `{"id":"chatcmpl-mock-2","object":"chat.completion.chunk","created":1796187831,"model":"m","choices":[],` +
		`"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`
	streams := [][]string{
		{chunk(`{"role":"assistant","content":""}`, ""), chunk(`{"content":" known"}`, ""), chunk(`{"content":" period"}`, ""),
			chunk(`{}`, "stop"), usage, "[DONE]"},
		{chunk(`{"role":"assistant","reasoning_content":"hmm"}`, ""), chunk(`{"reasoning_content":" so"}`, ""),
			chunk(`{"content":"Answer: \"42\"\n"}`, ""), chunk(`{"content":" done"}`, "length"), "[DONE]"},
		{chunk(`{"content":"cut"}`, ""), chunk(`{"content":" short"}`, "")}, // no [DONE], no finish_reason
		{chunk(`{"content":"x"}`, ""), `{"error":{"message":"overloaded","type":"ServiceUnavailable","code":503}}`},
		{chunk(`{"content":"one"}`, ""), `{"broken":`},
		{chunk(`{"tool_calls":[{"index":0,"function":{"name":"f","arguments":"{\"a\""}}]}`, ""),
			chunk(`{"tool_calls":[{"index":0,"function":{"arguments":":1}"}}]}`, "tool_calls"), "[DONE]"},
		{"", " \n", chunk(`{"content":"late"}`, "stop"), "[DONE]"},
	}
	var recs []*record.Record
	for i, s := range streams {
		sent := us(20000 + 999.9*float64(i))
		r := &record.Record{Seq: uint64(100 + i), Phase: record.Profiling, ConversationID: fmt.Sprintf("s-%d", i), WorkerID: "worker_2",
			Due: sent, Sent: sent, Ack: sent + us(150), Status: 200, Streaming: true, ContentType: "text/event-stream",
			InputTokens: 32, RequestedOSL: 4}
		at := sent + us(300)
		for j, d := range s {
			r.Chunks = append(r.Chunks, record.Chunk{At: at, Data: []byte(d)})
			at += us(87.3 + float64(j*j)*11.1)
		}
		r.End = at
		if i == 3 {
			r.Chunks[1].Event = "error"
		}
		recs = append(recs, r)
	}
	return recs
}

// completionRecords are text_completion answers (or streams) as the mock
// and vLLM send them, and a few the scanner leaves to the decoder.
func completionRecords(streaming bool) []*record.Record {
	bodies := [][]string{
		{`{"id":"cmpl-mock-1","object":"text_completion","created":1796187831,"model":"m","choices":[{"index":0,"text":" known period stone","finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":3,"total_tokens":6}}`},
		{`{"id":"cmpl-1","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":" a \"b\"\n\u00e9","logprobs":null,"finish_reason":"length","stop_reason":null}],"usage":{"prompt_tokens":5,"total_tokens":21,"completion_tokens":16,"prompt_tokens_details":null}}`},
		{`{"object":"text_completion","choices":[{"text":"one"},{"text":"two"}]}`},
		{`{"object":"text_completion","choices":[{"text":""}]}`},
		{`{"error":{"message":"bad prompt","type":"BadRequestError","code":400}}`},
		{`{"object":"text_completion","choices":[{"text":"cut`},
	}
	if streaming {
		chunk := func(text, finish string) string {
			f := "null"
			if finish != "" {
				f = `"` + finish + `"`
			}
			return `{"id":"cmpl-2","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":"` + text +
				`","logprobs":null,"finish_reason":` + f + `,"stop_reason":null}],"usage":null}`
		}
		bodies = [][]string{
			{chunk(" known", ""), chunk(" period", ""), chunk("", "stop"),
				`{"id":"cmpl-2","object":"text_completion","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`, "[DONE]"},
			{chunk("a", ""), chunk("b", "length"), "[DONE]"},
			{chunk("x", ""), `{"broken":`},
		}
	}
	var recs []*record.Record
	for i, chunks := range bodies {
		sent := us(40000 + 777.7*float64(i))
		r := &record.Record{Seq: uint64(200 + i), Phase: record.Profiling, WorkerID: "worker_3", Due: sent, Sent: sent, Ack: sent + us(99),
			Status: 200, Streaming: streaming, ContentType: "application/json", InputTokens: 24, RequestedOSL: 16}
		at := sent + us(250)
		for _, d := range chunks {
			r.Chunks = append(r.Chunks, record.Chunk{At: at, Data: []byte(d)})
			at += us(61.3)
		}
		r.End = at
		recs = append(recs, r)
	}
	return recs
}

// recordPathProcessor is a processor over the chat endpoint's metrics
// with the builtin tokenizer and the golden's fixed wall clock.
func recordPathProcessor(t testing.TB, ep endpoint.Endpoint, streaming, serverTokens bool, slos map[string]float64) (*metrics.Processor, *metrics.Accumulator, *clock.Clock) {
	t.Helper()
	tok, err := tokenizer.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	meta := ep.Metadata()
	reg := metrics.Builtin()
	sel := reg.Select(metrics.Selection{Streaming: streaming, ProducesTokens: meta.ProducesTokens, TokenizesInput: meta.TokenizesInput,
		SupportsImages: meta.SupportsImages, SupportsAudio: meta.SupportsAudio, SupportsVideos: meta.SupportsVideos,
		UseServerTokenCount: serverTokens, Goodput: len(slos) > 0})
	clk := clock.Aligned(clock.New(), 0, recordPathWall)
	proc, err := metrics.NewProcessor(reg, metrics.ProcessorOptions{ID: "record_processor_0", Parser: ep, Tokenizer: tok,
		UseServerTokenCount: serverTokens, NonTextOutputTokens: meta.ProducesTokens, Metrics: sel, Clock: clk, SLOs: slos})
	if err != nil {
		t.Fatal(err)
	}
	return proc, metrics.NewAccumulator(reg, sel, slos), clk
}

// recordPathRun processes recs with one processor over the chat endpoint's
// metrics and returns the JSONL lines, the summary JSON and the CSV.
func recordPathRun(t testing.TB, ep endpoint.Endpoint, recs []*record.Record, streaming, serverTokens bool) []byte {
	t.Helper()
	proc, acc, clk := recordPathProcessor(t, ep, streaming, serverTokens, map[string]float64{"request_latency": 1.25})
	var out []byte
	for _, r := range recs {
		p := proc.Process(r)
		if r.Phase == record.Profiling {
			acc.Add(&p)
		}
		out = export.AppendRecordLine(out, &p, export.LineOptions{Clock: clk})
		out = append(out, '\n')
	}
	s := acc.Summarize()
	js, err := export.SummaryJSON(&s, export.RunInfo{})
	if err != nil {
		t.Fatal(err)
	}
	out = append(append(out, js...), '\n')
	return append(out, export.SummaryCSV(&s)...)
}

func TestRecordPathGolden(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name                    string
		streaming, serverTokens bool
		completions             bool
	}{
		{"nonstreaming", false, false, false},
		{"nonstreaming_server_tokens", false, true, false},
		{"streaming", true, false, false},
		{"streaming_server_tokens", true, true, false},
		{"completions", false, false, true},
		{"completions_streaming", true, false, true},
	} {
		var ep endpoint.Endpoint = openai.NewChat()
		recs := nonStreamingRecords()
		switch {
		case c.completions:
			ep, recs = openai.NewCompletions(), completionRecords(c.streaming)
		case c.streaming:
			recs = streamingRecords()
		}
		got := recordPathRun(t, ep, recs, c.streaming, c.serverTokens)
		path := filepath.Join("testdata", "recordpath", c.name+".golden")
		if *updateRecordPath {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (go test -run TestRecordPathGolden -update-recordpath writes it)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: record path output changed (-want +got):\n%s", c.name, cmp.Diff(string(want), string(got)))
		}
	}
}

// BenchmarkRecordPath is one non-streaming chat record from the mock
// through the whole record path: parse, metrics, JSONL line, accumulator.
func BenchmarkRecordPath(b *testing.B) {
	for _, c := range []struct {
		name      string
		streaming bool
		recs      []*record.Record
	}{
		{"nonstreaming", false, nonStreamingRecords()[:1]},
		{"streaming", true, streamingRecords()[:1]},
	} {
		b.Run(c.name, func(b *testing.B) {
			proc, acc, clk := recordPathProcessor(b, openai.NewChat(), c.streaming, false, nil)
			rec := c.recs[0]
			var line []byte
			b.ReportAllocs()
			for b.Loop() {
				rec.Error = nil
				p := proc.Process(rec)
				acc.Add(&p)
				line = export.AppendRecordLine(line[:0], &p, export.LineOptions{Clock: clk})
			}
		})
	}
}
