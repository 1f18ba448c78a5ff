package hub

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"

	"github.com/go-json-experiment/json"
)

// Listing is the file list of a repository at one commit.
type Listing struct {
	Repo     RepoID
	Revision string
	// Commit is the commit the revision resolved to.
	Commit string
	// Files are the repository's file paths (slash-separated, relative to
	// the repository root), sorted.
	Files []string
	// FromCache reports that the list is what the local snapshot holds
	// (offline mode, or the hub could not be asked): the files downloaded
	// before, not necessarily the whole repository.
	FromCache bool
	// Fallback, when non-nil, is why the hub could not be asked; the
	// cache answered instead (see File.Fallback).
	Fallback error
}

// maxListingBytes bounds the repository metadata answer (a repository of
// 100,000 files lists in about 10 MB).
const maxListingBytes = 64 << 20

// ListDataset lists the files of dataset repository repo at revision (""
// means "main"), as the datasets library does before it resolves a
// dataset's data files:
//
//   - online, GET {Endpoint}/api/datasets/{repo}/revision/{revision}
//     answers the commit and every file; the revision's ref is recorded in
//     the cache;
//   - offline (or for a commit-hash revision already in the cache), and
//     when the hub cannot be asked for a reason other than "no such
//     repository or revision", the cache's snapshot of the commit the
//     revision last resolved to answers (Listing.FromCache).
//
// Errors are *Error values like Download's.
func (c *Client) ListDataset(ctx context.Context, repo, revision string) (*Listing, error) {
	if revision == "" {
		revision = DefaultRevision
	}
	e := &Error{Repo: repo, Revision: revision, Filename: "(file list)", CacheDir: c.CacheDir}
	fail := func(err error) (*Listing, error) {
		e.Err = err
		return nil, e
	}
	id, err := ParseRepoID(repo)
	if err != nil {
		return fail(err)
	}
	id.Dataset = true
	if err := checkRelPath("revision", revision); err != nil {
		return fail(err)
	}
	rc := c.repoCache(id)
	l := &Listing{Repo: id, Revision: revision}
	fromCache := func(fallback error) (*Listing, bool) {
		commit, ok := rc.commitOf(revision)
		if !ok {
			return nil, false
		}
		files, err := snapshotFiles(filepath.Join(rc.dir, "snapshots", commit))
		if err != nil || len(files) == 0 {
			return nil, false
		}
		l.Commit, l.Files, l.FromCache, l.Fallback = commit, files, true, fallback
		return l, true
	}
	if c.Offline || (isCommitHash(revision) && dirExists(filepath.Join(rc.dir, "snapshots", revision))) {
		if got, ok := fromCache(nil); ok {
			return got, nil
		}
		if c.Offline {
			return fail(fmt.Errorf("%w: no snapshot of revision %q under %s", ErrNotCached, revision, rc.dir))
		}
	}

	u := c.Endpoint + "/api/datasets/" + id.String() + "/revision/" + url.PathEscape(revision)
	e.URL = u
	commit, files, status, err := c.fetchListing(ctx, u)
	if err != nil {
		e.Status = status
		definitive := errors.Is(err, ErrRepoNotFound) || errors.Is(err, ErrRevisionNotFound) || ctx.Err() != nil
		if !definitive {
			if got, ok := fromCache(&Error{Repo: repo, Revision: revision, Filename: e.Filename, URL: u, CacheDir: c.CacheDir, Status: status, Err: err}); ok {
				return got, nil
			}
		}
		return fail(err)
	}
	l.Commit, l.Files = commit, files
	_ = rc.writeRef(revision, commit)
	return l, nil
}

// fetchListing asks the hub's repository API for the commit and files.
func (c *Client) fetchListing(ctx context.Context, u string) (commit string, files []string, status int, err error) {
	ctx, cancel := context.WithTimeout(ctx, metadataTimeout)
	defer cancel()
	resp, err := c.get(ctx, u)
	if err != nil {
		return "", nil, 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		if resp.StatusCode == http.StatusNotFound && resp.Header.Get("X-Error-Code") == "" {
			// The API answers a bare 404 for an unknown repository.
			return "", nil, resp.StatusCode, fmt.Errorf("%w (HTTP 404)", ErrRepoNotFound)
		}
		return "", nil, resp.StatusCode, c.statusError(resp)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxListingBytes+1))
	if err != nil {
		return "", nil, resp.StatusCode, requestError(http.MethodGet, err)
	}
	if len(body) > maxListingBytes {
		return "", nil, resp.StatusCode, fmt.Errorf("the repository listing is larger than %d bytes", maxListingBytes)
	}
	var info struct {
		SHA      string `json:"sha"`
		Siblings []struct {
			RFilename string `json:"rfilename"`
		} `json:"siblings"`
	}
	if err := json.Unmarshal(body, &info); err != nil {
		return "", nil, resp.StatusCode, fmt.Errorf("%w: the repository listing is not the hub's JSON: %v", ErrNotHub, err)
	}
	commit = safeCommit(info.SHA)
	if commit == "" {
		return "", nil, resp.StatusCode, fmt.Errorf("%w: the repository listing has no commit", ErrNotHub)
	}
	for _, s := range info.Siblings {
		if checkRelPath("filename", s.RFilename) == nil {
			files = append(files, s.RFilename)
		}
	}
	sort.Strings(files)
	return commit, files, resp.StatusCode, nil
}

// snapshotFiles lists the files under a snapshot directory, following
// its symlinks into blobs/ (a link whose blob is gone is left out).
func snapshotFiles(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		if !fileExists(p) {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	sort.Strings(out)
	return out, err
}

func dirExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// SnapshotPath is where filename of the listed commit lives in the cache
// once downloaded.
func (c *Client) SnapshotPath(l *Listing, filename string) string {
	return c.repoCache(l.Repo).pointer(l.Commit, filename)
}
