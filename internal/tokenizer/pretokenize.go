package tokenizer

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// o200k_base first splits text into pieces with a regular expression, then
// byte-pair encodes each piece on its own. This file implements that split by
// hand. tiktoken's pattern is the alternation, tried in order at each
// position, with Perl (leftmost-first, greedy, backtracking) semantics:
//
//	1. [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	2. [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	3. \p{N}{1,3}
//	4.  ?[^\s\p{L}\p{N}]+[\r\n/]*
//	5. \s*[\r\n]+
//	6. \s+(?!\S)
//	7. \s+
//
// Some alternative matches at every position of valid UTF-8, so pieces tile
// the text. A hand-written matcher is several times faster than a regexp
// engine, allocates nothing, and avoids a bug in the generated matcher of
// github.com/tiktoken-go/tokenizer v0.10.0, whose character sets omit U+007F
// so that DEL characters are silently dropped. \s is Unicode White_Space.
// The contractions are matched case-insensitively with Unicode simple case
// folding, as tiktoken's Rust regex does, so 's' also matches U+017F 'ſ'
// (" I'ſ" is one piece and encodes as " I'" + "ſ"); no other contraction
// letter has a non-ASCII case variant.

// charClass is a bit set of the properties of one character the pattern
// tests.
type charClass uint8

const (
	classLetter  charClass = 1 << iota // \p{L}
	classNumber                        // \p{N}
	classSpace                         // \s (White_Space)
	classUpper                         // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
	classLower                         // [\p{Ll}\p{Lm}\p{Lo}\p{M}]
	classNewline                       // [\r\n]
)

// asciiClasses holds the class of each ASCII character, indexed by its code:
// a-z letter|lower, A-Z letter|upper, 0-9 number, \r and \n space|newline,
// \t \v \f and ' ' space, everything else none. TestASCIIClasses checks it
// against classifyRune.
const asciiClasses = "" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x04\x24\x04\x04\x24\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x00\x00\x00\x00\x00\x00" +
	"\x00\x09\x09\x09\x09\x09\x09\x09\x09\x09\x09\x09\x09\x09\x09\x09" +
	"\x09\x09\x09\x09\x09\x09\x09\x09\x09\x09\x09\x00\x00\x00\x00\x00" +
	"\x00\x11\x11\x11\x11\x11\x11\x11\x11\x11\x11\x11\x11\x11\x11\x11" +
	"\x11\x11\x11\x11\x11\x11\x11\x11\x11\x11\x11\x00\x00\x00\x00\x00"

// classify returns r's properties; r < 0 (end of text) has none.
func classify(r rune) charClass {
	switch {
	case r < 0:
		return 0
	case r < utf8.RuneSelf:
		return charClass(asciiClasses[r])
	}
	return classifyRune(r)
}

// classifyRune computes the class of any character from the Unicode tables.
func classifyRune(r rune) charClass {
	var c charClass
	switch {
	case unicode.IsLetter(r):
		c = classLetter
		switch {
		case unicode.Is(unicode.Lu, r) || unicode.Is(unicode.Lt, r):
			c |= classUpper
		case unicode.Is(unicode.Ll, r):
			c |= classLower
		default: // Lm, Lo
			c |= classUpper | classLower
		}
	case unicode.IsMark(r):
		c = classUpper | classLower
	case unicode.IsNumber(r):
		c = classNumber
	case unicode.Is(unicode.White_Space, r):
		c = classSpace
	}
	return c
}

