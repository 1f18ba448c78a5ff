package accuracy

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
)

// Grade is the verdict on one answer (AIPerf's GradingResult).
type Grade struct {
	Correct bool
	// Unparsed: the answer was not in the expected format and a fallback
	// extraction was used (a correct unparsed answer still counts).
	Unparsed  bool
	Extracted string // the answer taken from the response
	Expected  string // the ground truth, as compared
	Reason    string // why, for --accuracy-verbose and the JSONL
}

// Grader scores a response against a ground truth.
type Grader interface {
	Grade(response, truth string) Grade
}

// GraderFunc adapts a function to Grader.
type GraderFunc func(response, truth string) Grade

// Grade calls f.
func (f GraderFunc) Grade(response, truth string) Grade { return f(response, truth) }

// NewGrader returns the grader named name (config.AccuracyGraders).
func NewGrader(name string) (Grader, error) {
	switch name {
	case "exact_match":
		return GraderFunc(exactMatch), nil
	case "multiple_choice":
		return GraderFunc(multipleChoice), nil
	case "mmlu_pro":
		return GraderFunc(mmluPro), nil
	case "lighteval_gsm8k":
		return GraderFunc(gsm8k), nil
	case "math", "lighteval_expr":
		return GraderFunc(mathAnswer), nil
	case "lighteval_latex":
		return GraderFunc(latexGold), nil
	case "lighteval_gpqa":
		return GraderFunc(gpqaLetter), nil
	case "code_execution":
		return newCodeExecution()
	}
	return nil, fmt.Errorf("unknown accuracy grader %q", name)
}

func verdict(pred, gold string, unparsed bool, how string) Grade {
	ok := pred != "" && pred == gold
	return Grade{Correct: ok, Unparsed: unparsed, Extracted: pred, Expected: gold,
		Reason: fmt.Sprintf("%s: extracted %q, expected %q, match=%v", how, pred, gold, ok)}
}

// exactMatch is DeepEval's exact_match_score: stripped strings equal,
// case-sensitive; an empty response is unparsed.
func exactMatch(resp, truth string) Grade {
	pred, gold := strings.TrimSpace(resp), strings.TrimSpace(truth)
	return verdict(pred, gold, pred == "" && gold != "", "strict equality")
}

// multipleChoice is lighteval's MMLU scoring: the first line must be the
// letter (stop sequence "\n"); else "answer is (X)" anywhere; else the
// first lone A-D letter of the first line (flagged unparsed).
func multipleChoice(resp, truth string) Grade {
	gold := strings.TrimSpace(truth)
	first, _, _ := strings.Cut(resp, "\n")
	first = strings.TrimSpace(first)
	if len(first) == 1 && strings.Contains("ABCD", first) {
		return verdict(first, gold, false, "first line")
	}
	letter, tier := choiceLetter(resp, "ABCD")
	switch {
	case letter != "" && tier == 1:
		return verdict(letter, gold, false, `"answer is (X)"`)
	case letter != "" && tier == 2:
		return verdict(letter, gold, true, `"Answer: X" fallback`)
	}
	if l := loneLetter(first, "ABCD", false); l != "" {
		return verdict(l, gold, true, "first lone letter of the first line (fallback)")
	}
	if letter != "" {
		return verdict(letter, gold, true, "last lone letter (fallback)")
	}
	return verdict(first, gold, true, "no letter found")
}

// mmluPro is TIGER-Lab's cascade over A-J.
func mmluPro(resp, truth string) Grade {
	gold := strings.TrimSpace(truth)
	first, _, _ := strings.Cut(resp, "\n")
	first = strings.TrimSpace(first)
	if len(first) == 1 && strings.Contains("ABCDEFGHIJ", first) {
		return verdict(first, gold, false, "first line")
	}
	letter, tier := choiceLetter(resp, "ABCDEFGHIJ")
	return verdict(letter, gold, tier != 1, fmt.Sprintf("cascade tier %d", tier))
}

