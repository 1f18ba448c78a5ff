package userfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestReadFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(dir, "real", "sub"), 0o755))
	plain := filepath.Join(dir, "real", "sub", "payload.json")
	must(os.WriteFile(plain, []byte(`{"a":1}`), 0o644))
	// A symlinked directory in the middle of the path.
	must(os.Symlink(filepath.Join(dir, "real"), filepath.Join(dir, "linkdir")))
	// A symlink as the last component.
	must(os.Symlink(plain, filepath.Join(dir, "real", "sub", "link.json")))
	fifo := filepath.Join(dir, "real", "fifo")
	must(syscall.Mkfifo(fifo, 0o644))

	for _, tc := range []struct {
		name, path string
		want       error  // nil: the read succeeds
		component  string // the component the error names, relative to dir
	}{
		{"plain file", plain, nil, ""},
		{"plain file, unclean path", filepath.Join(dir, "real", ".", "sub", "..", "sub", "payload.json"), nil, ""},
		{"symlink in the middle", filepath.Join(dir, "linkdir", "sub", "payload.json"), ErrSymlink, "linkdir"},
		{"symlink at the end", filepath.Join(dir, "real", "sub", "link.json"), ErrSymlink, ""},
		{"fifo", fifo, ErrNotRegular, ""},
		{"directory", filepath.Join(dir, "real"), ErrNotRegular, ""},
		{"device", "/dev/null", ErrNotRegular, ""},
		{"missing", filepath.Join(dir, "nope.json"), fs.ErrNotExist, ""},
		{"empty", "", fs.ErrNotExist, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := ReadFile(tc.path)
			if tc.want == nil {
				if err != nil || string(b) != `{"a":1}` {
					t.Fatalf("ReadFile = %q, %v; want the contents", b, err)
				}
				return
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("ReadFile error = %v; want %v", err, tc.want)
			}
			var ue *Error
			if !errors.As(err, &ue) || ue.Path != tc.path {
				t.Fatalf("error %v does not name the path %q", err, tc.path)
			}
			if !strings.Contains(err.Error(), tc.path) && tc.path != "" {
				t.Errorf("message %q lacks the path", err)
			}
			if tc.component != "" {
				want := filepath.Join(dir, tc.component)
				if ue.Component != want || !strings.Contains(err.Error(), `"`+want+`"`) {
					t.Errorf("error %v names component %q; want %q", err, ue.Component, want)
				}
			}
		})
	}
}

func TestRelativePath(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.txt", filepath.Join(dir, "b.txt")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	if b, err := ReadFile("a.txt"); err != nil || string(b) != "x" {
		t.Errorf(`ReadFile("a.txt") = %q, %v`, b, err)
	}
	if _, err := ReadFile("./b.txt"); !errors.Is(err, ErrSymlink) {
		t.Errorf(`ReadFile("./b.txt") error = %v; want ErrSymlink`, err)
	}
}

// FuzzReadFile checks that no path string makes the reader panic, and that
// whatever it reads was a regular file reached without a link.
func FuzzReadFile(f *testing.F) {
	for _, s := range []string{"", ".", "..", "/", "/dev/null", "a/../b", "//x//", "\x00", "~/x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if filepath.IsAbs(p) && p != "/dev/null" && p != "/" || strings.Contains(p, "..") {
			t.Skip("stays inside the working directory (no reads of /proc)")
		}
		if _, err := ReadFile(p); err == nil {
			fi, lerr := os.Lstat(p)
			if lerr != nil || !fi.Mode().IsRegular() {
				t.Fatalf("ReadFile(%q) succeeded on a non-regular file", p)
			}
		}
	})
}
