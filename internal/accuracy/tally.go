package accuracy

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// Graded is one graded answer, a line of accuracy_export.jsonl (AIPerf's
// AccuracyRecordsData fields).
type Graded struct {
	SessionNum     int     `json:"session_num"`
	ConversationID string  `json:"conversation_id,omitempty"`
	XRequestID     string  `json:"x_request_id,omitempty"`
	WorkerID       string  `json:"worker_id"`
	BenchmarkPhase string  `json:"benchmark_phase"`
	TimestampNs    int64   `json:"timestamp_ns"`
	Task           string  `json:"task,omitempty"`
	GraderName     string  `json:"grader_name"`
	Passed         bool    `json:"passed"`
	Unparsed       bool    `json:"unparsed"`
	Confidence     float64 `json:"confidence"`
	Expected       string  `json:"expected"`
	Actual         string  `json:"actual"`
	Explanation    string  `json:"explanation"`
	ModelOutput    string  `json:"model_output"`
}

// TaskStats is one task's tally (AIPerf's TaskAccuracyStats).
type TaskStats struct {
	Total        int     `json:"total"`
	Passed       int     `json:"passed"`
	Unparsed     int     `json:"unparsed"`
	AccuracyRate float64 `json:"accuracy_rate"`
	UnparsedRate float64 `json:"unparsed_rate"`
}

// Summary is the run's accuracy (AIPerf's AccuracySummary).
type Summary struct {
	TotalEvaluated  int                  `json:"total_evaluated"`
	TotalPassed     int                  `json:"total_passed"`
	AccuracyRate    float64              `json:"accuracy_rate"`
	OverallUnparsed int                  `json:"overall_unparsed"`
	GraderName      string               `json:"grader_name,omitempty"`
	Benchmark       string               `json:"benchmark,omitempty"`
	PerTask         map[string]TaskStats `json:"per_task"`
}

// Tally accumulates grades; one goroutine writes it.
type Tally struct {
	benchmark, grader string
	tasks             map[string]*TaskStats
	order             []string
}

// NewTally starts an empty tally.
func NewTally(benchmark, grader string) *Tally {
	return &Tally{benchmark: benchmark, grader: grader, tasks: map[string]*TaskStats{}}
}

// Add counts one graded profiling answer.
func (t *Tally) Add(task string, g Grade) {
	s := t.tasks[task]
	if s == nil {
		s = &TaskStats{}
		t.tasks[task] = s
		t.order = append(t.order, task)
	}
	s.Total++
	if g.Correct {
		s.Passed++
	}
	if g.Unparsed {
		s.Unparsed++
	}
}

// Summary returns the totals.
func (t *Tally) Summary() Summary {
	s := Summary{GraderName: t.grader, Benchmark: t.benchmark, PerTask: map[string]TaskStats{}}
	for name, ts := range t.tasks {
		x := *ts
		if x.Total > 0 {
			x.AccuracyRate = float64(x.Passed) / float64(x.Total)
			x.UnparsedRate = float64(x.Unparsed) / float64(x.Total)
		}
		s.PerTask[name] = x
		s.TotalEvaluated += x.Total
		s.TotalPassed += x.Passed
		s.OverallUnparsed += x.Unparsed
	}
	if s.TotalEvaluated > 0 {
		s.AccuracyRate = float64(s.TotalPassed) / float64(s.TotalEvaluated)
	}
	return s
}

