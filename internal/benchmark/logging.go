package benchmark

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/live"
)

// Extra slog levels for AIPerf's TRACE, NOTICE and SUCCESS.
const (
	levelTrace   = slog.LevelDebug - 4
	levelNotice  = slog.LevelInfo + 2
	levelSuccess = slog.LevelInfo + 3
)

func slogLevel(l config.LogLevel) slog.Level {
	switch l {
	case config.LogTrace:
		return levelTrace
	case config.LogDebug:
		return slog.LevelDebug
	case config.LogNotice:
		return levelNotice
	case config.LogSuccess:
		return levelSuccess
	case config.LogWarning:
		return slog.LevelWarn
	case config.LogError, config.LogCritical:
		return slog.LevelError
	}
	return slog.LevelInfo
}

// openLog creates logs/aiperf.log at the configured level. Warnings and
// errors also go to the console (stderr, held back while the dashboard
// covers the screen), and with -v/-vv everything at the configured level
// does, so a problem is never only in the file. Info and above also go to
// the board, for the dashboard's log pane and live observers.
func openLog(path string, cfg *config.Config, console io.Writer, board *live.Board) (*slog.Logger, func(), error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, nil, fmt.Errorf("log directory: %w", err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("log file: %w", err)
	}
	level := slogLevel(cfg.LogLevel())
	consoleLevel := max(level, slog.LevelWarn)
	if cfg.Service.Verbose || cfg.Service.ExtraVerbose {
		consoleLevel = level
	}
	h := slog.NewMultiHandler(
		slog.NewTextHandler(f, &slog.HandlerOptions{Level: level, ReplaceAttr: dropFileOnlyAttr}),
		consoleOnly{slog.NewTextHandler(console, &slog.HandlerOptions{Level: consoleLevel})},
		board.Handler(max(level, slog.LevelInfo)),
	)
	return slog.New(h), func() { f.Close() }, nil
}

// fileOnlyKey marks a log record that is for the log file only: the
// failure that ends a run, which the command prints once itself ("Error:
// ..."), so the console does not show it twice.
const fileOnlyKey = "file_only"

// fileOnly is the attribute that marks such a record.
var fileOnly = slog.Bool(fileOnlyKey, true)

// dropFileOnlyAttr keeps the marker out of the log file's lines.
func dropFileOnlyAttr(_ []string, a slog.Attr) slog.Attr {
	if a.Key == fileOnlyKey {
		return slog.Attr{}
	}
	return a
}

// consoleOnly is the console handler, less the file-only records.
type consoleOnly struct{ slog.Handler }

func (c consoleOnly) Handle(ctx context.Context, r slog.Record) error {
	skip := false
	r.Attrs(func(a slog.Attr) bool {
		skip = skip || a.Key == fileOnlyKey
		return !skip
	})
	if skip {
		return nil
	}
	return c.Handler.Handle(ctx, r)
}

func (c consoleOnly) WithAttrs(as []slog.Attr) slog.Handler {
	return consoleOnly{c.Handler.WithAttrs(as)}
}

func (c consoleOnly) WithGroup(name string) slog.Handler {
	return consoleOnly{c.Handler.WithGroup(name)}
}

// consoleGate is the console log writer. While a full-screen view is up
// it holds the lines back (they would tear the screen; the view shows them
// in its log pane) and writes them out when the view is gone, so no
// warning is lost from the terminal.
type consoleGate struct {
	mu   sync.Mutex
	w    io.Writer
	held *bytes.Buffer // non-nil while holding
}

func (g *consoleGate) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.held != nil {
		return g.held.Write(p)
	}
	return g.w.Write(p)
}

// hold starts holding lines back.
func (g *consoleGate) hold() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.held == nil {
		g.held = &bytes.Buffer{}
	}
}

// release writes the held lines and stops holding.
func (g *consoleGate) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.held != nil {
		g.w.Write(g.held.Bytes())
		g.held = nil
	}
}
