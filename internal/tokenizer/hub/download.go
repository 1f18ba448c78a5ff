package hub

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// File is one file of a hub repository, present in the local cache.
type File struct {
	// Path is the file's snapshot path, readable as a regular file
	// (usually a symlink into blobs/).
	Path string
	// Repo and Revision are what was asked for.
	Repo     RepoID
	Revision string
	// Commit is the commit the revision resolved to.
	Commit string
	// Downloaded reports that the content came over the network in this
	// call rather than from the cache.
	Downloaded bool
	// Fallback, when non-nil, is why the hub could not be asked about a
	// branch or tag revision (network down, hub error); the commit the
	// cache last recorded for it was used instead. Callers may warn that
	// the file may be out of date.
	Fallback error
}

// maxRedirects bounds the redirects followed for one request.
const maxRedirects = 10

// userAgent identifies this client to the hub.
const userAgent = "aiperf-go (huggingface_hub-compatible cache)"

// Download returns filename of repo at revision ("" means "main") from the
// cache, downloading it first when needed, as huggingface_hub's
// hf_hub_download does:
//
//   - a commit-hash revision already in the cache (or recorded as absent)
//     is answered without any request;
//   - in offline mode the cache answers, or the call fails with
//     ErrNotCached, without any request;
//   - otherwise a HEAD request to {Endpoint}/{repo}/resolve/{revision}/{filename}
//     gives the commit (X-Repo-Commit), the ETag (X-Linked-Etag for LFS
//     files, else ETag) and the size; a blob already present is reused, a
//     missing one is downloaded to a temporary file in blobs/, checked
//     against the size and, for LFS files, the SHA-256 in the ETag, and
//     renamed into place; then the snapshot entry and the ref are written;
//   - when that HEAD request fails for any reason other than "no such
//     revision" or "no such file" (the network is down, the hub answers
//     5xx, 401...), the commit the cache recorded for the revision is
//     used, if its snapshot holds the file (File.Fallback says why).
//
// Errors are *Error values wrapping one of the Err* kinds or a network or
// file-system error. A failed download leaves no blob, snapshot entry or
// ref behind.
func (c *Client) Download(ctx context.Context, repo, revision, filename string) (*File, error) {
	return c.download(ctx, repo, revision, filename, false)
}

// DownloadDataset is Download for a dataset repository (huggingface_hub's
// repo_type="datasets"): the same cache rules, offline mode and checks, in
// the cache folder "datasets--org--name", from {Endpoint}/datasets/{repo}.
func (c *Client) DownloadDataset(ctx context.Context, repo, revision, filename string) (*File, error) {
	return c.download(ctx, repo, revision, filename, true)
}

func (c *Client) download(ctx context.Context, repo, revision, filename string, dataset bool) (*File, error) {
	if revision == "" {
		revision = DefaultRevision
	}
	e := &Error{Repo: repo, Revision: revision, Filename: filename, CacheDir: c.CacheDir}
	fail := func(err error) (*File, error) {
		e.Err = err
		return nil, e
	}
	id, err := ParseRepoID(repo)
	if err != nil {
		return fail(err)
	}
	id.Dataset = dataset
	if err := errors.Join(checkRelPath("filename", filename), checkRelPath("revision", revision)); err != nil {
		return fail(err)
	}
	rc := c.repoCache(id)
	f := &File{Repo: id, Revision: revision}

	// A commit is immutable, so what the cache holds for it is final; in
	// offline mode the cache is all there is.
	if isCommitHash(revision) || c.Offline {
		path, commit, found, absent := rc.lookup(revision, filename)
		switch {
		case found:
			f.Path, f.Commit = path, commit
			return f, nil
		case absent:
			return fail(fmt.Errorf("%w (the cache records it as absent at commit %s)", ErrEntryNotFound, commit))
		case c.Offline:
			return fail(offlineMiss(rc, revision, filename))
		}
	}

	m, err := c.metadata(ctx, id, revision, filename)
	e.URL = m.url
	if err != nil {
		e.Status = m.status
		if m.commit != "" && errors.Is(err, ErrEntryNotFound) {
			rc.markNoExist(m.commit, filename)
		}
		definitive := errors.Is(err, ErrEntryNotFound) || errors.Is(err, ErrRevisionNotFound) || ctx.Err() != nil
		if !definitive {
			if path, commit, found, _ := rc.lookup(revision, filename); found {
				f.Path, f.Commit = path, commit
				f.Fallback = &Error{Repo: repo, Revision: revision, Filename: filename, URL: m.url, CacheDir: c.CacheDir, Status: m.status, Err: err}
				return f, nil
			}
		}
		return fail(err)
	}

	f.Commit = m.commit
	f.Path = rc.pointer(m.commit, filename)
	if !fileExists(f.Path) {
		blob := rc.blob(m.etag)
		if !fileExists(blob) {
			e.URL = withoutQuery(m.location) // a CDN URL's query is a signature
			if status, err := c.fetch(ctx, m, blob); err != nil {
				e.Status = status
				return fail(err)
			}
			f.Downloaded = true
		}
		if err := c.link(blob, f.Path); err != nil {
			return fail(fmt.Errorf("adding %s to the snapshot: %w", filename, err))
		}
	}
	// The ref goes last, so a failed download leaves none behind. Failing
	// to write it is not fatal: the file is in place, and a read-only
	// cache that cannot record the ref only costs a request next time.
	_ = rc.writeRef(revision, m.commit)
	return f, nil
}

