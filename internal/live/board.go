package live

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"
)

// LogKeep is how many log lines a Board keeps.
const LogKeep = 200

// Board collects what slow producers post while a run is going: telemetry
// panels (a scraper per source, about once a second) and log lines. Any
// goroutine may post or read; a mutex guards it, which is fine because the
// record path never touches a Board. The zero Board is ready to use.
type Board struct {
	mu     sync.Mutex
	panels []Panel
	logs   []LogLine // ring of LogKeep, oldest at head once full
	head   int
}

// PutPanel stores p, replacing the panel with the same Source and Title.
// The Board keeps p as given: the caller must not modify p or its slices
// afterwards (post a fresh Panel each time).
func (b *Board) PutPanel(p Panel) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i := range b.panels {
		if b.panels[i].Source == p.Source && b.panels[i].Title == p.Title {
			b.panels[i] = p
			return
		}
	}
	b.panels = append(b.panels, p)
	slices.SortFunc(b.panels, func(x, y Panel) int {
		return cmp.Or(cmp.Compare(x.Source, y.Source), cmp.Compare(x.Title, y.Title))
	})
}

// Panels returns the latest panels, ordered by Source then Title.
func (b *Board) Panels() []Panel {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.panels)
}

// Log appends a log line, dropping the oldest past LogKeep.
func (b *Board) Log(l LogLine) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.logs) < LogKeep {
		b.logs = append(b.logs, l)
		return
	}
	b.logs[b.head] = l
	b.head = (b.head + 1) % LogKeep
}

// Logs returns up to n of the latest log lines, oldest first.
func (b *Board) Logs(n int) []LogLine {
	b.mu.Lock()
	defer b.mu.Unlock()
	all := append(slices.Clone(b.logs[b.head:]), b.logs[:b.head]...)
	return all[max(0, len(all)-n):]
}

// Handler returns a slog.Handler that posts records at level and above to
// b, for a log pane. It is safe for concurrent use.
func (b *Board) Handler(level slog.Leveler) slog.Handler {
	return &boardHandler{board: b, level: level}
}

type boardHandler struct {
	board  *Board
	level  slog.Leveler
	attrs  []slog.Attr
	groups string // "g1.g2." prefix for attribute keys
}

func (h *boardHandler) Enabled(_ context.Context, l slog.Level) bool {
	return l >= h.level.Level()
}

func (h *boardHandler) Handle(_ context.Context, r slog.Record) error {
	var s strings.Builder
	s.WriteString(r.Message)
	write := func(prefix string, a slog.Attr) {
		if a.Equal(slog.Attr{}) {
			return
		}
		fmt.Fprintf(&s, " %s%s=%v", prefix, a.Key, a.Value.Resolve())
	}
	for _, a := range h.attrs {
		write("", a)
	}
	r.Attrs(func(a slog.Attr) bool {
		write(h.groups, a)
		return true
	})
	t := r.Time
	if t.IsZero() {
		t = time.Now()
	}
	h.board.Log(LogLine{Time: t, Level: r.Level.String(), Message: s.String()})
	return nil
}

func (h *boardHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	c := *h
	c.attrs = slices.Clone(h.attrs)
	for _, a := range attrs {
		a.Key = h.groups + a.Key
		c.attrs = append(c.attrs, a)
	}
	return &c
}

func (h *boardHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	c := *h
	c.groups = h.groups + name + "."
	return &c
}
