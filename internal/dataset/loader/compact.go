package loader

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/dataset/synthesis"
)

// compactLoad collects a trace's rows compact while they are read, as
// long as every row is a compact one (compactEntry): a million rows then
// never exist as Turns together. The first row that is not turns the rows
// so far into entries (expand) and the load goes on as before.
type compactLoad struct {
	rows  dataset.TraceRows
	lines []int32 // each row's line, for errors
	// size is the file's size when it is read as it is (not gzipped), 0
	// otherwise; read is the bytes of the rows so far. From them the
	// rows are grown once to the size the file will likely need.
	size, read int64
	grown      bool
}

// presizeAfter is how many rows are read before the rest are estimated.
const presizeAfter = 4096

// sized counts line's bytes (a line about to be read) and, once
// presizeAfter rows are read, grows the rows to what the rest of the file
// likely holds (a tenth more).
func (c *compactLoad) sized(line []byte) {
	c.read += int64(len(line)) + 1
	n := c.rows.Len()
	if c.grown || c.size <= 0 || n < presizeAfter {
		return
	}
	c.grown = true
	more := float64(c.size-c.read) / float64(c.read) * float64(n) * 1.1
	if more <= 0 || more > 1<<31 {
		return
	}
	ids := 0
	for i := range n {
		ids += len(c.rows.Row(i).HashIDs)
	}
	c.rows.Grow(int(more), int(more*float64(ids)/float64(n)))
	c.lines = slices.Grow(c.lines, int(more))
}

// newCompactLoad starts the compact load of file.
func newCompactLoad(file string) compactLoad {
	var c compactLoad
	if st, err := os.Stat(file); err == nil && st.Mode().IsRegular() && !strings.HasSuffix(file, ".gz") {
		c.size = st.Size()
	}
	return c
}

// compactEntry reports whether a parsed trace entry is a compact row: a
// hash-id prompt without a session of its own, and a turn that sets
// nothing but the timestamp and max tokens.
func compactEntry(e *traceEntry) bool {
	return e.session == "" && e.prompt != nil && len(e.prompt.HashIDs) > 0 && len(e.one) == 1 &&
		dataset.RowTurn(&e.one[0]) && e.prompt.Line <= 1<<31-1
}

// add appends a compact entry (compactEntry) and reports whether it fit.
func (c *compactLoad) add(e *traceEntry) bool {
	if !compactEntry(e) {
		return false
	}
	t := &e.one[0]
	if !c.rows.Add(dataset.TraceRow{At: t.Timestamp, HasAt: t.HasTimestamp, Length: e.prompt.Length, MaxTokens: t.MaxTokens,
		Tail: -1, HashIDs: e.prompt.HashIDs}) {
		return false
	}
	c.lines = append(c.lines, int32(e.prompt.Line))
	return true
}

// addFast appends a row the fast path read on line n (scanFastRow) and
// reports whether it fit, as add does for the entry the general path
// reads of the same line.
func (c *compactLoad) addFast(r *fastRow, n int) bool {
	if n > 1<<31-1 {
		return false
	}
	var at time.Duration
	if r.hasTS {
		at = msDuration(r.ts)
	}
	if !c.rows.Add(dataset.TraceRow{At: at, HasAt: r.hasTS, Length: r.length, MaxTokens: r.maxTokens, Tail: -1, HashIDs: r.hashIDs}) {
		return false
	}
	c.lines = append(c.lines, int32(n))
	return true
}

// expand returns the rows as the entries the loader would have read.
func (c *compactLoad) expand(file string) []traceEntry {
	out := make([]traceEntry, c.rows.Len())
	for i := range out {
		r := c.rows.Row(i)
		out[i] = traceEntry{one: []dataset.Turn{{Timestamp: r.At, HasTimestamp: r.HasAt, MaxTokens: r.MaxTokens}},
			prompt: &synthesis.PromptRequest{Length: r.Length, HashIDs: r.HashIDs, File: file, Line: int(c.lines[i])}}
	}
	*c = compactLoad{}
	return out
}

// finishCompact checks every row's prompt and draws its fresh tail, in
// row order (AIPerf's order, and finishTrace's for the same entries), and
// names the rows as finishTrace names entries without a session.
func (l *loader) finishCompact(id string, c *compactLoad, defaultBlock int) (*dataset.TraceRows, error) {
	bs := l.opts.BlockSize
	if bs <= 0 {
		bs = defaultBlock
	}
	h, err := l.hashPrompts(id, bs)
	if err != nil {
		return nil, err
	}
	rows := &c.rows
	for i := range rows.Len() {
		r := rows.Row(i)
		tail, err := h.Tail(synthesis.PromptRequest{Length: r.Length, HashIDs: r.HashIDs, File: l.opts.Path, Line: int(c.lines[i])})
		if err != nil {
			return nil, err
		}
		if !rows.SetTail(i, tail) {
			return nil, fmt.Errorf("trace: corpus index %d is too large for a compact row", tail)
		}
	}
	if l.ids == nil {
		l.ids = NewSessionIDs(l.seed, l.opts.SeedSet)
	}
	if l.ids.seeded {
		rows.Finish(h, true, l.ids.next, nil)
		l.ids.next += rows.Len()
	} else {
		uuids := make([][16]byte, rows.Len())
		for i := range uuids {
			uuids[i] = dataset.UUIDBytes(l.ids.rng)
		}
		rows.Finish(h, false, 0, uuids)
	}
	out := *rows
	*c = compactLoad{}
	return &out, nil
}
