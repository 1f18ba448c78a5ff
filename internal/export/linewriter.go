package export

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// ErrClosed is returned by writes after Close.
var ErrClosed = errors.New("export: writer closed")

// Flush policy defaults for the streamed JSONL files.
const (
	defaultFlushEvery = 100 * time.Millisecond
	defaultFlushLines = 256
	// hardCapBytes bounds the in-memory buffer: past it, Write flushes
	// inline, which is the only way it ever waits on the disk.
	hardCapBytes = 8 << 20
)

// lineWriter streams newline-terminated lines to a file without making the
// caller wait for the disk: lines are appended to a buffer under a short
// lock, and a background goroutine writes the buffer out every flushEvery,
// as soon as flushLines lines are pending, and on close.
//
// Invariant: the file only ever receives whole lines (each write is a
// buffer of complete lines), so a reader, or a run that is killed, sees a
// file of complete lines, every one of them valid. A write the disk cuts
// short is undone back to the last complete line.
type lineWriter struct {
	path  string
	f     *os.File
	lines int // flush as soon as this many are pending

	mu      sync.Mutex // guards buf, pending, closed, err
	buf     []byte
	pending int
	closed  bool
	err     error // first write error; sticky

	flushMu sync.Mutex // serializes writes to f
	spare   []byte     // the buffer not currently being filled; guarded by flushMu
	size    int64      // bytes of complete lines in f; guarded by flushMu

	kick    chan struct{} // wakes the flusher early; capacity 1
	done    chan struct{} // closed by close
	stopped chan struct{} // closed when the flusher has exited
}

// newLineWriter creates (truncating) path and starts its flusher.
// flushEvery and flushLines default when zero.
func newLineWriter(path string, flushEvery time.Duration, flushLines int) (*lineWriter, error) {
	if flushEvery <= 0 {
		flushEvery = defaultFlushEvery
	}
	if flushLines <= 0 {
		flushLines = defaultFlushLines
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("create artifact dir: %w", err)
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	lw := &lineWriter{
		path:    path,
		f:       f,
		lines:   flushLines,
		kick:    make(chan struct{}, 1),
		done:    make(chan struct{}),
		stopped: make(chan struct{}),
	}
	go lw.loop(flushEvery)
	return lw, nil
}

func (lw *lineWriter) loop(every time.Duration) {
	defer close(lw.stopped)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-t.C:
		case <-lw.kick:
		case <-lw.done:
			return
		}
		lw.flush()
	}
}

// add appends one line built by enc (which must not write a newline) and
// returns the first error any earlier flush hit.
func (lw *lineWriter) add(enc func([]byte) []byte) error {
	lw.mu.Lock()
	if lw.closed {
		lw.mu.Unlock()
		return ErrClosed
	}
	if lw.err != nil {
		err := lw.err
		lw.mu.Unlock()
		return err
	}
	lw.buf = enc(lw.buf)
	lw.buf = append(lw.buf, '\n')
	lw.pending++
	full := lw.pending >= lw.lines
	over := len(lw.buf) >= hardCapBytes
	lw.mu.Unlock()

	if over {
		lw.flush()
	} else if full {
		select {
		case lw.kick <- struct{}{}:
		default:
		}
	}
	return nil
}

// flush writes every pending line. The buffer is swapped under mu and
// written outside it, so add never waits for the disk.
func (lw *lineWriter) flush() {
	lw.flushMu.Lock()
	defer lw.flushMu.Unlock()
	lw.mu.Lock()
	data := lw.buf
	lw.buf, lw.spare = lw.spare[:0], nil
	lw.pending = 0
	failed := lw.err != nil
	lw.mu.Unlock()
	if len(data) > 0 && !failed {
		n, err := lw.f.Write(data)
		if err != nil {
			// A full disk (ENOSPC) or a quota may take part of the buffer:
			// cut the file back to its last complete line, so it still
			// reads line by line, and write nothing more.
			if i := bytes.LastIndexByte(data[:n], '\n'); i >= 0 {
				lw.size += int64(i + 1)
			}
			if terr := lw.f.Truncate(lw.size); terr != nil {
				err = errors.Join(err, fmt.Errorf("cutting %s back to its last complete line: %w", lw.path, terr))
			}
			lw.mu.Lock()
			if lw.err == nil {
				lw.err = err // an *fs.PathError: "write <path>: <why>"
			}
			lw.mu.Unlock()
		} else {
			lw.size += int64(n)
		}
	}
	lw.spare = data[:0]
}

// close stops the flusher, writes what is pending and closes the file.
// It is idempotent; later calls return ErrClosed.
func (lw *lineWriter) close() error {
	lw.mu.Lock()
	if lw.closed {
		lw.mu.Unlock()
		return ErrClosed
	}
	lw.closed = true
	lw.mu.Unlock()

	close(lw.done)
	<-lw.stopped
	lw.flush()
	lw.mu.Lock()
	err := lw.err
	lw.mu.Unlock()
	if cerr := lw.f.Close(); cerr != nil && err == nil {
		err = cerr // an *fs.PathError: "close <path>: <why>"
	}
	return err
}
