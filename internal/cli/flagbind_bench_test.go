package cli

import (
	"testing"

	"github.com/spf13/pflag"

	"github.com/aiperf-go/aiperf/internal/config"
)

// BenchmarkRegisterProfileFlags is the cost of building `aiperf profile`'s
// flag set from the option table, paid by every aiperf command (Main builds
// the profile command whatever the command line asks for).
func BenchmarkRegisterProfileFlags(b *testing.B) {
	for b.Loop() {
		cfg := config.Defaults()
		fs := pflag.NewFlagSet("profile", pflag.ContinueOnError)
		registerProfileFlags(fs, &cfg, &problemList{})
	}
}
