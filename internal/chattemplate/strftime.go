package chattemplate

import (
	"strconv"
	"strings"
	"time"
)

// strftime formats t like Python's datetime.strftime on Linux (glibc), for
// the strftime_now global that templates such as Llama-3.1's use to print
// today's date. It covers the directives chat templates use, glibc's "-"
// flag (no padding) included; an unknown directive is copied unchanged, as
// glibc does.
func strftime(t time.Time, format string) string {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' || i+1 == len(format) {
			b.WriteByte(c)
			continue
		}
		start := i
		i++
		pad := true
		if format[i] == '-' && i+1 < len(format) {
			pad = false
			i++
		}
		if !writeDirective(&b, t, format[i], pad) {
			b.WriteString(format[start : i+1])
		}
	}
	return b.String()
}

// writeDirective writes one directive's field and reports whether d is
// known.
func writeDirective(b *strings.Builder, t time.Time, d byte, pad bool) bool {
	num := func(n, width int) {
		s := strconv.Itoa(n)
		if pad {
			for range width - len(s) {
				b.WriteByte('0')
			}
		}
		b.WriteString(s)
	}
	hour12 := t.Hour() % 12
	if hour12 == 0 {
		hour12 = 12
	}
	switch d {
	case 'a':
		b.WriteString(t.Weekday().String()[:3])
	case 'A':
		b.WriteString(t.Weekday().String())
	case 'b', 'h':
		b.WriteString(t.Month().String()[:3])
	case 'B':
		b.WriteString(t.Month().String())
	case 'd':
		num(t.Day(), 2)
	case 'e':
		if pad && t.Day() < 10 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.Itoa(t.Day()))
	case 'm':
		num(int(t.Month()), 2)
	case 'y':
		num(t.Year()%100, 2)
	case 'Y':
		b.WriteString(strconv.Itoa(t.Year()))
	case 'H':
		num(t.Hour(), 2)
	case 'I':
		num(hour12, 2)
	case 'M':
		num(t.Minute(), 2)
	case 'S':
		num(t.Second(), 2)
	case 'j':
		num(t.YearDay(), 3)
	case 'p':
		if t.Hour() < 12 {
			b.WriteString("AM")
		} else {
			b.WriteString("PM")
		}
	case 'w':
		b.WriteString(strconv.Itoa(int(t.Weekday())))
	case 'u':
		wd := int(t.Weekday())
		if wd == 0 {
			wd = 7
		}
		b.WriteString(strconv.Itoa(wd))
	case 'F':
		b.WriteString(t.Format("2006-01-02"))
	case 'T':
		b.WriteString(t.Format("15:04:05"))
	case 'Z':
		name, _ := t.Zone()
		b.WriteString(name)
	case 'z':
		b.WriteString(t.Format("-0700"))
	case '%':
		b.WriteByte('%')
	default:
		return false
	}
	return true
}
