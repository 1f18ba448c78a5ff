package benchmark

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/aiperf-go/aiperf/internal/config"
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
// errors also go to stderr, and with -v/-vv everything at the configured
// level does, so a problem is never only in the file.
func openLog(path string, cfg *config.Config, stderr io.Writer) (*slog.Logger, func(), error) {
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
		slog.NewTextHandler(f, &slog.HandlerOptions{Level: level}),
		slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: consoleLevel}),
	)
	return slog.New(h), func() { f.Close() }, nil
}
