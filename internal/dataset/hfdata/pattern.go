package hfdata

import (
	"path"
	"sort"
	"strings"
)

// match reports whether the slash-separated repository path p matches the
// data-files pattern pat, with the glob rules the datasets library uses
// (fsspec >= 2023.12, like Python's glob): "*", "?" and "[...]" ("[!...]"
// negates) match within one path segment; a "**" segment matches any
// number of segments, none included. A path with a hidden segment (one
// starting with "." or "__") matches only when the pattern names that
// segment explicitly.
func match(pat, p string) bool {
	ps := strings.Split(strings.Trim(p, "/"), "/")
	pats := strings.Split(strings.Trim(pat, "/"), "/")
	if countHidden(ps) > countHidden(pats) {
		return false
	}
	return matchSegs(pats, ps)
}

func countHidden(segs []string) int {
	n := 0
	for _, s := range segs {
		if isHidden(s) {
			n++
		}
	}
	return n
}

func isHidden(seg string) bool {
	return strings.HasPrefix(seg, ".") || strings.HasPrefix(seg, "__")
}

func matchSegs(pat, p []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			rest := pat[1:]
			if len(rest) == 0 {
				return len(p) > 0 // "dir/**" matches the files below dir
			}
			for i := 0; i <= len(p); i++ {
				if matchSegs(rest, p[i:]) {
					return true
				}
			}
			return false
		}
		if len(p) == 0 {
			return false
		}
		seg := pat[0]
		if strings.Contains(seg, "**") {
			// "**" with a prefix or suffix acts as "*" (as glob does).
			seg = strings.ReplaceAll(seg, "**", "*")
		}
		if !fnmatch(seg, p[0]) {
			return false
		}
		pat, p = pat[1:], p[1:]
	}
	return len(p) == 0
}

// fnmatch matches one path segment against a pattern with Python
// fnmatch's rules: "*" any run, "?" any one character, "[...]" a class
// whose ranges are lo-hi and whose "!" prefix negates it, a "-" first or
// last being literal; an unclosed "[" is a literal.
func fnmatch(pat, s string) bool {
	p, r := []rune(pat), []rune(s)
	// Backtracking over the last star, as in path.Match.
	pi, si, star, mark := 0, 0, -1, 0
	for si < len(r) {
		if pi < len(p) {
			switch p[pi] {
			case '*':
				star, mark = pi, si
				pi++
				continue
			case '?':
				pi++
				si++
				continue
			case '[':
				if end, ok := classEnd(p, pi); ok {
					if inClass(p[pi+1:end], r[si]) {
						pi, si = end+1, si+1
						continue
					}
					break
				}
				fallthrough
			default:
				if p[pi] == r[si] {
					pi++
					si++
					continue
				}
			}
		}
		if star < 0 {
			return false
		}
		pi, mark = star+1, mark+1
		si = mark
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}

// classEnd returns the index of the "]" closing the class opened at i.
func classEnd(p []rune, i int) (int, bool) {
	j := i + 1
	if j < len(p) && p[j] == '!' {
		j++
	}
	if j < len(p) && p[j] == ']' {
		j++
	}
	for ; j < len(p); j++ {
		if p[j] == ']' {
			return j, true
		}
	}
	return 0, false
}

func inClass(class []rune, c rune) bool {
	neg := len(class) > 0 && class[0] == '!'
	if neg {
		class = class[1:]
	}
	in := false
	for i := 0; i < len(class); i++ {
		if i+2 < len(class) && class[i+1] == '-' {
			if class[i] <= c && c <= class[i+2] {
				in = true
			}
			i += 2
			continue
		}
		if class[i] == c {
			in = true
		}
	}
	return in != neg
}

// resolve returns the files matching any of patterns, sorted and without
// duplicates. A pattern without wildcards names one file exactly.
func resolve(files []string, patterns []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, pat := range patterns {
		pat = strings.TrimPrefix(pat, "./")
		for _, f := range files {
			if seen[f] {
				continue
			}
			if f == pat || match(pat, f) {
				seen[f] = true
				out = append(out, f)
			}
		}
	}
	sort.Strings(out)
	return out
}

// Split keywords and the separator characters around them, the datasets
// library's default layout rules.
var splitKeywords = []struct {
	split    string
	keywords []string
}{
	{"train", []string{"train", "training"}},
	{"validation", []string{"validation", "valid", "dev", "val"}},
	{"test", []string{"test", "testing", "eval", "evaluation"}},
}

const sepChars = "-._ 0-9"

// shardedPattern is data/{split}-NNNNN-of-NNNNN*.* (the layout the hub's
// parquet writer and push_to_hub use).
const shardedPattern = "data/%s-[0-9][0-9][0-9][0-9][0-9]-of-[0-9][0-9][0-9][0-9][0-9]*.*"

// defaultSplits infers splits from file names when a repository declares
// no configs, trying in order: the sharded layout; split names as
// directories; split names in file names; everything as "train".
func defaultSplits(files []string) map[string][]string {
	if out := shardedSplits(files); len(out) > 0 {
		return out
	}
	dirPatterns := func(k string) []string {
		return []string{"**/" + k + "/**", "**/" + k + "[" + sepChars + "]*/**",
			"**/*[" + sepChars + "]" + k + "/**", "**/*[" + sepChars + "]" + k + "[" + sepChars + "]*/**"}
	}
	filePatterns := func(k string) []string {
		return []string{"**/" + k + "[" + sepChars + "]*", "**/*[" + sepChars + "]" + k + "[" + sepChars + "]*"}
	}
	for _, patterns := range []func(string) []string{dirPatterns, filePatterns} {
		out := map[string][]string{}
		for _, sk := range splitKeywords {
			for _, k := range sk.keywords {
				if got := resolve(files, patterns(k)); len(got) > 0 {
					var all []string
					for _, k2 := range sk.keywords {
						all = append(all, patterns(k2)...)
					}
					out[sk.split] = resolve(files, all)
					break
				}
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	if len(files) == 0 {
		return nil
	}
	return map[string][]string{"train": resolve(files, []string{"**"})}
}

// shardedSplits groups files of the data/{split}-00000-of-00001.parquet
// layout by split.
func shardedSplits(files []string) map[string][]string {
	out := map[string][]string{}
	for _, f := range files {
		if !match(strings.Replace(shardedPattern, "%s", "*", 1), f) {
			continue
		}
		base := path.Base(f)
		i := strings.LastIndex(base, "-of-")
		if i < 6 {
			continue
		}
		split := base[:i-6] // drop "-NNNNN"
		out[split] = append(out[split], f)
	}
	return out
}