// offlineMiss says what was looked for in offline mode and not found.
func offlineMiss(rc repoCache, revision, filename string) error {
	if commit, ok := rc.commitOf(revision); ok {
		return fmt.Errorf("%w: looked for %s", ErrNotCached, rc.pointer(commit, filename))
	}
	return fmt.Errorf("%w: looked for %s, which would give the commit of revision %q", ErrNotCached, rc.ref(revision), revision)
}

// metadata is what a HEAD request tells about a file.
type metadata struct {
	url      string // the resolve URL asked
	status   int    // HTTP status of the final response; 0 if none
	location string // where to GET the content (a CDN for LFS files)
	commit   string // X-Repo-Commit
	etag     string // normalised X-Linked-Etag or ETag
	size     int64  // X-Linked-Size or Content-Length; -1 if unknown
}

// resolveURL is the hub URL of filename at revision. The revision is
// escaped as one path segment (a branch may contain '/'); the filename
// keeps its slashes.
func (c *Client) resolveURL(id RepoID, revision, filename string) string {
	segs := strings.Split(filename, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	prefix := "/"
	if id.Dataset {
		prefix = "/datasets/"
	}
	return c.Endpoint + prefix + id.String() + "/resolve/" + url.PathEscape(revision) + "/" + strings.Join(segs, "/")
}

// metadata asks the hub about a file with HEAD requests. Redirects that
// stay on the hub (a renamed repository) are followed; a redirect
// elsewhere (an LFS file on a CDN) carries the metadata itself and its
// target is where the content is fetched from.
func (c *Client) metadata(ctx context.Context, id RepoID, revision, filename string) (metadata, error) {
	m := metadata{url: c.resolveURL(id, revision, filename), size: -1}
	ctx, cancel := context.WithTimeout(ctx, metadataTimeout)
	defer cancel()
	hc := c.httpClient()
	cur := m.url
	for range maxRedirects {
		req, err := http.NewRequestWithContext(ctx, http.MethodHead, cur, nil)
		if err != nil {
			return m, fmt.Errorf("bad hub URL (check HF_ENDPOINT): %w", err)
		}
		c.setHeaders(req)
		req.Header.Set("Accept-Encoding", "identity") // the size must be the file's own
		resp, err := hc.Do(req)
		if err != nil {
			return m, requestError(http.MethodHead, err)
		}
		resp.Body.Close()
		m.status = resp.StatusCode
		if loc := resp.Header.Get("Location"); isRedirect(resp.StatusCode) && loc != "" {
			target, err := resolveRef(cur, loc)
			if err != nil {
				return m, fmt.Errorf("bad redirect %q: %w", loc, err)
			}
			if c.isHubURL(target) {
				cur = target
				continue
			}
			return m, readMetadata(&m, resp, target, true)
		}
		if resp.StatusCode >= 400 {
			m.commit = safeCommit(resp.Header.Get("X-Repo-Commit"))
			return m, c.statusError(resp)
		}
		return m, readMetadata(&m, resp, cur, false)
	}
	return m, fmt.Errorf("more than %d redirects", maxRedirects)
}

// readMetadata fills m from a successful HEAD response whose content is at
// location.
func readMetadata(m *metadata, resp *http.Response, location string, redirected bool) error {
	m.location = location
	m.commit = safeCommit(resp.Header.Get("X-Repo-Commit"))
	m.etag = normalizeETag(firstNonEmpty(resp.Header.Get("X-Linked-Etag"), resp.Header.Get("ETag")))
	size := resp.Header.Get("X-Linked-Size")
	if size == "" && !redirected {
		size = resp.Header.Get("Content-Length")
	}
	if n, err := strconv.ParseInt(size, 10, 64); err == nil && n >= 0 {
		m.size = n
	}
	switch {
	case m.commit == "":
		return fmt.Errorf("%w: the answer has no valid X-Repo-Commit header; check HF_ENDPOINT, proxies and firewalls", ErrNotHub)
	case m.etag == "" || strings.ContainsAny(m.etag, `/\`) || m.etag == "." || m.etag == "..":
		return fmt.Errorf("%w: the answer has no usable ETag header", ErrNotHub)
	}
	return nil
}

// safeCommit returns h if it can name a snapshot directory, else "".
func safeCommit(h string) string {
	h = strings.TrimSpace(h)
	if h == "" || strings.ContainsAny(h, `/\`) || checkRelPath("commit", h) != nil {
		return ""
	}
	return h
}

// normalizeETag strips the weak-validator prefix and the quotes.
func normalizeETag(etag string) string {
	return strings.Trim(strings.TrimPrefix(strings.TrimSpace(etag), "W/"), `"`)
}

// fetch downloads m.location into blob: to a temporary file first, checked
// against the expected size and, for LFS files, the SHA-256 the ETag
// holds, then renamed. On failure the temporary file is removed. It
// returns the HTTP status of a failed response.
func (c *Client) fetch(ctx context.Context, m metadata, blob string) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, downloadTimeout)
	defer cancel()
	resp, err := c.get(ctx, m.location)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode, c.statusError(resp)
	}
	want := m.size
	if want < 0 && resp.ContentLength >= 0 && !resp.Uncompressed {
		want = resp.ContentLength
	}

	if err := os.MkdirAll(filepath.Dir(blob), 0o755); err != nil {
		return 0, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(blob), filepath.Base(blob)+".*.incomplete")
	if err != nil {
		return 0, err
	}
	keep := false
	defer func() {
		if !keep {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	sum := sha256.New()
	var body io.Reader = resp.Body
	if want >= 0 {
		body = io.LimitReader(body, want+1) // one byte more reveals an overlong body
	}
	n, err := io.Copy(io.MultiWriter(tmp, sum), body)
	if err != nil {
		return 0, fmt.Errorf("%w: reading the body after %d bytes: %w", ErrCorrupt, n, err)
	}
	if want >= 0 && n != want {
		return 0, fmt.Errorf("%w: received %d bytes, expected %d", ErrCorrupt, n, want)
	}
	if isSHA256(m.etag) {
		if got := hex.EncodeToString(sum.Sum(nil)); got != m.etag {
			return 0, fmt.Errorf("%w: SHA-256 %s, expected %s", ErrCorrupt, got, m.etag)
		}
	}
	if err := errors.Join(tmp.Chmod(0o644), tmp.Close()); err != nil {
		return 0, err
	}
	if err := os.Rename(tmp.Name(), blob); err != nil {
		return 0, err
	}
	keep = true
	return 0, nil
}

// get sends a GET request, following redirects itself so that the token
// goes only to hub hosts, never to the CDN an LFS file redirects to.
func (c *Client) get(ctx context.Context, u string) (*http.Response, error) {
	hc := c.httpClient()
	for range maxRedirects {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return nil, err
		}
		if c.isHubURL(u) {
			c.setHeaders(req)
		} else {
			req.Header.Set("User-Agent", userAgent)
		}
		resp, err := hc.Do(req)
		if err != nil {
			return nil, requestError(http.MethodGet, err)
		}
		loc := resp.Header.Get("Location")
		if !isRedirect(resp.StatusCode) || loc == "" {
			return resp, nil
		}
		resp.Body.Close()
		if u, err = resolveRef(u, loc); err != nil {
			return nil, fmt.Errorf("bad redirect %q: %w", loc, err)
		}
	}
	return nil, fmt.Errorf("more than %d redirects", maxRedirects)
}

// setHeaders adds the headers every hub request carries.
func (c *Client) setHeaders(req *http.Request) {
	req.Header.Set("User-Agent", userAgent)
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
}

// hubHosts are host names that are always the hub, whatever HF_ENDPOINT
// says (huggingface_hub's HF_URL_HOSTS).
func hubHosts() []string { return []string{"huggingface.co", "hf.co", "hub-ci.huggingface.co"} }

// isHubURL reports whether u is served by the hub: the endpoint's own host
// and port, or one of hubHosts. Only hub URLs receive the token.
func (c *Client) isHubURL(u string) bool {
	pu, err := url.Parse(u)
	if err != nil {
		return false
	}
	if pe, err := url.Parse(c.Endpoint); err == nil && strings.EqualFold(pe.Host, pu.Host) && pe.Scheme == pu.Scheme {
		return true
	}
	host := strings.ToLower(pu.Hostname())
	for _, h := range hubHosts() {
		if host == h && pu.Scheme == "https" {
			return true
		}
	}
	return false
}

// isRedirect reports whether status is a redirect with a Location.
func isRedirect(status int) bool {
	switch status {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

// resolveRef resolves a Location header against the URL that returned it.
func resolveRef(base, loc string) (string, error) {
	b, err := url.Parse(base)
	if err != nil {
		return "", err
	}
	r, err := url.Parse(loc)
	if err != nil {
		return "", err
	}
	return b.ResolveReference(r).String(), nil
}

// withoutQuery returns u without its query and fragment, for messages.
func withoutQuery(u string) string {
	pu, err := url.Parse(u)
	if err != nil {
		return "(unparsable URL)"
	}
	pu.RawQuery, pu.Fragment = "", ""
	return pu.String()
}
