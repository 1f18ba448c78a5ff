package doctor

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/fdlimit"
)

// fixture is a machine made of files.
func fixture(files map[string]string) System {
	return System{
		ReadFile: func(p string) ([]byte, error) {
			if s, ok := files[p]; ok {
				return []byte(s), nil
			}
			return nil, fs.ErrNotExist
		},
		Rlimit: func() (fdlimit.Limit, bool) { return fdlimit.Limit{Soft: 1024, Hard: 4096}, true },
		CPUs:   func() int { return 4 },
	}
}

func TestMachine(t *testing.T) {
	var f Facts
	fixture(map[string]string{
		"/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor": "powersave\n",
		"/sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq": "800000\n",
		"/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq": "4200000\n",
		"/proc/sys/net/ipv4/ip_local_port_range":                "32768\t60999\n",
		"/proc/loadavg":                                         "3.51 1.91 2.75 5/171 28747\n",
	}).Machine(&f)
	want := Facts{Governor: "powersave", CurKHz: 800000, MaxKHz: 4200000, Ports: 28232, CPUs: 4,
		Load1: 3.51, Runnable: 5, LoadKnown: true, FDSoft: 1024, FDHard: 4096, FDKnown: true}
	if g, w := jsonOf(f), jsonOf(want); g != w {
		t.Errorf("facts\n got %s\nwant %s", g, w)
	}

	// A VM without cpufreq or /proc: nothing known, nothing judged.
	var none Facts
	empty := fixture(nil)
	empty.Rlimit = func() (fdlimit.Limit, bool) { return fdlimit.Limit{}, false }
	empty.Machine(&none)
	if none.Governor != "" || none.LoadKnown || none.FDKnown || none.Ports != 0 {
		t.Errorf("facts from nothing: %+v", none)
	}
}

func jsonOf(v any) string { b, _ := json.Marshal(v); return string(b) }

func TestParseLoadAvg(t *testing.T) {
	for in, want := range map[string]struct {
		l  float64
		n  int
		ok bool
	}{
		"0.52 0.58 0.59 3/171 2874": {0.52, 3, true},
		"0.52 0.58 0.59":            {},
		"x 0.58 0.59 3/171 1":       {},
		"0.5 0.58 0.59 3 1":         {},
		"-1 0 0 1/2 3":              {},
	} {
		l, n, ok := parseLoadAvg(in)
		if l != want.l || n != want.n || ok != want.ok {
			t.Errorf("parseLoadAvg(%q) = %v %v %v, want %+v", in, l, n, ok, want)
		}
	}
}

func FuzzParseLoadAvg(f *testing.F) {
	f.Add("0.52 0.58 0.59 3/171 2874")
	f.Fuzz(func(t *testing.T, s string) {
		if l, n, ok := parseLoadAvg(s); ok && (l < 0 || n < 0) {
			t.Errorf("parseLoadAvg(%q) = %v %v", s, l, n)
		}
	})
}

func TestConfigFacts(t *testing.T) {
	osl, conc := 128, 64
	cfg := config.Defaults()
	cfg.Endpoint.URLs = []string{"a:1", "b:2"}
	cfg.Load.Concurrency = &conc
	cfg.Input.OutputTokens.Mean = &osl
	cfg.Input.InputTokens.Mean = 1000
	cfg.Input.Extra = []config.ExtraInput{{Key: "temperature", Value: json.RawMessage("0")}, {Key: "ignore_eos", Value: json.RawMessage("false")}}
	var f Facts
	Config(&cfg, &f)
	if f.Connections != 64 || f.URLs != 2 || f.OSL != 128 || f.EOSKeys["ignore_eos"] != "false" || len(f.EOSKeys) != 1 || !f.Chat || f.ISL != 1000 {
		t.Errorf("facts %+v", f)
	}
	// A file's prompts are not synthetic: their length is the file's.
	cfg.Dataset.InputFile = "prompts.jsonl"
	f = Facts{}
	Config(&cfg, &f)
	if f.ISL != 0 {
		t.Errorf("ISL %d from a file", f.ISL)
	}
}

func TestPathKind(t *testing.T) {
	_, docker, _ := net.ParseCIDR("172.17.0.1/16")
	_, eth, _ := net.ParseCIDR("10.1.2.3/24")
	eth.IP = net.ParseIP("10.1.2.3")
	ifs := []Interface{{Name: "eth0", Nets: []*net.IPNet{eth}}, {Name: "docker0", Nets: []*net.IPNet{docker}}}
	for ip, want := range map[string]string{
		"127.0.0.1":  "loopback",
		"::1":        "loopback",
		"10.1.2.3":   "this host",
		"172.17.0.5": "container bridge",
		"10.1.2.9":   "remote", // same LAN, another machine
		"8.8.8.8":    "remote",
	} {
		if got := PathKind(net.ParseIP(ip), ifs); got != want {
			t.Errorf("PathKind(%s) = %q, want %q", ip, got, want)
		}
	}
}

// TestProbe probes a real loopback server: connects, its metrics page, a
// missing one, and the built-in tokenizer offline.
func TestProbe(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/metrics" {
			w.Write([]byte("# HELP x y\n# TYPE x counter\nx 1\n"))
			return
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	cfg := config.Defaults()
	cfg.Endpoint.URLs = []string{srv.URL}
	cfg.Endpoint.ModelNames = []string{"m"}
	cfg.Tokenizer.Name = "builtin"
	cfg.Telemetry.ServerMetrics.URLs = []string{srv.URL + "/nothing"}
	f := &Facts{}
	Config(&cfg, f)
	Prober{Connects: 3}.Probe(context.Background(), &cfg, f)
	if len(f.Paths) != 1 || f.Paths[0].Kind != "loopback" || len(f.Paths[0].RTTs) != 3 || f.Paths[0].Err != nil {
		t.Errorf("paths %+v", f.Paths)
	}
	if len(f.Metrics) != 2 || f.Metrics[0].Err != nil || f.Metrics[1].Err == nil || !strings.Contains(f.Metrics[1].Err.Error(), "404") {
		t.Errorf("metrics %+v", f.Metrics)
	}
	if f.Tokenizer == nil || f.Tokenizer.Err != nil {
		t.Errorf("tokenizer %+v", f.Tokenizer)
	}
	rs := Run(f)
	for _, r := range rs {
		want := OK
		if r.Check == "server_metrics" {
			want = Warn
		}
		if r.Check == "network_path" || r.Check == "cpu_contention" || r.Check == "cpu_governor" {
			continue // this machine's, not the fixture's
		}
		if r.Status != want {
			t.Errorf("%s", r.Line())
		}
	}

	// Refused connects fail the network check; a hub tokenizer absent
	// from an empty cache is not available offline.
	srv.Close()
	cfg.Tokenizer.Name = "org/absent-model"
	dir := t.TempDir()
	f = &Facts{}
	Prober{Connects: 2, Getenv: func(k string) string {
		if k == "HF_HOME" {
			return dir
		}
		return ""
	}}.Probe(context.Background(), &cfg, f)
	if len(f.Paths[0].RTTs) != 0 || f.Paths[0].Err == nil || checkNetwork(f).Status != Fail {
		t.Errorf("closed server: %+v", f.Paths)
	}
	if f.Tokenizer.Err == nil || checkTokenizer(f).Status != Warn {
		t.Errorf("absent tokenizer: %+v", f.Tokenizer)
	}
	if errors.Is(f.Tokenizer.Err, context.DeadlineExceeded) {
		t.Errorf("the offline lookup went to the network: %v", f.Tokenizer.Err)
	}
}
