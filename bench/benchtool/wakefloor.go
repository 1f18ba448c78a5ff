package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/aiperf-go/aiperf/internal/clock"
	"github.com/aiperf-go/aiperf/internal/timing"
)

// wakeFloorMain measures the machine's own punctuality floor: n deadlines
// gap apart, each waited for by sleeping until 3 ms before it and then
// spinning, and prints how late the spin loop saw each deadline (p50, p90,
// p99, max in ms). Nothing else runs in the process, so what it reports is
// the operating system's and hypervisor's doing (preemption, steal time):
// no client can be more punctual than this on the same core.
//
// With -sleeper wake, precise or coarse it waits with that timing.Sleeper
// instead (the rate pacer's, the earlier spinning one, a plain timer), any
// -gap: the pacer's own punctuality, without requests, beside the floor.
func wakeFloorMain(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("wakefloor", flag.ContinueOnError)
	n := fs.Int("n", 500, "number of deadlines")
	gap := fs.Duration("gap", 20*time.Millisecond, "time between deadlines")
	sleeper := fs.String("sleeper", "floor", "floor (sleep, then spin), wake, precise, coarse or raw (the open-loop reference's timerfd in epoll on a locked thread, raw system calls)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var lates []float64
	cpu0 := processCPU()
	switch *sleeper {
	case "floor":
		if *n < 1 || *gap < 4*time.Millisecond {
			return fmt.Errorf("wakefloor: need -n >= 1 and -gap >= 4ms")
		}
		lates = wakeLates(*n, *gap)
	case "raw":
		if *n < 1 || *gap <= 0 {
			return fmt.Errorf("wakefloor: need -n >= 1 and -gap > 0")
		}
		var err error
		if lates, err = rawTimerLates(*n, *gap); err != nil {
			return err
		}
	case "wake", "precise", "coarse":
		if *n < 1 || *gap <= 0 {
			return fmt.Errorf("wakefloor: need -n >= 1 and -gap > 0")
		}
		var s timing.Sleeper = &timing.Coarse{}
		switch *sleeper {
		case "wake":
			w, err := timing.NewWake()
			if err != nil {
				return err
			}
			defer w.Close()
			s = w
		case "precise":
			s = &timing.Precise{}
		}
		var err error
		if lates, err = sleeperLates(s, *n, *gap); err != nil {
			return err
		}
	default:
		return fmt.Errorf("wakefloor: -sleeper %q: want floor, wake, precise, coarse or raw", *sleeper)
	}
	perWake := float64(processCPU()-cpu0) / float64(time.Microsecond) / float64(len(lates))
	q := func(p float64) float64 { return lates[int(p*float64(len(lates)-1))] }
	fmt.Fprintf(stdout, "%.3f %.3f %.3f %.3f %.1f\n", q(0.5), q(0.9), q(0.99), lates[len(lates)-1], perWake)
	return nil
}

// wakeLates returns, sorted, how late (ms) a sleep-then-spin wait saw each
// of n deadlines gap apart.
func wakeLates(n int, gap time.Duration) []float64 {
	start := time.Now()
	lates := make([]float64, 0, n)
	for i := 1; i <= n; i++ {
		due := start.Add(time.Duration(i) * gap)
		time.Sleep(time.Until(due) - 3*time.Millisecond)
		for time.Now().Before(due) {
		}
		lates = append(lates, float64(time.Since(due))/float64(time.Millisecond))
	}
	slices.Sort(lates)
	return lates
}

// sleeperLates returns, sorted, how late (ms) s woke for each of n
// deadlines gap apart on one run clock.
func sleeperLates(s timing.Sleeper, n int, gap time.Duration) ([]float64, error) {
	clk := clock.New()
	lates := make([]float64, 0, n)
	for i := 1; i <= n; i++ {
		due := time.Duration(i) * gap
		if err := s.SleepUntil(context.Background(), clk, due); err != nil {
			return nil, err
		}
		lates = append(lates, float64(clk.Now()-due)/float64(time.Millisecond))
	}
	slices.Sort(lates)
	return lates, nil
}
