package hub

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
)

// Kinds of failure, wrapped by the *Error that Download returns; test for
// them with errors.Is.
var (
	// ErrEntryNotFound: the repository and revision exist, the file does
	// not (404 EntryNotFound, or a 404 without an error code).
	ErrEntryNotFound = errors.New("file not found in the repository")
	// ErrRepoNotFound: no such repository (404 RepoNotFound).
	ErrRepoNotFound = errors.New("repository not found")
	// ErrRevisionNotFound: the repository has no such branch, tag or
	// commit (404 RevisionNotFound).
	ErrRevisionNotFound = errors.New("revision not found")
	// ErrUnauthorized: 401 or 403, or a gated repository. The hub also
	// answers 401 for a repository that does not exist when no token is
	// sent, to hide private ones.
	ErrUnauthorized = errors.New("access denied")
	// ErrNotCached: offline mode, and the file is not in the cache.
	ErrNotCached = errors.New("not in the hub cache and HF_HUB_OFFLINE is set")
	// ErrCorrupt: the download does not match its advertised size or
	// SHA-256; nothing was added to the cache.
	ErrCorrupt = errors.New("corrupt download")
	// ErrNotHub: the server did not answer like a hub (no X-Repo-Commit
	// or ETag header): a wrong HF_ENDPOINT, a proxy or a captive portal.
	ErrNotHub = errors.New("the server does not look like a HuggingFace hub")
)

// Error is a failed Download: which file, which URL was tried (if any),
// and which cache was used. Its text never contains the token.
type Error struct {
	// Repo, Revision and Filename name the file asked for.
	Repo, Revision, Filename string
	// URL is the last URL requested; "" when no request was made.
	URL string
	// CacheDir is the hub cache that was searched or written.
	CacheDir string
	// Status is the HTTP status of the failed response; 0 if none.
	Status int
	// Err says what went wrong; it wraps one of the Err* kinds, or a
	// network or file-system error.
	Err error
}

// Error implements error.
func (e *Error) Error() string {
	if e.URL == "" {
		return fmt.Sprintf("%s of %s (revision %s): %v (hub cache: %s)", e.Filename, e.Repo, e.Revision, e.Err, e.CacheDir)
	}
	return fmt.Sprintf("fetching %s of %s (revision %s) from %s: %v (hub cache: %s)", e.Filename, e.Repo, e.Revision, e.URL, e.Err, e.CacheDir)
}

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }

// requestError shortens a failed request's error: the URL is already in
// the *Error around it.
func requestError(method string, err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		if ue.Timeout() {
			return fmt.Errorf("%s request: no answer in time: %w", method, ue.Err)
		}
		return fmt.Errorf("%s request: %w", method, ue.Err)
	}
	return fmt.Errorf("%s request: %w", method, err)
}

// statusError classifies a hub error response the way huggingface_hub
// does, from the status and the X-Error-Code / X-Error-Message headers.
func (c *Client) statusError(resp *http.Response) error {
	code := resp.Header.Get("X-Error-Code")
	msg := resp.Header.Get("X-Error-Message")
	status := fmt.Sprintf("HTTP %d", resp.StatusCode)
	switch {
	case code == "RevisionNotFound":
		return fmt.Errorf("%w (%s)", ErrRevisionNotFound, status)
	case code == "EntryNotFound":
		return fmt.Errorf("%w (%s)", ErrEntryNotFound, status)
	case code == "GatedRepo", resp.StatusCode == http.StatusUnauthorized, resp.StatusCode == http.StatusForbidden:
		return fmt.Errorf("%w (%s): %s", ErrUnauthorized, status, c.accessHint(code, msg))
	case code == "RepoNotFound":
		return fmt.Errorf("%w (%s)", ErrRepoNotFound, status)
	case resp.StatusCode == http.StatusNotFound:
		return fmt.Errorf("%w (%s)", ErrEntryNotFound, status)
	}
	if msg != "" {
		return fmt.Errorf("unexpected %s %s: %s", status, http.StatusText(resp.StatusCode), msg)
	}
	return fmt.Errorf("unexpected %s %s", status, http.StatusText(resp.StatusCode))
}

// accessHint explains a 401/403/gated answer and what to do about it.
func (c *Client) accessHint(code, msg string) string {
	switch {
	case c.Token == "":
		return "gated or private repo (or no such repo): set HF_TOKEN to a token that can read it"
	case msg == "Invalid credentials in Authorization header":
		return "the token from " + c.TokenFrom + " is invalid: set HF_TOKEN to a valid token"
	case code == "GatedRepo":
		return "gated repo: accept its terms on the model's hub page with the account of the token from " + c.TokenFrom
	}
	return "gated or private repo (or no such repo): the token from " + c.TokenFrom + " has no access to it"
}
