package hub

import (
	"context"
	"errors"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("reading %s: %v", p, err)
	}
	return string(b)
}

// listTree returns every path under dir, relative and slash-separated,
// with symlinks shown as "name -> target".
func listTree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if d.Type()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			rel += " -> " + filepath.ToSlash(target)
		}
		out = append(out, rel)
		return nil
	})
	return out
}

func TestDownloadRegularFile(t *testing.T) {
	f := newFakeHub(t)
	c := f.client(t)
	got, err := c.Download(context.Background(), "org/model", "", "tokenizer.json")
	if err != nil {
		t.Fatal(err)
	}
	want := f.repos["org/model"].commits[commitA]["tokenizer.json"]
	if s := readFile(t, got.Path); s != want {
		t.Errorf("content = %q; want %q", s, want)
	}
	if got.Commit != commitA || got.Revision != "main" || !got.Downloaded || got.Fallback != nil {
		t.Errorf("File = %+v; want commit %s, revision main, downloaded, no fallback", got, commitA)
	}
	etag := gitBlobID(want)
	wantTree := []string{
		"models--org--model",
		"models--org--model/blobs",
		"models--org--model/blobs/" + etag,
		"models--org--model/refs",
		"models--org--model/refs/main",
		"models--org--model/snapshots",
		"models--org--model/snapshots/" + commitA,
		"models--org--model/snapshots/" + commitA + "/tokenizer.json -> ../../blobs/" + etag,
	}
	if tree := listTree(t, c.CacheDir); !slices.Equal(tree, wantTree) {
		t.Errorf("cache tree:\n%s\nwant:\n%s", strings.Join(tree, "\n"), strings.Join(wantTree, "\n"))
	}
	if ref := readFile(t, filepath.Join(c.CacheDir, "models--org--model", "refs", "main")); ref != commitA {
		t.Errorf("refs/main = %q; want %q", ref, commitA)
	}
	if reqs := f.requests(); len(reqs) != 2 || reqs[0].Method != "HEAD" || reqs[1].Method != "GET" {
		t.Errorf("requests = %+v; want HEAD then GET", reqs)
	}

	// A branch is asked about again (it may have moved), but the blob is
	// not downloaded twice.
	f.resetLog()
	again, err := c.Download(context.Background(), "org/model", "main", "tokenizer.json")
	if err != nil {
		t.Fatal(err)
	}
	if again.Downloaded || again.Path != got.Path {
		t.Errorf("second Download = %+v; want the cached %s", again, got.Path)
	}
	if reqs := f.requests(); len(reqs) != 1 || reqs[0].Method != "HEAD" {
		t.Errorf("second Download requests = %+v; want one HEAD", reqs)
	}
}

func TestDownloadNestedFilenameLinksRelative(t *testing.T) {
	f := newFakeHub(t)
	c := f.client(t)
	got, err := c.Download(context.Background(), "org/model", "main", "nested/dir/extra.json")
	if err != nil {
		t.Fatal(err)
	}
	target, err := os.Readlink(got.Path)
	if err != nil {
		t.Fatal(err)
	}
	if want := "../../../../blobs/" + gitBlobID("{}"); filepath.ToSlash(target) != want {
		t.Errorf("symlink target = %q; want %q", target, want)
	}
	if s := readFile(t, got.Path); s != "{}" {
		t.Errorf("content = %q", s)
	}
}

func TestDownloadLFSFromCDNWithoutToken(t *testing.T) {
	f := newFakeHub(t)
	f.token = "hf_secret"
	c := f.client(t)
	c.Token, c.TokenFrom = "hf_secret", "HF_TOKEN"
	got, err := c.Download(context.Background(), "org/model", "main", "weights.bin")
	if err != nil {
		t.Fatal(err)
	}
	content := f.repos["org/model"].commits[commitA]["weights.bin"]
	if readFile(t, got.Path) != content {
		t.Error("LFS content differs")
	}
	target, _ := os.Readlink(got.Path)
	if want := "../../blobs/" + sha256Hex(content); filepath.ToSlash(target) != want {
		t.Errorf("symlink target = %q; want %q (blob named by the SHA-256)", target, want)
	}
	reqs := f.requests()
	if len(reqs) != 2 {
		t.Fatalf("requests = %+v; want HEAD on the hub, GET on the CDN", reqs)
	}
	if r := reqs[0]; r.Server != "hub" || r.Method != "HEAD" || r.Auth != "Bearer hf_secret" {
		t.Errorf("hub request = %+v; want HEAD with the token", r)
	}
	if r := reqs[1]; r.Server != "cdn" || r.Method != "GET" || r.Auth != "" {
		t.Errorf("CDN request = %+v; want GET without the token", r)
	}
}

