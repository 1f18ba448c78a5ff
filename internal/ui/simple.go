// Package ui draws a running benchmark on the terminal: the live dashboard
// (--ui-type dashboard), a progress line (simple) or nothing (none).
//
// Every view is a live.Observer: the benchmark publishes immutable
// live.Snapshots a few times a second and a view draws them, so rendering
// never touches the run's state and every view can be tested with fixed
// snapshots.
package ui

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/aiperf-go/aiperf/internal/live"
)

// Line renders a phase's progress as one line of at most width columns (no
// limit when width <= 0).
func Line(p live.Progress, width int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d", title(p.Phase), p.Done)
	if p.Total > 0 {
		fmt.Fprintf(&b, "/%d", p.Total)
	}
	if f := p.Fraction(); f >= 0 {
		fmt.Fprintf(&b, " %s %3.0f%%", bar(f, 20), f*100)
	}
	fmt.Fprintf(&b, " | %.1f req/s | in-flight %d | errors %d | late %d (max lag %.2f ms) | %s",
		p.Rate(), p.InFlight, p.Errors, p.Late, float64(p.MaxLag)/1e6, clockText(p.Elapsed))
	if eta, ok := p.ETA(); ok && p.Fraction() < 1 {
		fmt.Fprintf(&b, " <%s", clockText(eta))
	}
	line := b.String()
	if width > 0 && len(line) > width {
		line = line[:width]
	}
	return line
}

// title capitalises a phase name.
func title(phase string) string {
	if phase == "" {
		return ""
	}
	return strings.ToUpper(phase[:1]) + phase[1:]
}

func bar(f float64, n int) string {
	full := int(f * float64(n))
	return "[" + strings.Repeat("=", full) + strings.Repeat(" ", n-full) + "]"
}

// clockText formats d as mm:ss (h:mm:ss from an hour).
func clockText(d time.Duration) string {
	d = d.Round(time.Second)
	if d >= time.Hour {
		return fmt.Sprintf("%d:%02d:%02d", int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60)
	}
	return fmt.Sprintf("%02d:%02d", int(d.Minutes()), int(d.Seconds())%60)
}

// None is the view for --ui-type none: it draws nothing (the log lines on
// stderr are the only output while the run goes).
type None struct{}

// Observe does nothing.
func (None) Observe(*live.Snapshot) {}

// Simple is the view for --ui-type simple: on a terminal it redraws one
// progress line in place, ending it when its phase ends; elsewhere it
// prints a line at most every Every.
type Simple struct {
	W     io.Writer
	TTY   bool
	Width int           // terminal width; 0 = unlimited
	Every time.Duration // minimum gap between lines when not a TTY

	phase string        // the phase of the line drawn last
	open  bool          // that line is drawn and not yet ended
	last  time.Duration // its Elapsed when last printed (not a TTY)
}

var (
	_ live.Observer = None{}
	_ live.Observer = (*Simple)(nil)
)

// Observe draws s: the final state of a phase that just ended, then the
// phase running now; the Final snapshot ends the last line.
func (v *Simple) Observe(s *live.Snapshot) {
	if v.open && s.Phase.Phase != v.phase {
		for _, f := range s.Finished {
			if f.Phase == v.phase {
				v.end(f)
			}
		}
	}
	switch {
	case s.Final && s.Phase.Phase != "":
		v.end(s.Phase)
	case !s.Final:
		v.draw(s.Phase)
	}
}

func (v *Simple) draw(p live.Progress) {
	if p.Phase != v.phase {
		v.phase, v.open = p.Phase, false
	}
	if v.TTY {
		fmt.Fprintf(v.W, "\r\x1b[K%s", Line(p, v.Width))
		v.open = true
		return
	}
	if v.open && p.Elapsed-v.last < v.Every {
		return
	}
	v.last, v.open = p.Elapsed, true
	fmt.Fprintln(v.W, Line(p, v.Width))
}

// end draws a phase's final line and ends it.
func (v *Simple) end(p live.Progress) {
	if v.TTY {
		fmt.Fprint(v.W, "\r\x1b[K")
	}
	fmt.Fprintln(v.W, Line(p, v.Width))
	v.phase, v.open = p.Phase, false
}
