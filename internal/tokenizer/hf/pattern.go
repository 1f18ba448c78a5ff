package hf

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/dlclark/regexp2/v2"
)

// pattern finds the non-overlapping matches of a literal or a regular
// expression, leftmost first, as HuggingFace's Pattern::find_matches does
// with Oniguruma. A regexp2 Regexp is safe for concurrent use, so a
// pattern is too.
type pattern struct {
	// literal is the String pattern when re is nil.
	literal string
	// re is the compiled Regex pattern (or an escaped empty literal).
	re *regexp2.Regexp
}

// newPattern compiles a pattern spec; path names it in errors.
func newPattern(path string, raw json.RawMessage) (*pattern, error) {
	var spec patternSpec
	if len(bytes.TrimSpace(raw)) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil, fmt.Errorf("%s: pattern needs String or Regex", path)
	}
	if err := decodeStrict(path, "pattern", raw, &spec); err != nil {
		return nil, err
	}
	switch {
	case spec.String != nil && spec.Regex != nil:
		return nil, fmt.Errorf("%s: both String and Regex given", path)
	case spec.String != nil:
		if *spec.String != "" {
			return &pattern{literal: *spec.String}, nil
		}
		re, err := regexp2.Compile(regexp2.Escape(*spec.String), regexp2.None)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return &pattern{re: re}, nil
	case spec.Regex != nil:
		re, err := regexp2.Compile(*spec.Regex, regexp2.None)
		if err != nil {
			return nil, fmt.Errorf("%s: Regex %q: %w", path, *spec.Regex, err)
		}
		return &pattern{re: re}, nil
	}
	return nil, fmt.Errorf("%s: pattern needs String or Regex", path)
}

// matches appends to dst the byte ranges [start, end) of every match in s.
// Empty matches are reported as regexp2 (and Oniguruma's find_iter) do:
// never an empty match right at the end of the previous match.
func (p *pattern) matches(dst [][2]int, s string) [][2]int {
	if p.re == nil {
		for off := 0; off <= len(s); {
			i := strings.Index(s[off:], p.literal)
			if i < 0 {
				break
			}
			dst = append(dst, [2]int{off + i, off + i + len(p.literal)})
			off += i + len(p.literal)
		}
		return dst
	}
	idx, err := p.re.FindAllStringIndex(s, -1)
	if err != nil {
		// Only a match timeout errors, and none is set.
		panic(fmt.Sprintf("hf: regexp2 failed without a timeout: %v", err))
	}
	for _, m := range idx {
		dst = append(dst, [2]int{m[0], m[1]})
	}
	return dst
}

// replaceAll replaces every match of p in s with content.
func (p *pattern) replaceAll(s, content string) string {
	if p.re == nil {
		return strings.ReplaceAll(s, p.literal, content)
	}
	ms := p.matches(nil, s)
	if len(ms) == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, m := range ms {
		b.WriteString(s[last:m[0]])
		b.WriteString(content)
		last = m[1]
	}
	b.WriteString(s[last:])
	return b.String()
}
