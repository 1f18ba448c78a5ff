package hf

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/dlclark/regexp2/v2"
)

// byteLevelAlphabet is GPT-2's reversible byte-to-character map: printable
// Latin-1 bytes stand for themselves, every other byte for a code point
// from U+0100 on, in byte order. byteRune[b] is the character of byte b;
// runeByte maps it back (entries for other runes are -1).
type byteLevelAlphabet struct {
	byteRune [256]rune
	runeByte [0x144]int16
	// byteStr holds each character's UTF-8 encoding, so mapping a word
	// appends strings without encoding runes.
	byteStr [256]string
}

// gpt2Bytes is built once per tokenizer that needs it; it is a pure
// function of nothing, so every copy is identical.
func newByteLevelAlphabet() *byteLevelAlphabet {
	a := &byteLevelAlphabet{}
	for i := range a.runeByte {
		a.runeByte[i] = -1
	}
	n := rune(0)
	for b := 0; b < 256; b++ {
		var r rune
		if (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF) {
			r = rune(b)
		} else {
			r = 256 + n
			n++
		}
		a.byteRune[b] = r
		a.runeByte[r] = int16(b)
		a.byteStr[b] = string(r)
	}
	return a
}

// decodeToken appends the bytes a byte-level token stands for. A token
// holding any character outside the alphabet (an added token such as
// "<|im_start|>" never does, but a hand-made one may) contributes its own
// UTF-8 bytes instead, as HuggingFace does.
func (a *byteLevelAlphabet) decodeToken(dst []byte, tok string) []byte {
	start := len(dst)
	for _, r := range tok {
		if r < 0 || int(r) >= len(a.runeByte) || a.runeByte[r] < 0 {
			return append(dst[:start], tok...)
		}
		dst = append(dst, byte(a.runeByte[r]))
	}
	return dst
}

// byteLevelRegex is the GPT-2 split pattern ByteLevel uses with use_regex.
const byteLevelRegex = `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`

// byteLevelSpec is the spec shared by the ByteLevel pre-tokenizer, decoder
// and post-processor. trim_offsets only changes offsets, which this
// package does not report, so it is accepted and ignored.
type byteLevelSpec struct {
	Type           string `json:"type"`
	AddPrefixSpace *bool  `json:"add_prefix_space"`
	TrimOffsets    *bool  `json:"trim_offsets"`
	UseRegex       *bool  `json:"use_regex"`
}

// byteLevelPre is the "ByteLevel" pre-tokenizer: it optionally prepends a
// space to a word that lacks one, optionally splits it with the GPT-2
// pattern, and maps every byte of each piece to its alphabet character.
type byteLevelPre struct {
	addPrefixSpace bool
	split          *pattern // nil without use_regex
	alpha          *byteLevelAlphabet
}

func newByteLevelPreTokenizer(path string, raw json.RawMessage) (preTokenizer, error) {
	var spec byteLevelSpec
	if err := decodeStrict(path, "ByteLevel", raw, &spec); err != nil {
		return nil, err
	}
	p := &byteLevelPre{alpha: newByteLevelAlphabet()}
	// HuggingFace's defaults: add_prefix_space true, use_regex true.
	p.addPrefixSpace = spec.AddPrefixSpace == nil || *spec.AddPrefixSpace
	if spec.UseRegex == nil || *spec.UseRegex {
		p.split = &pattern{re: regexp2.MustCompile(byteLevelRegex, regexp2.None)}
	}
	return p, nil
}

func (p *byteLevelPre) preTokenize(dst, src []word) []word {
	var ms [][2]int
	for _, w := range src {
		text := w.text
		if p.addPrefixSpace && !strings.HasPrefix(text, " ") {
			text = " " + text
		}
		if p.split == nil {
			dst = append(dst, word{text: p.mapBytes(text), first: w.first})
			continue
		}
		ms = p.split.matches(ms[:0], text)
		dst = isolatePieces(dst, w, text, ms, p.mapBytes)
	}
	return dst
}

