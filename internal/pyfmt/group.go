package pyfmt

import (
	"strconv"
	"strings"
)

// Grouped is Python's f"{v:,.Nf}" for a finite v: decimals digits,
// correctly rounded (as strconv rounds), with a comma between thousands
// ("1,234,567.89", "-0.00").
func Grouped(v float64, decimals int) string {
	return group(strconv.FormatFloat(v, 'f', decimals, 64))
}

// GroupedInt is Python's f"{n:,}" ("-4,200").
func GroupedInt(n int) string { return group(strconv.Itoa(n)) }

// group puts a comma between the thousands of a decimal spelling's whole
// part ("-1234.5" -> "-1,234.5").
func group(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	whole, frac, hasFrac := strings.Cut(s, ".")
	if len(whole) <= 3 {
		return sign + s
	}
	var b strings.Builder
	b.Grow(len(s) + len(s)/3 + 1)
	b.WriteString(sign)
	lead := len(whole) % 3
	if lead == 0 {
		lead = 3
	}
	b.WriteString(whole[:lead])
	for i := lead; i < len(whole); i += 3 {
		b.WriteByte(',')
		b.WriteString(whole[i : i+3])
	}
	if hasFrac {
		b.WriteByte('.')
		b.WriteString(frac)
	}
	return b.String()
}