func TestDownloadFollowsRenamedRepo(t *testing.T) {
	f := newFakeHub(t)
	f.renamed["old/name"] = "org/model"
	c := f.client(t)
	got, err := c.Download(context.Background(), "old/name", "main", "tokenizer.json")
	if err != nil {
		t.Fatal(err)
	}
	// Cached under the name asked for, as huggingface_hub does.
	if want := filepath.Join(c.CacheDir, "models--old--name", "snapshots", commitA, "tokenizer.json"); got.Path != want {
		t.Errorf("Path = %s; want %s", got.Path, want)
	}
}

func TestDownloadRevisions(t *testing.T) {
	f := newFakeHub(t)
	c := f.client(t)
	tag, err := c.Download(context.Background(), "org/model", "v1", "tokenizer.json")
	if err != nil {
		t.Fatal(err)
	}
	if tag.Commit != commitB || readFile(t, tag.Path) != `{"version":"0.9"}` {
		t.Errorf("v1 = %+v, %q; want commit B's file", tag, readFile(t, tag.Path))
	}
	if ref := readFile(t, filepath.Join(c.CacheDir, "models--org--model", "refs", "v1")); ref != commitB {
		t.Errorf("refs/v1 = %q", ref)
	}

	// A commit revision writes no ref; a second Download makes no request.
	f.resetLog()
	c2 := f.client(t)
	first, err := c2.Download(context.Background(), "org/model", commitA, "tokenizer.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(c2.CacheDir, "models--org--model", "refs")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a commit revision wrote refs/ (stat: %v)", err)
	}
	if len(f.requests()) == 0 {
		t.Fatal("first Download made no request")
	}
	f.resetLog()
	f.forbid = true
	second, err := c2.Download(context.Background(), "org/model", commitA, "tokenizer.json")
	if err != nil {
		t.Fatal(err)
	}
	if second.Path != first.Path || second.Downloaded {
		t.Errorf("second Download = %+v; want %s from the cache", second, first.Path)
	}
}

func TestDownloadOffline(t *testing.T) {
	f := newFakeHub(t)
	online := f.client(t)
	for _, name := range []string{"tokenizer.json"} {
		if _, err := online.Download(context.Background(), "org/model", "main", name); err != nil {
			t.Fatal(err)
		}
	}
	f.forbid = true // any request now fails the test
	off := &Client{Endpoint: f.hub.URL, CacheDir: online.CacheDir, Offline: true, HTTP: f.hub.Client()}
	snap := filepath.Join(online.CacheDir, "models--org--model", "snapshots", commitA)

	got, err := off.Download(context.Background(), "org/model", "main", "tokenizer.json")
	if err != nil {
		t.Fatal(err)
	}
	if got.Path != filepath.Join(snap, "tokenizer.json") || got.Commit != commitA {
		t.Errorf("offline Download = %+v", got)
	}
	if _, err := off.Download(context.Background(), "org/model", commitA, "tokenizer.json"); err != nil {
		t.Errorf("offline commit revision: %v", err)
	}

	tests := []struct {
		name, repo, rev, file, wantMsg string
	}{
		{"file not downloaded", "org/model", "main", "tokenizer_config.json", filepath.Join(snap, "tokenizer_config.json")},
		{"unknown branch", "org/model", "dev", "tokenizer.json", filepath.Join(online.CacheDir, "models--org--model", "refs", "dev")},
		{"unknown repo", "other/repo", "main", "tokenizer.json", filepath.Join(online.CacheDir, "models--other--repo", "refs", "main")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := off.Download(context.Background(), tt.repo, tt.rev, tt.file)
			var he *Error
			if !errors.Is(err, ErrNotCached) || !errors.As(err, &he) {
				t.Fatalf("err = %v; want ErrNotCached", err)
			}
			if he.URL != "" || !strings.Contains(err.Error(), tt.wantMsg) || !strings.Contains(err.Error(), off.CacheDir) {
				t.Errorf("err = %q; want it to name %s and the cache, and no URL", err, tt.wantMsg)
			}
		})
	}
}

