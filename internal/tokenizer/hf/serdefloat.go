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
	bad := func() (float64, error) { return 0, fmt.Errorf("invalid number %q", s) }
	i := 0
	neg := false
	if i < len(s) && s[i] == '-' {
		neg = true
		i++
	}
	if i >= len(s) || s[i] < '0' || s[i] > '9' {
		return bad()
	}
	const maxU = math.MaxUint64
	overflows := func(sig uint64, d byte) bool {
		return sig >= maxU/10 && (sig > maxU/10 || uint64(d) > maxU%10)
	}
	var sig uint64
	exp := 0
	if s[i] == '0' {
		i++
		if i < len(s) && s[i] >= '0' && s[i] <= '9' {
			return bad()
		}
	} else {
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			d := s[i] - '0'
			if overflows(sig, d) {
				// Remaining integer digits only scale the value.
				for i < len(s) && s[i] >= '0' && s[i] <= '9' {
					exp++
					i++
				}
				break
			}
			sig = sig*10 + uint64(d)
			i++
		}
	}
	isFloat := false
	if i < len(s) && s[i] == '.' {
		isFloat = true
		i++
		digits := 0
		dropping := false
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			d := s[i] - '0'
			if !dropping && overflows(sig, d) {
				dropping = true
			}
			if !dropping {
				sig = sig*10 + uint64(d)
				exp--
			}
			digits++
			i++
		}
		if digits == 0 {
			return bad()
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		isFloat = true
		i++
		expNeg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			expNeg = s[i] == '-'
			i++
		}
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			return bad()
		}
		e := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			d := int(s[i] - '0')
			if e >= math.MaxInt32/10 && (e > math.MaxInt32/10 || d > math.MaxInt32%10) {
				// An exponent past int32: zero or out of range.
				if sig == 0 || expNeg {
					return signed(0, neg), nil
				}
				return 0, fmt.Errorf("number %q out of range", s)
			}
			e = e*10 + d
			i++
		}
		if expNeg {
			exp = saturatingAdd32(exp, -e)
		} else {
			exp = saturatingAdd32(exp, e)
		}
	}
	if i != len(s) {
		return bad()
	}
	if !isFloat && exp == 0 {
		// A plain integer: serde_json keeps it as u64 or i64 and converts.
		return signed(float64(sig), neg), nil
	}
	f := float64(sig)
	for {
		a := exp
		if a < 0 {
			a = -a
		}
		if a <= 308 {
			p := pow10(a)
			if exp >= 0 {
				f *= p
				if math.IsInf(f, 0) {
					return 0, fmt.Errorf("number %q out of range", s)
				}
			} else {
				f /= p
			}
			break
		}
		if f == 0 {
			break
		}
		if exp >= 0 {
			return 0, fmt.Errorf("number %q out of range", s)
		}
		f /= 1e308
		exp += 308
	}
	return signed(f, neg), nil
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
