package export

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/metrics"
)

func TestSummaryCSVGolden(t *testing.T) {
	t.Parallel()
	golden(t, "summary.csv.golden", SummaryCSV(fixtureSummary()))
}

func TestSummaryCSVLayout(t *testing.T) {
	t.Parallel()
	lines := strings.Split(string(SummaryCSV(fixtureSummary())), "\r\n")
	if lines[0] != csvStatHeader {
		t.Errorf("first line = %q; want the stat header", lines[0])
	}
	blank := -1
	for i, l := range lines {
		if l == "" {
			blank = i
			break
		}
	}
	if blank < 0 || lines[blank+1] != "Metric,Value" {
		t.Fatalf("no blank line followed by Metric,Value in %q", lines)
	}
	if last := lines[len(lines)-1]; last != "" {
		t.Errorf("file does not end with CRLF: last line %q", last)
	}
	for _, l := range lines[1:blank] {
		if n := strings.Count(l, ","); n != 14 && !strings.HasPrefix(l, `"`) {
			t.Errorf("record row %q has %d commas; want 14", l, n)
		}
	}
	// Only one section when the other is empty, and no blank line.
	only := SummaryCSV(&metrics.Summary{Results: []metrics.Result{{Metric: mThroughput, Value: 1.005}}})
	if string(only) != "Metric,Value\r\nRequest Throughput (requests/sec),1.00\r\n" {
		t.Errorf("values-only CSV = %q", only)
	}
	if got := SummaryCSV(&metrics.Summary{}); len(got) != 0 {
		t.Errorf("empty summary CSV = %q; want empty", got)
	}
}

func TestCSVName(t *testing.T) {
	t.Parallel()
	cases := []struct {
		m    *metrics.Metric
		want string
	}{
		{mTTFT, "Time to First Token (ms)"},
		{mRequestCount, "Request Count"},
		{mCompleted, "Completed Requests (Success + Error)"},
		{&metrics.Metric{Header: "HTTP Chunks Sent", Unit: "count"}, "HTTP Chunks Sent"},
		{&metrics.Metric{Header: "X", Unit: "Requests"}, "X"},
		{mOSLDiff, "OSL Mismatch Diff % (%)"},
		{&metrics.Metric{Unit: "ms"}, "(ms)"},
		{mDuration, "Benchmark Duration (sec)"},
	}
	for _, c := range cases {
		if got := csvName(c.m); got != c.want {
			t.Errorf("csvName(%s) = %q; want %q", c.m.Tag, got, c.want)
		}
	}
}

func TestCSVField(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"plain":     "plain",
		"a,b":       `"a,b"`,
		`say "hi"`:  `"say ""hi"""`,
		"two\nrows": "\"two\nrows\"",
		"":          "",
	}
	for in, want := range cases {
		if got := csvField(in); got != want {
			t.Errorf("csvField(%q) = %q; want %q", in, got, want)
		}
	}
}

func TestWriteSummaryCSV(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "x.csv")
	if _, err := WriteSummaryCSV(path, fixtureSummary()); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != string(SummaryCSV(fixtureSummary())) {
		t.Errorf("file = %q, %v", got, err)
	}
}

// TestWriteSummaryCSVEmpty: a run with no profiling record writes no CSV,
// rather than a zero-byte one.
func TestWriteSummaryCSVEmpty(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "x.csv")
	written, err := WriteSummaryCSV(path, &metrics.Summary{})
	if err != nil || written {
		t.Fatalf("WriteSummaryCSV(empty) = %v, %v; want nothing written", written, err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("%s exists (%v); want no file", path, err)
	}
}
