package cli

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestTokenizeFileIsReadSafely checks that `aiperf tokenize --file`, a
// user-supplied path, goes through the safe reader: a plain file is read,
// while a symlink (last component or in the middle), a FIFO and a
// directory are refused with an error naming the path and the reason.
func TestTokenizeFileIsReadSafely(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(real, "text.txt")
	fifo := filepath.Join(dir, "fifo")
	for _, err := range []error{
		os.WriteFile(plain, []byte("hello world"), 0o644),
		os.Symlink(plain, filepath.Join(dir, "last-link.txt")),
		os.Symlink(real, filepath.Join(dir, "mid-link")),
		syscall.Mkfifo(fifo, 0o644),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	if r := runTokenizeMain(t, "", "--tokenizer", "builtin", "--file", plain); r.code != 0 {
		t.Fatalf("plain file: exit %d\n%s", r.code, r.stderr)
	}
	for _, tc := range []struct{ path, why string }{
		{filepath.Join(dir, "last-link.txt"), "symbolic link"},
		{filepath.Join(dir, "mid-link", "text.txt"), "symbolic link"},
		{fifo, "not a regular file"},
		{real, "not a regular file"},
	} {
		r := runTokenizeMain(t, "", "--tokenizer", "builtin", "--file", tc.path)
		if r.code == 0 || !strings.Contains(r.stderr, tc.path) || !strings.Contains(r.stderr, tc.why) {
			t.Errorf("--file %s: exit %d, stderr %q; want a failure naming the path and %q", tc.path, r.code, r.stderr, tc.why)
		}
	}
}
