// Package ui renders live progress of a running benchmark.
//
// It is a leaf: the benchmark publishes a Snapshot of plain values a few
// times a second and a View draws it, so rendering never touches live state
// and can be tested with fixed snapshots.
package ui

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Snapshot is the state of the running phase at one instant.
type Snapshot struct {
	Phase    string        // "warmup" or "profiling"
	Elapsed  time.Duration // since the phase started
	Sent     int           // requests sent so far
	Done     int           // requests finished (success or error)
	Errors   int           // finished with an error
	InFlight int           // sent, not yet finished
	Total    int           // expected requests; 0 when the phase is bounded by time only
	Duration time.Duration // the phase's time bound; 0 when bounded by count only
	Late     int           // sends more than 1 ms behind schedule
	MaxLag   time.Duration // the largest schedule lag seen so far
}

// Fraction is how far the phase has progressed, in [0, 1], by count or by
// time, whichever is further; -1 when neither bound is known.
func (s Snapshot) Fraction() float64 {
	f := -1.0
	if s.Total > 0 {
		f = float64(s.Done) / float64(s.Total)
	}
	if s.Duration > 0 {
		f = max(f, float64(s.Elapsed)/float64(s.Duration))
	}
	if f > 1 {
		f = 1
	}
	return f
}

// Rate is the completion rate so far, in requests per second.
func (s Snapshot) Rate() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(s.Done) / s.Elapsed.Seconds()
}

// Line renders the snapshot as one line of at most width columns (no limit
// when width <= 0).
func Line(s Snapshot, width int) string {
	var b strings.Builder
	name := s.Phase
	if name != "" {
		name = strings.ToUpper(name[:1]) + name[1:]
	}
	fmt.Fprintf(&b, "%s: %d", name, s.Done)
	if s.Total > 0 {
		fmt.Fprintf(&b, "/%d", s.Total)
	}
	if f := s.Fraction(); f >= 0 {
		fmt.Fprintf(&b, " %s %3.0f%%", bar(f, 20), f*100)
	}
	fmt.Fprintf(&b, " | %.1f req/s | in-flight %d | errors %d | late %d (max lag %.2f ms) | %s",
		s.Rate(), s.InFlight, s.Errors, s.Late, float64(s.MaxLag)/1e6, clockText(s.Elapsed))
	line := b.String()
	if width > 0 && len(line) > width {
		line = line[:width]
	}
	return line
}

func bar(f float64, n int) string {
	full := int(f * float64(n))
	return "[" + strings.Repeat("=", full) + strings.Repeat(" ", n-full) + "]"
}

func clockText(d time.Duration) string {
	d = d.Round(time.Second)
	return fmt.Sprintf("%02d:%02d", int(d.Minutes()), int(d.Seconds())%60)
}

// View draws snapshots. Update and Close are called from one goroutine.
type View interface {
	Update(Snapshot)
	// Close draws the final state and leaves the output ready for what follows.
	Close(final Snapshot)
}

// None is the view for --ui none: it draws nothing.
type None struct{}

// Update does nothing.
func (None) Update(Snapshot) {}

// Close does nothing.
func (None) Close(Snapshot) {}

// Simple is the view for --ui simple: on a terminal it redraws one status
// line in place; elsewhere it prints a line at most every Every.
type Simple struct {
	W     io.Writer
	TTY   bool
	Width int           // terminal width; 0 = unlimited
	Every time.Duration // minimum gap between lines when not a TTY

	last    time.Duration
	printed bool
}

// Update draws s.
func (v *Simple) Update(s Snapshot) {
	if v.TTY {
		fmt.Fprintf(v.W, "\r\x1b[K%s", Line(s, v.Width))
		v.printed = true
		return
	}
	if v.printed && s.Elapsed-v.last < v.Every {
		return
	}
	v.last, v.printed = s.Elapsed, true
	fmt.Fprintln(v.W, Line(s, v.Width))
}

// Close draws the final snapshot and ends the line.
func (v *Simple) Close(final Snapshot) {
	if v.TTY {
		fmt.Fprintf(v.W, "\r\x1b[K%s\n", Line(final, v.Width))
		return
	}
	fmt.Fprintln(v.W, Line(final, v.Width))
}
