package doctor

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestChecks(t *testing.T) {
	ms := func(f float64) time.Duration { return time.Duration(f * float64(time.Millisecond)) }
	cases := []struct {
		name   string
		run    func(*Facts) Result
		f      Facts
		want   Status
		reason string // a part of the reason
	}{
		{"governor unknown", checkGovernor, Facts{}, OK, "no cpufreq"},
		{"governor performance", checkGovernor, Facts{Governor: "performance", CurKHz: 3000000, MaxKHz: 3500000}, OK, "3.00 of 3.50 GHz"},
		{"governor powersave", checkGovernor, Facts{Governor: "powersave"}, Warn, "governor powersave"},
		{"governor schedutil", checkGovernor, Facts{Governor: "schedutil"}, Warn, "schedutil"},

		{"load unknown", checkContention, Facts{CPUs: 2}, OK, "not judged"},
		{"load idle", checkContention, Facts{CPUs: 2, LoadKnown: true, Load1: 0.3, Runnable: 1}, OK, "0 other threads"},
		{"load average full", checkContention, Facts{CPUs: 2, LoadKnown: true, Load1: 2.5, Runnable: 1}, Warn, "fills the client's cores"},
		{"runnable now", checkContention, Facts{CPUs: 2, LoadKnown: true, Load1: 0.5, Runnable: 3}, Warn, "2 other threads"},
		// A process pinned to 8 of 64 cores: its 8 are the limit.
		{"pinned set", checkContention, Facts{CPUs: 8, LoadKnown: true, Load1: 7.9, Runnable: 2}, OK, "8 cores"},

		{"fd unknown", checkOpenFiles, Facts{Connections: 10}, OK, "not judged"},
		{"fd uncapped", checkOpenFiles, Facts{FDKnown: true, FDSoft: 1024, FDHard: 1024}, OK, "not capped"},
		{"fd enough", checkOpenFiles, Facts{FDKnown: true, FDSoft: 20000, FDHard: 20000, Connections: 1000, URLs: 1}, OK, "covers the 1256"},
		{"fd raised by run", checkOpenFiles, Facts{FDKnown: true, FDSoft: 1024, FDHard: 1 << 20, Connections: 1000, URLs: 1}, OK, "raises it"},
		{"fd hard short", checkOpenFiles, Facts{FDKnown: true, FDSoft: 1024, FDHard: 4096, Connections: 2000, URLs: 2}, Fail, "4256"},

		{"ports unknown", checkPorts, Facts{Connections: 100}, OK, "not judged"},
		{"ports fine", checkPorts, Facts{Ports: 28232, Connections: 1000}, OK, "1000 connections"},
		{"ports half", checkPorts, Facts{Ports: 28232, Connections: 15000}, Warn, "TIME_WAIT"},
		{"ports over", checkPorts, Facts{Ports: 28232, Connections: 30000}, Fail, "cannot all be opened"},

		{"no server", checkNetwork, Facts{}, OK, "no server"},
		{"loopback fast", checkNetwork, Facts{Paths: []Path{{Addr: "127.0.0.1:8000", Kind: "loopback", RTTs: []time.Duration{ms(0.05), ms(0.04), ms(0.2)}}}}, OK, "0.050 ms median of 3"},
		{"loopback slow", checkNetwork, Facts{Paths: []Path{{Addr: "127.0.0.1:8000", Kind: "loopback", RTTs: []time.Duration{ms(2), ms(3), ms(2.5)}}}}, Warn, "2.500 ms"},
		// A remote server is where the user put it: its round trip is
		// reported, never alarmed.
		{"remote slow", checkNetwork, Facts{Paths: []Path{{Addr: "10.0.0.5:8000", Kind: "remote", RTTs: []time.Duration{ms(40)}}}}, OK, "at least one such round trip"},
		{"refused", checkNetwork, Facts{Paths: []Path{{Addr: "127.0.0.1:1", Kind: "unknown", Err: errors.New("connection refused")}}}, Fail, "cannot connect"},

		{"no osl", checkOutputLength, Facts{}, OK, "model decides"},
		{"osl bare", checkOutputLength, Facts{OSL: 100}, Warn, "without ignore_eos"},
		{"osl ignore_eos", checkOutputLength, Facts{OSL: 100, EOSKeys: map[string]string{"ignore_eos": "true"}}, OK, "ignore_eos:true"},
		// ignore_eos:false is a choice: the user lets the model stop.
		{"osl chosen false", checkOutputLength, Facts{OSL: 100, EOSKeys: map[string]string{"ignore_eos": "false"}}, OK, "as chosen"},
		{"osl min_tokens", checkOutputLength, Facts{OSL: 100, EOSKeys: map[string]string{"min_tokens": "100"}}, OK, "min_tokens:100"},

		{"chat not synthetic", checkChatBucket, Facts{Chat: true}, OK, "not judged"},
		{"chat compensated", checkChatBucket, Facts{Chat: true, ISL: 1024, ApplyChatTemplate: true, OverheadKnown: true, ChatOverhead: 20}, OK, "shortened"},
		{"chat no template", checkChatBucket, Facts{Chat: true, ISL: 1024}, OK, "no chat template"},
		{"chat crosses", checkChatBucket, Facts{Chat: true, ISL: 1024, OverheadKnown: true, ChatOverhead: 12}, Warn, "--isl 1012"},
		{"chat within", checkChatBucket, Facts{Chat: true, ISL: 1000, OverheadKnown: true, ChatOverhead: 12}, OK, "1012 for --isl 1000, within the 1024"},

		{"tokenizer not probed", checkTokenizer, Facts{}, OK, "not probed"},
		{"tokenizer offline", checkTokenizer, Facts{Tokenizer: &TokenizerProbe{Name: "builtin", Source: "builtin"}}, OK, "available offline"},
		{"tokenizer missing", checkTokenizer, Facts{Tokenizer: &TokenizerProbe{Name: "org/model", Err: errors.New("not in the cache")}}, Warn, "not available offline"},

		{"metrics off", checkMetrics, Facts{MetricsOff: true, Metrics: []MetricsProbe{{URL: "x", Err: errors.New("refused")}}}, OK, "as chosen"},
		{"metrics fine", checkMetrics, Facts{Metrics: []MetricsProbe{{URL: "http://h/metrics"}}}, OK, "readable"},
		{"metrics missing", checkMetrics, Facts{Metrics: []MetricsProbe{{URL: "http://h/metrics"}, {URL: "http://g/metrics", Err: errors.New("HTTP 404")}}}, Warn, "http://g/metrics: HTTP 404"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := c.run(&c.f)
			if r.Status != c.want || !strings.Contains(r.Reason+" fix: "+r.Fix, c.reason) {
				t.Errorf("got %v %q, want %v containing %q", r.Status, r.Reason, c.want, c.reason)
			}
			if (r.Status == OK) != (r.Fix == "") {
				t.Errorf("fix %q with status %v: every warning and failure says what to do, an OK nothing", r.Fix, r.Status)
			}
		})
	}
}

