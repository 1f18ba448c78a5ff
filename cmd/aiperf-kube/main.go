// Command aiperf-kube is `aiperf kube`: benchmarks on Kubernetes and the
// AIPerfJob operator (see internal/kubecli). aiperf runs it for
// `aiperf kube ...`; it is a separate program so that aiperf links no
// Kubernetes library.
package main

import (
	"context"
	"os"

	"github.com/aiperf-go/aiperf/internal/cli"
	"github.com/aiperf-go/aiperf/internal/kubecli"
)

func main() { os.Exit(kubecli.Main(context.Background(), os.Args[1:], cli.OSEnv())) }
