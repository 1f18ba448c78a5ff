package hub

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// fakeHub stands in for huggingface.co: it serves /{repo}/resolve/{rev}/{file}
// with the headers the real hub sends, and a second server plays the CDN
// that LFS files redirect to. Every request is logged.
type fakeHub struct {
	t   *testing.T
	hub *httptest.Server
	cdn *httptest.Server

	mu       sync.Mutex
	log      []fakeRequest
	repos    map[string]*fakeRepo // by repo id
	renamed  map[string]string    // old repo id -> new repo id
	token    string               // when set, requests without it get 401
	gated    bool                 // 403 GatedRepo even with the token
	status   int                  // when set, every hub request gets this status
	forbid   bool                 // any request fails the test (offline checks)
	corrupt  string               // "", "short" or "sha": how the CDN corrupts LFS bodies
	noCommit bool                 // omit X-Repo-Commit
}

type fakeRequest struct {
	Server, Method, Path, Auth string
}

type fakeRepo struct {
	refs    map[string]string            // branch or tag -> commit
	commits map[string]map[string]string // commit -> filename -> content
	lfs     map[string]bool              // filenames stored in LFS
}

const (
	commitA = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	commitB = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
)

// newFakeHub serves "org/model": main at commitA with tokenizer.json
// (a regular file), weights.bin (LFS) and nested/dir/extra.json; tag v1 at
// commitB with an older tokenizer.json and no tokenizer_config.json.
func newFakeHub(t *testing.T) *fakeHub {
	t.Helper()
	f := &fakeHub{t: t, renamed: map[string]string{}}
	f.repos = map[string]*fakeRepo{
		"org/model": {
			refs: map[string]string{"main": commitA, "v1": commitB},
			commits: map[string]map[string]string{
				commitA: {
					"tokenizer.json":        `{"version":"1.0","model":{"type":"BPE"}}`,
					"tokenizer_config.json": `{"chat_template":"{{ messages }}"}`,
					"weights.bin":           strings.Repeat("LFS!", 1000),
					"nested/dir/extra.json": `{}`,
				},
				commitB: {
					"tokenizer.json": `{"version":"0.9"}`,
				},
			},
			lfs: map[string]bool{"weights.bin": true},
		},
	}
	f.hub = httptest.NewServer(http.HandlerFunc(f.serveHub))
	f.cdn = httptest.NewServer(http.HandlerFunc(f.serveCDN))
	t.Cleanup(f.hub.Close)
	t.Cleanup(f.cdn.Close)
	return f
}

func (f *fakeHub) record(server string, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.forbid {
		f.t.Errorf("unexpected request in offline mode: %s %s %s", server, r.Method, r.URL.Path)
	}
	f.log = append(f.log, fakeRequest{server, r.Method, r.URL.EscapedPath(), r.Header.Get("Authorization")})
}

func (f *fakeHub) requests() []fakeRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fakeRequest(nil), f.log...)
}

func (f *fakeHub) resetLog() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.log = nil
}

// gitBlobID is the ETag the hub gives a regular (non-LFS) file: its git
// blob id.
func gitBlobID(content string) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00%s", len(content), content)
	return hex.EncodeToString(h.Sum(nil))
}

func sha256Hex(content string) string {
	s := sha256.Sum256([]byte(content))
	return hex.EncodeToString(s[:])
}

func (f *fakeHub) serveHub(w http.ResponseWriter, r *http.Request) {
	f.record("hub", r)
	f.mu.Lock()
	defer f.mu.Unlock()
	path := r.URL.EscapedPath()
	before, after, ok := strings.Cut(strings.TrimPrefix(path, "/"), "/resolve/")
	if !ok {
		http.NotFound(w, r)
		return
	}
	if newID, ok := f.renamed[before]; ok {
		w.Header().Set("Location", "/"+newID+"/resolve/"+after)
		w.WriteHeader(http.StatusTemporaryRedirect)
		return
	}
	escRev, file, _ := strings.Cut(after, "/")
	rev := unescape(f.t, escRev)
	if f.status != 0 {
		w.WriteHeader(f.status)
		return
	}
	if f.token != "" && r.Header.Get("Authorization") != "Bearer "+f.token {
		w.Header().Set("X-Error-Code", "RepoNotFound")
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	if f.gated {
		w.Header().Set("X-Error-Code", "GatedRepo")
		w.WriteHeader(http.StatusForbidden)
		return
	}
	repo, ok := f.repos[before]
	if !ok {
		w.Header().Set("X-Error-Code", "RepoNotFound")
		w.WriteHeader(http.StatusNotFound)
		return
	}
	commit := rev
	if c, ok := repo.refs[rev]; ok {
		commit = c
	}
	files, ok := repo.commits[commit]
	if !ok {
		w.Header().Set("X-Error-Code", "RevisionNotFound")
		w.WriteHeader(http.StatusNotFound)
		return
	}
	if !f.noCommit {
		w.Header().Set("X-Repo-Commit", commit)
	}
	file = unescape(f.t, file)
	content, ok := files[file]
	if !ok {
		w.Header().Set("X-Error-Code", "EntryNotFound")
		w.WriteHeader(http.StatusNotFound)
		return
	}
	if repo.lfs[file] {
		w.Header().Set("X-Linked-Etag", `"`+sha256Hex(content)+`"`)
		w.Header().Set("X-Linked-Size", strconv.Itoa(len(content)))
		w.Header().Set("ETag", `"`+gitBlobID("pointer")+`"`)
		w.Header().Set("Location", f.cdn.URL+"/blob/"+sha256Hex(content)+"?sig=x")
		w.WriteHeader(http.StatusFound)
		return
	}
	w.Header().Set("ETag", `"`+gitBlobID(content)+`"`)
	w.Header().Set("Content-Length", strconv.Itoa(len(content)))
	if r.Method == http.MethodGet {
		w.Write([]byte(content))
	}
}

func (f *fakeHub) serveCDN(w http.ResponseWriter, r *http.Request) {
	f.record("cdn", r)
	f.mu.Lock()
	defer f.mu.Unlock()
	sum := strings.TrimPrefix(r.URL.Path, "/blob/")
	for _, repo := range f.repos {
		for _, files := range repo.commits {
			for name, content := range files {
				if !repo.lfs[name] || sha256Hex(content) != sum {
					continue
				}
				w.Header().Set("Content-Length", strconv.Itoa(len(content)))
				switch f.corrupt {
				case "short":
					w.Write([]byte(content[:len(content)/2])) // the server then cuts the connection
				case "sha":
					w.Write([]byte(strings.Repeat("X", len(content))))
				default:
					w.Write([]byte(content))
				}
				return
			}
		}
	}
	http.NotFound(w, r)
}

func unescape(t *testing.T, s string) string {
	t.Helper()
	out, err := url.PathUnescape(s)
	if err != nil {
		t.Errorf("bad escaped path segment %q: %v", s, err)
	}
	return out
}

// client is a Client for this hub with a fresh cache.
func (f *fakeHub) client(t *testing.T) *Client {
	t.Helper()
	return &Client{Endpoint: f.hub.URL, CacheDir: t.TempDir(), HTTP: f.hub.Client()}
}
