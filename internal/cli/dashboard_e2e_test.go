package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/mockserver"
	"github.com/aiperf-go/aiperf/internal/testenv"
)

// tmuxPane runs one command in a detached tmux session on a private tmux
// server, at a fixed size, and reads its screen back.
type tmuxPane struct {
	t      *testing.T
	tmux   string
	socket string
}

func newTmuxPane(t *testing.T, width, height int, env []string, argv ...string) *tmuxPane {
	t.Helper()
	p := &tmuxPane{t: t, tmux: testenv.Tool(t, "AIPERF_REQUIRE_TMUX", "tmux"), socket: fmt.Sprintf("aiperf-test-%d-%d", os.Getpid(), time.Now().UnixNano())}
	var cmd strings.Builder
	for _, e := range env {
		cmd.WriteString(shellQuote(e) + " ")
	}
	for i, a := range argv {
		if i > 0 {
			cmd.WriteString(" ")
		}
		cmd.WriteString(shellQuote(a))
	}
	// One tmux command line, so the options hold before the program can
	// exit: remain-on-exit keeps the pane (and its history) after the
	// command exits, so the final tables can be read; without the status
	// line the pane is the whole window. tmux runs the command through a
	// shell, which prints the program's exit status as a marker line once
	// it has reaped it: on some machines (tmux 3.3a here, under load) tmux
	// never records the pane's dead status and the exited program stays a
	// zombie, so #{pane_dead} alone cannot tell that the run ended.
	p.run("new-session", "-d", "-s", "t", "-x", strconv.Itoa(width), "-y", strconv.Itoa(height),
		"env TERM=xterm-256color "+cmd.String()+"; echo; echo "+exitMarker+"$?", ";",
		"set-option", "-t", "t", "remain-on-exit", "on", ";",
		"set-option", "-t", "t", "status", "off", ";",
		"set-option", "-t", "t", "history-limit", "5000")
	t.Cleanup(func() { exec.Command(p.tmux, "-L", p.socket, "-f", "/dev/null", "kill-server").Run() })
	return p
}

