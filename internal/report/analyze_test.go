package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestSwimLane(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("testdata", "go", "raw")
	out := filepath.Join(t.TempDir(), "lanes.png")
	files, err := SwimLane(dir, SwimLaneOptions{Concurrency: 2, Out: out, HTML: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 || files[1] != strings.TrimSuffix(out, ".png")+".html" {
		t.Fatalf("files %v", files)
	}
	b, _ := os.ReadFile(out)
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if s := img.Bounds().Size(); s.X != PNGWidth || s.Y != 1100 {
		t.Errorf("swim lane PNG %v", s)
	}
	if changed, colours := notBlank(img); changed < 0.01 || colours < 4 {
		t.Errorf("swim lane PNG looks blank (%.2f%%, %d colours)", changed*100, colours)
	}
	reqs, err := readRequests(filepath.Join(dir, "profile_export.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lanes, inflight, err := swimLaneCharts(reqs, SwimLaneOptions{Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	gen := lanes.Series[1]
	if gen.Name != "generating" || gen.Len() != 12 {
		t.Errorf("lanes: %q with %d requests; want 12 generation bars", gen.Name, gen.Len())
	}
	ys := slices.Clone(gen.Y)
	slices.Sort(ys)
	if lanesUsed := len(slices.Compact(ys)); lanesUsed != 4 {
		t.Errorf("%d lanes for 4 sessions", lanesUsed)
	}
	if peak := slices.Max(inflight.Series[0].Y); peak < 1 || peak > 2 {
		t.Errorf("requests in flight peak at %v with --concurrency 2", peak)
	}
	if _, err := SwimLane(t.TempDir(), SwimLaneOptions{}); err == nil || !strings.Contains(err.Error(), "profile_export.jsonl") {
		t.Errorf("a directory without records: %v", err)
	}
}

// TestSwimLanePacksManySessions: past maxLanes sessions share lanes, and
// no two requests of one lane overlap.
func TestSwimLanePacksManySessions(t *testing.T) {
	t.Parallel()
	var reqs []Request
	for i := range 1000 {
		start := int64(1e9 + i*1e6) // one new session per ms, each 20 ms long
		reqs = append(reqs, Request{StartNs: start, EndNs: start + 20e6, Session: fmt.Sprint("s", i), Metrics: map[string]float64{}})
	}
	lanes, _, err := swimLaneCharts(reqs, SwimLaneOptions{})
	if err != nil {
		t.Fatal(err)
	}
	gen := lanes.Series[0]
	byLane := map[float64][][2]float64{}
	for i := 0; i+1 < len(gen.X); i += 2 {
		byLane[gen.Y[i]] = append(byLane[gen.Y[i]], [2]float64{gen.X[i], gen.X[i+1]})
	}
	if gen.Len() != 1000 || len(byLane) > 25 || !strings.Contains(lanes.YLabel, "1000 sessions packed") {
		t.Errorf("%d bars in %d lanes (%q); want 1000 bars in about 21 lanes", gen.Len(), len(byLane), lanes.YLabel)
	}
	for lane, spans := range byLane {
		for i := 1; i < len(spans); i++ {
			if spans[i][0] < spans[i-1][1] {
				t.Fatalf("lane %v: requests overlap: %v then %v", lane, spans[i-1], spans[i])
			}
		}
	}
}

func TestTurnMessages(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "turns.html")
	p, err := TurnMessages(filepath.Join("testdata", "go", "raw"), TurnMessagesOptions{Out: out, ContentCap: 40})
	if err != nil || p != out {
		t.Fatalf("%v, %s", err, p)
	}
	html, _ := os.ReadFile(out)
	m := regexp.MustCompile(`(?s)<script id="turn-data" type="application/json">(.*?)</script>`).FindSubmatch(html)
	if m == nil {
		t.Fatal("no embedded data")
	}
	var data struct {
		Convs []struct {
			ID    string
			Turns []struct {
				I int
				G []int
			} `json:"t"`
		} `json:"convs"`
		Msgs []struct {
			R, B string
			X    int
		} `json:"msgs"`
	}
	if err := json.Unmarshal(m[1], &data); err != nil {
		t.Fatal(err)
	}
	if len(data.Convs) != 4 {
		t.Fatalf("%d conversations; want 4", len(data.Convs))
	}
	refs := 0
	for _, c := range data.Convs {
		if len(c.Turns) != 3 {
			t.Errorf("%s: %d turns; want 3", c.ID, len(c.Turns))
		}
		for i, tn := range c.Turns {
			if tn.I != i {
				t.Errorf("%s: turn %d at position %d", c.ID, tn.I, i)
			}
			refs += len(tn.G)
			// Each turn re-sends the history: turn i sends 2i+1 messages.
			if len(tn.G) != 2*i+1 {
				t.Errorf("%s turn %d sends %d messages; want %d", c.ID, i, len(tn.G), 2*i+1)
			}
		}
		// The history is stored once: turn 1 starts with turn 0's message.
		if len(c.Turns) > 1 && c.Turns[1].G[0] != c.Turns[0].G[0] {
			t.Errorf("%s: turn 1's first message is not turn 0's (not interned)", c.ID)
		}
	}
	if len(data.Msgs) >= refs {
		t.Errorf("%d messages stored for %d references; the repeated history is not interned", len(data.Msgs), refs)
	}
	cut := false
	for _, msg := range data.Msgs {
		if len([]rune(msg.B)) > 40 {
			t.Errorf("a message body of %d characters; --content-cap 40", len([]rune(msg.B)))
		}
		cut = cut || msg.X > 0
	}
	if !cut {
		t.Error("no body was cut at --content-cap 40")
	}
	if _, err := TurnMessages(filepath.Join("testdata", "go", "run"), TurnMessagesOptions{}); err == nil || !strings.Contains(err.Error(), "--export-level raw") {
		t.Errorf("a run without raw records: %v", err)
	}
}
