package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// SeqDistEntry is one (ISL, OSL) pair of --seq-dist: with probability
// Probability percent, a request's prompt length is drawn around ISL and its
// requested output length around OSL (exactly ISL and OSL when the stddevs
// are 0).
//
// Invariants after ParseSequenceDistribution: ISL and OSL >= 1; stddevs
// finite and >= 0; Probability finite and in [0, 100].
type SeqDistEntry struct {
	ISL         int     `json:"isl"`
	ISLStddev   float64 `json:"isl_stddev,omitempty"`
	OSL         int     `json:"osl"`
	OSLStddev   float64 `json:"osl_stddev,omitempty"`
	Probability float64 `json:"probability"`
}

// String renders e in the semicolon form's pair syntax,
// "ISL[|sd],OSL[|sd]:prob".
func (e SeqDistEntry) String() string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(e.ISL))
	if e.ISLStddev > 0 {
		b.WriteString("|" + formatNumber(e.ISLStddev))
	}
	b.WriteString("," + strconv.Itoa(e.OSL))
	if e.OSLStddev > 0 {
		b.WriteString("|" + formatNumber(e.OSLStddev))
	}
	b.WriteString(":" + formatNumber(e.Probability))
	return b.String()
}

// FormatSequenceDistribution renders entries in the semicolon form, which
// ParseSequenceDistribution reads back to the same entries.
func FormatSequenceDistribution(entries []SeqDistEntry) string {
	parts := make([]string, len(entries))
	for i, e := range entries {
		parts[i] = e.String()
	}
	return strings.Join(parts, ";")
}

func formatNumber(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// seqDistNumber is AIPerf's unambiguous number pattern: an integer, a
// decimal, or a decimal with a leading dot (no sign, no exponent).
const seqDistNumber = `(?:[0-9]+(?:\.[0-9]+)?|\.[0-9]+)`

// seqDistLengths matches "ISL[|sd],OSL[|sd]" with optional whitespace
// around the comma, as AIPerf's patterns do.
const seqDistLengths = `([0-9]+)(?:\|(` + seqDistNumber + `))?\s*,\s*([0-9]+)(?:\|(` + seqDistNumber + `))?`

var (
	// seqDistSemicolon matches one whole pair of the semicolon form.
	seqDistSemicolon = regexp.MustCompile(`^` + seqDistLengths + `\s*:\s*(` + seqDistNumber + `)$`)
	// seqDistBracket matches one "(ISL,OSL):prob" pair of the bracket form.
	seqDistBracket = regexp.MustCompile(`\(\s*` + seqDistLengths + `\s*\)\s*:\s*(` + seqDistNumber + `)`)
)

// probabilityTolerance is how far from 100 the probabilities may sum
// (numpy.isclose(total, 100, rtol=1e-6, atol=1e-6), as AIPerf checks).
const probabilityTolerance = 1e-6 + 1e-6*100

// ParseSequenceDistribution parses a --seq-dist value in any of AIPerf's
// forms:
//
//	semicolon  "256,128:40;512|20,256|10:60"
//	bracket    "[(256,128):40,(512|20,256|10):60]"
//	JSON       {"pairs":[{"isl":256,"isl_stddev":10,"osl":128,"osl_stddev":5,"prob":40}, ...]}
//
// Probabilities are percentages that must sum to 100. Every problem found
// is reported at once. Unlike AIPerf, which skips text between bracket
// pairs, anything but separators there is an error.
func ParseSequenceDistribution(s string) ([]SeqDistEntry, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, errors.New("sequence distribution must not be empty")
	}
	var (
		entries []SeqDistEntry
		err     error
	)
	switch {
	case strings.HasPrefix(s, "{"):
		entries, err = parseSeqDistJSON(s)
	case strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]"):
		entries, err = parseSeqDistBracket(s[1 : len(s)-1])
	default:
		entries, err = parseSeqDistSemicolon(s)
	}
	if err != nil {
		return nil, fmt.Errorf("invalid sequence distribution %q: %w", s, err)
	}
	if err := checkSeqDist(entries); err != nil {
		return nil, fmt.Errorf("invalid sequence distribution %q: %w", s, err)
	}
	return entries, nil
}

func parseSeqDistSemicolon(s string) ([]SeqDistEntry, error) {
	var entries []SeqDistEntry
	var errs []error
	for part := range strings.SplitSeq(s, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		m := seqDistSemicolon.FindStringSubmatch(part)
		if m == nil {
			errs = append(errs, fmt.Errorf("pair %q is not ISL[|ISL_STDDEV],OSL[|OSL_STDDEV]:PROB", part))
			continue
		}
		e, err := seqDistFromMatch(m[1:])
		if err != nil {
			errs = append(errs, fmt.Errorf("pair %q: %w", part, err))
			continue
		}
		entries = append(entries, e)
	}
	if len(entries) == 0 && len(errs) == 0 {
		errs = append(errs, errors.New("no ISL,OSL:PROB pairs found"))
	}
	return entries, errors.Join(errs...)
}

