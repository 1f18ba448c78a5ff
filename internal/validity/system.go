package validity

import (
	"os"
	"strconv"
	"strings"
)

// ReadFunc reads a file of /sys or /proc; os.ReadFile on a real machine,
// a fixture in tests.
type ReadFunc func(path string) ([]byte, error)

// The files the machine facts come from (Linux).
const (
	GovernorPath  = "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"
	PortRangePath = "/proc/sys/net/ipv4/ip_local_port_range"
)

// Governor returns the CPU frequency governor of the first CPU
// ("performance", "powersave", ...), or "" where there is none to read
// (no cpufreq, not Linux).
func Governor() string { return GovernorFrom(os.ReadFile) }

// GovernorFrom is Governor reading through read.
func GovernorFrom(read ReadFunc) string {
	b, err := read(GovernorPath)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// EphemeralPorts returns how many local ports outgoing connections may
// use (Linux's ip_local_port_range), or 0 where it cannot be read.
func EphemeralPorts() int { return EphemeralPortsFrom(os.ReadFile) }

// EphemeralPortsFrom is EphemeralPorts reading through read.
func EphemeralPortsFrom(read ReadFunc) int {
	b, err := read(PortRangePath)
	if err != nil {
		return 0
	}
	return parsePortRange(string(b))
}

// parsePortRange reads "LOW HIGH" (whitespace-separated) as the number of
// ports in it; 0 for anything malformed.
func parsePortRange(s string) int {
	f := strings.Fields(s)
	if len(f) != 2 {
		return 0
	}
	lo, err1 := strconv.Atoi(f[0])
	hi, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil || lo < 1 || hi > 65535 || hi < lo {
		return 0
	}
	return hi - lo + 1
}
