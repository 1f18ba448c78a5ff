package metrics

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/record"
)

func FuzzProcess(f *testing.F) {
	f.Add([]byte{0, 0, 0, 10, 0, 0, 0, 20}, " a b|THINK: x|USAGE 3 4 7 1 0|[DONE]", int64(5), int64(0))
	f.Add([]byte{0, 0, 0, 0}, "!x", int64(0), int64(0))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 1}, " a| b", int64(-3), int64(1<<40))
	reg := Builtin()
	sel := reg.Select(Selection{Streaming: true, ProducesTokens: true, TokenizesInput: true, Goodput: true, Experimental: true})
	slos := map[string]float64{tagTTFT: 10, "output_token_throughput_per_user": 5}
	proc, err := NewProcessor(reg, ProcessorOptions{Parser: testParser{}, Tokenizer: wordTokenizer{}, Metrics: sel, SLOs: slos})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, offsets []byte, datas string, sent, due int64) {
		parts := strings.Split(datas, "|")
		r := &record.Record{Sent: durationOf(sent), Due: durationOf(due), InputTokens: -1, InputTexts: parts[:1],
			RequestedOSL: len(parts)}
		for i := 0; i+4 <= len(offsets) && i/4 < len(parts); i += 4 {
			at := durationOf(int64(int32(binary.BigEndian.Uint32(offsets[i:]))) * 1000)
			r.Chunks = append(r.Chunks, record.Chunk{At: at, Data: []byte(parts[i/4])})
			r.End = max(r.End, at+1)
		}
		p := proc.Process(r)
		acc := NewAccumulator(reg, sel, slos)
		acc.Add(&p)
		acc.Add(&p)
		for _, v := range p.Values {
			for _, x := range append([]float64{v.Scalar}, v.List...) {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					t.Fatalf("%s = %v", v.Metric.Tag, x)
				}
			}
		}
		for _, res := range acc.Summarize().Results {
			if math.IsNaN(res.Value) || math.IsInf(res.Value, 0) || (res.Stats != nil && !res.Stats.finite()) {
				t.Fatalf("%s: non-finite result %+v", res.Metric.Tag, res)
			}
		}
	})
}

func durationOf(n int64) time.Duration { return time.Duration(n) }
