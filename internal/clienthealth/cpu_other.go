//go:build !unix

package clienthealth

import "time"

// ProcessCPU is not measured on this platform; client health then leaves
// the CPU figures out.
func ProcessCPU() (time.Duration, bool) { return 0, false }
