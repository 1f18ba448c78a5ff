package benchmark

import (
	"time"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/live"
	"github.com/aiperf-go/aiperf/internal/ui"
)

// newView returns the terminal view of the resolved --ui-type.
func newView(p *Plan, rio IO, console *consoleGate) live.Observer {
	switch p.Config.UIType(rio.IsTTY) {
	case config.UINone:
		return ui.None{}
	default: // simple; the dashboard draws the same live line for now
		return &ui.Simple{W: rio.Stderr, TTY: rio.IsTTY, Width: rio.Width, Every: 5 * time.Second}
	}
}
