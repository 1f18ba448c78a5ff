package remote

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path"
	"strings"

	"github.com/aiperf-go/aiperf/internal/tokenizer/hub"
)

// fetchHF downloads from a HuggingFace dataset repository,
// hf://org/repo[@revision][/path], through the hub cache (HF_ENDPOINT,
// HF_TOKEN, HF_HUB_OFFLINE apply): the repository or a folder is run
// through its aiperf.json; a file is read with its sidecar when there is
// one. The revision defaults to main and is pinned to its commit.
func fetchHF(ctx context.Context, u *url.URL, o Options) (*Fetched, error) {
	if o.Hub == nil {
		return nil, errors.New("no hub client")
	}
	parts := strings.SplitN(strings.TrimPrefix(u.Path, "/"), "/", 2)
	if u.Host == "" || parts[0] == "" {
		return nil, errors.New("no repository (hf://org/repo[/path])")
	}
	name, rev, _ := strings.Cut(parts[0], "@")
	repo := u.Host + "/" + name
	rest := ""
	if len(parts) == 2 {
		rest = strings.Trim(parts[1], "/")
	}
	pinned := func(f *hub.File, p string) string { return "hf://" + repo + "@" + f.Commit + "/" + p }
	fromManifest := func(dir string) (*Fetched, error) {
		mp := path.Join(dir, ManifestName)
		mf, err := o.Hub.DownloadDataset(ctx, repo, rev, mp)
		if err != nil {
			return nil, fmt.Errorf("a repository or folder is run through its %s: %w", ManifestName, err)
		}
		data, err := os.ReadFile(mf.Path)
		if err != nil {
			return nil, err
		}
		m, err := parseManifest(data, pinned(mf, mp), false)
		if err != nil {
			return nil, err
		}
		if strings.HasSuffix(m.Path, "/") {
			return nil, fmt.Errorf("%s: path %q is a folder; a folder of files is not read from the hub yet, name one file", pinned(mf, mp), m.Path)
		}
		dp := path.Join(dir, m.Path)
		// The data at the manifest's commit, not at a branch that may
		// have moved since.
		df, err := o.Hub.DownloadDataset(ctx, repo, mf.Commit, dp)
		if err != nil {
			return nil, err
		}
		return &Fetched{Path: df.Path, Manifest: m, Pinned: pinned(df, dp)}, nil
	}
	if rest == "" {
		return fromManifest("")
	}
	f, err := o.Hub.DownloadDataset(ctx, repo, rev, rest)
	if errors.Is(err, hub.ErrEntryNotFound) {
		return fromManifest(rest) // a folder
	}
	if err != nil {
		return nil, err
	}
	out := &Fetched{Path: f.Path, Pinned: pinned(f, rest)}
	sc, err := o.Hub.DownloadDataset(ctx, repo, f.Commit, rest+SidecarSuffix)
	switch {
	case errors.Is(err, hub.ErrEntryNotFound):
	case err != nil:
		return nil, err
	default:
		data, err := os.ReadFile(sc.Path)
		if err != nil {
			return nil, err
		}
		if out.Manifest, err = parseManifest(data, pinned(sc, rest+SidecarSuffix), true); err != nil {
			return nil, err
		}
	}
	return out, nil
}
