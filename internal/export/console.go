package export

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/jedib0t/go-pretty/v6/text"

	"github.com/aiperf-go/aiperf/internal/metrics"
	"github.com/aiperf-go/aiperf/internal/metrics/stats"
	"github.com/aiperf-go/aiperf/internal/record"
)

// DefaultConsoleWidth is the width AIPerf renders its end-of-run tables at
// (AIPERF_UI_CONSOLE_EXPORT_WIDTH) when saving them.
const DefaultConsoleWidth = 140

// ConsoleOptions configure the end-of-run console output.
type ConsoleOptions struct {
	// EmbeddedMock reports a run against --mock-server, which has no prompt
	// cache: the hint about turning on cache reporting does not apply.
	EmbeddedMock bool
	// Title heads the main table, e.g. "NVIDIA AIPerf | LLM Metrics";
	// group tables are titled "<Title>: Usage" and so on.
	Title string
	// Width is the number of columns to fit; 0 means DefaultConsoleWidth.
	Width int

	// Incomplete marks results computed over part of the run; a warning
	// with IncompleteReason comes first.
	Incomplete       bool
	IncompleteReason string

	// ServerTokenCounts is --use-server-token-count: the output length is
	// the server's usage.completion_tokens, not the client's count.
	// ExtraInputs are the --extra-inputs keys the run sets to a value
	// other than false or null (ignore_eos, min_tokens): the output-length
	// note never advises what the run already does.
	ServerTokenCounts bool
	ExtraInputs       map[string]bool

	// Thresholds quoted by the warnings (AIPerf's environment defaults
	// when zero: 10 %, 5 % and 50 tokens).
	UsageDiffThresholdPct   float64
	OSLMismatchThresholdPct float64
	OSLMismatchMaxTokens    int

	// Telemetry is text printed after the tables and notes, before Footer,
	// as given: the GPU and server telemetry tables.
	Telemetry string

	// Footer is text printed after the tables and notes, as given (the
	// client-health warnings); empty for none.
	Footer string

	// ShowTraceTiming adds AIPerf's "HTTP Trace Timing" table of the
	// http_req_* metrics (--show-trace-timing) after the metric tables.
	ShowTraceTiming bool

	// The trailer (ConsoleTrailer) lines.
	CLICommand   string
	WasCancelled bool
	Exports      []Export // from Paths.Exports
	LogFile      string
}

func (o *ConsoleOptions) width() int {
	if o.Width <= 0 {
		return DefaultConsoleWidth
	}
	return o.Width
}

// consoleGroups is the order the metric tables print in. AIPerf 0.13
// prints every group table before its main one; here the main table
// (TTFT, ITL, latency, throughput: what a reader looks for first) leads,
// the usage, cache and reasoning tables follow, and the Effective and
// Active tables come last: they restate concurrency and throughput over
// the run's timeline (zeros while idle, instants of huge rate; Active only
// over the time requests were in flight), which only read right next to
// the figures they complement. The tables and their titles are AIPerf's;
// only the order differs.
var consoleGroups = [...]struct {
	g    metrics.Group
	name string
}{
	{metrics.GroupDefault, ""},
	{metrics.GroupUsage, "Usage"},
	{metrics.GroupCache, "Cache"},
	{metrics.GroupReasoning, "Reasoning"},
	{metrics.GroupSpecDecode, "Spec Decode"},
	{metrics.GroupEffective, "Effective"},
	{metrics.GroupActive, "Active"},
}

// consoleStatColumns are the stat columns of the metric tables.
var consoleStatColumns = [...]string{"avg", "min", "max", "p99", "p90", "p50", "std"}

// onConsole reports whether a metric belongs in the console tables:
// AIPerf hides INTERNAL, EXPERIMENTAL and ERROR_ONLY metrics and those of
// console group NONE.
func onConsole(m *metrics.Metric) bool {
	return !m.Hidden() && m.Flags&metrics.FlagErrorOnly == 0 && m.Group != metrics.GroupNone
}

