package configfile

import (
	"errors"
	"fmt"
	"strings"
)

// Problem is one thing wrong with a config file: where (file position and
// dot path) and what. Load reports every problem it can find at once as
// an errors.Join of *Problem values.
type Problem struct {
	// File is the config file's name; empty for in-memory sources.
	File string
	// Pos is where in the file; zero when the value came from elsewhere
	// (a CLI override or a sweep value).
	Pos Pos
	// Path is the dot path of the offending key, e.g.
	// "benchmark.phases.profiling.rate"; empty for whole-file problems.
	Path string
	// Message says what is wrong, and how to fix it when that is known.
	Message string
}

// Error is "file:line:col: path: message", leaving out what is unknown.
func (p *Problem) Error() string {
	var b strings.Builder
	if p.File != "" {
		b.WriteString(p.File)
		if p.Pos.Line > 0 {
			b.WriteString(":" + p.Pos.String())
		}
		b.WriteString(": ")
	} else if p.Pos.Line > 0 {
		b.WriteString("line " + p.Pos.String() + ": ")
	}
	if p.Path != "" {
		b.WriteString(p.Path + ": ")
	}
	b.WriteString(p.Message)
	return b.String()
}

// problems collects Problems in the order they are found.
type problems struct {
	file  string
	list  []error
	warns []string
}

// warn records a key that is accepted but has no effect.
func (ps *problems) warn(pos Pos, path, msg string) {
	p := Problem{File: ps.file, Pos: pos, Path: path, Message: msg}
	ps.warns = append(ps.warns, p.Error())
}

func (ps *problems) add(pos Pos, path, format string, args ...any) {
	ps.list = append(ps.list, &Problem{File: ps.file, Pos: pos, Path: path, Message: fmt.Sprintf(format, args...)})
}

func (ps *problems) err() error { return errors.Join(ps.list...) }

// unknownKey records key as unknown among known, with a "did you mean"
// hint for the closest known key.
func (ps *problems) unknownKey(pos Pos, path, key string, known []string) {
	msg := fmt.Sprintf("unknown key %q", key)
	if s := suggest(key, known); s != "" {
		msg += fmt.Sprintf("; did you mean %q?", s)
	}
	ps.add(pos, path, "%s", msg)
}

// suggest returns the known name closest to s by edit distance (after
// normalising case and separators), or "" when none is close: at most a
// third of its length, but 2 edits always and never more than 3.
func suggest(s string, known []string) string {
	best, bestD := "", 1<<30
	ns := normKey(s)
	for _, k := range known {
		d := EditDistance(ns, normKey(k))
		if d < bestD {
			best, bestD = k, d
		}
	}
	limit := min(max(len(ns)/3, 2), 3)
	if bestD > limit {
		return ""
	}
	return best
}

// normKey lower-cases and drops '_' and '-', so that camelCase and
// snake_case spellings compare equal.
func normKey(s string) string {
	s = strings.ToLower(s)
	return strings.NewReplacer("_", "", "-", "").Replace(s)
}

// EditDistance is the Damerau-Levenshtein (optimal string alignment)
// distance between a and b, over bytes: the "did you mean" measure for
// config keys and command-line flags alike. Past 64 bytes only equality
// is measured (0, else a large distance).
func EditDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		if a == b {
			return 0
		}
		return 1 << 20
	}
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
