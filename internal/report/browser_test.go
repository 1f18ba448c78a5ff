package report

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/testenv"
)

// chromiumArgs are the flags that work headless here (see the machine
// notes): no sandbox, no GPU, and no network at all: every request goes
// to a closed proxy and every host name fails to resolve, so a chart
// that needed a download could not render.
func chromiumArgs(profile string) []string {
	return []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + profile,
		"--proxy-server=127.0.0.1:9", "--host-resolver-rules=MAP * ~NOTFOUND",
		"--virtual-time-budget=5000",
	}
}

func chromium(t *testing.T) string {
	t.Helper()
	return testenv.Tool(t, "AIPERF_REQUIRE_CHROMIUM", "chromium", "chromium-browser")
}

var (
	chartDivRE = regexp.MustCompile(`<div class="item" id="(chart_\d+)"[^>]*>`)
	pointsRE   = regexp.MustCompile(`data-points="(\d+)"`)
	renderedRE = regexp.MustCompile(`data-rendered="(\w+)"`)
	readyRE    = regexp.MustCompile(`data-charts-ready="(\d+)"`)
	externalRE = regexp.MustCompile(`(?i)<(script|link|img|iframe)[^>]+(src|href)=`)
	svgPathRE  = regexp.MustCompile(`<path `)
)

// TestHTMLReportRendersOfflineInChromium opens the single-run and the
// multi-run reports in headless Chromium with the network off and reads
// the DOM back: every chart drew an SVG and holds data points.
func TestHTMLReportRendersOfflineInChromium(t *testing.T) {
	t.Parallel()
	bin := chromium(t)
	for _, fx := range []string{"go/run", "aiperf-0.13/sweep"} {
		out := t.TempDir()
		res, err := Plot(Options{Paths: []string{filepath.Join("testdata", fx)}, Output: out, NoPNG: true})
		if err != nil {
			t.Fatal(err)
		}
		html, err := os.ReadFile(res.Report)
		if err != nil {
			t.Fatal(err)
		}
		// ECharts' own code (inlined) holds markup strings of its own; the
		// page around it must load nothing.
		page := bytes.Replace(html, []byte(echartsJS), nil, 1)
		if len(page) == len(html) {
			t.Errorf("%s: ECharts is not inlined in the report", fx)
		}
		if m := externalRE.Find(page); m != nil {
			t.Errorf("%s: the report loads an external resource: %s", fx, m)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		cmd := exec.CommandContext(ctx, bin, append(chromiumArgs(filepath.Join(out, "profile")), "--dump-dom", "file://"+res.Report)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		dom, err := cmd.Output()
		cancel()
		if err != nil {
			t.Fatalf("%s: chromium: %v\n%s", fx, err, stderr.String())
		}
		m := readyRE.FindSubmatch(dom)
		if m == nil {
			t.Fatalf("%s: the report's script did not run (no data-charts-ready); DOM starts %q", fx, dom[:min(len(dom), 300)])
		}
		if n, _ := strconv.Atoi(string(m[1])); n != len(res.Charts) {
			t.Errorf("%s: %d of %d charts drew points", fx, n, len(res.Charts))
		}
		divs := chartDivRE.FindAllSubmatchIndex(dom, -1)
		if len(divs) != len(res.Charts) {
			t.Fatalf("%s: %d chart elements in the DOM; want %d", fx, len(divs), len(res.Charts))
		}
		for i, d := range divs {
			end := len(dom)
			if i+1 < len(divs) {
				end = divs[i+1][0]
			}
			tag, body := dom[d[0]:d[1]], dom[d[0]:end]
			pm, rm := pointsRE.FindSubmatch(tag), renderedRE.FindSubmatch(tag)
			pts := 0
			if pm != nil {
				pts, _ = strconv.Atoi(string(pm[1]))
			}
			name := res.Charts[i].Name
			if pts == 0 || rm == nil || string(rm[1]) != "svg" {
				t.Errorf("%s: chart %s: %d data points, rendered %q", fx, name, pts, rm)
			}
			if want := res.Charts[i].Points(); pts < want {
				t.Errorf("%s: chart %s: ECharts holds %d points; the chart has %d", fx, name, pts, want)
			}
			if paths := len(svgPathRE.FindAll(body, -1)); paths < 5 {
				t.Errorf("%s: chart %s: only %d SVG paths drawn", fx, name, paths)
			}
		}
	}
}

// TestTurnMessagesViewerInChromium: the viewer builds its conversation
// list in the browser, offline.
func TestTurnMessagesViewerInChromium(t *testing.T) {
	t.Parallel()
	bin := chromium(t)
	out := filepath.Join(t.TempDir(), "turns.html")
	if _, err := TurnMessages(filepath.Join("testdata", "go", "raw"), TurnMessagesOptions{Out: out}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	dom, err := exec.CommandContext(ctx, bin, append(chromiumArgs(filepath.Join(t.TempDir(), "profile")), "--dump-dom", "file://"+out)...).Output()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(dom, []byte(`data-conversations="4"`)) || bytes.Count(dom, []byte(`<details class="conv">`)) != 4 {
		t.Errorf("the viewer did not list the 4 conversations; DOM:\n%.2000s", dom)
	}
}
