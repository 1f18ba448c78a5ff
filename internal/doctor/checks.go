package doctor

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"time"

	"github.com/aiperf-go/aiperf/internal/fdlimit"
)

// Facts are what the checks judge: the machine's settings and state, the
// run's configuration, and (for `aiperf doctor`) what the probes found.
// A zero field means "not known", and its check says so instead of
// judging.
type Facts struct {
	// Governor is cpu0's frequency governor; "" without cpufreq (most
	// VMs and containers: the host sets the frequency).
	Governor string
	// CurKHz and MaxKHz are cpu0's current and highest frequencies.
	CurKHz, MaxKHz int
	// CPUs is the number of cores this process may run on (its affinity
	// mask: a set the user pinned it to is the limit they chose).
	CPUs int
	// Load1 is the one-minute load average and Runnable the threads
	// runnable now (the fourth field of /proc/loadavg), this process's
	// included; LoadKnown says they were read.
	Load1     float64
	Runnable  int
	LoadKnown bool
	// FDSoft and FDHard are the open-file limit; FDKnown says they were
	// read.
	FDSoft, FDHard uint64
	FDKnown        bool
	// Ports is the size of the ephemeral port range; 0 unknown.
	Ports int

	// Connections is how many connections the run opens to each server
	// address (its concurrency); 0 when no cap bounds them (a request
	// rate without --concurrency). URLs is the number of server URLs.
	Connections, URLs int
	// OSL is the requested mean output length (--osl); 0 when the model
	// decides. EOSKeys are the extra-input keys that make the server
	// honour it (ignore_eos, min_tokens), with their values as given.
	OSL     int
	EOSKeys map[string]string
	// ISL is the synthetic prompt's mean length; Chat says the endpoint
	// is chat (the server renders its chat template around the prompt);
	// ApplyChatTemplate is --apply-chat-template (the client compensates
	// the length); ChatOverhead is the tokens the template adds to a
	// one-message request, OverheadKnown that it was measured.
	ISL                     int
	Chat, ApplyChatTemplate bool
	ChatOverhead            int
	OverheadKnown           bool

	// Paths are the network probes of the server URLs.
	Paths []Path
	// Tokenizer is the offline resolution of the run's tokenizer; nil
	// when not probed.
	Tokenizer *TokenizerProbe
	// Metrics are the server-metrics endpoints' probes; MetricsOff is
	// --no-server-metrics.
	Metrics    []MetricsProbe
	MetricsOff bool
}

// Path is the network path to one server: where it leads and how long
// a TCP connect takes there.
type Path struct {
	Addr string // host:port
	// Kind is "loopback", "this host" (an address of a local interface),
	// "container bridge" (a subnet of a docker/podman/CNI bridge) or
	// "remote".
	Kind string
	// RTTs are the connect times of the probes that succeeded.
	RTTs []time.Duration
	// Err is the last failed probe's error; nil when every one connected.
	Err error
}

// TokenizerProbe is the run's tokenizer opened with the hub offline.
type TokenizerProbe struct {
	Name   string
	Source string // where it came from, when found
	Err    error
}

// MetricsProbe is one GET of a server-metrics endpoint.
type MetricsProbe struct {
	URL string
	Err error // nil when it answered 200 with a Prometheus page
}

// Thresholds.
const (
	// LocalRTTWarn is the connect time above which a loopback or bridge
	// path is slow: the kernel alone connects in tens of microseconds,
	// so more is a busy machine or a proxy on the way.
	LocalRTTWarn = time.Millisecond
	// PortsWarnShare of the ephemeral range in use is where reconnects
	// (whose old ports sit in TIME_WAIT) start to wait or fail, as the
	// validity verdict judges after a run.
	PortsWarnShare = 0.5
	// fileSlack is the descriptors a run needs besides its connections
	// (the same allowance the run asks the kernel for when it raises its
	// limit).
	fileSlack = 256
)

