//go:build linux

package export

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
)

// smallDisk mounts a tmpfs of size bytes on a temporary directory, for
// tests of a full disk; it skips when that is not allowed (not root, or no
// CAP_SYS_ADMIN in a container).
func smallDisk(t *testing.T, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a small tmpfs")
	}
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })
	return dir
}

// TestLineWriterDiskFull: when the disk fills mid-stream, the file is cut
// back to its last complete line (every line still parses), later writes
// fail with the ENOSPC reason, and Close reports it.
func TestLineWriterDiskFull(t *testing.T) {
	dir := smallDisk(t, "64k")
	path := dir + "/profile_export.jsonl"
	// A 4 KiB write buffer flushed every 3 lines: the disk fills inside a
	// buffer, leaving half a line unless it is undone.
	lw, err := newLineWriter(path, 0, 3)
	if err != nil {
		t.Fatal(err)
	}
	line := `{"metadata":{"pad":"` + strings.Repeat("x", 1500) + `"}}`
	var werr error
	for i := 0; i < 1000 && werr == nil; i++ {
		werr = lw.add(func(dst []byte) []byte { return append(dst, line...) })
		if i%3 == 2 {
			lw.flush()
		}
	}
	cerr := lw.close()
	if !errors.Is(werr, syscall.ENOSPC) || !errors.Is(cerr, syscall.ENOSPC) {
		t.Fatalf("write error %v, close error %v; want ENOSPC from both", werr, cerr)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) == 0 || data[len(data)-1] != '\n' {
		t.Fatalf("file of %d bytes does not end with a complete line", len(data))
	}
	for i, l := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		if !json.Valid(l) {
			t.Fatalf("line %d of %d bytes is not valid JSON", i+1, len(l))
		}
	}
	t.Logf("%d complete lines kept on a full 64 KiB disk", bytes.Count(data, []byte("\n")))
}
