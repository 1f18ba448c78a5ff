//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// runStats is what `benchtool run` measured about one command.
type runStats struct {
	WallS float64 `json:"wall_s"`
	// UserS and SysS are the CPU seconds of the command and of every
	// descendant it waited for (wait4's rusage), which is all of AIPerf's
	// worker processes as well as a single Go process.
	UserS float64 `json:"user_s"`
	SysS  float64 `json:"sys_s"`
	CPUS  float64 `json:"cpu_s"`
	// PeakTreeRSSMB is the largest sum of resident memory over the command
	// and its live descendants, sampled every interval (the right figure
	// for a multi-process client); MaxRSSMB is the kernel's peak for the
	// single largest process, exact but blind to the sum.
	PeakTreeRSSMB float64 `json:"peak_tree_rss_mb"`
	MaxRSSMB      float64 `json:"max_rss_mb"`
	PeakProcesses int     `json:"peak_processes"`
	// PeakActive is the largest in-flight count the mock's /health
	// reported while the command ran (-health; the sum over several
	// mocks); -1 when not polled.
	PeakActive int `json:"peak_active"`
	ExitCode   int `json:"exit_code"`
	// RunQueueWaitS is how long the command's threads were runnable but
	// waiting for a CPU (/proc/PID/task/*/schedstat, as last sampled):
	// on a shared machine, time the scheduler gave to other processes.
	// Set beside CPUS it tells a client that was slow from one that was
	// starved.
	RunQueueWaitS float64 `json:"run_queue_wait_s"`
}

// runMain runs a command, sampling its process tree and optionally the
// mock's /health, and writes runStats as JSON. It returns the command's
// exit code.
func runMain(args []string, stdout io.Writer) (int, error) {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	health := fs.String("health", "", "mock server base URL(s), comma-separated, whose /health \"active\" counts to sample (summed)")
	out := fs.String("o", "", "write the statistics JSON here instead of stdout")
	every := fs.Duration("interval", 50*time.Millisecond, "sampling interval")
	if err := fs.Parse(args); err != nil {
		return 2, err
	}
	argv := fs.Args()
	if len(argv) == 0 {
		return 2, errors.New("usage: benchtool run [-health URL] [-o FILE] -- command args...")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 1, err
	}
	st := runStats{PeakActive: -1}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tick := time.NewTicker(*every)
	defer tick.Stop()
	client := &http.Client{Timeout: time.Second}
	waits := map[string]int64{} // by thread id, ns
	var waitErr error
loop:
	for {
		select {
		case waitErr = <-done:
			break loop
		case <-tick.C:
			rss, n := treeRSS(cmd.Process.Pid)
			st.PeakTreeRSSMB = max(st.PeakTreeRSSMB, float64(rss)/(1<<20))
			st.PeakProcesses = max(st.PeakProcesses, n)
			threadWaits(cmd.Process.Pid, waits)
			if *health != "" {
				sum, seen := 0, false
				for _, u := range strings.Split(*health, ",") {
					if a, ok := pollActive(client, u); ok {
						sum, seen = sum+a, true
					}
				}
				if seen {
					st.PeakActive = max(st.PeakActive, sum)
				}
			}
		}
	}
	st.WallS = time.Since(start).Seconds()
	for _, ns := range waits {
		st.RunQueueWaitS += float64(ns) / 1e9
	}
	ps := cmd.ProcessState
	st.UserS, st.SysS = ps.UserTime().Seconds(), ps.SystemTime().Seconds()
	st.CPUS = st.UserS + st.SysS
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		st.MaxRSSMB = float64(ru.Maxrss) / 1024 // KiB on Linux
	}
	st.PeakTreeRSSMB = max(st.PeakTreeRSSMB, st.MaxRSSMB)
	st.ExitCode = ps.ExitCode()
	if _, ok := errors.AsType[*exec.ExitError](waitErr); waitErr != nil && !ok {
		return 1, waitErr
	}
	b, _ := json.MarshalIndent(st, "", "  ") // finite floats and ints always marshal
	b = append(b, '\n')
	if *out != "" {
		return st.ExitCode, os.WriteFile(*out, b, 0o644)
	}
	_, err := stdout.Write(b)
	return st.ExitCode, err
}

// pollActive reads the "active" field of the mock's /health.
func pollActive(c *http.Client, base string) (int, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/health", nil)
	if err != nil {
		return 0, false
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, false
	}
	defer resp.Body.Close()
	var h struct {
		Active *int `json:"active"`
	}
	if json.NewDecoder(resp.Body).Decode(&h) != nil || h.Active == nil {
		return 0, false
	}
	return *h.Active, true
}

// treeRSS sums the resident memory of root and its descendants, in bytes,
// from one scan of /proc, and returns how many processes it counted.
func treeRSS(root int) (int64, int) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, 0
	}
	type proc struct {
		ppid int
		rss  int64
	}
	procs := map[int]proc{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		if ppid, rss, ok := parseProcStat(b); ok {
			procs[pid] = proc{ppid, rss}
		}
	}
	page := int64(os.Getpagesize())
	var total int64
	n := 0
	for pid, p := range procs {
		for a := pid; a > 1; a = procs[a].ppid {
			if a == root {
				total += p.rss * page
				n++
				break
			}
			if _, ok := procs[a]; !ok {
				break
			}
		}
	}
	return total, n
}

// parseProcStat reads the parent pid (field 4) and resident pages (field
// 24) of a /proc/PID/stat line. The command name (field 2) may hold spaces
// and parentheses, so fields are counted from the last ')'.
func parseProcStat(b []byte) (ppid int, rssPages int64, ok bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := bytes.Fields(b[i+1:]) // f[0] is field 3 (state)
	if len(f) < 22 {
		return 0, 0, false
	}
	p, err1 := strconv.Atoi(string(f[1]))
	r, err2 := strconv.ParseInt(string(f[21]), 10, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	return p, r, true
}

// threadWaits records, per thread of pid, the run-queue wait so far (the
// second field of /proc/PID/task/TID/schedstat, ns). A thread that has
// exited keeps its last sampled value.
func threadWaits(pid int, waits map[string]int64) {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name(), "schedstat"))
		if err != nil {
			continue
		}
		if ns, ok := parseSchedstatWait(b); ok {
			waits[e.Name()] = max(waits[e.Name()], ns)
		}
	}
}

// parseSchedstatWait reads the run-queue wait (ns) from a schedstat line:
// "time-on-cpu wait-on-runqueue timeslices".
func parseSchedstatWait(b []byte) (int64, bool) {
	f := bytes.Fields(b)
	if len(f) < 2 {
		return 0, false
	}
	ns, err := strconv.ParseInt(string(f[1]), 10, 64)
	return ns, err == nil
}