func TestDownloadFallsBackToCachedRef(t *testing.T) {
	f := newFakeHub(t)
	c := f.client(t)
	first, err := c.Download(context.Background(), "org/model", "main", "tokenizer.json")
	if err != nil {
		t.Fatal(err)
	}
	f.hub.Close() // the network is down

	got, err := c.Download(context.Background(), "org/model", "main", "tokenizer.json")
	if err != nil {
		t.Fatalf("Download with the hub down: %v", err)
	}
	if got.Path != first.Path || got.Fallback == nil {
		t.Errorf("Download = %+v; want %s with a Fallback reason", got, first.Path)
	}
	if _, err := c.Download(context.Background(), "org/model", "main", "tokenizer_config.json"); err == nil {
		t.Error("an uncached file with the hub down: want an error")
	} else if !strings.Contains(err.Error(), f.hub.URL+"/org/model/resolve/main/tokenizer_config.json") || !strings.Contains(err.Error(), c.CacheDir) {
		t.Errorf("error %q should name the URL tried and the cache", err)
	}
}

func TestDownloadFallsBackOnServerError(t *testing.T) {
	f := newFakeHub(t)
	c := f.client(t)
	if _, err := c.Download(context.Background(), "org/model", "main", "tokenizer.json"); err != nil {
		t.Fatal(err)
	}
	f.status = http.StatusServiceUnavailable
	got, err := c.Download(context.Background(), "org/model", "main", "tokenizer.json")
	if err != nil || got.Fallback == nil {
		t.Fatalf("Download on 503 = %+v, %v; want the cached file with a Fallback reason", got, err)
	}
	_, err = c.Download(context.Background(), "org/model", "v1", "tokenizer.json")
	var he *Error
	if !errors.As(err, &he) || he.Status != http.StatusServiceUnavailable || !strings.Contains(err.Error(), "503") {
		t.Errorf("uncached on 503: err = %v; want an *Error with status 503", err)
	}
}

func TestDownloadCorrupt(t *testing.T) {
	for _, mode := range []string{"short", "sha"} {
		t.Run(mode, func(t *testing.T) {
			f := newFakeHub(t)
			f.corrupt = mode
			c := f.client(t)
			_, err := c.Download(context.Background(), "org/model", "main", "weights.bin")
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("err = %v; want ErrCorrupt", err)
			}
			if msg := err.Error(); !strings.Contains(msg, f.cdn.URL+"/blob/") || strings.Contains(msg, "sig=") {
				t.Errorf("err = %q; want the CDN URL without its signature", msg)
			}
			for _, p := range listTree(t, c.CacheDir) {
				if strings.Contains(p, "/blobs/") || strings.Contains(p, "snapshots") || strings.Contains(p, "refs") {
					t.Errorf("a corrupt download left %s in the cache", p)
				}
			}
			// The cache is not poisoned: a good download afterwards works.
			f.mu.Lock()
			f.corrupt = ""
			f.mu.Unlock()
			got, err := c.Download(context.Background(), "org/model", "main", "weights.bin")
			if err != nil || !got.Downloaded {
				t.Fatalf("retry = %+v, %v", got, err)
			}
		})
	}
}

