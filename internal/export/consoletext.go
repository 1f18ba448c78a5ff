package export

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/jedib0t/go-pretty/v6/text"
)

// Console text layout follows Rich (the library AIPerf prints with), so that
// our console output lines up with AIPerf's character for character.

// cells is the display width of s (East Asian wide runes count twice).
func cells(s string) int { return text.StringWidthWithoutEscSequences(s) }

// wordsOf splits a paragraph the way Rich does (regexp \s*\S+\s*): each
// word keeps the whitespace after it, and the first keeps any indentation.
func wordsOf(p string) []string {
	var out []string
	i := 0
	for i < len(p) {
		j := i
		for j < len(p) {
			r, n := utf8.DecodeRuneInString(p[j:])
			if !unicode.IsSpace(r) {
				break
			}
			j += n
		}
		for j < len(p) {
			r, n := utf8.DecodeRuneInString(p[j:])
			if unicode.IsSpace(r) {
				break
			}
			j += n
		}
		for j < len(p) {
			r, n := utf8.DecodeRuneInString(p[j:])
			if !unicode.IsSpace(r) {
				break
			}
			j += n
		}
		out = append(out, p[i:j])
		i = j
	}
	return out
}

// chop splits s into pieces of at most width cells.
func chop(s string, width int) []string {
	var out []string
	var cur strings.Builder
	n := 0
	for _, r := range s {
		rw := cells(string(r))
		if n+rw > width && n > 0 {
			out = append(out, cur.String())
			cur.Reset()
			n = 0
		}
		cur.WriteRune(r)
		n += rw
	}
	return append(out, cur.String())
}

// wrapText breaks s into lines of at most width cells as Rich wraps printed
// text: a word moves to the next line when its visible part does not fit,
// the space after the last word of a line stays unless it overflows the
// width, and a word longer than a line is folded.
func wrapText(s string, width int) []string {
	if width < 1 {
		width = 1
	}
	var out []string
	for _, para := range strings.Split(s, "\n") {
		var line strings.Builder
		pos := 0
		flush := func() {
			l := line.String()
			for cells(l) > width && strings.HasSuffix(l, " ") {
				l = l[:len(l)-1]
			}
			out = append(out, l)
			line.Reset()
			pos = 0
		}
		for _, w := range wordsOf(para) {
			visible := cells(strings.TrimRightFunc(w, unicode.IsSpace))
			switch {
			case pos+visible <= width:
			case visible > width:
				if pos > 0 {
					flush()
				}
				pieces := chop(w, width)
				for _, p := range pieces[:len(pieces)-1] {
					line.WriteString(p)
					flush()
				}
				w = pieces[len(pieces)-1]
			default:
				flush()
			}
			line.WriteString(w)
			pos += cells(w)
		}
		flush()
	}
	return out
}

// padRight pads s with spaces to width cells.
func padRight(s string, width int) string {
	if n := cells(s); n < width {
		return s + strings.Repeat(" ", width-n)
	}
	return s
}

// centerIn centers s in width cells with fill, the extra cell going right.
func centerIn(s string, width int, fill string) string {
	excess := width - cells(s)
	if excess <= 0 {
		return s
	}
	left := excess / 2
	return strings.Repeat(fill, left) + s + strings.Repeat(fill, excess-left)
}

// panel draws body in a rounded box with the title centered in the top
// border and two spaces of padding left and right, sized to its content
// like Rich's Panel(expand=False), and no wider than width.
func panel(title, body string, width int) string {
	maxChild := width - 2
	pad := 2
	// Natural content width: the longest unwrapped line.
	natural := 0
	for _, l := range strings.Split(body, "\n") {
		natural = max(natural, cells(l))
	}
	child := min(natural+2*pad, maxChild)
	ttl := " " + strings.ReplaceAll(title, "\n", " ") + " "
	if title != "" {
		child = min(maxChild, max(child, cells(ttl)+2))
	}
	inner := max(child-2*pad, 1)
	var b strings.Builder
	if title == "" || child+2 <= 4 {
		b.WriteString("╭" + strings.Repeat("─", child) + "╮\n")
	} else {
		t := ttl
		if cells(t) > child-2 {
			t = chop(t, child-2)[0]
		}
		b.WriteString("╭─" + centerIn(t, child-2, "─") + "─╮\n")
	}
	for _, l := range wrapText(body, inner) {
		b.WriteString("│" + strings.Repeat(" ", pad) + padRight(l, inner) + strings.Repeat(" ", pad) + "│\n")
	}
	b.WriteString("╰" + strings.Repeat("─", child) + "╯\n")
	return b.String()
}