// runeAt decodes the character at byte offset i of s and returns it with
// its width; at the end of s it returns -1 and 0.
func runeAt(s string, i int) (rune, int) {
	if i >= len(s) {
		return -1, 0
	}
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

// classAt returns the class and width of the character at byte offset i;
// at the end of s, 0 and 0.
func classAt(s string, i int) (charClass, int) {
	if i < len(s) && s[i] < utf8.RuneSelf {
		return charClass(asciiClasses[s[i]]), 1
	}
	r, n := runeAt(s, i)
	return classify(r), n
}

// skipClass returns the offset of the first character at or after i that
// has none of the bits in want, and the number of characters skipped.
func skipClass(s string, i int, want charClass) (end, count int) {
	for {
		c, n := classAt(s, i)
		if n == 0 || c&want == 0 {
			return i, count
		}
		i += n
		count++
	}
}

// nextPiece returns the byte length of the first pre-tokenization piece of
// s, which must be non-empty valid UTF-8. The result is at least 1.
func nextPiece(s string) int {
	if end := matchLetters(s); end > 0 {
		return end
	}
	c0, n0 := classAt(s, 0)
	if c0&classNumber != 0 { // 3. \p{N}{1,3}
		end := n0
		for range 2 {
			c, n := classAt(s, end)
			if c&classNumber == 0 {
				break
			}
			end += n
		}
		return end
	}
	if end := matchPunctuation(s); end > 0 {
		return end
	}
	// Only whitespace is left: alternatives 5 to 7.
	end, count := skipClass(s, 0, classSpace)
	lastNewline := -1
	for i := 0; i < end; {
		c, n := classAt(s, i)
		if c&classNewline != 0 {
			lastNewline = i + n
		}
		i += n
	}
	switch {
	case lastNewline > 0: // 5. \s*[\r\n]+: backtrack to the last newline
		return lastNewline
	case end == len(s) || count == 1: // 6. at the end of text, or 7.
		return end
	default: // 6. \s+(?!\S): leave the last space to the next piece
		_, last := utf8.DecodeLastRuneInString(s[:end])
		return end - last
	}
}

// prefixOptions returns the starting offsets the optional leading
// [^\r\n\p{L}\p{N}] allows, in the order the greedy '?' tries them: just
// after that character when s starts with one, then at 0.
func prefixOptions(s string) (first, second int, two bool) {
	c, n := classAt(s, 0)
	if n > 0 && c&(classNewline|classLetter|classNumber) == 0 {
		return n, 0, true
	}
	return 0, 0, false
}

// matchLetters matches alternatives 1 and 2 at the start of s and returns
// the end of the match, or 0 when neither matches.
func matchLetters(s string) int {
	first, second, two := prefixOptions(s)
	starts := [2]int{first, second}
	tries := starts[:1]
	if two {
		tries = starts[:2]
	}
	// 1. prefix? upper* lower+ contraction?
	for _, p := range tries {
		// upper* is greedy; backtracking gives characters back until one
		// that can start lower+ is found. Characters in both sets (Lm, Lo,
		// M) may be given back; Lu and Lt may not start lower+.
		runEnd, _ := skipClass(s, p, classUpper)
		split := -1
		if c, _ := classAt(s, runEnd); c&classLower != 0 {
			split = runEnd
		} else {
			for i := p; i < runEnd; {
				c, n := classAt(s, i)
				if c&classLower != 0 {
					split = i
				}
				i += n
			}
		}
		if split < 0 {
			continue
		}
		if split == runEnd {
			end, _ := skipClass(s, split, classLower)
			return matchContraction(s, end)
		}
		// Backtracked into the upper run: lower+ takes just that one
		// character, because the characters after it up to runEnd are Lu
		// or Lt and the one at runEnd is not lower.
		_, n := runeAt(s, split)
		return matchContraction(s, split+n)
	}
	// 2. prefix? upper+ lower* contraction?
	for _, p := range tries {
		runEnd, count := skipClass(s, p, classUpper)
		if count == 0 {
			continue
		}
		end, _ := skipClass(s, runEnd, classLower)
		return matchContraction(s, end)
	}
	return 0
}

// matchContraction extends a match ending at i over an optional English
// contraction suffix ('s, 't, 're, 've, 'm, 'll, 'd in any case, and 'ſ).
func matchContraction(s string, i int) int {
	if i+1 >= len(s) || s[i] != '\'' {
		return i
	}
	if strings.HasPrefix(s[i+1:], "ſ") {
		return i + 1 + len("ſ")
	}
	lower := func(j int) byte {
		if j >= len(s) {
			return 0
		}
		return s[j] | 0x20 // ASCII lower case; non-letters never match below
	}
	switch lower(i + 1) {
	case 's', 't', 'm', 'd':
		return i + 2
	case 'r', 'v':
		if lower(i+2) == 'e' {
			return i + 3
		}
	case 'l':
		if lower(i+2) == 'l' {
			return i + 3
		}
	}
	return i
}

// matchPunctuation matches alternative 4,  ?[^\s\p{L}\p{N}]+[\r\n/]*, at
// the start of s and returns its end, or 0.
func matchPunctuation(s string) int {
	const notOther = classSpace | classLetter | classNumber
	isOther := func(i int) (bool, int) {
		c, n := classAt(s, i)
		return n > 0 && c&notOther == 0, n
	}
	p := 0
	if s[0] == ' ' {
		if ok, _ := isOther(1); ok {
			p = 1
		}
	}
	i := p
	for {
		ok, n := isOther(i)
		if !ok {
			break
		}
		i += n
	}
	if i == p {
		return 0
	}
	for i < len(s) && (s[i] == '\r' || s[i] == '\n' || s[i] == '/') {
		i++
	}
	return i
}
