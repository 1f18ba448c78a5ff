package metrics

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/record"
)

// testParser is a stand-in endpoint parser with a tiny chunk syntax:
//
//	[DONE]                  terminator
//	!<anything>             not parseable (a JSON decode error)
//	ERR:<message>           in-band error object
//	THINK:<text>            reasoning text
//	USAGE p c t r cached    usage only; -1 leaves a field absent
//	<anything else>         output text
type testParser struct{}

var _ Parser = testParser{}

func (testParser) ParseResponse(data []byte) (record.Parsed, error) {
	s := string(data)
	switch {
	case s == "[DONE]":
		return record.Parsed{Done: true}, nil
	case strings.HasPrefix(s, "!"):
		return record.Parsed{}, errors.New("invalid character '!' looking for beginning of value")
	case strings.HasPrefix(s, "ERR:"):
		return record.Parsed{Error: &record.ErrorDetails{Code: 400, Type: record.TypeServerReported, Message: s[4:]}}, nil
	case strings.HasPrefix(s, "THINK:"):
		return record.Parsed{Reasoning: s[6:]}, nil
	case strings.HasPrefix(s, "USAGE "):
		f := strings.Fields(s[6:])
		c := func(i int) record.Count {
			if i >= len(f) {
				return record.Count{}
			}
			n, err := strconv.ParseInt(f[i], 10, 64)
			if err != nil || n < 0 {
				return record.Count{}
			}
			return record.Some(n)
		}
		return record.Parsed{Usage: &record.Usage{PromptTokens: c(0), CompletionTokens: c(1),
			TotalTokens: c(2), ReasoningTokens: c(3), CachedPromptTokens: c(4)}}, nil
	}
	return record.Parsed{Text: s}, nil
}

// wordTokenizer counts whitespace-separated words. It is a test stand-in
// for a real tokenizer, good enough for metric arithmetic: the tests only
// need predictable counts. Chunk texts start with a space so that
// concatenation keeps words apart.
type wordTokenizer struct{}

func (wordTokenizer) Name() string            { return "words" }
func (wordTokenizer) Count(s string) int      { return len(strings.Fields(s)) }
func (wordTokenizer) Decode([]int) string     { return "" }
func (w wordTokenizer) Encode(s string) []int { return make([]int, w.Count(s)) }

// words returns n words with a leading space.
func words(n int) string { return strings.Repeat(" w", n) }

const ms = time.Millisecond

// chunk is a test chunk at an offset in ms.
func chunk(atMS float64, data string) record.Chunk {
	return record.Chunk{At: msDur(atMS), Data: []byte(data)}
}

func msDur(v float64) time.Duration { return time.Duration(v * float64(ms)) }

// streamRec builds a record sent at sentMS whose content chunks arrive at the
// given offsets (ms), each carrying tokensPerChunk words, followed by
// [DONE]; End is 1 ms after the last chunk.
func streamRec(sentMS float64, tokensPerChunk int, atMS ...float64) *record.Record {
	r := &record.Record{Sent: msDur(sentMS), Due: msDur(sentMS), InputTokens: 10, Streaming: true}
	last := sentMS
	for _, at := range atMS {
		r.Chunks = append(r.Chunks, chunk(at, words(tokensPerChunk)))
		last = max(last, at)
	}
	r.Chunks = append(r.Chunks, chunk(last+1, "[DONE]"))
	r.End = msDur(last + 1)
	return r
}

// newTestProcessor builds a processor over every built-in metric that
// applies to a streaming chat endpoint (plus experimental ones).
func newTestProcessor(t *testing.T, reg *Registry, mod func(*ProcessorOptions)) *Processor {
	t.Helper()
	opts := ProcessorOptions{
		ID:        "record_processor_test",
		Parser:    testParser{},
		Tokenizer: wordTokenizer{},
		Metrics:   reg.Select(chatStreaming(true)),
	}
	if mod != nil {
		mod(&opts)
	}
	p, err := NewProcessor(reg, opts)
	if err != nil {
		t.Fatalf("NewProcessor: %v", err)
	}
	return p
}

func chatStreaming(goodput bool) Selection {
	return Selection{Streaming: true, ProducesTokens: true, TokenizesInput: true, Goodput: goodput, Experimental: true}
}

// valueOf returns the display value of tag in p.
func valueOf(p Processed, tag string) (Value, bool) {
	for _, v := range p.Values {
		if v.Metric.Tag == tag {
			return v, true
		}
	}
	return Value{}, false
}

func approx(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

func approxSlice(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !approx(a[i], b[i]) {
			return false
		}
	}
	return true
}
