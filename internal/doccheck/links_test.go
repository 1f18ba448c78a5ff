package doccheck

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// anchor is the id GitHub gives a heading: lower case, letters, digits,
// '-' and '_' kept, spaces made '-', everything else dropped.
func anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// headings returns the anchors of a markdown file's headings (outside
// code blocks).
func headings(text string) map[string]bool {
	out := map[string]bool{}
	inBlock := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inBlock = !inBlock
		}
		if !inBlock && strings.HasPrefix(line, "#") {
			out[anchor(strings.TrimLeft(line, "#"))] = true
		}
	}
	return out
}

// TestDocLinks: every relative link in README.md and docs/*.md names a
// file that exists, and every #anchor a heading of its page, so a page
// moved or a heading renamed does not leave a dead link behind.
func TestDocLinks(t *testing.T) {
	root := repoRoot(t)
	files := []string{"README.md"}
	docs, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	for _, d := range docs {
		rel, _ := filepath.Rel(root, d)
		files = append(files, rel)
	}
	text := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		text[f] = string(b)
	}
	n := 0
	for _, f := range files {
		for _, m := range mdLink.FindAllStringSubmatch(text[f], -1) {
			link := m[1]
			if strings.Contains(link, "://") || strings.HasPrefix(link, "mailto:") {
				continue
			}
			n++
			path, frag, _ := strings.Cut(link, "#")
			target := f
			if path != "" {
				target = filepath.Clean(filepath.Join(filepath.Dir(f), path))
				if _, err := os.Stat(filepath.Join(root, target)); err != nil {
					t.Errorf("%s: link %q: %v", f, link, err)
					continue
				}
			}
			if frag == "" {
				continue
			}
			body, ok := text[target]
			if !ok {
				b, err := os.ReadFile(filepath.Join(root, target))
				if err != nil {
					t.Errorf("%s: link %q: %v", f, link, err)
					continue
				}
				body = string(b)
			}
			if !headings(body)[frag] {
				t.Errorf("%s: link %q: %s has no heading with the anchor %q", f, link, target, frag)
			}
		}
	}
	if n < 20 {
		t.Errorf("only %d relative links found: the extraction is broken", n)
	}
}
