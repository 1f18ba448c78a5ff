package api

import (
	"compress/gzip"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// fileInfo is one artifact of /api/results/list.
type fileInfo struct {
	Name string `json:"name"`
	Size int64  `json:"size"`
}

// listFiles lists the artifact directory's top-level files, once the run
// is finished (AIPerf withholds them until its results are ready, so a
// half-written export never reads as a result set). recursive lists the
// files of its subdirectories too, by slash-separated relative paths (an
// experiment's runs live in subdirectories; `aiperf kube results` copies
// them all), as this tool's extension of AIPerf's top-level listing.
func (s *Server) listFiles(recursive bool) []fileInfo {
	s.st.mu.Lock()
	ready := s.st.finished
	s.st.mu.Unlock()
	if !ready || s.info.ArtifactDir == "" {
		return nil
	}
	out := []fileInfo{}
	add := func(rel string, e fs.DirEntry) {
		if fi, err := e.Info(); err == nil {
			out = append(out, fileInfo{Name: rel, Size: fi.Size()})
		}
	}
	if recursive {
		filepath.WalkDir(s.info.ArtifactDir, func(p string, e fs.DirEntry, err error) error {
			if err != nil || p == s.info.ArtifactDir {
				return nil
			}
			if strings.HasPrefix(e.Name(), ".") {
				if e.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if rel, rerr := filepath.Rel(s.info.ArtifactDir, p); rerr == nil && e.Type().IsRegular() {
				add(filepath.ToSlash(rel), e)
			}
			return nil
		})
	} else if ents, err := os.ReadDir(s.info.ArtifactDir); err == nil {
		for _, e := range ents {
			if e.Type().IsRegular() && !strings.HasPrefix(e.Name(), ".") {
				add(e.Name(), e)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func (s *Server) resultsList(w http.ResponseWriter, r *http.Request) {
	recursive, _ := strconv.ParseBool(r.URL.Query().Get("recursive"))
	files := s.listFiles(recursive)
	s.st.mu.Lock()
	ready := s.st.finished
	partial := s.st.finished && s.st.results == nil && !s.info.Experiment
	processing := s.st.snap != nil && s.st.snap.Final && !s.st.finished
	s.st.mu.Unlock()
	if files == nil {
		files = []fileInfo{}
	}
	s.writeJSON(w, http.StatusOK, map[string]any{"files": files, "ready": ready, "processing": processing, "partial": partial})
}

// resultFile serves one artifact: 400 for a name escaping the directory,
// 404 before the run is finished or for a missing file. gzip is used when
// the client accepts it.
func (s *Server) resultFile(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	clean := path.Clean("/" + name)[1:]
	if name == "" || clean != name || strings.HasPrefix(name, ".") || strings.Contains(name, "\\") || filepath.IsAbs(name) {
		s.writeJSON(w, http.StatusBadRequest, map[string]string{"detail": "Invalid file name: " + name})
		return
	}
	s.st.mu.Lock()
	ready := s.st.finished
	s.st.mu.Unlock()
	full := filepath.Join(s.info.ArtifactDir, filepath.FromSlash(clean))
	fi, err := os.Stat(full)
	if !ready || s.info.ArtifactDir == "" || err != nil || !fi.Mode().IsRegular() {
		s.writeJSON(w, http.StatusNotFound, map[string]string{"detail": "Result file not found: " + name})
		return
	}
	f, err := os.Open(full)
	if err != nil {
		s.writeJSON(w, http.StatusNotFound, map[string]string{"detail": "Result file not found: " + name})
		return
	}
	defer f.Close()
	base := path.Base(clean)
	ctype := mime.TypeByExtension(path.Ext(base))
	switch path.Ext(base) {
	case ".jsonl":
		ctype = "application/x-ndjson"
	case ".json":
		ctype = "application/json"
	case ".csv":
		ctype = "text/csv"
	}
	if ctype == "" {
		ctype = "application/octet-stream"
	}
	h := w.Header()
	h.Set("Content-Type", ctype)
	h.Set("Content-Disposition", `attachment; filename="`+base+`"`)
	h.Set("X-Filename", base)
	if acceptsGzip(r) {
		h.Set("Content-Encoding", "gzip")
		h.Add("Vary", "Accept-Encoding")
		gz := gzip.NewWriter(w)
		io.Copy(gz, f)
		gz.Close()
		return
	}
	http.ServeContent(w, r, base, fi.ModTime(), f)
}

func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		enc, q, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(enc), "gzip") && strings.TrimSpace(q) != "q=0" {
			return true
		}
	}
	return false
}