func (p *tmuxPane) run(args ...string) string {
	p.t.Helper()
	out, err := exec.Command(p.tmux, append([]string{"-L", p.socket, "-f", "/dev/null"}, args...)...).CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// screen is the visible pane; history adds the scrollback.
func (p *tmuxPane) screen() string  { return p.run("capture-pane", "-p", "-t", "t") }
func (p *tmuxPane) history() string { return p.run("capture-pane", "-p", "-J", "-S", "-", "-t", "t") }

// exitMarker starts the line the pane's shell prints after the program
// exits, followed by its status.
const exitMarker = "AIPERF-TEST-EXIT-STATUS="

var exitMarkerRE = regexp.MustCompile(`(?m)^` + exitMarker + `(\d+)\s*$`)

// dead reports whether the command has exited, and its status: from the
// shell's marker line, else from tmux's record of a dead pane.
func (p *tmuxPane) dead() (bool, int) {
	if m := exitMarkerRE.FindStringSubmatch(p.history()); m != nil {
		code, err := strconv.Atoi(m[1])
		return err == nil, code
	}
	out := strings.Fields(p.run("display-message", "-p", "-t", "t", "#{pane_dead} #{pane_dead_status}"))
	if len(out) < 2 || out[0] != "1" {
		return false, 0 // alive, or the status is not recorded yet
	}
	code, err := strconv.Atoi(out[1])
	return err == nil, code
}

// waitScreen polls the screen until cond holds for it (a hang guard ends
// the wait); it asserts nothing about timing.
func (p *tmuxPane) waitScreen(what string, cond func(screen string) bool) string {
	p.t.Helper()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	guard := time.After(90 * time.Second)
	for {
		s := p.screen()
		if cond(s) {
			return s
		}
		if dead, code := p.dead(); dead {
			p.t.Fatalf("aiperf exited (status %d) before %s; screen:\n%s\nhistory:\n%s", code, what, s, p.history())
		}
		select {
		case <-tick.C:
		case <-guard:
			p.t.Fatalf("hang guard: never saw %s; screen:\n%s", what, s)
		}
	}
}

// waitExit polls until the command has exited and returns its status.
func (p *tmuxPane) waitExit() int {
	p.t.Helper()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	guard := time.After(90 * time.Second)
	for {
		if dead, code := p.dead(); dead {
			return code
		}
		select {
		case <-tick.C:
		case <-guard:
			p.t.Fatalf("hang guard: the command never exited; screen:\n%s", p.screen())
		}
	}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

var (
	profilingRE = regexp.MustCompile(`Profiling\s+(\d+)/200`)
	ttftRowRE   = regexp.MustCompile(`Time to First Token \(ms\)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+(\S*)`)
	rateRowRE   = regexp.MustCompile(`Request Throughput \(req/s\)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+(\S*)`)
)

// TestDashboardUnderTmux drives the real binary's default UI on a terminal
// (tmux) against the mock server: the dashboard takes the screen, its
// progress and live metrics change while the run goes, and after it the
// screen is given back and the result tables print as they do without it.
func TestDashboardUnderTmux(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end run")
	}
	t.Parallel()
	// The last requests wait at the server until the test has seen the
	// live dashboard and the log pane, so a slow, loaded machine cannot
	// let the 4 s run end (and the dashboard close) before the keystrokes.
	const gateAfter = 190
	gate := make(chan struct{})
	release := sync.OnceFunc(func() { close(gate) })
	t.Cleanup(release)
	mcfg := mockserver.DefaultConfig()
	mcfg.TTFT, mcfg.ITL = 15*time.Millisecond, 2*time.Millisecond
	mock := mockserver.New(mcfg)
	var posts atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && posts.Add(1) > gateAfter {
			select {
			case <-gate:
			case <-r.Context().Done():
				return
			}
		}
		mock.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	pane := newTmuxPane(t, 130, 45, []string{asAIPerfEnv + "=1"}, exe, "profile",
		"-m", "mock-model", "-u", srv.URL, "--streaming", "--tokenizer", "builtin",
		"--request-rate", "50", "--arrival-pattern", "constant", "--request-count", "200",
		"--isl", "32", "--osl", "20", "--random-seed", "1",
		"--output-artifact-dir", filepath.Join(dir, "run"))

	// The dashboard is the default on a terminal.
	first := pane.waitScreen("the dashboard with live metrics", func(s string) bool {
		return strings.Contains(s, "NVIDIA AIPerf (Go)") && profilingRE.MatchString(s) && ttftRowRE.MatchString(s)
	})
	done1, _ := strconv.Atoi(profilingRE.FindStringSubmatch(first)[1])
	rate1 := rateRowRE.FindStringSubmatch(first)
	later := pane.waitScreen("the progress and the live metrics to move on", func(s string) bool {
		m := profilingRE.FindStringSubmatch(s)
		r := rateRowRE.FindStringSubmatch(s)
		if m == nil || r == nil {
			return false
		}
		done, _ := strconv.Atoi(m[1])
		// A new one-second bucket adds a sparkline cell and moves the rates.
		return done > done1 && done < 200 && r[0] != rate1[0] && len([]rune(r[4])) > len([]rune(rate1[4]))
	})
	ttft := ttftRowRE.FindStringSubmatch(later)
	if p50, _ := strconv.ParseFloat(ttft[1], 64); p50 < 10 || p50 > 500 {
		t.Errorf("live TTFT p50 %s ms; the mock answers in about 15 ms:\n%s", ttft[1], later)
	}
	for _, want := range []string{"[1] Metrics", "Client: CPU", "Errors: none"} {
		if !strings.Contains(later, want) {
			t.Errorf("dashboard lacks %q:\n%s", want, later)
		}
	}
	// The log pane is one key away.
	pane.run("send-keys", "-t", "t", "3")
	pane.waitScreen("the log pane", func(s string) bool { return strings.Contains(s, "phase started") })
	pane.run("send-keys", "-t", "t", "1")
	release()

	// After the run the screen is the terminal's again and the tables print.
	if code := pane.waitExit(); code != 0 {
		t.Errorf("exit status %d", code)
	}
	hist := pane.history()
	for _, want := range []string{"NVIDIA AIPerf | LLM Metrics", "Time to First Token (ms)", "Request Count (requests)", "JSON Export:"} {
		if !strings.Contains(hist, want) {
			t.Errorf("the final output lacks %q:\n%s", want, hist)
		}
	}
	if strings.Contains(hist, "tab/1-3 switch pane") {
		t.Errorf("the dashboard was left on the normal screen:\n%s", hist)
	}
}