func checkGovernor(f *Facts) Result {
	freq := ""
	if f.CurKHz > 0 && f.MaxKHz > 0 {
		freq = fmt.Sprintf(" (cpu0 at %.2f of %.2f GHz)", float64(f.CurKHz)/1e6, float64(f.MaxKHz)/1e6)
	}
	switch f.Governor {
	case "":
		return Result{Status: OK, Reason: "no cpufreq governor to read (a VM or container: the host sets the frequency)"}
	case "performance":
		return Result{Status: OK, Reason: "governor performance" + freq}
	}
	return Result{Status: Warn,
		Reason: fmt.Sprintf("governor %s%s: the client's own time per request grows while the cores clock down, and shows up as the server's prefill time", f.Governor, freq),
		Fix:    "sudo cpupower frequency-set -g performance (or echo performance into /sys/devices/system/cpu/cpu*/cpufreq/scaling_governor)"}
}

func checkContention(f *Facts) Result {
	if !f.LoadKnown || f.CPUs <= 0 {
		return Result{Status: OK, Reason: "load average not known (not Linux): not judged"}
	}
	// Runnable counts this process's own thread; Load1 has it only in
	// part.
	others := max(f.Runnable-1, 0)
	msg := fmt.Sprintf("load average %.2f, %d other threads runnable now, %d cores for this process", f.Load1, others, f.CPUs)
	if f.Load1 >= float64(f.CPUs) || others >= f.CPUs {
		return Result{Status: Warn,
			Reason: msg + ": other work already fills the client's cores, so its timestamps and sends wait for a core",
			Fix:    "run the client on an idle machine or on cores of its own (taskset -c), away from the server"}
	}
	return Result{Status: OK, Reason: msg}
}

func checkOpenFiles(f *Facts) Result {
	if !f.FDKnown {
		return Result{Status: OK, Reason: "open-file limit not known: not judged"}
	}
	if f.Connections <= 0 {
		return Result{Status: OK, Reason: fmt.Sprintf("limit %d (hard %d); connections not capped (a request rate without --concurrency): not judged", f.FDSoft, f.FDHard)}
	}
	need := uint64(f.Connections*max(f.URLs, 1) + fileSlack)
	switch {
	case f.FDSoft >= need:
		return Result{Status: OK, Reason: fmt.Sprintf("limit %d covers the %d this run needs", f.FDSoft, need)}
	case f.FDHard >= need:
		return Result{Status: OK, Reason: fmt.Sprintf("limit %d is below the %d this run needs; the run raises it toward the hard limit %d", f.FDSoft, need, f.FDHard)}
	}
	return Result{Status: Fail,
		Reason: fmt.Sprintf("hard limit %d is below the %d descriptors this run needs: connections beyond it fail with \"too many open files\"", f.FDHard, need),
		Fix:    fdlimit.Remedy}
}

func checkPorts(f *Facts) Result {
	if f.Ports <= 0 || f.Connections <= 0 {
		return Result{Status: OK, Reason: "ephemeral port range or connection count not known: not judged"}
	}
	msg := fmt.Sprintf("%d connections per server address against %d ephemeral ports", f.Connections, f.Ports)
	fix := "widen it: sudo sysctl -w net.ipv4.ip_local_port_range=\"1024 65535\""
	switch {
	case f.Connections > f.Ports:
		return Result{Status: Fail, Reason: msg + ": the connections cannot all be opened", Fix: fix}
	case float64(f.Connections) > PortsWarnShare*float64(f.Ports):
		return Result{Status: Warn, Reason: msg + ": reconnects find their old ports in TIME_WAIT and wait or fail", Fix: fix}
	}
	return Result{Status: OK, Reason: msg}
}

func checkNetwork(f *Facts) Result {
	if len(f.Paths) == 0 {
		return Result{Status: OK, Reason: "no server probed"}
	}
	var parts []string
	worst := OK
	fix := ""
	for _, p := range f.Paths {
		if len(p.RTTs) == 0 {
			worst = Fail
			parts = append(parts, fmt.Sprintf("%s (%s): cannot connect: %v", p.Addr, p.Kind, p.Err))
			fix = "start the server or correct --url"
			continue
		}
		med := median(p.RTTs)
		parts = append(parts, fmt.Sprintf("%s (%s): connect %s median of %d", p.Addr, p.Kind, fmtDur(med), len(p.RTTs)))
		if p.Kind != "remote" && med > LocalRTTWarn && worst < Warn {
			worst = Warn
			fix = "a local server should connect in well under a millisecond: look for a proxy on the path (a published container port, kubectl port-forward) or a busy machine, and measure from where the clients will run"
		}
	}
	reason := strings.Join(parts, "; ")
	if worst == OK {
		reason += "; each request's TTFT includes at least one such round trip"
	}
	return Result{Status: worst, Reason: reason, Fix: fix}
}

