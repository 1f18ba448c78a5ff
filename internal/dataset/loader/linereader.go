package loader

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"strings"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/userfile"
)

// MaxLineBytes is the longest line a dataset file may have: 64 MiB, room
// for a turn carrying a large image as a data URL. A longer line is an
// error naming its number, found after reading at most this much of it, so
// a huge file without line breaks is refused in the time it takes to read
// 64 MiB and never held whole.
const MaxLineBytes = 64 << 20

// lineChunk is the read buffer of the line reader.
const lineChunk = 64 << 10

// errNUL and errLineTooLong are the problems the shared reader finds by
// itself, before any format looks at a line.
var (
	errNUL         = errors.New("contains a NUL byte: this is not a text file")
	errLineTooLong = fmt.Errorf("is longer than %d MiB (the per-line limit)", MaxLineBytes>>20)
)

// textReader streams a user's dataset file: it refuses NUL bytes (binary
// data, or a file of zeros) and lines longer than the limit as they go by,
// and hashes what it reads for traceID. Every dataset loader reads its file
// through it, so no loader holds a whole file in memory.
type textReader struct {
	path  string
	r     io.Reader // the file, through the guard and the hash
	close func() error
	sum   hash.Hash

	line  int   // 1-based number of the line being read
	since int   // bytes read since the last newline
	err   error // the guard's problem, with line
	limit int
}

// openText opens path (see readFile) for streaming.
func openText(path string) (*textReader, error) {
	f, err := userfile.OpenData(path)
	if err != nil {
		return nil, &dataset.InputError{File: path, Err: err}
	}
	t := &textReader{path: path, close: f.Close, sum: sha256.New(), line: 1, limit: MaxLineBytes}
	t.r = io.TeeReader(f, t.sum)
	if strings.HasSuffix(path, ".gz") {
		// A gzipped file is read decompressed, as AIPerf's loaders read
		// .gz files; the guard sees the text, traceID hashes the file.
		zr, err := gzip.NewReader(t.r)
		if err != nil {
			f.Close()
			return nil, &dataset.InputError{File: path, Err: fmt.Errorf("not a gzip file: %w", err)}
		}
		t.r = zr
	}
	return t, nil
}

// Read passes the file through, failing at the first NUL byte or at a line
// past the limit (what precedes the fault is still returned).
func (t *textReader) Read(p []byte) (int, error) {
	if t.err != nil {
		return 0, t.err
	}
	n, err := t.r.Read(p)
	chunk := p[:n]
	if i := bytes.IndexByte(chunk, 0); i >= 0 {
		chunk = chunk[:i]
		t.err = errNUL
	}
	done := 0
	for len(chunk) > 0 {
		j := bytes.IndexByte(chunk, '\n')
		seg := chunk
		if j >= 0 {
			seg = chunk[:j]
		}
		if t.since+len(seg) > t.limit {
			t.err = errLineTooLong
			done += t.limit - t.since
			break
		}
		if j < 0 {
			t.since += len(seg)
			done += len(seg)
			break
		}
		t.line++
		t.since = 0
		done += j + 1
		chunk = chunk[j+1:]
	}
	if t.err != nil {
		t.err = &dataset.InputError{File: t.path, Line: t.line, Err: t.err}
		return done, t.err
	}
	return n, err
}

// id is traceID of what was read so far (the whole file once it was read
// to its end).
func (t *textReader) id() string { return hex.EncodeToString(t.sum.Sum(nil)[:8]) }

// eachLine calls f for each non-blank line, trimmed, with its 1-based
// number. line is a fresh copy f may keep. f's error stops the reading and
// is returned, and so is the guard's or a read error.
func (t *textReader) eachLine(f func(n int, line []byte) error) error {
	br := bufio.NewReaderSize(t, lineChunk)
	for n := 1; ; n++ {
		line, err := readLine(br)
		if len(line) > 0 && (err == nil || err == io.EOF) {
			if ferr := f(n, line); ferr != nil {
				return ferr
			}
		}
		switch {
		case err == io.EOF:
			return nil
		case err != nil:
			var ie *dataset.InputError
			if errors.As(err, &ie) {
				return err
			}
			return &dataset.InputError{File: t.path, Line: n, Err: err}
		}
	}
}

// readLine returns the next line without its newline, trimmed, as a copy.
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line) == 0 && err != bufio.ErrBufferFull {
			return bytes.TrimSpace(bytes.Clone(chunk)), err // the common case: one exact copy
		}
		if need := len(line) + len(chunk); need > cap(line) {
			// Double: append's 1.25x growth on long lines would copy a
			// 64 MiB line several times over.
			grown := make([]byte, len(line), max(min(2*cap(line), MaxLineBytes+lineChunk), need))
			copy(grown, line)
			line = grown
		}
		line = append(line, chunk...)
		if err != bufio.ErrBufferFull {
			return bytes.TrimSpace(line), err
		}
	}
}

// eachLine streams file, calling f for each non-blank line (a copy f may
// keep) with its 1-based number. An error f returns is recorded as a
// problem at that line, and reading stops once maxInputErrors problems are
// in; a file that cannot be read, holds a NUL byte or has a line past
// MaxLineBytes is a problem too, and ends the reading. It returns the
// file's traceID, complete when the whole file was read.
func (p *problems) eachLine(file string, f func(n int, line []byte) error) string {
	t, err := openText(file)
	if err != nil {
		p.add(err)
		return ""
	}
	defer t.close()
	stop := errors.New("too many problems")
	err = t.eachLine(func(n int, line []byte) error {
		if err := f(n, line); err != nil && !p.add(asInputErr(file, n, "", err)) {
			return stop
		}
		return nil
	})
	if err != nil && err != stop {
		p.add(err)
	}
	return t.id()
}

// firstLine returns the first non-blank line of file, reading no further.
func firstLine(file string) ([]byte, error) {
	t, err := openText(file)
	if err != nil {
		return nil, err
	}
	defer t.close()
	var out []byte
	stop := errors.New("stop")
	if err := t.eachLine(func(_ int, line []byte) error { out = line; return stop }); err != nil && err != stop {
		return nil, err
	}
	return out, nil
}

// readFile reads a whole user-supplied file through the same guard, for
// the formats that are one JSON document rather than lines (inputs_json).
func readFile(path string) ([]byte, error) {
	t, err := openText(path)
	if err != nil {
		return nil, err
	}
	defer t.close()
	data, err := io.ReadAll(t)
	if err != nil {
		var ie *dataset.InputError
		if errors.As(err, &ie) {
			return nil, err
		}
		return nil, &dataset.InputError{File: path, Err: err}
	}
	return data, nil
}
