package benchmark

import (
	"context"
	"encoding/json"
	"maps"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/mockserver"
)

// TestRunSpecDecode: against the mock reporting speculative-decoding
// acceptance in each engine's form (vLLM's response-root metrics,
// TensorRT-LLM's per-choice object, llama.cpp's timings), streamed and
// not, every record and the summary carry AIPerf's spec-decode metrics
// with the mock's figures, and the console prints the Spec Decode table.
// The mock's acceptance pattern 2, 3, 1, 4, 2, 0, ... (k = 4) produces 20
// tokens in 7 steps that accept 13 of 28 drafts (the last step is cut to
// the one draft the answer still needs).
func TestRunSpecDecode(t *testing.T) {
	const osl = 20
	for _, form := range []string{mockserver.SpecDecodeVLLM, mockserver.SpecDecodeTRTLLM, mockserver.SpecDecodeLlamaCpp} {
		for _, streaming := range []bool{true, false} {
			name := form + map[bool]string{true: " stream", false: " body"}[streaming]
			t.Run(name, func(t *testing.T) {
				url, _ := mock(t, func(m *mockserver.Config) { m.SpecDecode = form })
				cfg := baseConfig(t, url)
				cfg.Endpoint.Streaming = streaming
				cfg.Input.OutputTokens.Mean = ptr(osl)
				cfg.Load.RequestCount = ptr(4)
				cfg.Load.Concurrency = ptr(2)
				out, err := run(t, context.Background(), cfg)
				if err != nil {
					t.Fatalf("Run: %v\n%s", err, out)
				}
				recs := recordMetrics(t, cfg.Output.ArtifactDir)
				if len(recs) != 4 {
					t.Fatalf("%d records, want 4", len(recs))
				}
				for i, m := range recs {
					for tag, want := range map[string]float64{
						"spec_decode_steps": 7, "spec_decode_accepted_draft_tokens": 13, "spec_decode_draft_tokens": 28,
						"spec_decode_acceptance_length": 1 + 13.0/7, "spec_decode_draft_acceptance_rate": 13.0 / 28 * 100,
						"spec_decode_accepted_per_verified": 20.0 / 35,
					} {
						if got, ok := m[tag]; !ok || !near(got, want) {
							t.Errorf("record %d: %s = %v (present %v); want %v", i, tag, got, ok, want)
						}
					}
				}
				doc := summary(t, filepath.Join(cfg.Output.ArtifactDir, "profile_export_aiperf.json"))
				for tag, want := range map[string]float64{
					"total_spec_decode_steps": 28, "total_accepted_draft_tokens": 52, "total_draft_tokens": 112,
					"spec_decode_token_weighted_acceptance_length": 1 + 52.0/28,
					"spec_decode_overall_draft_acceptance_rate":    52.0 / 112 * 100,
				} {
					var v struct{ Avg float64 }
					if err := json.Unmarshal(doc[tag], &v); err != nil || !near(v.Avg, want) {
						t.Errorf("%s = %s; want avg %v", tag, doc[tag], want)
					}
				}
				// Each request's steps accepted 0, 1, 1, 2, 2, 3, 4 drafts; llama.cpp
				// reports only totals, spread evenly (13 over 7 steps: one 1, six 2s).
				want := map[string]int{"0": 4, "1": 8, "2": 8, "3": 4, "4": 4}
				if form == mockserver.SpecDecodeLlamaCpp {
					want = map[string]int{"1": 4, "2": 24}
				}
				var hist map[string]int
				if err := json.Unmarshal(doc["pooled_spec_decode_acceptance_histogram"], &hist); err != nil || !maps.Equal(hist, want) {
					t.Errorf("pooled_spec_decode_acceptance_histogram = %s; want %v", doc["pooled_spec_decode_acceptance_histogram"], want)
				}
				if !strings.Contains(out, "LLM Metrics: Spec Decode") || !strings.Contains(out, "Accepted-draft histogram (% steps):  ") {
					t.Errorf("console lacks the Spec Decode table and its histogram line:\n%s", out)
				}
			})
		}
	}
}
