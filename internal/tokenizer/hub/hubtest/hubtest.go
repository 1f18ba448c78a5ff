// Package hubtest serves a directory laid out as a HuggingFace hub cache
// (datasets--org--name/{refs,snapshots}/...) over HTTP the way the hub
// answers: enough of its API for this project's hub client and for the
// Python datasets library (huggingface_hub) to list a repository and
// download its files. Tests point HF_ENDPOINT at it, so a fixture laid out
// as a real repository's cache can also be fetched "from the hub", and
// AIPerf itself can load it as a reference.
//
// It uses only the standard library.
package hubtest

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// Server is a fake hub over one cache directory.
type Server struct {
	*httptest.Server
	dir string

	mu   sync.Mutex
	reqs []string
}

// New starts a hub serving the repositories of cacheDir (the directory
// holding datasets--* and models--* folders). Close it when done.
func New(cacheDir string) *Server {
	s := &Server{dir: cacheDir}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// Requests returns "METHOD path" of every request so far.
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.reqs...)
}

// repo is one repository of the cache.
type repo struct {
	id, kind string // "org/name", "datasets" or "models"
	dir      string // the repository's cache folder
}

func (s *Server) repo(kind, org, name string) (repo, bool) {
	r := repo{id: org + "/" + name, kind: kind, dir: filepath.Join(s.dir, kind+"--"+org+"--"+name)}
	fi, err := os.Stat(r.dir)
	return r, err == nil && fi.IsDir()
}

// commit resolves a revision: a ref name or a snapshot's commit hash.
func (r repo) commit(rev string) (string, bool) {
	if rev == "" {
		rev = "main"
	}
	if fi, err := os.Stat(filepath.Join(r.dir, "snapshots", rev)); err == nil && fi.IsDir() && len(rev) == 40 {
		return rev, true
	}
	data, err := os.ReadFile(filepath.Join(r.dir, "refs", filepath.FromSlash(rev)))
	if err != nil {
		return "", false
	}
	return strings.TrimSpace(string(data)), true
}

// files lists the snapshot's files, slash-separated and sorted.
func (r repo) files(commit string) []string {
	root := filepath.Join(r.dir, "snapshots", commit)
	var out []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(out)
	return out
}

func (s *Server) serve(w http.ResponseWriter, req *http.Request) {
	s.mu.Lock()
	s.reqs = append(s.reqs, req.Method+" "+req.URL.Path)
	s.mu.Unlock()
	parts := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
	for i, p := range parts {
		if u, err := url.PathUnescape(p); err == nil {
			parts[i] = u
		}
	}
	switch {
	case len(parts) >= 4 && parts[0] == "api" && (parts[1] == "datasets" || parts[1] == "models"):
		s.serveAPI(w, req, parts[1], parts[2], parts[3], parts[4:])
	case len(parts) >= 5 && parts[0] == "datasets" && parts[3] == "resolve":
		s.serveFile(w, req, "datasets", parts[1], parts[2], parts[4], strings.Join(parts[5:], "/"))
	case len(parts) >= 4 && parts[2] == "resolve":
		s.serveFile(w, req, "models", parts[0], parts[1], parts[3], strings.Join(parts[4:], "/"))
	default:
		notFound(w, "")
	}
}

func notFound(w http.ResponseWriter, code string) {
	if code != "" {
		w.Header().Set("X-Error-Code", code)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusNotFound)
	fmt.Fprintf(w, `{"error":%q}`, "not found: "+code)
}

func writeJSON(w http.ResponseWriter, req *http.Request, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", fmt.Sprint(len(b)))
	if req.Method != http.MethodHead {
		w.Write(b)
	}
}

type entry struct {
	Type string `json:"type"`
	Path string `json:"path"`
	OID  string `json:"oid"`
	Size int64  `json:"size"`
	LFS  *lfs   `json:"lfs,omitempty"`
}

type lfs struct {
	OID         string `json:"oid"`
	Size        int64  `json:"size"`
	PointerSize int    `json:"pointerSize"`
}

