package hfdata

import (
	"context"
	"fmt"
	"os"
	"slices"

	"github.com/aiperf-go/aiperf/internal/tokenizer/hub"
)

// Source names one split of a hub dataset.
type Source struct {
	Repo     string // "org/name"
	Revision string // "" means "main"
	Config   string // the subset (the datasets library's "name"); "" for the default
	Split    string
}

// Local is a split whose data files are in the local hub cache.
type Local struct {
	Split
	Repo   string
	Commit string
	// Paths are the cache paths of Split.Files, in order.
	Paths []string
	// Listing tells how the repository was listed (hub or cache).
	Listing *hub.Listing
}

// Rows calls f for every row of the split (see ReadRows).
func (l *Local) Rows(f func(Row) error) error { return ReadRows(l.Format, l.Paths, f) }

// Fetch resolves src to data files and makes sure they are in the hub
// cache: it lists the repository (from the hub, or the cache when offline
// or unreachable), reads its dataset card, resolves the config and split,
// and downloads the data files that are missing. Nothing is downloaded in
// offline mode; a missing file is then an error naming the cache path.
func Fetch(ctx context.Context, c *hub.Client, src Source) (*Local, error) {
	l, err := c.ListDataset(ctx, src.Repo, src.Revision)
	if err != nil {
		return nil, err
	}
	rev := l.Commit
	var cards []Config
	if slices.Contains(l.Files, "README.md") {
		f, err := c.DownloadDataset(ctx, src.Repo, rev, "README.md")
		if err != nil {
			return nil, err
		}
		data, err := os.ReadFile(f.Path)
		if err != nil {
			return nil, err
		}
		if cards, err = ParseCard(data); err != nil {
			return nil, fmt.Errorf("%s: %w", src.Repo, err)
		}
	}
	split, err := Resolve(l.Files, cards, src.Config, src.Split)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", src.Repo, err)
	}
	out := &Local{Split: *split, Repo: src.Repo, Commit: l.Commit, Listing: l}
	for _, name := range split.Files {
		f, err := c.DownloadDataset(ctx, src.Repo, rev, name)
		if err != nil {
			return nil, err
		}
		out.Paths = append(out.Paths, f.Path)
	}
	return out, nil
}
