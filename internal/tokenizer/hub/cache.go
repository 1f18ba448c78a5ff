package hub

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// repoCache is one repository's folder in the hub cache.
type repoCache struct {
	dir string // <cache>/models--org--name
}

func (c *Client) repoCache(id RepoID) repoCache {
	return repoCache{dir: filepath.Join(c.CacheDir, id.folder())}
}

// pointer is the snapshot path of filename at commit.
func (r repoCache) pointer(commit, filename string) string {
	return filepath.Join(r.dir, "snapshots", commit, filepath.FromSlash(filename))
}

// blob is the path of the blob with the given ETag.
func (r repoCache) blob(etag string) string {
	return filepath.Join(r.dir, "blobs", etag)
}

// ref is the path of the file holding revision's commit hash.
func (r repoCache) ref(revision string) string {
	return filepath.Join(r.dir, "refs", filepath.FromSlash(revision))
}

// noExist is the marker that filename is absent at commit.
func (r repoCache) noExist(commit, filename string) string {
	return filepath.Join(r.dir, ".no_exist", commit, filepath.FromSlash(filename))
}

// commitOf returns the commit hash revision stands for in the cache: the
// revision itself when it is a commit hash, else the content of its ref
// file. ok is false when the ref is missing or unreadable.
func (r repoCache) commitOf(revision string) (commit string, ok bool) {
	if isCommitHash(revision) {
		return revision, true
	}
	data, err := os.ReadFile(r.ref(revision))
	if err != nil {
		return "", false
	}
	commit = strings.TrimSpace(string(data))
	return commit, commit != "" && checkRelPath("ref", commit) == nil && !strings.Contains(commit, "/")
}

// lookup finds filename at revision in the cache without any network
// access. It returns the snapshot path, or absent=true when the cache
// records that the file does not exist at that commit, or found=false.
func (r repoCache) lookup(revision, filename string) (path, commit string, found, absent bool) {
	commit, ok := r.commitOf(revision)
	if !ok {
		return "", "", false, false
	}
	p := r.pointer(commit, filename)
	if fileExists(p) {
		return p, commit, true, false
	}
	if fileExists(r.noExist(commit, filename)) {
		return "", commit, false, true
	}
	return "", commit, false, false
}

// writeRef records that revision is at commit. A commit-hash revision
// needs no ref. The file is replaced atomically and only when it changes,
// so a read-only cache that is already up to date is not an error.
func (r repoCache) writeRef(revision, commit string) error {
	if revision == commit {
		return nil
	}
	path := r.ref(revision)
	if old, err := os.ReadFile(path); err == nil && string(old) == commit {
		return nil
	}
	return writeFileAtomic(path, []byte(commit))
}

// markNoExist records that filename is absent at commit, so that a later
// lookup of a commit revision needs no request. Failures are ignored: the
// marker only saves a request.
func (r repoCache) markNoExist(commit, filename string) {
	p := r.noExist(commit, filename)
	if fileExists(p) {
		return
	}
	if os.MkdirAll(filepath.Dir(p), 0o755) == nil {
		if f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			f.Close()
		}
	}
}

// link makes pointer refer to blob: a relative symlink when the file
// system allows one (so the cache can be moved), else a copy.
func (c *Client) link(blob, pointer string) error {
	if err := os.MkdirAll(filepath.Dir(pointer), 0o755); err != nil {
		return err
	}
	rel, err := filepath.Rel(filepath.Dir(pointer), blob)
	if err != nil {
		rel = blob
	}
	symlink := c.symlink
	if symlink == nil {
		symlink = os.Symlink
	}
	if err := os.Remove(pointer); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := symlink(rel, pointer); err == nil {
		return nil
	} else if errors.Is(err, fs.ErrExist) && sameFile(pointer, blob) {
		return nil // another process linked it first
	}
	return copyFileAtomic(blob, pointer)
}

// sameFile reports whether a and b resolve to the same file.
func sameFile(a, b string) bool {
	ai, err1 := os.Stat(a)
	bi, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(ai, bi)
}

// fileExists reports whether p exists, following symlinks: a snapshot
// symlink whose blob was deleted does not count.
func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// writeFileAtomic writes data to a temporary file next to path and renames
// it into place, so readers never see a partial file.
func writeFileAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}

// copyFileAtomic copies src to dst through a temporary file.
func copyFileAtomic(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	f, err := os.CreateTemp(filepath.Dir(dst), filepath.Base(dst)+".*.tmp")
	if err != nil {
		return err
	}
	_, cpErr := io.Copy(f, in)
	if err := errors.Join(cpErr, f.Close()); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("copying %s: %w", src, err)
	}
	if err := os.Rename(f.Name(), dst); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}
