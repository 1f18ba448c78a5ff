package benchmark

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/config"
)

func TestPrepareArtifactDir(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	file := filepath.Join(base, "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	readOnly := filepath.Join(base, "read-only")
	if err := os.Mkdir(readOnly, 0o555); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, dir, want string // want: "" for success, else a message fragment
	}{
		{"new nested directory", filepath.Join(base, "x", "y"), ""},
		{"existing directory", base, ""},
		{"path is a file", file, "exists and is not a directory"},
		{"parent is a file", filepath.Join(file, "sub"), "cannot be created"},
		{"read-only directory", readOnly, "is not writable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.dir == readOnly && os.Geteuid() == 0 {
				t.Skip("root writes into read-only directories")
			}
			err := PrepareArtifactDir(tc.dir)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				left, _ := filepath.Glob(filepath.Join(tc.dir, ".aiperf-write-probe-*"))
				if len(left) > 0 {
					t.Errorf("probe files left behind: %v", left)
				}
				return
			}
			var ee *config.ExitError
			if !errors.As(err, &ee) || ee.Code != config.ExitFailure {
				t.Fatalf("error = %v; want an exit-1 error", err)
			}
			if msg := err.Error(); !strings.Contains(msg, tc.want) || !strings.Contains(msg, `"`+tc.dir+`"`) {
				t.Errorf("error %q should name %q and say %q", msg, tc.dir, tc.want)
			}
		})
	}
}