// mapBytes maps every byte of s to its alphabet character.
func (p *byteLevelPre) mapBytes(s string) string {
	if s == "" {
		return s
	}
	var b strings.Builder
	b.Grow(2 * len(s))
	for i := 0; i < len(s); i++ {
		b.WriteString(p.alpha.byteStr[s[i]])
	}
	return b.String()
}

// isolatePieces appends the pieces an Isolated split of text at matches ms
// yields (matches and the gaps between them, empty ones dropped), each
// passed through conv. The first piece stays first when w was.
func isolatePieces(dst []word, w word, text string, ms [][2]int, conv func(string) string) []word {
	prev := 0
	emit := func(a, b int) {
		if a < b {
			dst = append(dst, word{text: conv(text[a:b]), first: w.first && a == 0})
		}
	}
	for _, m := range ms {
		emit(prev, m[0])
		emit(m[0], m[1])
		prev = m[1]
	}
	emit(prev, len(text))
	return dst
}

// byteLevelDecoder maps alphabet characters back to bytes and the bytes to
// text ("ByteLevel" decoder), replacing invalid UTF-8 as Rust's
// String::from_utf8_lossy does.
type byteLevelDecoder struct{ alpha *byteLevelAlphabet }

func newByteLevelDecoder(path string, raw json.RawMessage) (decoder, error) {
	var spec byteLevelSpec
	if err := decodeStrict(path, "ByteLevel", raw, &spec); err != nil {
		return nil, err
	}
	return byteLevelDecoder{newByteLevelAlphabet()}, nil
}

func (d byteLevelDecoder) decodeChain(tokens []string) []string {
	var buf []byte
	for _, t := range tokens {
		buf = d.alpha.decodeToken(buf, t)
	}
	return []string{lossyString(buf)}
}

// byteLevelPost is the "ByteLevel" post-processor: it only trims offsets,
// so ids pass through unchanged.
type byteLevelPost struct{}

func newByteLevelPostProcessor(path string, raw json.RawMessage) (postProcessor, error) {
	var spec byteLevelSpec
	if err := decodeStrict(path, "ByteLevel", raw, &spec); err != nil {
		return nil, err
	}
	return byteLevelPost{}, nil
}

func (byteLevelPost) process(ids []int) []int { return ids }

// lossyString converts b to a string as Rust's String::from_utf8_lossy
// does: each maximal invalid subpart (the longest prefix of a valid
// sequence, or one byte) becomes one U+FFFD.
func lossyString(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	sb.Grow(len(b) + 8)
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r != utf8.RuneError || n > 1 {
			sb.Write(b[i : i+n])
			i += n
			continue
		}
		sb.WriteRune(utf8.RuneError)
		i += invalidPrefixLen(b[i:])
	}
	return sb.String()
}

// invalidPrefixLen is the length of the maximal invalid subpart at the
// start of b, which does not begin with a complete valid sequence.
func invalidPrefixLen(b []byte) int {
	c := b[0]
	var need int
	lo, hi := byte(0x80), byte(0xBF)
	switch {
	case c >= 0xC2 && c <= 0xDF:
		need = 1
	case c == 0xE0:
		need, lo = 2, 0xA0
	case c >= 0xE1 && c <= 0xEC, c == 0xEE, c == 0xEF:
		need = 2
	case c == 0xED:
		need, hi = 2, 0x9F
	case c == 0xF0:
		need, lo = 3, 0x90
	case c >= 0xF1 && c <= 0xF3:
		need = 3
	case c == 0xF4:
		need, hi = 3, 0x8F
	default:
		return 1
	}
	n := 1
	for k := 0; k < need && n < len(b); k++ {
		x := b[n]
		if k == 0 {
			if x < lo || x > hi {
				break
			}
		} else if x < 0x80 || x > 0xBF {
			break
		}
		n++
	}
	return n
}
