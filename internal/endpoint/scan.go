package endpoint

import (
	"bytes"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// Scanner reads the few plain response shapes a benchmark sees millions
// of times (OpenAI's chat.completion and its stream chunks, as vLLM,
// SGLang and the mock write them) without the reflection decoder: it is a
// fast path only. It accepts a strict subset of JSON and gives up (Bad) on
// anything outside it, however valid: escaped or duplicate member names,
// nested values where a scalar is expected, invalid UTF-8, a string the
// decoder would have to repair. The caller then decodes the same bytes
// with the full decoder, so a response reads exactly as before; the fuzz
// tests of each user check the two agree wherever the scanner answers.
//
// Whatever it accepts is valid JSON: numbers follow JSON's grammar,
// strings have no raw control characters and only valid escapes.
type Scanner struct {
	data []byte
	pos  int
	bad  bool
	// fresh reports a container just opened: its first member comes
	// without a comma.
	fresh bool
}

// NewScanner scans data with surrounding whitespace removed, as
// DecodeEvent trims it.
func NewScanner(data []byte) Scanner { return Scanner{data: bytes.TrimSpace(data)} }

// Bad reports that the input left the scanner's subset (or ended early).
func (s *Scanner) Bad() bool { return s.bad }

// fail gives up; every later call is a no-op.
func (s *Scanner) fail() { s.bad = true }

// GiveUp is fail for the scanner's users: the input has a shape they do
// not read (a second choice, a tool call).
func (s *Scanner) GiveUp() { s.bad = true }

// End checks that nothing follows the top-level value; it returns whether
// the whole scan succeeded.
func (s *Scanner) End() bool {
	if s.pos != len(s.data) {
		s.fail()
	}
	return !s.bad
}

func (s *Scanner) ws() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// Peek returns the next value's first byte after whitespace, or 0 at the
// end (or once Bad).
func (s *Scanner) Peek() byte {
	if s.bad {
		return 0
	}
	s.ws()
	if s.pos == len(s.data) {
		return 0
	}
	return s.data[s.pos]
}

// Open consumes c ('{' or '[') or gives up.
func (s *Scanner) Open(c byte) bool {
	if s.Peek() != c {
		s.fail()
		return false
	}
	s.pos++
	s.fresh = true
	return true
}

// More reports whether the container opened last has another member or
// element (consuming the comma before it), or consumes its closing byte
// ('}' or ']') and reports false.
func (s *Scanner) More(end byte) bool {
	c := s.Peek()
	switch {
	case s.bad:
		return false
	case c == end:
		s.pos++
		s.fresh = false
		return false
	case s.fresh:
		s.fresh = false
		return true
	case c == ',':
		s.pos++
		return true
	}
	s.fail()
	return false
}

// Key reads a member name and its colon. Names must be plain printable
// ASCII without escapes (the decoder would match an escaped name by its
// unescaped value); anything else gives up.
func (s *Scanner) Key() []byte {
	if s.Peek() != '"' {
		s.fail()
		return nil
	}
	start := s.pos + 1
	i := start
	for ; i < len(s.data); i++ {
		c := s.data[i]
		if c == '"' {
			break
		}
		if c < ' ' || c == '\\' || c >= 0x80 {
			s.fail()
			return nil
		}
	}
	if i == len(s.data) {
		s.fail()
		return nil
	}
	key := s.data[start:i]
	s.pos = i + 1
	if s.Peek() != ':' {
		s.fail()
		return nil
	}
	s.pos++
	return key
}

// RawString reads a string value and returns its literal, quotes
// included, for members the decoder compares undecoded.
func (s *Scanner) RawString() []byte {
	raw := s.rawString()
	if !s.bad && bytes.IndexByte(raw, '\\') >= 0 {
		s.checkEscapes(raw)
	}
	return raw
}

// String reads a string value as Unquote decodes it. A string with
// invalid UTF-8 or an invalid escape gives up (the decoder replaces or
// rejects those).
func (s *Scanner) String() string {
	raw := s.rawString()
	if s.bad {
		return ""
	}
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return string(inner) // utf8-checked by rawString
	}
	out, err := jsontext.AppendUnquote(make([]byte, 0, len(inner)), raw)
	if err != nil {
		s.fail()
		return ""
	}
	return string(out)
}

// rawString consumes a string literal, quotes included. Raw control
// characters and invalid UTF-8 give up; escapes are checked only for
// their shape here (String and skipString check them fully).
func (s *Scanner) rawString() []byte {
	if s.Peek() != '"' {
		s.fail()
		return nil
	}
	start := s.pos
	ascii := true
	for i := start + 1; i < len(s.data); i++ {
		c := s.data[i]
		switch {
		case c == '"':
			s.pos = i + 1
			raw := s.data[start:s.pos]
			if !ascii && !utf8.Valid(raw) {
				s.fail()
				return nil
			}
			return raw
		case c == '\\':
			i++ // the escaped byte; a quote there does not end the string
		case c < ' ':
			s.fail()
			return nil
		case c >= 0x80:
			ascii = false
		}
	}
	s.fail()
	return nil
}

// skipString consumes a string value that is not needed, checking it is
// valid.
func (s *Scanner) skipString() { s.RawString() }

