package validity

import (
	"encoding/json"
	"testing"
	"time"
)

// TestJudge: each check on both sides of each of its thresholds, and a
// user's limit turning a fault into a note.
func TestJudge(t *testing.T) {
	ms := time.Millisecond
	lag := func(p99, limit time.Duration) Figures { return Figures{LagKnown: true, LagP99: p99, LagLimit: limit} }
	rate := func(achieved float64) Figures { return Figures{RateKnown: true, Scheduled: 100, Achieved: achieved} }
	held := func(f Figures) Figures { f.HeldBy = []string{"--concurrency"}; return f }
	cases := []struct {
		name  string
		f     Figures
		want  Level
		check string // the reason's check; "" for none
	}{
		{"nothing measured", Figures{}, Valid, ""},
		{"lag at limit", lag(ms, ms), Valid, ""},
		{"lag over limit", lag(ms+1, ms), Degraded, CheckSendLag},
		{"lag at 10x", lag(10*ms, ms), Degraded, CheckSendLag},
		{"lag over 10x", lag(10*ms+1, ms), Invalid, CheckSendLag},
		{"lag over 10x held", held(lag(time.Second, ms)), Valid, CheckSendLag},
		{"no unsent", Figures{Unsent: 0}, Valid, ""},
		{"one unsent, sent unknown", Figures{Unsent: 1}, Invalid, CheckUnsent},
		{"unsent at 1%", Figures{Sent: 99, Unsent: 1}, Degraded, CheckUnsent},
		{"unsent over 1%", Figures{Sent: 98, Unsent: 2}, Invalid, CheckUnsent},
		{"unsent held", held(Figures{Unsent: 50}), Valid, CheckUnsent},
		{"backlogged", Figures{Backlogged: 1}, Degraded, CheckBacklog},
		{"connection limit waits", Figures{ConnLimitWaits: 1}, Degraded, CheckBacklog},
		{"rate at 99%", rate(99), Valid, ""},
		{"rate under 99%", rate(98.99), Degraded, CheckRate},
		{"rate at 90%", rate(90), Degraded, CheckRate},
		{"rate under 90%", rate(89.99), Invalid, CheckRate},
		{"rate under 90% held", held(rate(10)), Valid, CheckRate},
		{"cpu at 85%", Figures{CPUKnown: true, CPU: 0.85}, Valid, ""},
		{"cpu over 85%", Figures{CPUKnown: true, CPU: 0.851}, Degraded, CheckCPU},
		{"cpu wait of an idle machine", Figures{CPUWaitKnown: true, CPUWait: 6 * time.Microsecond}, Valid, ""},
		{"cpu wait at 100 µs", Figures{CPUWaitKnown: true, CPUWait: 100 * time.Microsecond}, Valid, ""},
		{"cpu wait over 100 µs", Figures{CPUWaitKnown: true, CPUWait: 101 * time.Microsecond}, Degraded, CheckCPUWait},
		{"cpu wait at 1 ms", Figures{CPUWaitKnown: true, CPUWait: time.Millisecond}, Degraded, CheckCPUWait},
		// A loaded machine: each woken thread waits milliseconds.
		{"cpu wait over 1 ms", Figures{CPUWaitKnown: true, CPUWait: 3 * time.Millisecond}, Invalid, CheckCPUWait},
		{"workers all there", Figures{Workers: 4}, Valid, ""},
		{"a worker lost", Figures{Workers: 4, LostWorkers: 1}, Invalid, CheckWorkers},
		{"governor performance", Figures{Governor: "performance"}, Valid, ""},
		{"governor powersave", Figures{Governor: "powersave"}, Degraded, CheckGovernor},
		{"fd at 80%", Figures{FDLimit: 1000, FDNeeded: 800}, Valid, ""},
		{"fd over 80%", Figures{FDLimit: 1000, FDNeeded: 801}, Degraded, CheckFD},
		{"fd at limit", Figures{FDLimit: 1000, FDNeeded: 1000}, Degraded, CheckFD},
		{"fd over limit", Figures{FDLimit: 1000, FDNeeded: 1001}, Invalid, CheckFD},
		{"ports at half", Figures{PortRange: 1000, ConnectionsOpened: 500}, Valid, ""},
		{"ports over half", Figures{PortRange: 1000, ConnectionsOpened: 501}, Degraded, CheckPorts},
		{"clock at 1 ms", Figures{ClockKnown: true, ClockUncertainty: ms}, Valid, ""},
		{"clock over 1 ms", Figures{ClockKnown: true, ClockUncertainty: ms + 1}, Degraded, CheckClock},
		{"clock at 10 ms", Figures{ClockKnown: true, ClockUncertainty: 10 * ms}, Degraded, CheckClock},
		{"clock over 10 ms", Figures{ClockKnown: true, ClockUncertainty: 10*ms + 1}, Invalid, CheckClock},
		{"unexplained at 25%", Figures{UnexplainedKnown: true, QueueReported: true, UnexplainedShare: 0.25}, Valid, ""},
		{"unexplained over 25%", Figures{UnexplainedKnown: true, QueueReported: true, UnexplainedShare: 0.26}, Degraded, CheckUnexplained},
		// Without the server's queue time the rest may hold a server wait:
		// not judged.
		{"unexplained no queue", Figures{UnexplainedKnown: true, UnexplainedShare: 0.9}, Valid, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := Judge(c.f)
			if v.Verdict != c.want {
				t.Errorf("verdict %s, want %s (%+v)", v.Verdict, c.want, v.Reasons)
			}
			switch {
			case c.check == "" && len(v.Reasons) != 0:
				t.Errorf("reasons %+v, want none", v.Reasons)
			case c.check != "" && (len(v.Reasons) != 1 || v.Reasons[0].Check != c.check):
				t.Errorf("reasons %+v, want one for %s", v.Reasons, c.check)
			}
		})
	}
}

// TestJudgeWorst: the verdict is the worst of its reasons.
func TestJudgeWorst(t *testing.T) {
	v := Judge(Figures{Governor: "powersave", Unsent: 3, CPUKnown: true, CPU: 0.9})
	if v.Verdict != Invalid || len(v.Reasons) != 3 {
		t.Fatalf("got %s with %d reasons, want INVALID with 3", v.Verdict, len(v.Reasons))
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Verdict string `json:"verdict"`
		Reasons []struct {
			Check, Level string
		} `json:"reasons"`
	}
	if err := json.Unmarshal(b, &back); err != nil || back.Verdict != "INVALID" || back.Reasons[0].Level != "INVALID" || back.Reasons[1].Level != "DEGRADED" {
		t.Errorf("JSON %s: %+v, %v", b, back, err)
	}
}

func TestParsePortRange(t *testing.T) {
	for in, want := range map[string]int{
		"32768\t60999\n": 28232, "1024 1024": 1, "": 0, "5 4": 0, "0 10": 0, "1 70000": 0, "a b": 0, "1 2 3": 0,
	} {
		if got := parsePortRange(in); got != want {
			t.Errorf("parsePortRange(%q) = %d, want %d", in, got, want)
		}
	}
}

func FuzzParsePortRange(f *testing.F) {
	f.Add("32768 60999")
	f.Fuzz(func(t *testing.T, s string) {
		if n := parsePortRange(s); n < 0 || n > 65535 {
			t.Errorf("parsePortRange(%q) = %d", s, n)
		}
	})
}
