package hf

import (
	"testing"

	"github.com/aiperf-go/aiperf/internal/tokenizer/testmodels"
)

// BenchmarkEncode encodes the whole corpus (about 1.15 MB) as one string
// per iteration and reports tokens per second; scripts/tokenizer-bench.sh
// times HuggingFace's Rust build on the same input. The word cache is warm
// after the first iteration, as it is in a long benchmark run.
func BenchmarkEncode(b *testing.B) {
	text := string(loadCorpus(b))
	for _, model := range testmodels.Names() {
		b.Run(model, func(b *testing.B) {
			tok := realTokenizer(b, model)
			n := len(tok.Encode(text))
			b.SetBytes(int64(len(text)))
			b.ResetTimer()
			for b.Loop() {
				tok.Encode(text)
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "tokens/s")
		})
	}
}

// BenchmarkEncodeCold is BenchmarkEncode with an empty word cache at the
// start of every iteration: the cost of text the tokenizer has not seen,
// as the first prompts of a run are.
func BenchmarkEncodeCold(b *testing.B) {
	text := string(loadCorpus(b))
	for _, model := range testmodels.Names() {
		b.Run(model, func(b *testing.B) {
			tok := realTokenizer(b, model)
			n := len(tok.Encode(text))
			bp, ok := tok.model.(*bpe)
			if !ok {
				b.Skipf("%s: not a BPE model, no word cache", model)
			}
			saved := bp.cache
			b.Cleanup(func() { bp.cache = saved })
			b.SetBytes(int64(len(text)))
			b.ResetTimer()
			for b.Loop() {
				b.StopTimer()
				bp.cache = newWordCache()
				b.StartTimer()
				tok.Encode(text)
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "tokens/s")
		})
	}
}

// BenchmarkLoad measures parsing a tokenizer.json.
func BenchmarkLoad(b *testing.B) {
	for _, model := range []string{"qwen3", "gemma3"} {
		b.Run(model, func(b *testing.B) {
			path := testmodels.TokenizerJSON(b, model)
			for b.Loop() {
				if _, err := Load(path); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
