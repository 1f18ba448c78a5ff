package cli

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
)

// serviceHelp is `aiperf service --help`.
const serviceHelp = `Usage: aiperf service [--type] TYPE [--service-id ID] [--health-host HOST] [--health-port PORT] [profile flags...]

AIPerf runs each of its services (system_controller, timing_manager, workers,
records_manager, api, ...) as its own process, for distributed and Kubernetes
runs. This implementation runs them all as goroutines of one process, so one
service type has a meaning here:

  system_controller (or api)  run the whole benchmark, configured by the
                              profile flags that follow, serving the HTTP API
                              on --health-host:--health-port (its /healthz and
                              /readyz are the service's health probes).

The other types are parts of that one process and cannot run alone.
--service-id is accepted and has no effect. AIPerf's BENCHMARK-RUN argument
(a controller-rendered run_config.json) is not read: give the benchmark's
profile flags (or --config FILE) instead. AIPERF_SERVICE_HEALTH_HOST and
AIPERF_SERVICE_HEALTH_PORT stand in for the health flags, as in AIPerf.
`

// serviceTypes are AIPerf's service plugin names.
var serviceTypes = []string{"api", "dataset_manager", "gpu_telemetry_manager", "network_latency_manager", "record_processor",
	"records_manager", "server_metrics_manager", "system_controller", "timing_manager", "worker", "worker_manager", "worker_group_manager"}

// serviceArgs turns `aiperf service ...` into the profile command line it
// runs; help is true for --help.
func serviceArgs(args []string, getenv func(string) string) (profile []string, help bool, err error) {
	var f serviceFlags
	// AIPerf's positional TYPE (and BENCHMARK-RUN) come first.
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		f.typ, args = args[0], args[1:]
		if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
			return nil, false, fmt.Errorf("BENCHMARK-RUN %s: a serialized BenchmarkRun (run_config.json) is not read here; give the benchmark's profile flags after the type (see aiperf service --help)", args[0])
		}
	}
	if help, err := f.parse(args); help || err != nil {
		return nil, help, err
	}
	if err := f.healthFromEnv(getenv); err != nil {
		return nil, false, err
	}
	if err := checkServiceType(f.typ); err != nil {
		return nil, false, err
	}
	out, err := f.profile()
	return out, false, err
}

// serviceFlags are the service command's own flags; rest is everything
// else, passed on to profile in order.
type serviceFlags struct {
	typ, host, port string
	rest            []string
}

// parse reads the service flags from args; help is true for --help.
func (f *serviceFlags) parse(args []string) (help bool, err error) {
	f.rest = []string{}
	take := func(i *int, name string) (string, error) {
		a := args[*i]
		if k := strings.IndexByte(a, '='); k >= 0 {
			return a[k+1:], nil
		}
		if *i+1 >= len(args) {
			return "", fmt.Errorf("%s needs a value", name)
		}
		*i++
		return args[*i], nil
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, _, _ := strings.Cut(strings.ReplaceAll(a, "_", "-"), "=")
		var err error
		switch name {
		case "-h", "--help":
			return true, nil
		case "--type", "--service-type":
			f.typ, err = take(&i, "--type")
		case "--service-id":
			_, err = take(&i, "--service-id")
		case "--benchmark-run":
			return false, errors.New("--benchmark-run: a serialized BenchmarkRun (run_config.json) is not read here; give the benchmark's profile flags after the type (see aiperf service --help)")
		case "--health-host":
			f.host, err = take(&i, "--health-host")
		case "--health-port":
			f.port, err = take(&i, "--health-port")
		default:
			f.rest = append(f.rest, a)
		}
		if err != nil {
			return false, err
		}
	}
	return false, nil
}

// healthFromEnv lets AIPERF_SERVICE_HEALTH_PORT and _HOST stand in for the
// health flags not given, unless --api-port names the port itself.
func (f *serviceFlags) healthFromEnv(getenv func(string) string) error {
	apiPort := slices.ContainsFunc(f.rest, func(a string) bool { return a == "--api-port" || strings.HasPrefix(a, "--api-port=") })
	if apiPort && f.port != "" {
		return errors.New("--health-port and --api-port: here one server answers the health probes and the API; give one of them")
	}
	if apiPort {
		return nil
	}
	if f.port == "" {
		f.port = getenv("AIPERF_SERVICE_HEALTH_PORT")
	}
	if f.host == "" && f.port != "" {
		f.host = getenv("AIPERF_SERVICE_HEALTH_HOST")
	}
	return nil
}

// checkServiceType accepts the service types that run the benchmark here.
func checkServiceType(typ string) error {
	typ = strings.ReplaceAll(strings.ToLower(typ), "-", "_")
	switch {
	case typ == "":
		return errors.New("--type is required (system_controller runs the benchmark; see aiperf service --help)")
	case typ == "system_controller" || typ == "api":
		return nil
	case slices.Contains(serviceTypes, typ):
		return fmt.Errorf("--type %s: in this implementation that service is a goroutine of the benchmark process and does not run alone; use --type system_controller (see aiperf service --help)", typ)
	default:
		return fmt.Errorf("--type: invalid choice %q (choose from %s)", typ, strings.Join(serviceTypes, ", "))
	}
}

// profile is the profile command line: the other flags, then the health
// address as the API's.
func (f *serviceFlags) profile() ([]string, error) {
	out := append([]string{"profile"}, f.rest...)
	if f.port != "" {
		out = append(out, "--api-port", f.port)
		if f.host != "" {
			out = append(out, "--api-host", f.host)
		}
	} else if f.host != "" {
		return nil, errors.New("--health-host requires --health-port")
	}
	return out, nil
}

// newServiceCommand lists `aiperf service` among the commands, as AIPerf
// does. Main runs the command itself before cobra parses anything (see
// serviceArgs); this one only answers `aiperf help service`.
func newServiceCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:                "service",
		Short:              "Run the benchmark as AIPerf's system_controller service, its health probes on --health-port",
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprint(cmd.OutOrStdout(), serviceHelp)
			return err
		},
	}
	cmd.SetHelpFunc(func(c *cobra.Command, _ []string) { fmt.Fprint(c.OutOrStdout(), serviceHelp) })
	return cmd
}
