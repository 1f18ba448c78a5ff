package hf

import (
	"fmt"
	"math"
	"strconv"
)

// parseSerdeFloat converts a JSON number to float64 exactly as the
// reference reads tokenizer.json: serde_json without its float_roundtrip
// feature, whose fast path is not correctly rounded. Unigram scores written
// with 17 significant digits often come out one ulp away from the
// correctly rounded value, and Viterbi ties depend on those bits, so
// strconv.ParseFloat would change the ids.
//
// The algorithm: up to 19-20 leading digits accumulate in a uint64 (digits
// beyond its range are dropped, counted in the exponent only when they are
// before the decimal point); the result is float64(significand) multiplied
// or divided by the correctly rounded power of ten, dividing by 1e308 first
// as long as the exponent is below -308.
func parseSerdeFloat(s string) (float64, error) {
	n := serdeNumber{s: s}
	if !n.integer() || !n.fraction() {
		return 0, fmt.Errorf("invalid number %q", s)
	}
	ok, past := n.exponent()
	switch {
	case !ok || (!past && n.i != len(s)):
		return 0, fmt.Errorf("invalid number %q", s)
	case past && (n.sig == 0 || n.expNeg):
		// An exponent past int32 makes the value zero (the rest of the
		// input is not read, as in the reference).
		return signed(0, n.neg), nil
	case past:
		return 0, fmt.Errorf("number %q out of range", s)
	case !n.isFloat && n.exp == 0:
		// A plain integer: serde_json keeps it as u64 or i64 and converts.
		return signed(float64(n.sig), n.neg), nil
	}
	f, ok := scalePow10(float64(n.sig), n.exp)
	if !ok {
		return 0, fmt.Errorf("number %q out of range", s)
	}
	return signed(f, n.neg), nil
}

// serdeNumber is the scan state of parseSerdeFloat: the position in s, the
// sign, the uint64 significand and the decimal exponent that scales it.
type serdeNumber struct {
	s       string
	i       int
	neg     bool
	sig     uint64
	exp     int
	expNeg  bool
	isFloat bool
}

// at reports whether the next byte is c.
func (n *serdeNumber) at(c byte) bool { return n.i < len(n.s) && n.s[n.i] == c }

// digit reports whether the next byte is an ASCII digit.
func (n *serdeNumber) digit() bool {
	return n.i < len(n.s) && n.s[n.i] >= '0' && n.s[n.i] <= '9'
}

// sigOverflows reports whether sig*10+d exceeds a uint64.
func sigOverflows(sig uint64, d byte) bool {
	const maxU = math.MaxUint64
	return sig >= maxU/10 && (sig > maxU/10 || uint64(d) > maxU%10)
}

// integer reads the sign and the integer part; false on a syntax error
// (no digit, or a leading zero followed by a digit).
func (n *serdeNumber) integer() bool {
	if n.at('-') {
		n.neg = true
		n.i++
	}
	if !n.digit() {
		return false
	}
	if n.s[n.i] == '0' {
		n.i++
		return !n.digit()
	}
	for n.digit() {
		d := n.s[n.i] - '0'
		if sigOverflows(n.sig, d) {
			// Remaining integer digits only scale the value.
			for n.digit() {
				n.exp++
				n.i++
			}
			return true
		}
		n.sig = n.sig*10 + uint64(d)
		n.i++
	}
	return true
}

// fraction reads an optional fractional part; digits past the uint64
// significand are dropped and do not count in the exponent. False when
// the point has no digit after it.
func (n *serdeNumber) fraction() bool {
	if !n.at('.') {
		return true
	}
	n.isFloat = true
	n.i++
	start := n.i
	dropping := false
	for ; n.digit(); n.i++ {
		d := n.s[n.i] - '0'
		dropping = dropping || sigOverflows(n.sig, d)
		if !dropping {
			n.sig = n.sig*10 + uint64(d)
			n.exp--
		}
	}
	return n.i > start
}

// exponent reads an optional exponent into n.exp. ok is false on a syntax
// error; past is true when the written exponent exceeds int32, where the
// reference stops reading.
func (n *serdeNumber) exponent() (ok, past bool) {
	if !n.at('e') && !n.at('E') {
		return true, false
	}
	n.isFloat = true
	n.i++
	if n.at('+') || n.at('-') {
		n.expNeg = n.s[n.i] == '-'
		n.i++
	}
	if !n.digit() {
		return false, false
	}
	e := 0
	for ; n.digit(); n.i++ {
		d := int(n.s[n.i] - '0')
		if e >= math.MaxInt32/10 && (e > math.MaxInt32/10 || d > math.MaxInt32%10) {
			return true, true
		}
		e = e*10 + d
	}
	if n.expNeg {
		e = -e
	}
	n.exp = saturatingAdd32(n.exp, e)
	return true, false
}

// scalePow10 returns f*10^exp as the reference computes it: one multiply
// or divide by a correctly rounded power of ten, after dividing by 1e308
// while the exponent is below -308. ok is false when the result overflows.
func scalePow10(f float64, exp int) (float64, bool) {
	for exp < -308 && f != 0 {
		f /= 1e308
		exp += 308
	}
	switch {
	case exp > 308 && f != 0:
		return 0, false
	case exp < -308 || exp > 308:
		return f, true // f is zero
	case exp >= 0:
		f *= pow10(exp)
		return f, !math.IsInf(f, 0)
	default:
		return f / pow10(-exp), true
	}
}

// signed negates f when neg is set.
func signed(f float64, neg bool) float64 {
	if neg {
		return -f
	}
	return f
}

// saturatingAdd32 adds within the int32 range, as the reference's
// exponent arithmetic does.
func saturatingAdd32(a, b int) int {
	s := int64(a) + int64(b)
	if s > math.MaxInt32 {
		return math.MaxInt32
	}
	if s < math.MinInt32 {
		return math.MinInt32
	}
	return int(s)
}

// pow10 is the correctly rounded float64 nearest 10^n, 0 <= n <= 308.
func pow10(n int) float64 {
	f, _ := strconv.ParseFloat("1e"+strconv.Itoa(n), 64)
	return f
}
