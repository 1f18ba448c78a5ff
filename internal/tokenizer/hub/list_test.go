package hub

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/tokenizer/hub/hubtest"
)

// writeRepo lays out a dataset repository as a hub cache holds it.
func writeRepo(t *testing.T, cache, repo, commit string, files map[string]string) {
	t.Helper()
	dir := filepath.Join(cache, "datasets--"+strings.ReplaceAll(repo, "/", "--"))
	for name, content := range files {
		p := filepath.Join(dir, "snapshots", commit, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(filepath.Join(dir, "refs"), 0o755)
	if err := os.WriteFile(filepath.Join(dir, "refs", "main"), []byte(commit), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestListDataset(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	writeRepo(t, src, "org/data", commitA, map[string]string{
		"README.md": "---\n---\n", "data/train-00000-of-00001.parquet": "PAR1", "data/test-00000-of-00001.parquet": "PAR1x",
	})
	srv := hubtest.New(src)
	defer srv.Close()
	c := &Client{Endpoint: srv.URL, CacheDir: t.TempDir()}
	ctx := context.Background()

	l, err := c.ListDataset(ctx, "org/data", "")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"README.md", "data/test-00000-of-00001.parquet", "data/train-00000-of-00001.parquet"}
	if l.Commit != commitA || !reflect.DeepEqual(l.Files, want) || l.FromCache {
		t.Fatalf("ListDataset = %+v", l)
	}
	// Offline, the cache answers with what has been downloaded.
	if _, err := c.DownloadDataset(ctx, "org/data", l.Commit, "data/test-00000-of-00001.parquet"); err != nil {
		t.Fatal(err)
	}
	off := *c
	off.Offline = true
	before := len(srv.Requests())
	l2, err := off.ListDataset(ctx, "org/data", "")
	if err != nil {
		t.Fatal(err)
	}
	if !l2.FromCache || l2.Commit != commitA || !reflect.DeepEqual(l2.Files, []string{"data/test-00000-of-00001.parquet"}) {
		t.Errorf("offline ListDataset = %+v", l2)
	}
	if n := len(srv.Requests()); n != before {
		t.Errorf("offline listing sent %d requests", n-before)
	}
	// The hub going away falls back to the cache, saying why.
	srv.Close()
	l3, err := c.ListDataset(ctx, "org/data", "main")
	if err != nil || !l3.FromCache || l3.Fallback == nil {
		t.Errorf("fallback listing = %+v, %v", l3, err)
	}
}

func TestListDatasetErrors(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	writeRepo(t, src, "org/data", commitA, map[string]string{"a.json": "[]"})
	srv := hubtest.New(src)
	defer srv.Close()
	c := &Client{Endpoint: srv.URL, CacheDir: t.TempDir()}
	ctx := context.Background()
	if _, err := c.ListDataset(ctx, "org/missing", ""); !errors.Is(err, ErrRepoNotFound) {
		t.Errorf("missing repo: %v", err)
	}
	if _, err := c.ListDataset(ctx, "org/data", "nobranch"); !errors.Is(err, ErrRevisionNotFound) {
		t.Errorf("missing revision: %v", err)
	}
	if _, err := c.ListDataset(ctx, "not a repo", ""); !errors.Is(err, ErrInvalidRepoID) {
		t.Errorf("bad id: %v", err)
	}
	off := *c
	off.Offline = true
	if _, err := off.ListDataset(ctx, "org/data", ""); !errors.Is(err, ErrNotCached) {
		t.Errorf("offline, nothing cached: %v", err)
	}
}
