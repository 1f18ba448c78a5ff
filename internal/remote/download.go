package remote

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// errNotFound is a 404 (or S3's 403 for a missing key without list
// rights) on an optional file such as a sidecar.
var errNotFound = errors.New("not found")

// get sends a GET for u, signed by sign when set, and returns the
// response of a 200 (or 304 to a conditional request). Any other status
// is an error carrying the start of the body; 404 wraps errNotFound.
func get(ctx context.Context, hc *http.Client, u string, h http.Header, sign func(*http.Request) error) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	for k, v := range h {
		req.Header[k] = v
	}
	if sign != nil {
		if err := sign(req); err != nil {
			return nil, err
		}
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusNotModified {
		return resp, nil
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	resp.Body.Close()
	err = fmt.Errorf("GET %s: %s: %s", redact(u), resp.Status, strings.TrimSpace(string(body)))
	if resp.StatusCode == http.StatusNotFound {
		err = fmt.Errorf("%w: %w", errNotFound, err)
	}
	return nil, err
}

// redact drops a URL's query (a presigned URL's signature).
func redact(u string) string {
	if i := strings.IndexByte(u, '?'); i >= 0 {
		return u[:i] + "?..."
	}
	return u
}

// cached downloads u into the cache, keyed by the URL, revalidating a
// cached copy with its ETag (If-None-Match). It returns the local path
// and the ETag that pins it.
func cached(ctx context.Context, o Options, kind, u string, sign func(*http.Request) error) (string, string, error) {
	sum := sha256.Sum256([]byte(u))
	dir := filepath.Join(o.CacheDir, kind, hex.EncodeToString(sum[:12]))
	name := path.Base(strings.SplitN(u, "?", 2)[0])
	if name == "" || name == "/" || name == "." {
		name = "data"
	}
	local := filepath.Join(dir, name)
	etagFile := local + ".etag"
	h := http.Header{}
	var stored string
	if etag, err := os.ReadFile(etagFile); err == nil && fileExists(local) {
		stored = string(etag)
		h.Set("If-None-Match", stored)
	}
	resp, err := get(ctx, o.httpClient(), u, h, sign)
	if err != nil {
		return "", "", err
	}
	defer resp.Body.Close()
	etag := resp.Header.Get("ETag")
	if resp.StatusCode == http.StatusNotModified {
		return local, stored, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", err
	}
	tmp, err := os.CreateTemp(dir, ".download-*")
	if err != nil {
		return "", "", err
	}
	defer os.Remove(tmp.Name())
	n, err := io.Copy(tmp, resp.Body)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", "", fmt.Errorf("downloading %s: %w", redact(u), err)
	}
	if resp.ContentLength >= 0 && n != resp.ContentLength {
		return "", "", fmt.Errorf("downloading %s: %d of %d bytes", redact(u), n, resp.ContentLength)
	}
	if err := os.Rename(tmp.Name(), local); err != nil {
		return "", "", err
	}
	_ = os.Remove(etagFile)
	if etag != "" {
		_ = os.WriteFile(etagFile, []byte(etag), 0o644)
	}
	return local, etag, nil
}

// fetchBytes reads a small file (a manifest) whole.
func fetchBytes(ctx context.Context, o Options, u string, sign func(*http.Request) error) ([]byte, error) {
	resp, err := get(ctx, o.httpClient(), u, nil, sign)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return io.ReadAll(io.LimitReader(resp.Body, 1<<20))
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}
