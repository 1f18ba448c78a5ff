package remote

import (
	"context"
	"errors"
	"strings"
)

// fetchHTTPS downloads one file by URL, with its sidecar
// (<url>.aiperf.json) when there is one. A URL with a query (a presigned
// URL signs one object) has no sidecar lookup. A URL names a file only:
// there is no folder to hold a root manifest.
func fetchHTTPS(ctx context.Context, u string, o Options) (*Fetched, error) {
	local, etag, err := cached(ctx, o, "https", u, nil)
	if err != nil {
		return nil, err
	}
	f := &Fetched{Path: local, Pinned: etag}
	if strings.Contains(u, "?") {
		return f, nil
	}
	data, err := fetchBytes(ctx, o, u+SidecarSuffix, nil)
	switch {
	case errors.Is(err, errNotFound):
		return f, nil
	case err != nil:
		return nil, err
	}
	if f.Manifest, err = parseManifest(data, u+SidecarSuffix, true); err != nil {
		return nil, err
	}
	return f, nil
}
