package hub

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

func TestDownloadDataset(t *testing.T) {
	f := newFakeHub(t)
	// The fake hub names repositories by URL path: a dataset resolves
	// under /datasets/.
	f.repos["datasets/org/data"] = &fakeRepo{
		refs:    map[string]string{"main": commitA},
		commits: map[string]map[string]string{commitA: {"d.json": `[{"x":1}]`}},
	}
	c := f.client(t)
	got, err := c.DownloadDataset(context.Background(), "org/data", "", "d.json")
	if err != nil {
		t.Fatal(err)
	}
	if s := readFile(t, got.Path); s != `[{"x":1}]` {
		t.Errorf("content = %q", s)
	}
	want := filepath.Join(c.CacheDir, "datasets--org--data", "snapshots", commitA, "d.json")
	if got.Path != want {
		t.Errorf("path = %s; want %s", got.Path, want)
	}
	if reqs := f.requests(); len(reqs) < 1 || !strings.HasPrefix(reqs[0].Path, "/datasets/org/data/resolve/main/") {
		t.Errorf("requests = %+v; want /datasets/org/data/resolve/main/...", reqs)
	}
	// A model repository of the same name is a different repository.
	if _, err := c.Download(context.Background(), "org/data", "", "d.json"); err == nil {
		t.Error("Download of a model repository found the dataset")
	}
	// Offline, the cached dataset file is answered without a request.
	c.Offline = true
	f.resetLog()
	again, err := c.DownloadDataset(context.Background(), "org/data", "", "d.json")
	if err != nil || again.Path != want {
		t.Fatalf("offline DownloadDataset = %+v, %v", again, err)
	}
	if reqs := f.requests(); len(reqs) != 0 {
		t.Errorf("offline requests = %+v", reqs)
	}
}