// checkEscapes gives up on a literal whose escapes are not valid.
func (s *Scanner) checkEscapes(raw []byte) {
	var buf [64]byte
	if _, err := jsontext.AppendUnquote(buf[:0], raw); err != nil {
		s.fail()
	}
}

// Number consumes a JSON number and returns its text.
func (s *Scanner) Number() []byte {
	if s.Peek() == 0 {
		s.fail()
		return nil
	}
	d := s.data
	start, i := s.pos, s.pos
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		i = digits(d, i)
	default:
		s.fail()
		return nil
	}
	if i < len(d) && d[i] == '.' {
		if j := digits(d, i+1); j > i+1 {
			i = j
		} else {
			s.fail()
			return nil
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if j := digits(d, i); j > i {
			i = j
		} else {
			s.fail()
			return nil
		}
	}
	s.pos = i
	return d[start:i]
}

// digits returns the index after the run of decimal digits at d[i:].
func digits(d []byte, i int) int {
	for i < len(d) && d[i] >= '0' && d[i] <= '9' {
		i++
	}
	return i
}

// Null consumes null if it comes next and reports whether it did.
func (s *Scanner) Null() bool {
	if s.Peek() == 'n' && bytes.HasPrefix(s.data[s.pos:], []byte("null")) {
		s.pos += 4
		return true
	}
	return false
}

// SkipScalar consumes a string, number, true, false or null; an object or
// array gives up.
func (s *Scanner) SkipScalar() {
	switch c := s.Peek(); {
	case c == '"':
		s.skipString()
	case c == '-' || c >= '0' && c <= '9':
		s.Number()
	case c == 't' && bytes.HasPrefix(s.data[s.pos:], []byte("true")):
		s.pos += 4
	case c == 'f' && bytes.HasPrefix(s.data[s.pos:], []byte("false")):
		s.pos += 5
	case c == 'n' && s.Null():
	default:
		s.fail()
	}
}

// StringMember reads a String member as String.UnmarshalJSONFrom does: a
// string is its value, any other scalar is absent.
func (s *Scanner) StringMember(dst *String) {
	if s.Peek() == '"' {
		dst.S = s.String()
		return
	}
	s.SkipScalar()
}

// Seen marks bit in *seen, giving up when it was marked already: a
// duplicate member, whose decoding (last wins, partly merged) the scanner
// does not reproduce.
func (s *Scanner) Seen(seen *uint32, bit uint32) {
	if *seen&bit != 0 {
		s.fail()
	}
	*seen |= bit
}

// int reads an Int member as Int.UnmarshalJSONFrom does (a number is
// parsed by ParseCount; null is present without a value).
func (s *Scanner) int(dst *Int) {
	dst.Present = true
	if s.Null() {
		return
	}
	if c := s.Peek(); c != '-' && (c < '0' || c > '9') {
		s.fail()
		return
	}
	v := s.Number()
	if !s.bad {
		dst.N, dst.OK = ParseCount(v)
	}
}

// ScanUsage reads a "usage" value as Usage.UnmarshalJSONFrom does, for
// OpenAI's keys only (prompt, completion and total tokens, and the
// prompt_tokens_details and completion_tokens_details objects); any other
// key gives up. null is no usage, and so is {}.
func (s *Scanner) ScanUsage(u *Usage) {
	if s.Null() || !s.Open('{') {
		return
	}
	f := &u.f
	ints := [...]*Int{&f.PromptTokens, &f.CompletionTokens, &f.TotalTokens}
	var seen uint32
	for s.More('}') {
		u.present = true
		switch key := string(s.Key()); key {
		case "prompt_tokens_details":
			s.Seen(&seen, 1<<8)
			s.details(&f.PromptDetails)
		case "completion_tokens_details":
			s.Seen(&seen, 1<<9)
			s.details(&f.CompletionDetails)
		default:
			s.intMember(key, usageInts[:], ints[:], &seen)
		}
	}
}

// usageInts and detailInts name the Int members ScanUsage reads, in the
// order of its destinations.
var (
	usageInts  = [...]string{"prompt_tokens", "completion_tokens", "total_tokens"}
	detailInts = [...]string{"cached_tokens", "reasoning_tokens", "accepted_prediction_tokens", "rejected_prediction_tokens"}
)

// intMember reads the member key into dsts[i] where names[i] is key, and
// gives up on any other key or a duplicate.
func (s *Scanner) intMember(key string, names []string, dsts []*Int, seen *uint32) {
	for i, n := range names {
		if n == key {
			s.Seen(seen, 1<<i)
			s.int(dsts[i])
			return
		}
	}
	s.fail()
}

// details reads a *_tokens_details value as details.UnmarshalJSONFrom
// does: null is absent; an object of OpenAI's counts is present.
func (s *Scanner) details(d *details) {
	if s.Null() || !s.Open('{') {
		return
	}
	d.present = true
	ints := [...]*Int{&d.CachedTokens, &d.ReasoningTokens, &d.Accepted, &d.Rejected}
	var seen uint32
	for s.More('}') {
		s.intMember(string(s.Key()), detailInts[:], ints[:], &seen)
	}
}
