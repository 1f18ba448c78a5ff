// Command aiperf benchmarks generative AI inference servers; see
// internal/cli for the command line.
package main

import (
	"context"
	"os"

	"github.com/aiperf-go/aiperf/internal/cli"
)

func main() { os.Exit(cli.Main(context.Background(), os.Args[1:], cli.OSEnv())) }
