package export

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/aiperf-go/aiperf/internal/metrics"
	"github.com/aiperf-go/aiperf/internal/record"
)

func fixtureConsoleOptions(width int) ConsoleOptions {
	p := NewPaths("/tmp/artifacts/mock-model-openai-chat-concurrency2", "", LevelRecords)
	return ConsoleOptions{
		Title:      "NVIDIA AIPerf | LLM Metrics",
		Width:      width,
		CLICommand: "aiperf profile -m 'mock-model' -u 'localhost:18999' --endpoint-type 'chat' --streaming --concurrency 2 --request-count 10 --osl 8 --isl 50",
		Exports:    p.Exports(),
		LogFile:    p.Log,
	}
}

func renderConsole(t *testing.T, s *metrics.Summary, o ConsoleOptions) string {
	t.Helper()
	var b bytes.Buffer
	if err := Console(&b, s, o); err != nil {
		t.Fatal(err)
	}
	if err := ConsoleTrailer(&b, s, o); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestConsoleGolden(t *testing.T) {
	t.Parallel()
	golden(t, "console.golden", []byte(renderConsole(t, fixtureSummary(), fixtureConsoleOptions(0))))
}

// TestConsoleNarrow renders at 100 columns (AIPerf never prints narrower): every line fits.
func TestConsoleNarrow(t *testing.T) {
	t.Parallel()
	out := renderConsole(t, fixtureSummary(), fixtureConsoleOptions(100))
	golden(t, "console_narrow.golden", []byte(out))
	for _, l := range strings.Split(out, "\n") {
		if cells(l) > 100 {
			t.Errorf("line wider than 100 cells (%d): %q", cells(l), l)
		}
	}
}

// TestConsoleSections checks which parts appear, and in their order: AIPerf's,
// but for the main metric table, which comes before the group tables.
func TestConsoleSections(t *testing.T) {
	t.Parallel()
	out := renderConsole(t, fixtureSummary(), fixtureConsoleOptions(0))
	order := []string{
		"NVIDIA AIPerf | Error Summary",
		"NVIDIA AIPerf | LLM Metrics ", // the main table leads
		"NVIDIA AIPerf | LLM Metrics: Usage",
		"no prompt-cache reads",
		"Usage Token Count Mismatch",
		"Output Length Mismatch",
		"CLI Command: ",
		"Benchmark Duration: 0.36 sec\n",
		"Schedule lag: p50 0.81 ms, p99 1.58 ms; 1 of 10 requests sent more than 1 ms late\n",
		"CSV Export: /tmp/artifacts/mock-model-openai-chat-concurrency2/profile_export_aiperf.csv\n",
		"JSON Export: ",
		"Log File: /tmp/artifacts/mock-model-openai-chat-concurrency2/logs/aiperf.log\n",
	}
	at := -1
	for _, s := range order {
		i := strings.Index(out, s)
		if i < 0 {
			t.Errorf("missing %q", s)
			continue
		}
		if i < at {
			t.Errorf("%q out of order", s)
		}
		at = i
	}
	for _, hidden := range []string{"Credit Drop", "Error Input Sequence", "Inter Chunk", "Benchmark Duration (", "Error Request Count", "Schedule Lag ("} {
		if strings.Contains(out, hidden) {
			t.Errorf("hidden metric %q shown", hidden)
		}
	}
	for _, want := range []string{
		"│     Output Token Throughput Per User │ 631.04 │",
		"│                    (tokens/sec/user) │        │",
		"│ Completed Requests (Success + Error) │  10.00 │",
		"│  500 │ Internal Server Error │ {\"error\":\"boom, again\"}                              │     1 │",
		"│  N/A │       ConnectionError │ dial tcp 127.0.0.1:8000: connect: connection refused │     1 │",
		"│ Total Usage Prompt Tokens (tokens) │ 800.00 │    N/A │    N/A │    N/A │    N/A │    N/A │  N/A │",
		"2 of 8 requests (25.0%)",
		"Mean difference: -13.8%",
		"8 of 8 requests (100.0%)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing line %q", want)
		}
	}
}

