//go:build !unix

package benchmark

import "time"

// processCPU is not measured on this platform; client health then leaves
// the CPU figures out.
func processCPU() (time.Duration, bool) { return 0, false }
