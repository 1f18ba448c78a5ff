package loader

import (
	"math"
	"strconv"
)

// fastRow is a mooncake row of the one shape large traces have: a JSON
// object of timestamp (optional), input_length, output_length (optional)
// and a non-empty hash_ids array of integers, nothing else. Reading it
// takes a scan of the line and no allocation, where the general path
// decodes every field into a Turn; any line it does not take (another
// field, a string, an escape, a fraction where a count goes, a value out
// of range) goes to the general path, which reads it or says what is
// wrong with it. FuzzFastRowMatchesGeneral holds the two to the same
// values.
type fastRow struct {
	ts        float64
	hasTS     bool
	length    int
	maxTokens int
	hashIDs   []int // appended to the caller's buffer
}

// maxFastDigits bounds the digits of a count read by the fast path, so
// that it cannot overflow before it is held to the general path's bound
// (math.MaxInt32).
const maxFastDigits = 10

// scanFastRow reads line into r (reusing r.hashIDs' storage) and reports
// whether it is of fastRow's shape with valid values.
func scanFastRow(line []byte, r *fastRow) bool {
	s := fastScanner{b: line}
	*r = fastRow{hashIDs: r.hashIDs[:0]}
	var seen [4]bool
	if !s.ws() || !s.byte('{') {
		return false
	}
	for first := true; ; first = false {
		if !s.ws() {
			return false
		}
		if s.peek() == '}' {
			if first {
				return false
			}
			s.i++
			break
		}
		if !first && (!s.byte(',') || !s.ws()) {
			return false
		}
		key, ok := s.key()
		if !ok || !s.ws() || !s.byte(':') || !s.ws() {
			return false
		}
		k, ok := s.field(key, r)
		if !ok {
			return false
		}
		if seen[k] {
			return false
		}
		seen[k] = true
	}
	return s.ws() && s.i == len(s.b) && seen[1] && seen[3]
}

// field reads the value of key into r and returns the key's index in
// scanFastRow's seen list; false for another key or a value the fast
// path does not take.
func (s *fastScanner) field(key []byte, r *fastRow) (int, bool) {
	var ok bool
	switch string(key) { // compared without a copy
	case "timestamp":
		v, ok := s.number()
		if !ok {
			return 0, false
		}
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || checkMs(x) != nil {
			return 0, false
		}
		r.ts, r.hasTS = x, true
		return 0, true
	case "input_length":
		r.length, ok = s.count()
		return 1, ok && r.length >= 1
	case "output_length":
		r.maxTokens, ok = s.count()
		return 2, ok
	case "hash_ids":
		return 3, s.hashIDs(r)
	}
	return 0, false
}

// hashIDs reads a non-empty array of integers onto r.hashIDs.
func (s *fastScanner) hashIDs(r *fastRow) bool {
	if !s.byte('[') || !s.ws() {
		return false
	}
	for {
		neg := s.peek() == '-'
		if neg {
			s.i++
		}
		n, ok := s.count()
		if !ok {
			return false
		}
		if neg {
			n = -n
		}
		r.hashIDs = append(r.hashIDs, n)
		if !s.ws() {
			return false
		}
		if s.peek() == ']' {
			s.i++
			return true
		}
		if !s.byte(',') || !s.ws() {
			return false
		}
	}
}

// fastScanner walks a line for scanFastRow.
type fastScanner struct {
	b []byte
	i int
}

func (s *fastScanner) peek() byte {
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// ws skips JSON whitespace; it reports true so that it chains.
func (s *fastScanner) ws() bool {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\t' || s.b[s.i] == '\n' || s.b[s.i] == '\r') {
		s.i++
	}
	return true
}

func (s *fastScanner) byte(c byte) bool {
	if s.peek() != c {
		return false
	}
	s.i++
	return true
}

// key reads a string of lower-case letters and underscores.
func (s *fastScanner) key() ([]byte, bool) {
	if !s.byte('"') {
		return nil, false
	}
	at := s.i
	for s.i < len(s.b) && (s.b[s.i] >= 'a' && s.b[s.i] <= 'z' || s.b[s.i] == '_') {
		s.i++
	}
	key := s.b[at:s.i]
	return key, s.byte('"')
}

// count reads a non-negative integer written as digits alone (no sign,
// fraction or exponent), without leading zeros, at most math.MaxInt32 (the
// general path's bound on integers).
func (s *fastScanner) count() (int, bool) {
	at, n := s.i, 0
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		n = n*10 + int(s.b[s.i]-'0')
		s.i++
	}
	d := s.i - at
	if d == 0 || d > maxFastDigits || (d > 1 && s.b[at] == '0') || n > math.MaxInt32 {
		return 0, false
	}
	return n, true
}

// number reads a JSON number's text.
func (s *fastScanner) number() (string, bool) {
	at := s.i
	s.byte('-')
	switch {
	case s.byte('0'):
	case s.peek() >= '1' && s.peek() <= '9':
		s.digits()
	default:
		return "", false
	}
	if s.byte('.') && !s.digits() {
		return "", false
	}
	if c := s.peek(); c == 'e' || c == 'E' {
		s.i++
		if c := s.peek(); c == '+' || c == '-' {
			s.i++
		}
		if !s.digits() {
			return "", false
		}
	}
	return string(s.b[at:s.i]), true
}

// digits skips one or more digits and reports whether there was one.
func (s *fastScanner) digits() bool {
	at := s.i
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i > at
}
