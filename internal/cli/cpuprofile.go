package cli

import (
	"fmt"
	"io"
	"os"
	"runtime/pprof"
)

// cpuProfileEnv names the environment variable that makes any aiperf
// command write a Go CPU profile (for `go tool pprof`) to the given path.
// It is for finding where the client spends its time in a benchmark of
// the benchmark (BENCHMARKS.md); it is not an AIPerf option.
const cpuProfileEnv = "AIPERF_CPU_PROFILE"

// startCPUProfile starts profiling when getenv names a path and returns the
// function that stops it and closes the file. Failures are reported on
// stderr and never stop the command.
func startCPUProfile(getenv func(string) string, stderr io.Writer) (stop func()) {
	path := getenv(cpuProfileEnv)
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", cpuProfileEnv, err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", cpuProfileEnv, err)
		f.Close()
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