// TestConsoleQuiet: a clean run without usage or mismatches prints only
// the main table, and no trailer lines whose data is missing.
func TestConsoleQuiet(t *testing.T) {
	t.Parallel()
	s := &metrics.Summary{Results: []metrics.Result{
		{Metric: mLatency, Stats: statsOf(1, 2, 3)},
		{Metric: mThroughput, Value: 1234.5},
		{Metric: mOSLMismatch, Value: 0},
		{Metric: mRequestCount, Value: 3},
	}}
	out := renderConsole(t, s, ConsoleOptions{Title: "T"})
	if !strings.HasPrefix(out, "\n\n") || !strings.Contains(out, "│ Request Throughput (requests/sec) │ 1,234.50 │") {
		t.Errorf("unexpected output:\n%s", out)
	}
	for _, absent := range []string{"Error Summary", "╭", "Benchmark Duration", "Schedule lag", "Export", "cache"} {
		if strings.Contains(out, absent) {
			t.Errorf("%q printed for a clean run:\n%s", absent, out)
		}
	}
	if got := renderConsole(t, nil, ConsoleOptions{}); got != "\n" {
		t.Errorf("nil summary renders %q; want just the trailer's blank line", got)
	}
}

func TestConsoleIncompleteAndAPIHint(t *testing.T) {
	t.Parallel()
	s := &metrics.Summary{Errors: []metrics.ErrorCount{{
		Error: record.ErrorDetails{Code: 400, Type: "Bad Request",
			Message: `{"message":"[{'type': 'extra_forbidden', 'loc': ('body', 'max_completion_tokens'), 'msg': 'Extra inputs are not permitted'}]"}`},
		Count: 1234,
	}}}
	out := renderConsole(t, s, ConsoleOptions{Title: "T", Incomplete: true, WasCancelled: true})
	for _, want := range []string{"INCOMPLETE RESULTS", "no reason was recorded", "Server Rejected max_completion_tokens", "│ 1,234 │"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	if strings.Index(out, "INCOMPLETE") > strings.Index(out, "Server Rejected") ||
		strings.Index(out, "Server Rejected") > strings.Index(out, "Error Summary") {
		t.Errorf("sections out of order:\n%s", out)
	}
}

func TestConsoleCancelledDuration(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	s := &metrics.Summary{Results: []metrics.Result{{Metric: mDuration, Value: 12.345}}}
	if err := ConsoleTrailer(&b, s, ConsoleOptions{WasCancelled: true}); err != nil {
		t.Fatal(err)
	}
	if b.String() != "\nBenchmark Duration: 12.35 sec (cancelled early)\n" {
		t.Errorf("trailer = %q", b.String())
	}
}

func TestConsoleLabel(t *testing.T) {
	t.Parallel()
	cases := []struct {
		m    *metrics.Metric
		want string
	}{
		{mTTFT, "Time to First Token (ms)"},
		{mRequestCount, "Request Count (requests)"},
		{mOTPU, "Output Token Throughput Per User\n(tokens/sec/user)"},
		{&metrics.Metric{Header: strings.Repeat("x", 30), Unit: "ms"}, strings.Repeat("x", 30) + " (ms)"},
		{&metrics.Metric{Header: "Bare"}, "Bare"},
	}
	for _, c := range cases {
		if got := consoleLabel(c.m); got != c.want {
			t.Errorf("consoleLabel(%q) = %q; want %q", c.m.Header, got, c.want)
		}
	}
}

func TestWrapText(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in    string
		width int
		want  []string
	}{
		{"short", 10, []string{"short"}},
		{"aaa bbb ccc", 7, []string{"aaa bbb", "ccc"}},
		// The space after a line's last word stays when it fits.
		{"aaa bbb ccc", 8, []string{"aaa bbb ", "ccc"}},
		{"  indented words here", 10, []string{"  indented", "words here"}},
		{"CSV Export: /very/long/path/name", 20, []string{"CSV Export: ", "/very/long/path/name"}},
		{"abcdefghij", 4, []string{"abcd", "efgh", "ij"}},
		{"x abcdefghij", 4, []string{"x ", "abcd", "efgh", "ij"}},
		{"one\n\ntwo", 10, []string{"one", "", "two"}},
		{"", 5, []string{""}},
	}
	for _, c := range cases {
		if got := wrapText(c.in, c.width); !slices.Equal(got, c.want) {
			t.Errorf("wrapText(%q, %d) = %q; want %q", c.in, c.width, got, c.want)
		}
	}
}