func fileEntry(r repo, commit, p string) entry {
	data, _ := os.ReadFile(filepath.Join(r.dir, "snapshots", commit, filepath.FromSlash(p)))
	h1 := sha1.Sum(data)
	h256 := sha256.Sum256(data)
	return entry{Type: "file", Path: p, OID: hex.EncodeToString(h1[:]), Size: int64(len(data)),
		LFS: &lfs{OID: hex.EncodeToString(h256[:]), Size: int64(len(data)), PointerSize: 134}}
}

// serveAPI answers the repository info, tree and paths-info calls.
func (s *Server) serveAPI(w http.ResponseWriter, req *http.Request, kind, org, name string, rest []string) {
	r, ok := s.repo(kind, org, name)
	if !ok {
		notFound(w, "RepoNotFound")
		return
	}
	rev := "main"
	if len(rest) >= 2 {
		rev = rest[1]
	}
	commit, ok := r.commit(rev)
	if !ok {
		notFound(w, "RevisionNotFound")
		return
	}
	files := r.files(commit)
	switch {
	case len(rest) == 0 || rest[0] == "revision":
		sib := make([]map[string]string, len(files))
		for i, f := range files {
			sib[i] = map[string]string{"rfilename": f}
		}
		writeJSON(w, req, map[string]any{"id": r.id, "sha": commit, "siblings": sib,
			"private": false, "gated": false, "disabled": false, "cardData": map[string]any{}})
	case rest[0] == "tree":
		sub := strings.Join(rest[2:], "/")
		recursive := strings.EqualFold(req.URL.Query().Get("recursive"), "true")
		out := []entry{}
		seen := map[string]bool{}
		for _, f := range files {
			rel := f
			if sub != "" {
				if !strings.HasPrefix(f, sub+"/") {
					continue
				}
				rel = f[len(sub)+1:]
			}
			if dir, _, nested := strings.Cut(rel, "/"); nested {
				d := path.Join(sub, dir)
				if !seen[d] {
					seen[d] = true
					out = append(out, entry{Type: "directory", Path: d, OID: strings.Repeat("0", 40)})
				}
				if !recursive {
					continue
				}
			}
			out = append(out, fileEntry(r, commit, f))
		}
		if sub != "" && len(out) == 0 {
			notFound(w, "EntryNotFound")
			return
		}
		writeJSON(w, req, out)
	case rest[0] == "paths-info":
		req.ParseForm()
		out := []entry{}
		for _, p := range req.Form["paths"] {
			full := filepath.Join(r.dir, "snapshots", commit, filepath.FromSlash(p))
			if fi, err := os.Stat(full); err == nil {
				if fi.IsDir() {
					out = append(out, entry{Type: "directory", Path: p, OID: strings.Repeat("0", 40)})
				} else {
					out = append(out, fileEntry(r, commit, p))
				}
			}
		}
		writeJSON(w, req, out)
	default:
		notFound(w, "")
	}
}

// serveFile answers HEAD and GET of {repo}/resolve/{rev}/{path} with the
// hub's headers: X-Repo-Commit, an ETag that is the content's SHA-256 (as
// for LFS files) and the size.
func (s *Server) serveFile(w http.ResponseWriter, req *http.Request, kind, org, name, rev, p string) {
	r, ok := s.repo(kind, org, name)
	if !ok {
		notFound(w, "RepoNotFound")
		return
	}
	commit, ok := r.commit(rev)
	if !ok {
		notFound(w, "RevisionNotFound")
		return
	}
	w.Header().Set("X-Repo-Commit", commit)
	data, err := os.ReadFile(filepath.Join(r.dir, "snapshots", commit, filepath.FromSlash(p)))
	if err != nil || p == "" {
		notFound(w, "EntryNotFound")
		return
	}
	sum := sha256.Sum256(data)
	etag := hex.EncodeToString(sum[:])
	w.Header().Set("ETag", `"`+etag+`"`)
	w.Header().Set("X-Linked-Etag", `"`+etag+`"`)
	w.Header().Set("X-Linked-Size", fmt.Sprint(len(data)))
	w.Header().Set("Content-Length", fmt.Sprint(len(data)))
	if req.Method != http.MethodHead {
		w.Write(data)
	}
}
