package doctor

import (
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/fdlimit"
	"github.com/aiperf-go/aiperf/internal/validity"
)

// System is where the machine facts come from; Local reads this machine,
// tests give fixtures.
type System struct {
	// ReadFile reads a /sys or /proc file.
	ReadFile validity.ReadFunc
	// Rlimit returns the open-file limit; ok false where there is none.
	Rlimit func() (fdlimit.Limit, bool)
	// CPUs is the number of cores this process may run on.
	CPUs func() int
}

// Local is this machine.
func Local() System {
	return System{ReadFile: os.ReadFile, Rlimit: fdlimit.Current, CPUs: runtime.NumCPU}
}

// The /sys and /proc files besides validity's.
const (
	curFreqPath = "/sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq"
	maxFreqPath = "/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq"
	loadAvgPath = "/proc/loadavg"
)

// Machine gathers the machine's facts into f. It reads a handful of
// small files and one rlimit: microseconds.
func (s System) Machine(f *Facts) {
	f.Governor = validity.GovernorFrom(s.ReadFile)
	f.CurKHz, f.MaxKHz = readInt(s.ReadFile, curFreqPath), readInt(s.ReadFile, maxFreqPath)
	f.Ports = validity.EphemeralPortsFrom(s.ReadFile)
	if s.CPUs != nil {
		f.CPUs = s.CPUs()
	}
	if b, err := s.ReadFile(loadAvgPath); err == nil {
		f.Load1, f.Runnable, f.LoadKnown = parseLoadAvg(string(b))
	}
	if s.Rlimit != nil {
		if l, ok := s.Rlimit(); ok {
			f.FDSoft, f.FDHard, f.FDKnown = l.Soft, l.Hard, true
		}
	}
}

// parseLoadAvg reads /proc/loadavg ("0.52 0.58 0.59 3/171 2874"): the
// one-minute average and the runnable threads; ok false when malformed.
func parseLoadAvg(s string) (load1 float64, runnable int, ok bool) {
	f := strings.Fields(s)
	if len(f) < 4 {
		return 0, 0, false
	}
	l, err := strconv.ParseFloat(f[0], 64)
	run, _, found := strings.Cut(f[3], "/")
	n, err2 := strconv.Atoi(run)
	if err != nil || err2 != nil || !found || l < 0 || n < 0 {
		return 0, 0, false
	}
	return l, n, true
}

// readInt reads a file holding one integer; 0 when it cannot.
func readInt(read validity.ReadFunc, path string) int {
	b, err := read(path)
	if err != nil {
		return 0
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// eosKeys are the extra inputs that make a server write the requested
// output length.
var eosKeys = []string{"ignore_eos", "min_tokens"}

// Config gathers the run's facts from cfg (validated).
func Config(cfg *config.Config, f *Facts) {
	f.Connections = cfg.Concurrency()
	f.URLs = max(len(cfg.Endpoint.URLs), 1)
	if m := cfg.Input.OutputTokens.Mean; m != nil {
		f.OSL = *m
	}
	for _, x := range cfg.Input.Extra {
		for _, k := range eosKeys {
			if x.Key == k {
				if f.EOSKeys == nil {
					f.EOSKeys = map[string]string{}
				}
				f.EOSKeys[k] = string(x.Value)
			}
		}
	}
	f.Chat = cfg.Endpoint.Type == config.EndpointChat
	if cfg.Dataset.InputFile == "" && len(cfg.Dataset.InlineRecords) == 0 && cfg.Dataset.Public == "" {
		f.ISL = cfg.Input.InputTokens.Mean // synthetic prompts only
	}
	f.ApplyChatTemplate = cfg.Tokenizer.ApplyChatTemplate
	f.MetricsOff = cfg.Telemetry.ServerMetrics.Disabled
}

// Cheap gathers what Preflight judges: the machine and the
// configuration, nothing over the network.
func Cheap(cfg *config.Config, s System) *Facts {
	f := &Facts{}
	s.Machine(f)
	Config(cfg, f)
	return f
}
