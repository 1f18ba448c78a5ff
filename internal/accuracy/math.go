package accuracy

import (
	"strconv"
	"strings"
)

// mathAnswer grades a math answer (AIME and the lighteval expression
// metric): the prediction's last \boxed{...}, else its last number
// (unparsed), against the gold's boxed answer or the gold itself,
// equal after LaTeX normalisation or as numbers.
func mathAnswer(resp, truth string) Grade {
	gold := boxed(truth)
	if gold == "" {
		gold = strings.TrimSpace(truth)
	}
	pred, unparsed := boxed(resp), false
	if pred == "" {
		pred, unparsed = lastNumber(resp), true
	}
	return compareMath(pred, gold, unparsed)
}

// latexGold is lighteval's latex_gold_metric (MATH-500): the gold is a
// whole solution whose last \boxed{} is the answer.
func latexGold(resp, truth string) Grade {
	gold := boxed(truth)
	if gold == "" {
		gold = strings.TrimSpace(truth)
	}
	pred, unparsed := boxed(resp), false
	if pred == "" {
		pred, unparsed = lastExpression(resp), true
	}
	return compareMath(pred, gold, unparsed)
}

func compareMath(pred, gold string, unparsed bool) Grade {
	p, g := normLatex(pred), normLatex(gold)
	ok := p != "" && (p == g || numericEqual(p, g))
	return Grade{Correct: ok, Unparsed: unparsed, Extracted: pred, Expected: gold,
		Reason: "math: normalised " + strconv.Quote(p) + " vs " + strconv.Quote(g)}
}

// boxed returns the content of the last \boxed{...} (or \fbox{...}) of
// s, braces balanced; "" when there is none.
func boxed(s string) string {
	k := max(strings.LastIndex(s, `\boxed{`), strings.LastIndex(s, `\fbox{`))
	if k < 0 {
		return ""
	}
	open := strings.IndexByte(s[k:], '{') + k
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return strings.TrimSpace(s[open+1 : i])
			}
		}
	}
	return ""
}

// lastExpression is the last "$...$" span of s, else its last number.
func lastExpression(s string) string {
	if j := strings.LastIndex(s, "$"); j > 0 {
		if i := strings.LastIndex(s[:j], "$"); i >= 0 && j-i > 1 {
			return s[i+1 : j]
		}
	}
	return lastNumber(s)
}

// normLatex normalises an answer for comparison: spacing, sizing and
// text commands, degree and percent signs, \dfrac and \tfrac, a leading
// "x =", trailing punctuation.
func normLatex(s string) string {
	s = strings.TrimSpace(s)
	s = strings.Trim(s, "$")
	if k := strings.Index(s, "="); k >= 0 && k < 4 {
		s = s[k+1:]
	}
	r := strings.NewReplacer(`\left`, "", `\right`, "", `\!`, "", `\,`, "", `\;`, "", `\ `, "",
		`\dfrac`, `\frac`, `\tfrac`, `\frac`, `^\circ`, "", `^{\circ}`, "", `\%`, "", "%", "",
		`\$`, "", `\text{`, "{", `\mathrm{`, "{", `\mbox{`, "{", " ", "", "\n", "")
	s = r.Replace(s)
	s = strings.TrimRight(s, ".")
	s = strings.ReplaceAll(s, ",\\", "\\")
	// \frac12 -> \frac{1}{2}; {x} -> x for a lone braced answer.
	if strings.HasPrefix(s, `\frac`) && len(s) == 7 && s[5] != '{' {
		s = `\frac{` + s[5:6] + `}{` + s[6:7] + `}`
	}
	for strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") && balanced(s[1:len(s)-1]) {
		s = s[1 : len(s)-1]
	}
	return s
}

func balanced(s string) bool {
	d := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			d++
		case '}':
			d--
			if d < 0 {
				return false
			}
		}
	}
	return d == 0
}

// numericEqual compares two answers as numbers when both are plain
// numbers or fractions (a/b, \frac{a}{b}).
func numericEqual(a, b string) bool {
	fa, ok1 := number(a)
	fb, ok2 := number(b)
	return ok1 && ok2 && (fa == fb || (fb != 0 && abs((fa-fb)/fb) < 1e-9))
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func number(s string) (float64, bool) {
	s = strings.ReplaceAll(s, ",", "")
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return f, true
	}
	neg := strings.HasPrefix(s, "-")
	t := strings.TrimPrefix(s, "-")
	var num, den string
	if strings.HasPrefix(t, `\frac{`) {
		rest := t[len(`\frac{`):]
		i := strings.Index(rest, "}{")
		if i < 0 || !strings.HasSuffix(rest, "}") {
			return 0, false
		}
		num, den = rest[:i], rest[i+2:len(rest)-1]
	} else if n, d, ok := strings.Cut(t, "/"); ok {
		num, den = n, d
	} else {
		return 0, false
	}
	fn, err1 := strconv.ParseFloat(num, 64)
	fd, err2 := strconv.ParseFloat(den, 64)
	if err1 != nil || err2 != nil || fd == 0 {
		return 0, false
	}
	if neg {
		fn = -fn
	}
	return fn / fd, true
}

// gpqaLetter is lighteval's gpqa_metric: the letter after "Answer:" (the
// prompt's required last line), else the last standalone A-D letter
// (unparsed), against the gold letter.
func gpqaLetter(resp, truth string) Grade {
	gold := strings.TrimSpace(truth)
	if k := strings.LastIndex(resp, "Answer:"); k >= 0 {
		rest := strings.TrimSpace(resp[k+len("Answer:"):])
		rest = strings.TrimPrefix(strings.TrimPrefix(rest, "$"), "(")
		if rest != "" && strings.ContainsRune("ABCD", rune(rest[0])) {
			return verdict(rest[:1], gold, false, `"Answer: X"`)
		}
	}
	return verdict(loneLetter(resp, "ABCD", true), gold, true, "last lone letter (fallback)")
}
