package option

import (
	"strings"

	"github.com/aiperf-go/aiperf/internal/config"
)

// normalizePublic canonicalises a --public-dataset value: AIPerf's names
// in snake_case, its help's kebab-case spellings included (which write
// gsm8k as gsm8-k).
func normalizePublic(s string) string {
	n := config.NormalizeChoice(s)
	return strings.ReplaceAll(n, "gsm8_k", "gsm8k")
}

// normalizeImageSource canonicalises the keywords of --image-source and
// keeps anything else (a directory) as given.
func normalizeImageSource(s string) string {
	switch c := config.ImageSource(config.NormalizeChoice(s)); c {
	case config.ImageNoise, config.ImageAssets:
		return string(c)
	}
	return s
}

// normalizeSampling canonicalises --image-source-sampling, whose values
// are kebab-case.
func normalizeSampling(s string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "_", "-")
}

// normalizeContentType canonicalises a MIME type.
func normalizeContentType(s string) string { return strings.ToLower(strings.TrimSpace(s)) }
