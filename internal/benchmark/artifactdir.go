package benchmark

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/aiperf-go/aiperf/internal/config"
)

// PrepareArtifactDir creates the artifact directory and proves it can be
// written, by creating, writing, syncing and removing a probe file, before
// a single request is sent: a run that could not record its results would
// only waste the server's time. The error names the directory and exits 1.
func PrepareArtifactDir(dir string) error {
	fail := func(why string, err error) error {
		return &config.ExitError{Code: config.ExitFailure,
			Err: fmt.Errorf("artifact directory %q %s: %w", dir, why, err)}
	}
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return &config.ExitError{Code: config.ExitFailure,
			Err: fmt.Errorf("artifact directory %q exists and is not a directory", dir)}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the path is in our message already
		}
		return fail("cannot be created", err)
	}
	f, err := os.CreateTemp(dir, ".aiperf-write-probe-*")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fail("is not writable", err)
	}
	name := f.Name()
	_, werr := f.Write([]byte("probe\n"))
	serr := f.Sync()
	cerr := f.Close()
	rerr := os.Remove(name)
	if err := errors.Join(werr, serr, cerr, rerr); err != nil {
		return fail("is not writable", err)
	}
	return nil
}
