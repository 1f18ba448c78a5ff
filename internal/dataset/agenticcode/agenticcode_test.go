package agenticcode

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestSynthesizeMatchesAIPerf runs every case of testdata/aiperf/cases.tsv
// and requires AIPerf 0.13's artifacts byte for byte (regenerate them with
// scripts/agentic-code-goldens.sh): the default, bundled, restart-split
// with groups and a delay cap, turns-mode, --max-isl/--max-osl and
// manifest-reloaded configurations.
func TestSynthesizeMatchesAIPerf(t *testing.T) {
	t.Parallel()
	td, err := filepath.Abs(filepath.Join("testdata", "aiperf"))
	if err != nil {
		t.Fatal(err)
	}
	cases, err := os.ReadFile(filepath.Join(td, "cases.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(cases))
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) < 3 || strings.HasPrefix(f[0], "#") {
			continue
		}
		name := f[0]
		t.Run(name, func(t *testing.T) {
			n, _ := strconv.Atoi(f[1])
			seed, _ := strconv.ParseUint(f[2], 10, 64)
			o := Options{Sessions: n, Seed: seed, Output: t.TempDir(), Now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
			args := strings.Fields(strings.Join(f[3:], " "))
			for i := 0; i+1 < len(args); i += 2 {
				v := args[i+1]
				switch args[i] {
				case "--config":
					if strings.Contains(v, "/") {
						v = filepath.Join(td, v)
					}
					o.Config = v
				case "--max-isl", "--max-osl":
					x, _ := strconv.Atoi(v)
					if args[i] == "--max-isl" {
						o.MaxISL = &x
					} else {
						o.MaxOSL = &x
					}
				default:
					t.Fatalf("cases.tsv: unknown argument %s", args[i])
				}
			}
			r, err := Synthesize(o)
			if err != nil {
				t.Fatal(err)
			}
			want := filepath.Join(td, name)
			prefix, _ := os.ReadFile(filepath.Join(want, "run_prefix"))
			if got, w := filepath.Base(r.Dir), strings.TrimSpace(string(prefix))+"_20260102-030405"; got != w {
				t.Errorf("run directory %s; want %s", got, w)
			}
			for _, file := range []string{"dataset.jsonl", "manifest.json", "quality.json", "comparison.txt"} {
				g, err := os.ReadFile(filepath.Join(r.Dir, file))
				if err != nil {
					t.Fatal(err)
				}
				w, err := os.ReadFile(filepath.Join(want, file))
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(g, w) {
					t.Errorf("%s differs from AIPerf's: %s", file, firstDiff(g, w))
				}
			}
			g, err := os.ReadFile(filepath.Join(r.Dir, "cache_structure.json"))
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(g)
			w, _ := os.ReadFile(filepath.Join(want, "cache_structure.sha256"))
			if hex.EncodeToString(sum[:]) != strings.TrimSpace(string(w)) {
				t.Errorf("cache_structure.json's SHA-256 differs from AIPerf's")
			}
			for _, file := range []string{"report.html", "cache_explorer.html", "simulation.html"} {
				b, err := os.ReadFile(filepath.Join(r.Dir, file))
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.HasPrefix(b, []byte("<!DOCTYPE html>")) || !bytes.HasSuffix(bytes.TrimSpace(b), []byte("</html>")) {
					t.Errorf("%s is not a whole HTML page", file)
				}
				if file != "cache_explorer.html" && !bytes.Contains(b, []byte("<svg")) {
					t.Errorf("%s draws no chart", file)
				}
			}
			if r.Rows != r.Turns {
				t.Errorf("validated %d rows; synthesized %d turns", r.Rows, r.Turns)
			}
		})
	}
}

// firstDiff describes where two files first differ.
func firstDiff(got, want []byte) string {
	gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := range min(len(gl), len(wl)) {
		if gl[i] != wl[i] {
			return "line " + strconv.Itoa(i+1) + ":\n got  " + trim(gl[i]) + "\n want " + trim(wl[i])
		}
	}
	return "lengths " + strconv.Itoa(len(gl)) + " and " + strconv.Itoa(len(wl)) + " lines"
}

func trim(s string) string {
	if len(s) > 200 {
		return s[:200] + "..."
	}
	return s
}
