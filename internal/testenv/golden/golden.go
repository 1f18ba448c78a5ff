// Package golden compares a test's output with a file under testdata,
// rewriting the file instead when the test binary runs with -update. Tests
// of rendered tables also check that every line fits the terminal width
// the table was rendered for.
package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// Check compares got with the file at path. With update it writes got
// there first (creating the folder), so the comparison then holds and the
// new file can be reviewed in the diff.
func Check(t testing.TB, path string, got []byte, update bool) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test with -update to create it)", err)
	}
	if string(want) != string(got) {
		t.Errorf("%s differs (rerun with -update after checking): %s\ngot:\n%s", path, firstDiff(string(want), string(got)), got)
	}
}

// firstDiff names the first line where want and got part.
func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range min(len(w), len(g)) {
		if w[i] != g[i] {
			return fmt.Sprintf("line %d is %q, want %q", i+1, g[i], w[i])
		}
	}
	return fmt.Sprintf("%d lines, want %d", len(g), len(w))
}

// Fits reports every line of out wider than width columns (runes, as a
// terminal of that width counts them).
func Fits(t testing.TB, out string, width int) {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(l); n > width {
			t.Errorf("%d columns: line of %d: %q", width, n, l)
		}
	}
}