// Console writes what AIPerf prints after a run and saves as
// profile_export_console.txt: the incomplete-results warning, the API error
// hint, the error summary table, the metric tables (one per console group,
// then the main one), the prompt-cache hint, and the token-count and
// output-length warnings, each when it applies, in AIPerf's order.
func Console(w io.Writer, s *metrics.Summary, o ConsoleOptions) error {
	if s == nil {
		s = &metrics.Summary{}
	}
	width := o.width()
	var b strings.Builder
	if o.Incomplete {
		reason := o.IncompleteReason
		if reason == "" {
			reason = "no reason was recorded"
		}
		b.WriteString("\n\n")
		for _, l := range wrapText("NVIDIA AIPerf | INCOMPLETE RESULTS\n"+reason+
			"\nThese numbers cover only part of the run; do not compare them with complete runs.", width) {
			b.WriteString(l + "\n")
		}
	}
	if note, ok := maxCompletionTokensNote(s.Errors); ok {
		b.WriteString("\n")
		b.WriteString(panel(note.title, note.body, width))
	}
	if len(s.Errors) > 0 {
		b.WriteString("\n\n")
		b.WriteString(errorTable(s.Errors, width))
	}
	if n := s.CancelledAtPhaseEnd; n > 0 {
		b.WriteString("\n")
		for _, l := range wrapText(phaseEndNote(n), width) {
			b.WriteString(l + "\n")
		}
	}
	results := visibleResults(s)
	if len(s.Errors) > 0 && validRequests(s) == 0 {
		// Every request failed: the error table says what happened; the
		// group tables (effective, usage, ...) would be rows of zeros.
		results = slices.DeleteFunc(results, func(r metrics.Result) bool { return r.Metric.Group != metrics.GroupDefault })
	}
	if tables := metricTables(results, o.Title, width, acceptanceHistogramLine(s.SpecDecodeHistogram)); tables != "" {
		b.WriteString("\n\n")
		b.WriteString(tables)
		if !o.EmbeddedMock && cacheHintApplies(results) {
			b.WriteString("\n")
			for _, l := range wrapText(cacheHint, width) {
				b.WriteString(l + "\n")
			}
		}
	}
	if o.ShowTraceTiming {
		if t := traceTimingTable(results, width); t != "" {
			b.WriteString("\n")
			b.WriteString(t)
		}
	}
	for _, note := range []func(*metrics.Summary, ConsoleOptions) (note, bool){usageDiscrepancyNote, oslMismatchNote, streamIncompleteNote, replayFidelityNote} {
		if n, ok := note(s, o); ok {
			b.WriteString("\n")
			b.WriteString(panel(n.title, n.body, width))
		}
	}
	b.WriteString(o.Telemetry)
	b.WriteString(o.Footer)
	_, err := io.WriteString(w, b.String())
	return err
}

// phaseEndNote says what became of the n requests cut off at the end of the
// phase, which are in no table.
func phaseEndNote(n int) string {
	what := "requests were"
	if n == 1 {
		what = "request was"
	}
	return fmt.Sprintf("%d %s still in flight when the phase ended (its grace period ran out, or the run was stopped) "+
		"and cancelled: sent, but in none of these results and not counted as errors, as in AIPerf "+
		"(cancelled_at_phase_end_count; their lines in profile_export.jsonl have the error type %s)", n, what, record.TypePhaseEndCancelled)
}

// WriteConsoleTxt saves Console's output to path atomically.
func WriteConsoleTxt(path string, s *metrics.Summary, o ConsoleOptions) error {
	var b strings.Builder
	if err := Console(&b, s, o); err != nil {
		return err
	}
	return writeFileAtomic(path, []byte(b.String()))
}

// metricTables renders the main table followed by the group tables
// (consoleGroups); empty tables are left out.
func metricTables(results []metrics.Result, title string, width int, specLine string) string {
	var b strings.Builder
	for _, cg := range consoleGroups {
		var rows []metrics.Result
		for _, r := range results {
			if onConsole(r.Metric) && r.Metric.Group == cg.g {
				rows = append(rows, r)
			}
		}
		if len(rows) == 0 {
			continue
		}
		t := title
		if cg.name != "" {
			t += ": " + cg.name
		}
		b.WriteString(metricTable(t, rows, width))
		if cg.g == metrics.GroupSpecDecode && specLine != "" {
			b.WriteString("  " + specLine + "\n")
		}
	}
	return b.String()
}