func parseSeqDistBracket(content string) ([]SeqDistEntry, error) {
	var entries []SeqDistEntry
	var errs []error
	last := 0
	for _, loc := range seqDistBracket.FindAllStringSubmatchIndex(content, -1) {
		if gap := strings.Trim(content[last:loc[0]], " \t\r\n,;"); gap != "" {
			errs = append(errs, fmt.Errorf("unexpected %q between pairs (want [(ISL,OSL):PROB,...])", gap))
		}
		last = loc[1]
		m := make([]string, 5)
		for g := range m {
			if a, b := loc[2+2*g], loc[3+2*g]; a >= 0 {
				m[g] = content[a:b]
			}
		}
		e, err := seqDistFromMatch(m)
		if err != nil {
			errs = append(errs, fmt.Errorf("pair %q: %w", content[loc[0]:loc[1]], err))
			continue
		}
		entries = append(entries, e)
	}
	if gap := strings.Trim(content[last:], " \t\r\n,;"); gap != "" {
		errs = append(errs, fmt.Errorf("unexpected %q (want [(ISL,OSL):PROB,...])", gap))
	}
	if len(entries) == 0 && len(errs) == 0 {
		errs = append(errs, errors.New("no (ISL,OSL):PROB pairs found"))
	}
	return entries, errors.Join(errs...)
}

// seqDistFromMatch converts the five captured groups (isl, isl sd, osl,
// osl sd, prob) of a pair; empty stddev groups are 0.
func seqDistFromMatch(m []string) (SeqDistEntry, error) {
	var e SeqDistEntry
	var errs []error
	var err error
	if e.ISL, err = strconv.Atoi(m[0]); err != nil {
		errs = append(errs, fmt.Errorf("ISL %q is out of range", m[0]))
	}
	if e.OSL, err = strconv.Atoi(m[2]); err != nil {
		errs = append(errs, fmt.Errorf("OSL %q is out of range", m[2]))
	}
	for _, f := range []struct {
		s string
		p *float64
	}{{m[1], &e.ISLStddev}, {m[3], &e.OSLStddev}, {m[4], &e.Probability}} {
		if f.s == "" {
			continue
		}
		if *f.p, err = strconv.ParseFloat(f.s, 64); err != nil {
			errs = append(errs, fmt.Errorf("number %q is out of range", f.s))
		}
	}
	return e, errors.Join(errs...)
}

// seqDistJSONPair is one item of the JSON form's "pairs" list.
type seqDistJSONPair struct {
	ISL       *json.Number `json:"isl"`
	ISLStddev *json.Number `json:"isl_stddev"`
	OSL       *json.Number `json:"osl"`
	OSLStddev *json.Number `json:"osl_stddev"`
	Prob      *json.Number `json:"prob"`
}

func parseSeqDistJSON(s string) ([]SeqDistEntry, error) {
	var doc struct {
		Pairs *[]seqDistJSONPair `json:"pairs"`
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	if dec.More() {
		return nil, errors.New("invalid JSON: text after the object")
	}
	if doc.Pairs == nil {
		return nil, errors.New(`JSON form needs a "pairs" list`)
	}
	var entries []SeqDistEntry
	var errs []error
	for i, p := range *doc.Pairs {
		var e SeqDistEntry
		var perr []error
		intField := func(name string, n *json.Number, dst *int) {
			if n == nil {
				perr = append(perr, fmt.Errorf("missing %q", name))
				return
			}
			f, err := n.Float64()
			if err != nil || f != math.Trunc(f) || math.Abs(f) > math.MaxInt32 {
				perr = append(perr, fmt.Errorf("%q must be a whole number, got %s", name, n))
				return
			}
			*dst = int(f)
		}
		floatField := func(name string, n *json.Number, dst *float64, required bool) {
			if n == nil {
				if required {
					perr = append(perr, fmt.Errorf("missing %q", name))
				}
				return
			}
			f, err := n.Float64()
			if err != nil {
				perr = append(perr, fmt.Errorf("%q is out of range: %s", name, n))
				return
			}
			*dst = f
		}
		intField("isl", p.ISL, &e.ISL)
		intField("osl", p.OSL, &e.OSL)
		floatField("prob", p.Prob, &e.Probability, true)
		floatField("isl_stddev", p.ISLStddev, &e.ISLStddev, false)
		floatField("osl_stddev", p.OSLStddev, &e.OSLStddev, false)
		if len(perr) > 0 {
			errs = append(errs, fmt.Errorf("pair %d: %w", i, errors.Join(perr...)))
			continue
		}
		entries = append(entries, e)
	}
	if len(entries) == 0 && len(errs) == 0 {
		errs = append(errs, errors.New(`"pairs" is empty`))
	}
	return entries, errors.Join(errs...)
}

// checkSeqDist enforces SeqDistEntry's invariants and that the
// probabilities sum to 100.
func checkSeqDist(entries []SeqDistEntry) error {
	var errs []error
	total := 0.0
	for _, e := range entries {
		if e.ISL < 1 {
			errs = append(errs, fmt.Errorf("%s: ISL must be >= 1", e))
		}
		if e.OSL < 1 {
			errs = append(errs, fmt.Errorf("%s: OSL must be >= 1", e))
		}
		if !(e.ISLStddev >= 0) || math.IsInf(e.ISLStddev, 0) || !(e.OSLStddev >= 0) || math.IsInf(e.OSLStddev, 0) {
			errs = append(errs, fmt.Errorf("%s: stddevs must be finite numbers >= 0", e))
		}
		if !(e.Probability >= 0 && e.Probability <= 100) {
			errs = append(errs, fmt.Errorf("%s: probability must be a percentage in [0, 100]", e))
		}
		total += e.Probability
	}
	if len(errs) == 0 && !(math.Abs(total-100) <= probabilityTolerance) {
		errs = append(errs, fmt.Errorf("probabilities must sum to 100 (they are percentages), got %s", formatNumber(total)))
	}
	return errors.Join(errs...)
}
