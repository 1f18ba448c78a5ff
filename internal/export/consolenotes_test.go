package export

import (
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/metrics"
)

// TestOSLMismatchNote: the output-length panel says which count it
// compared, quotes the server's own usage where the run has it (and says
// so when the server generated the requested length), and never advises
// what the run already does.
func TestOSLMismatchNote(t *testing.T) {
	t.Parallel()
	m := func(tag string) *metrics.Metric {
		return &metrics.Metric{Tag: tag, Header: tag, Kind: metrics.KindAggregate, Unit: metrics.UnitTokens}
	}
	summary := func(usage bool) *metrics.Summary {
		s := &metrics.Summary{Results: []metrics.Result{
			{Metric: m("request_count"), Value: 8},
			{Metric: m("osl_mismatch_count"), Value: 8},
			{Metric: m("osl_mismatch_diff_pct"), Value: 6.25},
			{Metric: m("requested_osl"), Value: 32},
		}}
		if usage {
			s.Results = append(s.Results, metrics.Result{Metric: m("usage_completion_tokens"), Value: 32})
		}
		return s
	}
	tests := []struct {
		name      string
		usage     bool
		opts      ConsoleOptions
		want, not []string
	}{
		{"client count, nothing set", false, ConsoleOptions{},
			[]string{"counted by the client's tokenizer", "--extra-inputs ignore_eos:true", "--use-server-token-count"}, nil},
		{"ignore_eos already set, server usage matches", true, ConsoleOptions{ExtraInputs: map[string]bool{"ignore_eos": true}},
			[]string{"usage.completion_tokens averaged 32.0 against 32.0 requested", "the server generated the requested length"},
			[]string{"ignore_eos:true   generate", "the server ignored the limit"}},
		{"ignore_eos:false is not set", false, ConsoleOptions{ExtraInputs: map[string]bool{"ignore_eos": false}},
			[]string{"--extra-inputs ignore_eos:true"}, nil},
		{"server counts", true, ConsoleOptions{ServerTokenCounts: true, ExtraInputs: map[string]bool{"ignore_eos": true, "min_tokens": true}},
			[]string{"counted by the server's usage.completion_tokens"}, []string{"To get the requested length", "--use-server-token-count         count"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n, ok := oslMismatchNote(summary(tc.usage), tc.opts)
			if !ok {
				t.Fatal("no note")
			}
			for _, w := range tc.want {
				if !strings.Contains(n.body, w) {
					t.Errorf("note lacks %q:\n%s", w, n.body)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(n.body, w) {
					t.Errorf("note has %q:\n%s", w, n.body)
				}
			}
		})
	}
}