// traceTimingTable is AIPerf's HttpTraceConsoleExporter table: every
// HTTP_TRACE_ONLY metric but the error-only ones, whatever its console
// group; empty when the run has none.
func traceTimingTable(results []metrics.Result, width int) string {
	var rows []metrics.Result
	for _, r := range results {
		m := r.Metric
		if m.Flags.Has(metrics.FlagHTTPTraceOnly) && m.Flags&metrics.FlagErrorOnly == 0 && !m.Hidden() {
			rows = append(rows, r)
		}
	}
	if len(rows) == 0 {
		return ""
	}
	return metricTable("NVIDIA AIPerf | HTTP Trace Timing", rows, width)
}

// displayKey sorts metrics by display order, unordered ones last.
func displayKey(m *metrics.Metric) int {
	if m.Order == 0 {
		return int(^uint(0) >> 1)
	}
	return m.Order
}

func metricTable(title string, rows []metrics.Result, width int) string {
	sort.SliceStable(rows, func(i, j int) bool { return displayKey(rows[i].Metric) < displayKey(rows[j].Metric) })
	cellRows := make([][]string, 0, len(rows))
	for _, r := range rows {
		row := []string{consoleLabel(r.Metric)}
		if r.Stats == nil {
			row = append(row, grouped2(r.Value))
			for range consoleStatColumns[1:] {
				row = append(row, "N/A")
			}
		} else {
			st := r.Stats
			for _, v := range [...]float64{st.Avg, st.Min, st.Max, st.P99, st.P90, st.P50, st.Std} {
				// grouped2 is "N/A" for a value that is not finite; an
				// error-adjusted +Inf is "inf" (finite.go).
				row = append(row, unboundedCell(r.Metric, v, grouped2))
			}
		}
		cellRows = append(cellRows, row)
	}
	keep := statColumnsFor(cellRows, width)
	cols := []column{{header: "Metric", align: text.AlignRight, wrap: true}}
	for i, k := range consoleStatColumns {
		if keep[i] {
			cols = append(cols, column{header: k, align: text.AlignRight})
		}
	}
	for j, row := range cellRows {
		kept := row[:1:1]
		for i, c := range row[1:] {
			if keep[i] {
				kept = append(kept, c)
			}
		}
		cellRows[j] = kept
	}
	return richTable(title, cols, cellRows, width)
}

// statColumnDropOrder is the order stat columns give way in when a table
// does not fit the terminal: the spread (std), the extremes' less read
// end (min), p90, then max. avg, p50 and p99 always stay.
var statColumnDropOrder = [...]string{"std", "min", "p90", "max"}

// statColumnsFor chooses which of consoleStatColumns a table of cells
// (label first, then one cell per stat column) shows at width: all of
// them when the labels and every number fit, else the fewest drops (in
// statColumnDropOrder) after which they do, so that each row stays on its
// own lines at 80 columns instead of every label wrapping word by word.
func statColumnsFor(cells [][]string, width int) [len(consoleStatColumns)]bool {
	var keep [len(consoleStatColumns)]bool
	copy(keep[:], keepColumns(append([]string{"Metric"}, consoleStatColumns[:]...), cells, width)[1:])
	return keep
}

// keepColumns is statColumnsFor for any table whose first column is the
// label and whose other columns are named by headers: the columns named
// in statColumnDropOrder give way, in that order, until the labels and
// every cell fit width; the others always stay. It reports, per column,
// whether it is shown.
func keepColumns(headers []string, cells [][]string, width int) []bool {
	keep := make([]bool, len(headers))
	for i := range keep {
		keep[i] = true
	}
	for _, drop := range statColumnDropOrder {
		if naturalWidth(headers, cells, keep) <= width {
			break
		}
		if i := slices.Index(headers[1:], drop); i >= 0 {
			keep[i+1] = false
		}
	}
	return keep
}

