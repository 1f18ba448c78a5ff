package benchmark

import (
	"os"
	"strings"
	"time"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/live"
	"github.com/aiperf-go/aiperf/internal/ui"
)

// newView returns the terminal view of the resolved --ui-type. The
// dashboard holds the console log lines back while it covers the screen.
func newView(p *Plan, rio IO, console *consoleGate) live.Observer {
	simple := &ui.Simple{W: rio.Stderr, TTY: rio.IsTTY, Width: rio.Width, Every: 5 * time.Second}
	switch p.Config.UIType(rio.IsTTY) {
	case config.UINone:
		return ui.None{}
	case config.UIDashboard:
		in := rio.Stdin
		if in == nil {
			in = os.Stdin
		}
		title := strings.Join(p.Models, ", ") + " @ " + strings.Join(p.URLs, ", ")
		if rio.Sweep != nil {
			title += " · " + rio.Sweep.Label
		}
		if rio.RunLabel != "" {
			title += " · " + rio.RunLabel
		}
		return ui.NewDashboard(ui.DashboardOptions{
			In: in, Out: rio.Stdout,
			Title:     title,
			Interrupt: interruptSelf,
			OnStart:   console.hold,
			OnExit:    console.release,
			Fallback:  simple,
		})
	}
	return simple
}

// interruptSelf delivers SIGINT to this process, so a Ctrl-C read as a key
// by the dashboard has exactly the effect of a Ctrl-C at the shell: the
// command's interrupt handling stops issuing on the first and cancels the
// requests in flight on the second.
func interruptSelf() {
	if proc, err := os.FindProcess(os.Getpid()); err == nil {
		proc.Signal(os.Interrupt)
	}
}
