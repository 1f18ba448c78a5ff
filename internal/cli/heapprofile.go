package cli

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"sync"
	"time"
)

// heapProfileEnv names the environment variable that makes any aiperf
// command write a Go heap profile (for `go tool pprof`) to the given path,
// and heapProfileAfterEnv the delay after start at which it is taken (a
// Go duration; without it, at exit). A profile taken while a run holds
// its peak of streams shows what each stream keeps (BENCHMARKS.md,
// "100,000 streams"); one line of runtime.MemStats (heap, stacks, OS
// total) goes to stderr with it. Like AIPERF_CPU_PROFILE it is a
// benchmark-of-the-benchmark aid, not an AIPerf option.
const (
	heapProfileEnv      = "AIPERF_HEAP_PROFILE"
	heapProfileAfterEnv = "AIPERF_HEAP_PROFILE_AFTER"
)

// startHeapProfile arms the heap profile when getenv names a path and
// returns the function that writes it at exit when no delay was given (or
// the delay had not passed). Failures are reported on stderr and never
// stop the command.
func startHeapProfile(getenv func(string) string, stderr io.Writer) (stop func()) {
	path := getenv(heapProfileEnv)
	if path == "" {
		return func() {}
	}
	var once sync.Once
	write := func() { once.Do(func() { writeHeapProfile(path, stderr) }) }
	if s := getenv(heapProfileAfterEnv); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", heapProfileAfterEnv, err)
		} else {
			t := time.AfterFunc(d, write)
			return func() {
				if t.Stop() {
					write()
				}
			}
		}
	}
	return write
}

// writeHeapProfile writes the profile of live objects (after a GC) and
// prints the memory totals beside it.
func writeHeapProfile(path string, stderr io.Writer) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Fprintf(stderr, "%s: heap in use %d MB, stacks %d MB, runtime total %d MB, goroutines %d\n",
		heapProfileEnv, ms.HeapInuse>>20, ms.StackInuse>>20, ms.Sys>>20, runtime.NumGoroutine())
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", heapProfileEnv, err)
		return
	}
	defer f.Close()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", heapProfileEnv, err)
	}
}
