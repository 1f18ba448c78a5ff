package api

import (
	"os"
	"path/filepath"
	"testing"
)

// TestExperimentListsItsRunsFiles: an experiment (a sweep) has no
// top-level summary; it finishes complete, not incomplete, and
// /api/results/list?recursive=true lists its runs' files by relative
// path (the default listing stays top-level, as AIPerf's), each of which
// downloads.
func TestExperimentListsItsRunsFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, f := range []string{"concurrency_1/profile_export_aiperf.json", "concurrency_2/profile_export_aiperf.json", "sweep_aggregate/x.csv", "top.json", ".hidden/y"} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755)
		os.WriteFile(filepath.Join(dir, f), []byte(`{"f":"`+f+`"}`), 0o644)
	}
	s, err := Start("127.0.0.1:0", Info{ArtifactDir: dir, SummaryFile: filepath.Join(dir, "profile_export_aiperf.json"), Experiment: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.Finish(StatusComplete, "")
	var res struct{ Status string }
	getJSON(t, s.URL()+"/api/results", &res)
	if res.Status != StatusComplete {
		t.Errorf("experiment status %q; want complete", res.Status)
	}
	type list struct {
		Files []struct {
			Name string
			Size int64
		}
		Partial bool
	}
	var top, all list
	getJSON(t, s.URL()+"/api/results/list", &top)
	getJSON(t, s.URL()+"/api/results/list?recursive=true", &all)
	if len(top.Files) != 1 || top.Files[0].Name != "top.json" || top.Partial {
		t.Errorf("top-level list %+v", top)
	}
	var names []string
	for _, f := range all.Files {
		names = append(names, f.Name)
	}
	want := []string{"concurrency_1/profile_export_aiperf.json", "concurrency_2/profile_export_aiperf.json", "sweep_aggregate/x.csv", "top.json"}
	if len(names) != len(want) {
		t.Fatalf("recursive list %v; want %v", names, want)
	}
	for i := range want {
		if names[i] != want[i] {
			t.Errorf("recursive list %v; want %v", names, want)
		}
	}
	if code, body := get(t, s.URL()+"/api/results/files/concurrency_2/profile_export_aiperf.json"); code != 200 || body != `{"f":"concurrency_2/profile_export_aiperf.json"}` {
		t.Errorf("nested file: %d %s", code, body)
	}
}
