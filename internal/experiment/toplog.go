package experiment

import (
	"bytes"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
)

// The experiment's own log, logs/aiperf.log under its artifact directory,
// as AIPerf writes one at the top of a multi-run or sweep beside each
// run's: every line the experiment prints to stderr (the plan, each run's
// outcome, convergence, the aggregates written) is also kept there, with
// its time, so the experiment's course can be read after the terminal is
// gone. The runs keep their own logs in their own directories; their
// console output is not repeated here.

// openTopLog creates logs/aiperf.log under x.base and tees the
// experiment's stderr into it; the runs get the stderr as it was. It
// returns the function that closes the file. A log that cannot be created
// is no reason to stop: the experiment runs without it, saying so.
func (x *experiment) openTopLog() (closeLog func()) {
	x.runStderr = x.rio.Stderr
	path := filepath.Join(x.base, "logs", "aiperf.log")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		slog.New(slog.NewTextHandler(x.rio.Stderr, nil)).Warn("experiment log not written", "err", err)
		return func() {}
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		slog.New(slog.NewTextHandler(x.rio.Stderr, nil)).Warn("experiment log not written", "err", err)
		return func() {}
	}
	lines := &logLines{log: slog.New(slog.NewTextHandler(f, nil))}
	x.rio.Stderr = io.MultiWriter(x.rio.Stderr, lines)
	return func() {
		lines.flush()
		f.Close()
	}
}

// logLines logs each complete line written to it as one record.
type logLines struct {
	mu  sync.Mutex
	buf []byte
	log *slog.Logger
}

func (l *logLines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		if line := bytes.TrimRight(l.buf[:i], "\r"); len(line) > 0 {
			l.log.Info(string(line))
		}
		l.buf = l.buf[i+1:]
	}
}

// flush logs a last line left without its newline.
func (l *logLines) flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.buf) > 0 {
		l.log.Info(string(l.buf))
		l.buf = nil
	}
}
