package compare

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// seedCapacity and seedExperience are the two tables of the token-metric
// guide (shared/seeds/001), row by row, in its order.
var (
	seedCapacity = []string{
		"| moonshotai-kimi-k2.6 | ~5115 | 1270 | 6385 |",
		"| gemma-4-31b-it | ~4385 | 1083 | 5468 |",
		"| qwen3.6-27b-nvfp4 | ~4191 | 992 | 5183 |",
		"| gpt-oss-120b | ~3300 | 804 | 4104 |",
	}
	seedExperience = []string{
		"| moonshotai-kimi-k2.6 | 276 | 17.9 |",
		"| qwen3.6-27b-nvfp4 | 226 | 15.7 |",
		"| gemma-4-31b-it | 505 | 13.4 |",
		"| gpt-oss-120b | 137 | 12.3 |",
	}
)

// TestSeedRankings is the acceptance test: the four models' figures as
// AIPerf-shaped artifact directories give the guide's two rankings, in
// its order, with the input column derived as total - output.
func TestSeedRankings(t *testing.T) {
	t.Parallel()
	es, err := Entries([]string{filepath.Join("testdata", "seed")})
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 4 {
		t.Fatalf("%d entries; want 4", len(es))
	}
	r := Build(es, Options{})
	var md bytes.Buffer
	if err := r.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	rows := func(header string, n int) []string {
		lines := strings.Split(md.String(), "\n")
		for i, l := range lines {
			if strings.HasPrefix(l, header) {
				return lines[i+2 : i+2+n] // after the header and the alignment row
			}
		}
		t.Fatalf("no table with header %q in:\n%s", header, md.String())
		return nil
	}
	if got := rows("| Model @ conc=100 | Input t/s | Output t/s | Total t/s |", 4); strings.Join(got, "\n") != strings.Join(seedCapacity, "\n") {
		t.Errorf("capacity ranking:\n%s\nwant the guide's:\n%s", strings.Join(got, "\n"), strings.Join(seedCapacity, "\n"))
	}
	if got := rows("| Model @ conc=100 | Prefill/User | Output/User |", 4); strings.Join(got, "\n") != strings.Join(seedExperience, "\n") {
		t.Errorf("experience ranking:\n%s\nwant the guide's:\n%s", strings.Join(got, "\n"), strings.Join(seedExperience, "\n"))
	}
	// The JSON carries the same order and the derived input.
	var js bytes.Buffer
	if err := r.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Capacity   []CapacityRow   `json:"capacity_ranking"`
		Experience []ExperienceRow `json:"experience_ranking"`
		Deltas     []Delta         `json:"deltas"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Capacity[0].Label != "moonshotai-kimi-k2.6" || doc.Capacity[0].Input != 5115 || doc.Capacity[3].Rank != 4 || doc.Experience[2].Label != "gemma-4-31b-it" {
		t.Errorf("JSON rankings = %+v / %+v", doc.Capacity, doc.Experience)
	}
	// Deltas against the first entry (gemma, in path order); no repeated
	// runs, so no significance.
	if len(doc.Deltas) == 0 || doc.Deltas[0].Significant != nil || r.Baseline != "gemma-4-31b-it" {
		t.Errorf("deltas = %+v against %q", doc.Deltas, r.Baseline)
	}
	var text bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Capacity ranking", "Experience ranking", "moonshotai-kimi-k2.6", "~5115", "no repeated runs"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestDeltasSignificance: two multi-run results 3 runs each; throughput
// differs far beyond its spread (significant), TTFT within it (not).
func TestDeltasSignificance(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	agg := func(tput, tputStd, ttft, ttftStd float64) string {
		b, _ := json.Marshal(map[string]any{
			"metadata": map[string]any{"num_profile_runs": 3, "num_successful_runs": 3, "confidence_level": 0.95},
			"metrics": map[string]any{
				"output_token_throughput_avg": map[string]any{"mean": tput, "std": tputStd, "unit": "tokens/sec"},
				"time_to_first_token_p99":     map[string]any{"mean": ttft, "std": ttftStd, "unit": "ms"},
			},
		})
		return string(b)
	}
	writeFile(t, filepath.Join(root, "a", "aggregate", "profile_export_aiperf_aggregate.json"), agg(1000, 10, 100, 20))
	writeFile(t, filepath.Join(root, "b", "aggregate", "profile_export_aiperf_aggregate.json"), agg(1200, 10, 105, 20))
	es, err := Entries([]string{filepath.Join(root, "a"), filepath.Join(root, "b")})
	if err != nil {
		t.Fatal(err)
	}
	r := Build(es, Options{})
	got := map[string]Delta{}
	for _, d := range r.Deltas {
		got[d.Metric] = d
	}
	tput, ttft := got["output_token_throughput"], got["time_to_first_token"]
	if tput.Significant == nil || !*tput.Significant || !tput.Better || *tput.Change < 0.199 || *tput.Change > 0.201 {
		t.Errorf("throughput delta = %+v; want +20%% significant and better", tput)
	}
	if ttft.Significant == nil || *ttft.Significant || ttft.Better {
		t.Errorf("TTFT delta = %+v; want not significant, worse", ttft)
	}
	var text bytes.Buffer
	_ = r.WriteText(&text)
	if !strings.Contains(text.String(), "+20.0% better") || !strings.Contains(text.String(), "yes (p=0.000)") {
		t.Errorf("text:\n%s", text.String())
	}
}

func TestUniqueLabels(t *testing.T) {
	t.Parallel()
	es := []Entry{{Label: "m", Dir: "/x/run1"}, {Label: "m", Dir: "/y/run1"}, {Label: "m", Dir: "/z/run2"}, {Label: "n", Dir: "/n"}}
	uniqueLabels(es)
	want := []string{"m (run1)", "m (run1) #2", "m (run2)", "n"}
	for i, w := range want {
		if es[i].Label != w {
			t.Errorf("label %d = %q; want %q", i, es[i].Label, w)
		}
	}
}