// choiceLetter is MMLU-Pro's three-tier extraction: the last "answer is
// (X)" (tier 1), the last "Answer: X" (tier 2), the last standalone
// letter (tier 3); 0 when none.
func choiceLetter(text, letters string) (string, int) {
	lower := text
	best := ""
	for i := 0; ; {
		k := strings.Index(lower[i:], "answer is ")
		if k < 0 {
			break
		}
		j := i + k + len("answer is ")
		rest := lower[j:]
		rest = strings.TrimPrefix(rest, "(")
		if rest != "" && strings.ContainsRune(letters, rune(rest[0])) {
			best = rest[:1]
		}
		i = j
	}
	if best != "" {
		return best, 1
	}
	for _, marker := range []string{"Answer:", "answer:"} {
		if k := strings.LastIndex(text, marker); k >= 0 {
			rest := strings.TrimLeftFunc(text[k+len(marker):], unicode.IsSpace)
			if rest != "" && strings.ContainsRune(letters, rune(rest[0])) {
				return rest[:1], 2
			}
		}
	}
	if l := loneLetter(text, letters, true); l != "" {
		return l, 3
	}
	return "", 0
}

// loneLetter finds a letter of letters standing alone (no word character
// either side): the first, or with last the last.
func loneLetter(s, letters string, last bool) string {
	isWord := func(b byte) bool {
		return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
	}
	found := ""
	for i := 0; i < len(s); i++ {
		if !strings.ContainsRune(letters, rune(s[i])) {
			continue
		}
		if (i > 0 && isWord(s[i-1])) || (i+1 < len(s) && isWord(s[i+1])) {
			continue
		}
		if !last {
			return s[i : i+1]
		}
		found = s[i : i+1]
	}
	return found
}

// gsm8k is lighteval's quasi_exact_match_gsm8k: the number after "####"
// in the gold; in the prediction the number after "####" when present,
// else its last number; compared as numbers.
func gsm8k(resp, truth string) Grade {
	gold := afterHashes(truth)
	if gold == "" {
		gold = lastNumber(truth)
	}
	pred, unparsed := afterHashes(resp), false
	if pred == "" {
		pred, unparsed = lastNumber(resp), true
	}
	g := verdict(normNumber(pred), normNumber(gold), unparsed, "gsm8k number")
	g.Correct = pred != "" && numbersEqual(pred, gold)
	return g
}

func afterHashes(s string) string {
	k := strings.LastIndex(s, "####")
	if k < 0 {
		return ""
	}
	return firstNumber(s[k+4:])
}

// numberAt scans a number (sign, digits, commas, one point) starting at i.
func numberSpans(s string) [][2]int {
	var out [][2]int
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9') {
			continue
		}
		start := i
		if start > 0 && s[start-1] == '-' {
			start--
		}
		j := i
		dot := false
		for j < len(s) {
			d := s[j]
			switch {
			case d >= '0' && d <= '9':
			case d == ',' && j+1 < len(s) && s[j+1] >= '0' && s[j+1] <= '9':
			case d == '.' && !dot && j+1 < len(s) && s[j+1] >= '0' && s[j+1] <= '9':
				dot = true
			default:
				goto end
			}
			j++
		}
	end:
		out = append(out, [2]int{start, j})
		i = j
	}
	return out
}

func firstNumber(s string) string {
	if sp := numberSpans(s); len(sp) > 0 {
		return s[sp[0][0]:sp[0][1]]
	}
	return ""
}

func lastNumber(s string) string {
	if sp := numberSpans(s); len(sp) > 0 {
		l := sp[len(sp)-1]
		return s[l[0]:l[1]]
	}
	return ""
}

func normNumber(s string) string {
	s = strings.ReplaceAll(strings.TrimSpace(s), ",", "")
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return s
}

func numbersEqual(a, b string) bool {
	fa, err1 := strconv.ParseFloat(strings.ReplaceAll(a, ",", ""), 64)
	fb, err2 := strconv.ParseFloat(strings.ReplaceAll(b, ",", ""), 64)
	if err1 != nil || err2 != nil {
		return a != "" && a == b
	}
	return math.Abs(fa-fb) <= 1e-9*math.Max(1, math.Abs(fb))
}