// FuzzWrapText checks that wrapped lines fit the width and keep every
// non-space character in order.
func FuzzWrapText(f *testing.F) {
	f.Add("Token usage is reported but no prompt-cache read tokens were seen.", 20)
	f.Add("  - item one\n  - item two", 5)
	f.Add("界界界 wide runes", 3)
	f.Fuzz(func(t *testing.T, s string, width int) {
		if width < 2 || width > 200 || !utf8.ValidString(s) || strings.ContainsAny(s, "\r\t\v\f\u0085\u00a0\u1680\u2000\u2028\u2029\u202f\u205f\u3000") {
			return
		}
		lines := wrapText(s, width)
		for _, l := range lines {
			if cells(l) > width {
				t.Fatalf("line %q is %d cells; width %d", l, cells(l), width)
			}
		}
		squash := func(x string) string { return strings.Join(strings.Fields(x), "") }
		if squash(strings.Join(lines, "\n")) != squash(s) {
			t.Fatalf("content changed: %q -> %q", s, lines)
		}
	})
}

func TestPanel(t *testing.T) {
	t.Parallel()
	got := panel("Title", "first line\n\n  - item", 140)
	want := "╭─── Title ────╮\n" +
		"│  first line  │\n" +
		"│              │\n" +
		"│    - item    │\n" +
		"╰──────────────╯\n"
	if got != want {
		t.Errorf("panel =\n%s\nwant\n%s", got, want)
	}
	// A long title widens the panel; a narrow console wraps the body.
	got = panel("A Much Longer Title Here", "x", 140)
	if !strings.HasPrefix(got, "╭─ A Much Longer Title Here ─╮\n│  x") {
		t.Errorf("wide-title panel =\n%s", got)
	}
	for _, l := range strings.Split(strings.TrimSuffix(panel("T", strings.Repeat("word ", 40), 30), "\n"), "\n") {
		if cells(l) != 30 {
			t.Errorf("narrow panel line %q is %d cells; want 30", l, cells(l))
		}
	}
}

func TestWriteConsoleTxt(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "profile_export_console.txt")
	o := fixtureConsoleOptions(0)
	if err := WriteConsoleTxt(path, fixtureSummary(), o); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	var want bytes.Buffer
	_ = Console(&want, fixtureSummary(), o)
	if string(got) != want.String() {
		t.Error("console txt differs from Console output")
	}
	if strings.Contains(string(got), "Log File") {
		t.Error("console txt includes the trailer")
	}
}

func TestConsoleFooterReachesStdoutAndTextFile(t *testing.T) {
	footer := "Client health warning: example\n"
	o := ConsoleOptions{Title: "NVIDIA AIPerf | LLM Metrics", Footer: footer}
	var b strings.Builder
	if err := Console(&b, nil, o); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(b.String(), footer) {
		t.Errorf("console output does not end with the footer:\n%s", b.String())
	}
	path := filepath.Join(t.TempDir(), "console.txt")
	if err := WriteConsoleTxt(path, nil, o); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(path); err != nil || !strings.Contains(string(data), footer) {
		t.Errorf("console text file lacks the footer (err %v):\n%s", err, data)
	}
}

// TestConsoleActiveTable: the active_* metrics print in their own table,
// AIPerf's "Active" group (titled "<title>: Active"), after the Effective
// one, not in the main table.
func TestConsoleActiveTable(t *testing.T) {
	t.Parallel()
	reg := metrics.Builtin()
	s := fixtureSummary()
	for _, tag := range []string{"effective_total_throughput", "active_total_throughput"} {
		m, ok := reg.Lookup(tag)
		if !ok {
			t.Fatalf("no metric %s", tag)
		}
		st := statsOf(100, 300, 5)
		st.TimeWeighted = true
		s.Results = append(s.Results, metrics.Result{Metric: m, Stats: st})
	}
	out := renderConsole(t, s, fixtureConsoleOptions(0))
	eff := strings.Index(out, "NVIDIA AIPerf | LLM Metrics: Effective")
	act := strings.Index(out, "NVIDIA AIPerf | LLM Metrics: Active")
	row := strings.Index(out, "Active Total Throughput")
	if eff < 0 || act < 0 || act < eff || row < act {
		t.Errorf("Effective table at %d, Active table at %d, active row at %d; want the Active table after the Effective one, holding the row:\n%s", eff, act, row, out)
	}
}
