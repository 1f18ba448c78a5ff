package cli

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/aiperf-go/aiperf/internal/builtin"
	"github.com/aiperf-go/aiperf/internal/config"
)

// textOnlyFlags are the options AIPerf refuses with an endpoint that
// neither tokenizes its input nor produces tokens (audio_transcription,
// image_retrieval): prompt shaping and the tokenizer. Flags another area
// has not registered yet are skipped.
var textOnlyFlags = []string{
	"prompt-input-tokens-mean", "prompt-input-tokens-stddev", "prompt-input-tokens-block-size",
	"prompt-batch-size", "sequence-distribution", "random-range-ratio",
	"prompt-prefix-length", "prompt-prefix-pool-size",
	"tokenizer", "tokenizer-trust-remote-code", "tokenizer-revision",
}

// nonTextEndpointProblems reports each text-only flag given on the command
// line with such an endpoint, as AIPerf does.
func nonTextEndpointProblems(fs *pflag.FlagSet, typ config.EndpointType) []error {
	p, err := builtin.New().Endpoints.Lookup(string(typ))
	if err != nil || p.Meta.TokenizesInput || p.Meta.ProducesTokens {
		return nil
	}
	var out []error
	for _, name := range textOnlyFlags {
		if fs.Lookup(name) != nil && fs.Changed(name) {
			out = append(out, &config.FieldError{Flag: "--" + name,
				Problem: fmt.Sprintf("cannot be used with --endpoint-type %s, which neither tokenizes its input nor produces tokens", typ)})
		}
	}
	return out
}
