package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"time"
)

// wakeFloorMain measures the machine's own punctuality floor: n deadlines
// gap apart, each waited for by sleeping until 3 ms before it and then
// spinning, and prints how late the spin loop saw each deadline (p50, p90,
// p99, max in ms). Nothing else runs in the process, so what it reports is
// the operating system's and hypervisor's doing (preemption, steal time):
// no client can be more punctual than this on the same core.
func wakeFloorMain(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("wakefloor", flag.ContinueOnError)
	n := fs.Int("n", 500, "number of deadlines")
	gap := fs.Duration("gap", 20*time.Millisecond, "time between deadlines")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *n < 1 || *gap < 4*time.Millisecond {
		return fmt.Errorf("wakefloor: need -n >= 1 and -gap >= 4ms")
	}
	lates := wakeLates(*n, *gap)
	q := func(p float64) float64 { return lates[int(p*float64(len(lates)-1))] }
	fmt.Fprintf(stdout, "%.3f %.3f %.3f %.3f\n", q(0.5), q(0.9), q(0.99), lates[len(lates)-1])
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
