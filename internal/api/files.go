package api

import (
	"compress/gzip"
	"io"
	"mime"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// fileInfo is one artifact of /api/results/list.
type fileInfo struct {
	Name string `json:"name"`
	Size int64  `json:"size"`
}

// listFiles lists the artifact directory's top-level files, once the run
// is finished (AIPerf withholds them until its results are ready, so a
// half-written export never reads as a result set).
func (s *Server) listFiles() []fileInfo {
	s.st.mu.Lock()
	ready := s.st.finished
	s.st.mu.Unlock()
	if !ready || s.info.ArtifactDir == "" {
		return nil
	}
	ents, err := os.ReadDir(s.info.ArtifactDir)
	if err != nil {
		return nil
	}
	out := []fileInfo{}
	for _, e := range ents {
		if !e.Type().IsRegular() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		out = append(out, fileInfo{Name: e.Name(), Size: fi.Size()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func (s *Server) resultsList(w http.ResponseWriter, _ *http.Request) {
	files := s.listFiles()
	s.st.mu.Lock()
	ready := s.st.finished
	partial := s.st.finished && s.st.results == nil
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
