package pyfmt

import (
	"math"
	"strconv"
)

// decimal is a float64 split into its shortest round-tripping decimal
// digits and exponent: value = 0.d1d2d3... * 10^(exp+1), i.e. d1.d2d3 * 10^exp.
type decimal struct {
	neg    bool
	digits []byte // at least one digit, no leading zero (unless the value is 0)
	exp    int
}

// splitFloat decomposes a finite f using Go's shortest formatting, which
// picks the same digits as Python's repr and orjson (both shortest
// round-trip). The digits are written to out (at most 17 of them), which
// the result slices: the caller's array, on its stack, so formatting a
// float allocates nothing (every JSONL line formats a few dozen).
func splitFloat(f float64, out *[32]byte) decimal {
	var buf [32]byte
	s := strconv.AppendFloat(buf[:0], f, 'e', -1, 64) // -d.ddde±XX
	var d decimal
	if s[0] == '-' {
		d.neg = true
		s = s[1:]
	}
	e := 0
	for i, c := range s {
		if c == 'e' {
			neg := s[i+1] == '-'
			for _, c := range s[i+2:] { // after the sign; always given
				e = e*10 + int(c-'0')
			}
			if neg {
				e = -e
			}
			s = s[:i]
			break
		}
	}
	n := 0
	for _, c := range s {
		if c != '.' {
			out[n] = c
			n++
		}
	}
	d.digits = out[:n]
	d.exp = e
	return d
}

// AppendFloat spells f the way Python does: positional notation with at
// least one fractional digit ("10.0", "0.0025") while the decimal exponent
// is in [minExp, 16), scientific otherwise. expPad is the minimum number of
// exponent digits ("1e-05" for Python's repr, "1e-7" for orjson).
//
// Every JSONL line formats a few dozen floats, so the positional case, by
// far the common one, is one strconv call: its shortest 'f' digits are the
// shortest round-trip digits Python picks, and the decimal exponent of those
// digits is below 16 exactly when |f| < 1e16 and at least minExp exactly
// when |f| >= float64(10^minExp) (both bounds are floats and rounding is
// monotonic, so no shorter decimal crosses them). FuzzAppendPyFloat checks
// it against the digit-by-digit spelling, appendFloatSplit.
func AppendFloat(dst []byte, f float64, minExp, expPad int) []byte {
	if f == 0 {
		if math.Signbit(f) {
			return append(dst, "-0.0"...)
		}
		return append(dst, "0.0"...)
	}
	if a := math.Abs(f); a < 1e15 && f == math.Trunc(f) {
		// A whole number below 2^53 is its own shortest spelling: floats
		// there are at most 1 apart, so no shorter decimal reads back as it.
		return append(strconv.AppendInt(dst, int64(f), 10), ".0"...)
	}
	if a := math.Abs(f); a < 1e16 && minExp < 0 && minExp >= -len(pow10Neg) && a >= pow10Neg[-minExp-1] {
		n := len(dst)
		dst = strconv.AppendFloat(dst, f, 'f', -1, 64)
		for _, c := range dst[n:] {
			if c == '.' {
				return dst
			}
		}
		return append(dst, ".0"...)
	}
	return appendFloatSplit(dst, f, minExp, expPad)
}

// pow10Neg[i] is float64(10^-(i+1)), the smallest magnitude AppendFloat
// spells positionally for minExp -(i+1).
var pow10Neg = [...]float64{1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8}

// appendFloatSplit is AppendFloat from the digits and exponent of
// splitFloat: the scientific spellings, and the reference the fast
// positional path is fuzzed against.
func appendFloatSplit(dst []byte, f float64, minExp, expPad int) []byte {
	var digits [32]byte
	d := splitFloat(f, &digits)
	if d.neg {
		dst = append(dst, '-')
	}
	if f == 0 {
		return append(dst, "0.0"...)
	}
	if d.exp < minExp || d.exp >= 16 {
		dst = append(dst, d.digits[0])
		if len(d.digits) > 1 {
			dst = append(dst, '.')
			dst = append(dst, d.digits[1:]...)
		}
		dst = append(dst, 'e')
		e := d.exp
		if e < 0 {
			dst = append(dst, '-')
			e = -e
		} else {
			dst = append(dst, '+')
		}
		es := strconv.Itoa(e)
		for i := len(es); i < expPad; i++ {
			dst = append(dst, '0')
		}
		return append(dst, es...)
	}
	if d.exp < 0 {
		dst = append(dst, '0', '.')
		for i := -1; i > d.exp; i-- {
			dst = append(dst, '0')
		}
		return append(dst, d.digits...)
	}
	intLen := d.exp + 1
	if len(d.digits) <= intLen {
		dst = append(dst, d.digits...)
		for i := len(d.digits); i < intLen; i++ {
			dst = append(dst, '0')
		}
		return append(dst, ".0"...)
	}
	dst = append(dst, d.digits[:intLen]...)
	dst = append(dst, '.')
	return append(dst, d.digits[intLen:]...)
}

// Float is Python's repr() of a float: "20.0", "1e-05", "1e+16", "nan",
// "inf", "-inf".
func Float(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return string(AppendRepr(nil, f))
}

// AppendRepr appends a finite f as Python's repr() spells it: exponent
// form below 1e-4 and from 1e16, with at least two exponent digits
// ("1e-05").
func AppendRepr(dst []byte, f float64) []byte { return AppendFloat(dst, f, -4, 2) }

// AppendJSON appends a finite f as orjson spells it in AIPerf's JSON
// artifacts: exponent form below 1e-5 and from 1e16, with no padding of
// the exponent ("10.0", "0.000015", "1e-7", "1e+16"). The caller writes
// NaN and Inf (orjson writes null).
func AppendJSON(dst []byte, f float64) []byte { return AppendFloat(dst, f, -5, 1) }