func TestDownloadStatusErrors(t *testing.T) {
	const secret = "hf_topsecret"
	tests := []struct {
		name     string
		setup    func(*fakeHub, *Client)
		repo     string
		rev      string
		file     string
		wantKind error
		wantMsg  string
	}{
		{"private without token", func(f *fakeHub, c *Client) { f.token = "other" }, "org/model", "main", "tokenizer.json",
			ErrUnauthorized, "gated or private repo (or no such repo): set HF_TOKEN"},
		{"wrong token", func(f *fakeHub, c *Client) { f.token = "other"; c.Token, c.TokenFrom = secret, "HF_TOKEN" }, "org/model", "main", "tokenizer.json",
			ErrUnauthorized, "the token from HF_TOKEN has no access"},
		{"gated", func(f *fakeHub, c *Client) { f.gated = true; c.Token, c.TokenFrom = secret, "HF_TOKEN" }, "org/model", "main", "tokenizer.json",
			ErrUnauthorized, "accept its terms"},
		{"no such repo", nil, "org/nothing", "main", "tokenizer.json", ErrRepoNotFound, "HTTP 404"},
		{"no such revision", nil, "org/model", "dev", "tokenizer.json", ErrRevisionNotFound, "HTTP 404"},
		{"no such file", nil, "org/model", "main", "tokenizer.model", ErrEntryNotFound, "HTTP 404"},
		{"not a hub", func(f *fakeHub, c *Client) { f.noCommit = true }, "org/model", "main", "tokenizer.json", ErrNotHub, "HF_ENDPOINT"},
		{"bad repo id", nil, "a/b/c", "main", "tokenizer.json", ErrInvalidRepoID, `"a/b/c"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeHub(t)
			c := f.client(t)
			if tt.setup != nil {
				tt.setup(f, c)
			}
			_, err := c.Download(context.Background(), tt.repo, tt.rev, tt.file)
			if !errors.Is(err, tt.wantKind) {
				t.Fatalf("err = %v; want %v", err, tt.wantKind)
			}
			msg := err.Error()
			if !strings.Contains(msg, tt.wantMsg) || !strings.Contains(msg, c.CacheDir) {
				t.Errorf("err = %q; want it to contain %q and the cache dir", msg, tt.wantMsg)
			}
			if strings.Contains(msg, secret) {
				t.Errorf("err = %q contains the token", msg)
			}
			if _, err := os.Stat(filepath.Join(c.CacheDir, "models--org--model", "snapshots")); err == nil {
				t.Error("a failed Download created a snapshot")
			}
		})
	}
}

func TestDownloadRemembersAbsentFiles(t *testing.T) {
	f := newFakeHub(t)
	c := f.client(t)
	if _, err := c.Download(context.Background(), "org/model", commitB, "tokenizer_config.json"); !errors.Is(err, ErrEntryNotFound) {
		t.Fatalf("err = %v; want ErrEntryNotFound", err)
	}
	marker := filepath.Join(c.CacheDir, "models--org--model", ".no_exist", commitB, "tokenizer_config.json")
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("no .no_exist marker: %v", err)
	}
	f.forbid = true
	if _, err := c.Download(context.Background(), "org/model", commitB, "tokenizer_config.json"); !errors.Is(err, ErrEntryNotFound) {
		t.Errorf("second lookup: err = %v; want ErrEntryNotFound without a request", err)
	}
	c.Offline = true
	if _, err := c.Download(context.Background(), "org/model", commitB, "tokenizer_config.json"); !errors.Is(err, ErrEntryNotFound) {
		t.Errorf("offline lookup: err = %v; want ErrEntryNotFound", err)
	}
}

func TestDownloadCopiesWhereSymlinksFail(t *testing.T) {
	f := newFakeHub(t)
	c := f.client(t)
	c.symlink = func(string, string) error { return &os.LinkError{Op: "symlink", Err: errors.ErrUnsupported} }
	got, err := c.Download(context.Background(), "org/model", "main", "tokenizer.json")
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(got.Path)
	if err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("pointer %s: %v, mode %v; want a regular file", got.Path, err, fi.Mode())
	}
	if readFile(t, got.Path) != f.repos["org/model"].commits[commitA]["tokenizer.json"] {
		t.Error("copied content differs")
	}
}

func TestResolveURL(t *testing.T) {
	c := &Client{Endpoint: "https://hf.example"}
	tests := []struct{ rev, file, want string }{
		{"main", "tokenizer.json", "https://hf.example/org/m/resolve/main/tokenizer.json"},
		{"refs/pr/1", "a b/c.json", "https://hf.example/org/m/resolve/refs%2Fpr%2F1/a%20b/c.json"},
	}
	for _, tt := range tests {
		if got := c.resolveURL(RepoID{Namespace: "org", Name: "m"}, tt.rev, tt.file); got != tt.want {
			t.Errorf("resolveURL(%q, %q) = %q; want %q", tt.rev, tt.file, got, tt.want)
		}
	}
}

func TestIsHubURL(t *testing.T) {
	c := &Client{Endpoint: "http://127.0.0.1:8080"}
	tests := []struct {
		url  string
		want bool
	}{
		{"http://127.0.0.1:8080/x", true},
		{"http://127.0.0.1:9090/x", false},
		{"https://huggingface.co/x", true},
		{"https://cdn-lfs.huggingface.co/x", false},
		{"http://huggingface.co/x", false},
		{"https://hf.co/x", true},
	}
	for _, tt := range tests {
		if got := c.isHubURL(tt.url); got != tt.want {
			t.Errorf("isHubURL(%q) = %v; want %v", tt.url, got, tt.want)
		}
	}
}