// naturalWidth is the width, in cells, of a table whose columns keep
// shows (nil: all) when none of its cells wraps: borders, one space of
// padding each side, and each column's widest line.
func naturalWidth(headers []string, cells [][]string, keep []bool) int {
	total := 1 // the left border
	for i, h := range headers {
		if keep != nil && !keep[i] {
			continue
		}
		w := utf8.RuneCountInString(h)
		for _, row := range cells {
			for _, l := range strings.Split(row[i], "\n") {
				w = max(w, utf8.RuneCountInString(l))
			}
		}
		total += w + 3 // padding each side and the right border
	}
	return total
}

// consoleLabel is "<header> (<unit>)", with the unit on its own line when
// the header is longer than 30 characters, as AIPerf labels rows.
func consoleLabel(m *metrics.Metric) string {
	u := unitOf(m)
	if u == "" {
		return m.Header
	}
	sep := " "
	if utf8.RuneCountInString(m.Header) > 30 {
		sep = "\n"
	}
	return m.Header + sep + "(" + u + ")"
}

// errorTable is AIPerf's "Error Summary" table: code, type, message and
// count per distinct error, in the Summary's order (most frequent first).
func errorTable(errs []metrics.ErrorCount, width int) string {
	cols := []column{
		{header: "Code", align: text.AlignRight},
		{header: "Type", align: text.AlignRight},
		{header: "Message", align: text.AlignLeft, wrap: true},
		{header: "Count", align: text.AlignRight},
	}
	rows := make([][]string, 0, len(errs))
	for _, e := range errs {
		code, typ := "N/A", "N/A"
		if e.Error.Code != 0 {
			code = fmt.Sprint(e.Error.Code)
		}
		if e.Error.Type != "" {
			typ = e.Error.Type
		}
		rows = append(rows, []string{code, typ, e.Error.Message, groupedInt(e.Count)})
	}
	return richTable("NVIDIA AIPerf | Error Summary", cols, rows, width)
}

// ConsoleTrailer writes the lines AIPerf prints after the console tables:
// the command line, the benchmark duration, our schedule-lag line, the
// exported files and the log file, each wrapped to the console width.
// Lines whose data is missing are left out.
func ConsoleTrailer(w io.Writer, s *metrics.Summary, o ConsoleOptions) error {
	if s == nil {
		s = &metrics.Summary{}
	}
	var lines []string
	if o.CLICommand != "" {
		lines = append(lines, "CLI Command: "+o.CLICommand)
	}
	if r, ok := s.Get("benchmark_duration"); ok && r.Stats == nil && stats.Finite(r.Value) {
		l := fmt.Sprintf("Benchmark Duration: %s %s", fixed2(r.Value), unitOf(r.Metric))
		if o.WasCancelled {
			l += " (cancelled early)"
		}
		lines = append(lines, l)
	}
	if l, ok := scheduleLagLine(s); ok {
		lines = append(lines, l)
	}
	for _, e := range o.Exports {
		lines = append(lines, e.Label+": "+e.Path)
	}
	if o.LogFile != "" {
		lines = append(lines, "Log File: "+o.LogFile)
	}
	var b strings.Builder
	b.WriteString("\n")
	for _, l := range lines {
		for _, wl := range wrapText(l, o.width()) {
			b.WriteString(wl + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// scheduleLagLine summarises how late requests went out relative to their
// schedule, from the schedule_lag distribution and late_request_count:
// "Schedule lag: p50 0.04 ms, p99 0.91 ms; 3 of 100 requests sent more than
// 1 ms late".
func scheduleLagLine(s *metrics.Summary) (string, bool) {
	r, ok := s.Get("schedule_lag")
	if !ok || r.Stats == nil || !stats.Finite(r.Stats.P50) || !stats.Finite(r.Stats.P99) {
		return "", false
	}
	u := unitOf(r.Metric)
	l := fmt.Sprintf("Schedule lag: p50 %s %s, p99 %s %s", fixed2(r.Stats.P50), u, fixed2(r.Stats.P99), u)
	if late, ok := s.Get("late_request_count"); ok && late.Stats == nil && stats.Finite(late.Value) {
		l += fmt.Sprintf("; %d of %d requests sent more than 1 ms late", int64(late.Value), r.Stats.Count)
	}
	return l, true
}
