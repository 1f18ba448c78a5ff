package hf

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// decoderSequence chains its decoders: each one's output tokens are the
// next one's input ("Sequence").
type decoderSequence []decoder

func newDecoderSequence(path string, raw json.RawMessage) (decoder, error) {
	seq, err := newSequence(path, "decoders", raw, newDecoder)
	if err != nil {
		return nil, err
	}
	return decoderSequence(seq), nil
}

func (s decoderSequence) decodeChain(tokens []string) []string {
	for _, d := range s {
		tokens = d.decodeChain(tokens)
	}
	return tokens
}

// noOptions decodes a spec that has nothing but its type.
func noOptions(path, typ string, raw json.RawMessage) error {
	var spec struct {
		Type string `json:"type"`
	}
	return decodeStrict(path, typ, raw, &spec)
}

// byteFallbackDecoder turns runs of "<0xXX>" tokens back into text
// ("ByteFallback"): a run that is valid UTF-8 becomes one string, an
// invalid run one U+FFFD per byte.
type byteFallbackDecoder struct{}

func newByteFallbackDecoder(path string, raw json.RawMessage) (decoder, error) {
	if err := noOptions(path, "ByteFallback", raw); err != nil {
		return nil, err
	}
	return byteFallbackDecoder{}, nil
}

// byteToken parses a byte-fallback token "<0xXX>" as Rust's
// u8::from_str_radix(&token[3..5], 16) does (which accepts "+X").
func parseByteToken(tok string) (byte, bool) {
	if len(tok) != 6 || !strings.HasPrefix(tok, "<0x") || tok[5] != '>' {
		return 0, false
	}
	h := tok[3:5]
	if h[0] == '+' {
		h = h[1:]
	}
	v := 0
	for i := 0; i < len(h); i++ {
		d := hexDigit(h[i])
		if d < 0 {
			return 0, false
		}
		v = v*16 + d
	}
	return byte(v), true
}

func hexDigit(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

func (byteFallbackDecoder) decodeChain(tokens []string) []string {
	out := make([]string, 0, len(tokens))
	var run []byte
	flush := func() {
		if len(run) == 0 {
			return
		}
		if utf8.Valid(run) {
			out = append(out, string(run))
		} else {
			for range run {
				out = append(out, "\uFFFD")
			}
		}
		run = run[:0]
	}
	for _, t := range tokens {
		if b, ok := parseByteToken(t); ok {
			run = append(run, b)
			continue
		}
		flush()
		out = append(out, t)
	}
	flush()
	return out
}

// fuseDecoder joins every token into one ("Fuse").
type fuseDecoder struct{}

func newFuseDecoder(path string, raw json.RawMessage) (decoder, error) {
	if err := noOptions(path, "Fuse", raw); err != nil {
		return nil, err
	}
	return fuseDecoder{}, nil
}

func (fuseDecoder) decodeChain(tokens []string) []string {
	return []string{strings.Join(tokens, "")}
}

// stripDecoder removes up to start leading and stop trailing occurrences
// of one character from every token ("Strip"; Llama-2 drops the space its
// normalizer prepended).
type stripDecoder struct {
	content     rune
	start, stop int
}

func newStripDecoder(path string, raw json.RawMessage) (decoder, error) {
	var spec struct {
		Type    string `json:"type"`
		Content string `json:"content"`
		Start   int    `json:"start"`
		Stop    int    `json:"stop"`
	}
	if err := decodeStrict(path, "Strip", raw, &spec); err != nil {
		return nil, err
	}
	if utf8.RuneCountInString(spec.Content) != 1 {
		return nil, fmt.Errorf("%s (Strip): content %q must be one character", path, spec.Content)
	}
	if spec.Start < 0 || spec.Stop < 0 {
		return nil, fmt.Errorf("%s (Strip): start and stop must not be negative", path)
	}
	r, _ := utf8.DecodeRuneInString(spec.Content)
	return stripDecoder{content: r, start: spec.Start, stop: spec.Stop}, nil
}

func (d stripDecoder) decodeChain(tokens []string) []string {
	out := make([]string, len(tokens))
	for i, t := range tokens {
		chars := []rune(t)
		lo := 0
		for lo < d.start && lo < len(chars) && chars[lo] == d.content {
			lo++
		}
		hi := len(chars)
		for k := 0; k < d.stop && hi > lo && chars[hi-1] == d.content; k++ {
			hi--
		}
		out[i] = string(chars[lo:hi])
	}
	return out
}

// replaceDecoder replaces every match of a pattern in each token
// ("Replace"; Llama-2 and Gemma turn "▁" back into spaces).
type replaceDecoder struct {
	pat     *pattern
	content string
}

func newReplaceDecoder(path string, raw json.RawMessage) (decoder, error) {
	pat, content, err := parseReplace(path, raw)
	if err != nil {
		return nil, err
	}
	return replaceDecoder{pat, content}, nil
}

func (d replaceDecoder) decodeChain(tokens []string) []string {
	out := make([]string, len(tokens))
	for i, t := range tokens {
		out[i] = d.pat.replaceAll(t, d.content)
	}
	return out
}
