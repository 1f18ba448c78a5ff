package clienthealth

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// SchedStat is how long a process's threads ran on a CPU (Run), how long
// they waited, runnable, for one (Wait: the kernel's run delay), and how
// many times they were put on a CPU (Slices).
//
// A client whose threads wait for a CPU stamps its times late: a time
// taken when a response wakes a thread is late by that thread's wait.
// What matters to a timing is therefore the wait per wake-up,
// Wait / Slices, not the share of the runnable time: a mostly idle Go
// client wakes its threads hundreds of thousands of times in a run for
// microseconds each, so even on an idle machine the few microseconds a
// CPU takes to pick a woken thread up are a quarter or more of its tiny
// run time (6 µs per wake, 26 % on an idle 2-core VM), while a loaded
// machine keeps each woken thread waiting for milliseconds.
type SchedStat struct {
	Run, Wait time.Duration
	Slices    int64
}

// Sub is s minus an earlier reading.
func (s SchedStat) Sub(earlier SchedStat) SchedStat {
	return SchedStat{Run: s.Run - earlier.Run, Wait: s.Wait - earlier.Wait, Slices: s.Slices - earlier.Slices}
}

// WaitPerWake is Wait / Slices, how late on average a thread ran after it
// became runnable; false when the threads were never put on a CPU.
func (s SchedStat) WaitPerWake() (time.Duration, bool) {
	if s.Slices <= 0 || s.Wait < 0 {
		return 0, false
	}
	return s.Wait / time.Duration(s.Slices), true
}

// WaitShare is Wait / (Run + Wait); false when the threads neither ran
// nor waited.
func (s SchedStat) WaitShare() (float64, bool) {
	total := s.Run + s.Wait
	if total <= 0 || s.Wait < 0 || s.Run < 0 {
		return 0, false
	}
	return float64(s.Wait) / float64(total), true
}

// ProcessSchedStat sums /proc/self/task/*/schedstat over the process's
// threads (Linux with schedstats; false elsewhere). A thread that exits
// between two readings takes its times with it from both sums, so a
// difference of readings may miss a little of each, never more of one.
func ProcessSchedStat() (SchedStat, bool) {
	files, err := filepath.Glob("/proc/self/task/*/schedstat")
	if err != nil || len(files) == 0 {
		return SchedStat{}, false
	}
	var sum SchedStat
	n := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // the thread exited
		}
		s, ok := parseSchedStat(string(b))
		if !ok {
			return SchedStat{}, false
		}
		sum.Run += s.Run
		sum.Wait += s.Wait
		sum.Slices += s.Slices
		n++
	}
	return sum, n > 0
}

// parseSchedStat reads one schedstat line: "RUN_NS WAIT_NS TIMESLICES",
// nanoseconds on the CPU and waiting on a run queue, and the count of
// slices run.
func parseSchedStat(s string) (SchedStat, bool) {
	f := strings.Fields(s)
	if len(f) != 3 {
		return SchedStat{}, false
	}
	var v [3]int64
	for i, x := range f {
		n, err := strconv.ParseInt(x, 10, 64)
		if err != nil || n < 0 {
			return SchedStat{}, false
		}
		v[i] = n
	}
	return SchedStat{Run: time.Duration(v[0]), Wait: time.Duration(v[1]), Slices: v[2]}, true
}