// Tasks are the task names, sorted.
func (s Summary) Tasks() []string {
	names := make([]string, 0, len(s.PerTask))
	for n := range s.PerTask {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Metric is one accuracy.* summary value, as AIPerf injects them into
// the results: accuracy.overall, accuracy.task.<t>, accuracy.unparsed,
// accuracy.unparsed.task.<t> (unit ratio; count answers, sum passed or
// unparsed).
type Metric struct {
	Tag, Header string
	Value       float64
	Count, Sum  int
}

// Metrics lists the summary's accuracy.* values in AIPerf's order.
func (s Summary) Metrics() []Metric {
	if s.TotalEvaluated == 0 {
		return nil
	}
	rate := func(n, d int) float64 {
		if d == 0 {
			return 0
		}
		return float64(n) / float64(d)
	}
	out := []Metric{{"accuracy.overall", "Accuracy (Overall)", s.AccuracyRate, s.TotalEvaluated, s.TotalPassed}}
	for _, t := range s.Tasks() {
		ts := s.PerTask[t]
		out = append(out, Metric{"accuracy.task." + t, "Accuracy (" + t + ")", rate(ts.Passed, ts.Total), ts.Total, ts.Passed})
	}
	out = append(out, Metric{"accuracy.unparsed", "Accuracy Unparsed (Overall)", rate(s.OverallUnparsed, s.TotalEvaluated), s.TotalEvaluated, s.OverallUnparsed})
	for _, t := range s.Tasks() {
		ts := s.PerTask[t]
		out = append(out, Metric{"accuracy.unparsed.task." + t, "Accuracy Unparsed (" + t + ")", rate(ts.Unparsed, ts.Total), ts.Total, ts.Unparsed})
	}
	return out
}

// WriteCSV writes accuracy_results.csv: task, correct, total, unparsed,
// accuracy (4 decimals), the tasks sorted, then OVERALL.
func (s Summary) WriteCSV(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	w.Write([]string{"task", "correct", "total", "unparsed", "accuracy"})
	row := func(name string, ts TaskStats, rate float64) {
		w.Write([]string{name, fmt.Sprint(ts.Passed), fmt.Sprint(ts.Total), fmt.Sprint(ts.Unparsed), fmt.Sprintf("%.4f", rate)})
	}
	for _, t := range s.Tasks() {
		ts := s.PerTask[t]
		row(t, ts, ts.AccuracyRate)
	}
	if s.TotalEvaluated > 0 {
		row("OVERALL", TaskStats{Total: s.TotalEvaluated, Passed: s.TotalPassed, Unparsed: s.OverallUnparsed}, s.AccuracyRate)
	}
	w.Flush()
	if err := w.Error(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// WriteTable prints the console table: per task correct, total,
// unparsed and accuracy, then OVERALL, and a warning when every answer
// was unparsed (a server problem, not the model's).
func (s Summary) WriteTable(w io.Writer) {
	if s.TotalEvaluated == 0 {
		return
	}
	width := len("OVERALL")
	for _, t := range s.Tasks() {
		width = max(width, len(t))
	}
	title := "Accuracy Benchmark Results"
	if s.Benchmark != "" {
		title += " (" + s.Benchmark + ", grader " + s.GraderName + ")"
	}
	fmt.Fprintf(w, "\n%s\n", title)
	line := func(a, b, c, d, e string) {
		fmt.Fprintf(w, "  %-*s  %8s  %8s  %8s  %9s\n", width, a, b, c, d, e)
	}
	line("Task", "Correct", "Total", "Unparsed", "Accuracy")
	line(strings.Repeat("-", width), "-------", "-----", "--------", "--------")
	for _, t := range s.Tasks() {
		ts := s.PerTask[t]
		line(t, fmt.Sprint(ts.Passed), fmt.Sprint(ts.Total), fmt.Sprint(ts.Unparsed), fmt.Sprintf("%.2f%%", 100*ts.AccuracyRate))
	}
	line("OVERALL", fmt.Sprint(s.TotalPassed), fmt.Sprint(s.TotalEvaluated), fmt.Sprint(s.OverallUnparsed), fmt.Sprintf("%.2f%%", 100*s.AccuracyRate))
	if s.OverallUnparsed >= s.TotalEvaluated {
		fmt.Fprintln(w, "Warning: every accuracy response was unparsed (accuracy=0): the grader could not extract an answer from any output. Check that the server returns real completions for this benchmark before trusting the numbers.")
	}
}

// JSONLWriter streams graded answers to accuracy_export.jsonl.
type JSONLWriter struct {
	f   *os.File
	enc *json.Encoder
}

// NewJSONLWriter creates path.
func NewJSONLWriter(path string) (*JSONLWriter, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	enc := json.NewEncoder(f)
	enc.SetEscapeHTML(false)
	return &JSONLWriter{f: f, enc: enc}, nil
}

// Write appends one line.
func (w *JSONLWriter) Write(g *Graded) error { return w.enc.Encode(g) }

// Close closes the file.
func (w *JSONLWriter) Close() error { return w.f.Close() }