func checkOutputLength(f *Facts) Result {
	if f.OSL <= 0 {
		return Result{Status: OK, Reason: "no --osl: the model decides the output length"}
	}
	if len(f.EOSKeys) > 0 {
		keys := make([]string, 0, len(f.EOSKeys))
		for k, v := range f.EOSKeys {
			keys = append(keys, k+":"+v)
		}
		slices.Sort(keys)
		return Result{Status: OK, Reason: fmt.Sprintf("--osl %d with %s (as chosen)", f.OSL, strings.Join(keys, ", "))}
	}
	return Result{Status: Warn,
		Reason: fmt.Sprintf("--osl %d without ignore_eos or min_tokens: the model may stop at its end-of-sequence token first, and the run measures shorter answers than asked", f.OSL),
		Fix:    "--extra-inputs ignore_eos:true (vLLM, SGLang, TensorRT-LLM) or --extra-inputs min_tokens:N"}
}

func checkChatBucket(f *Facts) Result {
	switch {
	case !f.Chat || f.ISL <= 0:
		return Result{Status: OK, Reason: "no synthetic chat prompt: not judged"}
	case f.ApplyChatTemplate:
		return Result{Status: OK, Reason: "--apply-chat-template: the prompt is shortened by the template's overhead"}
	case !f.OverheadKnown:
		return Result{Status: OK, Reason: "the tokenizer has no chat template to measure: not judged"}
	}
	seen := f.ISL + f.ChatOverhead
	b, bs := bucket(f.ISL), bucket(seen)
	msg := fmt.Sprintf("the chat template adds %d tokens: the server sees %d for --isl %d", f.ChatOverhead, seen, f.ISL)
	if bs != b {
		return Result{Status: Warn,
			Reason: msg + fmt.Sprintf(", past the %d-token bucket, so engines that pad or schedule prefill by power-of-two lengths do the next bucket's work", b),
			Fix:    fmt.Sprintf("--apply-chat-template (counts and shortens the prompt with the template) or --isl %d", max(b-f.ChatOverhead, 1))}
	}
	return Result{Status: OK, Reason: msg + fmt.Sprintf(", within the %d-token bucket", b)}
}

func checkTokenizer(f *Facts) Result {
	t := f.Tokenizer
	switch {
	case t == nil:
		return Result{Status: OK, Reason: "not probed"}
	case t.Err != nil:
		return Result{Status: Warn,
			Reason: fmt.Sprintf("tokenizer %s is not available offline: the run needs the hub before it starts (%s)", t.Name, firstLine(t.Err.Error())),
			Fix:    fmt.Sprintf("fetch it once with network (echo -n x | aiperf tokenize --tokenizer %s), or pass --tokenizer a local path or builtin", t.Name)}
	}
	return Result{Status: OK, Reason: fmt.Sprintf("tokenizer %s available offline (%s)", t.Name, t.Source)}
}

func checkMetrics(f *Facts) Result {
	if f.MetricsOff {
		return Result{Status: OK, Reason: "--no-server-metrics (as chosen)"}
	}
	if len(f.Metrics) == 0 {
		return Result{Status: OK, Reason: "not probed"}
	}
	var bad, good []string
	for _, m := range f.Metrics {
		if m.Err != nil {
			bad = append(bad, fmt.Sprintf("%s: %v", m.URL, m.Err))
		} else {
			good = append(good, m.URL)
		}
	}
	if len(bad) > 0 {
		return Result{Status: Warn,
			Reason: "server metrics unreadable, the run reports none from there: " + strings.Join(bad, "; "),
			Fix:    "--server-metrics URL (the server's Prometheus endpoint) or --no-server-metrics"}
	}
	return Result{Status: OK, Reason: "readable: " + strings.Join(good, ", ")}
}

// firstLine is s up to its first newline.
func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// bucket is the smallest power of two at least n (n >= 1).
func bucket(n int) int {
	if n <= 1 {
		return 1
	}
	return 1 << bits.Len(uint(n-1))
}

// median of ds (not empty); the lower middle for an even count.
func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}

// fmtDur prints a duration in ms with microsecond precision.
func fmtDur(d time.Duration) string {
	return fmt.Sprintf("%.3f ms", float64(d)/float64(time.Millisecond))
}
