package export

import (
	"fmt"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/jedib0t/go-pretty/v6/text"
)

// The writers below are the building blocks of this package's artifacts,
// exported for the telemetry packages, whose files (server metrics, GPU
// telemetry) must be spelled exactly like the summary files: AIPerf's key
// order, orjson's floats, whole lines streamed in the background, atomic
// replacement.

// JSON appends compact JSON with an explicit member order; see jsonw.
// Containers are opened and closed in matching pairs; commas are inserted.
type JSON struct{ w jsonw }

// Open starts an object ('{') or an array ('[').
func (j *JSON) Open(c byte) { j.w.open(c) }

// Close ends the innermost container with '}' or ']'.
func (j *JSON) Close(c byte) { j.w.close(c) }

// Key writes a member name; the next call writes its value.
func (j *JSON) Key(k string) { j.w.key(k) }

// Str writes a string.
func (j *JSON) Str(s string) { j.w.str(s) }

// Float writes a float as orjson does ("10.0"); a non-finite one is null.
func (j *JSON) Float(f float64) { j.w.float(f) }

// Int writes an integer.
func (j *JSON) Int(n int64) { j.w.int(n) }

// Bool writes a boolean.
func (j *JSON) Bool(v bool) { j.w.bool(v) }

// Null writes null.
func (j *JSON) Null() { j.w.raw([]byte("null")) }

// Raw writes an already-encoded JSON value verbatim.
func (j *JSON) Raw(v []byte) { j.w.raw(v) }

// Bytes returns the compact JSON written so far.
func (j *JSON) Bytes() []byte { return j.w.b }

// Indented returns the JSON with 2-space indentation, as the summary JSON
// (orjson's OPT_INDENT_2).
func (j *JSON) Indented() ([]byte, error) {
	v := jsontext.Value(append([]byte(nil), j.w.b...))
	if err := v.Indent(jsontext.WithIndent("  ")); err != nil {
		return nil, fmt.Errorf("format json: %w", err)
	}
	return v, nil
}

// WriteFile replaces path with data atomically (readers see the old file
// or the whole new one), creating the directory if needed.
func WriteFile(path string, data []byte) error { return writeFileAtomic(path, data) }

// LineFile streams newline-terminated lines to a file in the background, as
// profile_export.jsonl is written: Add never waits for the disk, the file
// only ever holds whole lines, Close writes what is pending.
type LineFile struct{ lw *lineWriter }

// CreateLineFile creates (truncating) path.
func CreateLineFile(path string) (*LineFile, error) {
	lw, err := newLineWriter(path, 0, 0)
	if err != nil {
		return nil, err
	}
	return &LineFile{lw}, nil
}

// Add appends the line enc builds (without a newline); it returns the first
// error an earlier write hit, or ErrClosed after Close.
func (f *LineFile) Add(enc func([]byte) []byte) error { return f.lw.add(enc) }

// Close writes the pending lines and closes the file.
func (f *LineFile) Close() error { return f.lw.close() }

// ISOTime formats t as AIPerf's artifacts do (Python's
// datetime.fromtimestamp(ns/1e9).isoformat(): local time, microseconds).
func ISOTime(t time.Time) string { return isoTime(t) }

// CSVRow joins cells as Python's csv module writes a row (minimal quoting)
// and ends it with CRLF, as every AIPerf CSV row ends.
func CSVRow(cells ...string) string {
	var b []byte
	for i, c := range cells {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, csvField(c)...)
	}
	return string(append(b, '\r', '\n'))
}

// CSVFixed2 formats a value as the summary CSV does ("%.2f"; "" when not
// finite).
func CSVFixed2(f float64) string { return csvNumber(f) }

// MetricTable renders a console table as the metric tables are drawn (Rich's
// heavy head, title centred above): the first column right-aligned and
// wrapped when the table is wider than width, the others right-aligned.
// Columns headed std, min, p90 and max give way first, in that order, as
// the metric tables' do (keepColumns), so that the table fits 80 columns.
func MetricTable(title string, headers []string, rows [][]string, width int) string {
	if width <= 0 {
		width = DefaultConsoleWidth
	}
	keep := keepColumns(headers, rows, width)
	var cols []column
	for i, h := range headers {
		if keep[i] {
			cols = append(cols, column{header: h, align: text.AlignRight, wrap: i == 0})
		}
	}
	kept := make([][]string, len(rows))
	for j, row := range rows {
		for i, c := range row {
			if keep[i] {
				kept[j] = append(kept[j], c)
			}
		}
	}
	return richTable(title, cols, kept, width)
}

// TableWidth is the width MetricTable's table of headers and rows takes
// when no cell wraps and every column shows.
func TableWidth(headers []string, rows [][]string) int { return naturalWidth(headers, rows, nil) }

// Panel draws body in a rounded box titled title, like AIPerf's notes.
func Panel(title, body string, width int) string {
	if width <= 0 {
		width = DefaultConsoleWidth
	}
	return panel(title, body, width)
}

// Grouped2 formats a number as the console tables do ("1,480.42").
func Grouped2(v float64) string { return grouped2(v) }
