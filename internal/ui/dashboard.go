package ui

import (
	"fmt"
	"io"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/aiperf-go/aiperf/internal/live"
)

// DashboardOptions configure a Dashboard.
type DashboardOptions struct {
	In  io.Reader // the terminal's input (keys)
	Out io.Writer // the terminal
	// Title names what is benchmarked, for the header.
	Title string
	// Interrupt asks the run to stop as Ctrl-C does outside the dashboard
	// (the terminal is in raw mode, so Ctrl-C arrives as a key): the first
	// call stops issuing requests, the second cancels those in flight.
	Interrupt func()
	// OnStart and OnExit run when the dashboard takes the screen and when
	// it has given it back (hold and release the console log lines).
	OnStart, OnExit func()
	// Fallback draws the snapshots if the dashboard cannot start (no
	// usable terminal).
	Fallback live.Observer
}

// Dashboard is the view for --ui-type dashboard, AIPerf's default on a
// terminal: a full-screen bubbletea program showing the phases' progress
// and ETA, the live metrics with their p50/p99 and sparklines, client
// health, errors by type, telemetry panels and a log pane. Observe hands
// it each snapshot; on the Final one it leaves the screen before
// returning, so the result tables print on a clean terminal.
type Dashboard struct {
	o       DashboardOptions
	prog    *tea.Program
	exited  chan struct{} // closed when the program has returned
	mu      sync.Mutex
	failed  error // the program could not run; Fallback draws instead
	started bool
}

var _ live.Observer = (*Dashboard)(nil)

// NewDashboard returns a dashboard; it takes the screen on the first
// snapshot.
func NewDashboard(o DashboardOptions) *Dashboard {
	return &Dashboard{o: o, exited: make(chan struct{})}
}

// snapMsg carries a snapshot into the program.
type snapMsg struct{ s *live.Snapshot }

// Observe draws s; on the Final snapshot it waits (at most a few seconds)
// for the program to restore the terminal.
func (d *Dashboard) Observe(s *live.Snapshot) {
	d.mu.Lock()
	if !d.started {
		d.start()
	}
	failed := d.failed
	d.mu.Unlock()
	if failed != nil {
		if d.o.Fallback != nil {
			d.o.Fallback.Observe(s)
		}
		return
	}
	d.prog.Send(snapMsg{s})
	if s.Final {
		select {
		case <-d.exited:
		case <-time.After(5 * time.Second):
			d.prog.Kill()
			<-d.exited
		}
	}
}

// start runs the program on its own goroutine. Called with d.mu held.
func (d *Dashboard) start() {
	d.started = true
	m := &model{title: d.o.Title, interrupt: d.o.Interrupt, width: 100, height: 30}
	opts := []tea.ProgramOption{tea.WithOutput(d.o.Out), tea.WithoutSignalHandler(), tea.WithFPS(10)}
	if d.o.In != nil {
		opts = append(opts, tea.WithInput(d.o.In))
	}
	d.prog = tea.NewProgram(m, opts...)
	if d.o.OnStart != nil {
		d.o.OnStart()
	}
	started := make(chan struct{})
	go func() {
		defer close(d.exited)
		close(started)
		_, err := d.prog.Run()
		if d.o.OnExit != nil {
			d.o.OnExit()
		}
		if err != nil {
			d.mu.Lock()
			d.failed = err
			d.mu.Unlock()
			fmt.Fprintf(d.o.Out, "dashboard: %v; showing progress lines instead\n", err)
		}
	}()
	<-started
}

// model is the bubbletea model: the latest snapshot and the selected pane.
type model struct {
	title         string
	interrupt     func()
	snap          *live.Snapshot
	pane          Pane
	width, height int
	stopping      bool
}

func (m *model) Init() tea.Cmd { return nil }

func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case snapMsg:
		m.snap = msg.s
		if msg.s.Final {
			return m, tea.Quit
		}
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case tea.KeyPressMsg:
		switch msg.String() {
		case "ctrl+c", "q":
			m.stopping = true
			if m.interrupt != nil {
				m.interrupt()
			}
		case "tab", "right", "l":
			m.pane = (m.pane + 1) % paneCount
		case "shift+tab", "left", "h":
			m.pane = (m.pane + paneCount - 1) % paneCount
		case "1", "2", "3":
			m.pane = Pane(msg.String()[0] - '1')
		}
	}
	return m, nil
}

func (m *model) View() tea.View {
	v := tea.NewView(Render(Frame{Snap: m.snap, Title: m.title, Width: m.width, Height: m.height, Pane: m.pane, Stopping: m.stopping}))
	v.AltScreen = true
	v.WindowTitle = "aiperf"
	return v
}