func TestBucket(t *testing.T) {
	for n, want := range map[int]int{0: 1, 1: 1, 2: 2, 3: 4, 1024: 1024, 1025: 2048, 4000: 4096} {
		if got := bucket(n); got != want {
			t.Errorf("bucket(%d) = %d, want %d", n, got, want)
		}
	}
}

func TestPreflightQuietWhenFine(t *testing.T) {
	f := &Facts{Governor: "performance", Ports: 28232, Connections: 10, OSL: 0,
		LoadKnown: true, Load1: 50, Runnable: 50, CPUs: 2} // load is not a preflight matter
	if got := Preflight(f); len(got) != 0 {
		t.Errorf("Preflight = %v, want nothing", got)
	}
	f.Governor, f.OSL = "powersave", 64
	got := Preflight(f)
	if len(got) != 2 || got[0].Check != "cpu_governor" || got[1].Check != "output_length" {
		t.Errorf("Preflight = %v, want the governor and the output length", got)
	}
}

func TestRunNamesEveryCheck(t *testing.T) {
	rs := Run(&Facts{})
	if len(rs) != len(checks) {
		t.Fatalf("%d results for %d checks", len(rs), len(checks))
	}
	for i, r := range rs {
		if r.Check != checks[i].name || r.Status != OK {
			t.Errorf("result %d = %+v: on no facts every check is %s %s", i, r, checks[i].name, OK)
		}
	}
	if Worst(rs) != OK || Worst([]Result{{Status: Warn}, {Status: Fail}, {}}) != Fail {
		t.Error("Worst")
	}
}

func TestLine(t *testing.T) {
	r := Result{Check: "cpu_governor", Status: Warn, Reason: "governor powersave", Fix: "use performance"}
	if got, want := r.Line(), "WARN cpu_governor         governor powersave; fix: use performance"; got != want {
		t.Errorf("Line = %q, want %q", got, want)
	}
}
