package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// The AIPerf 0.13 references below are extracted by scripts/aiperf-compat.sh
// from AIPerf itself (PyPI aiperf==0.13.0, a test reference only):
//   - testdata/aiperf013/profile_flags.json: every spelling `aiperf profile
//     --help` lists, by help group (321 spellings of 264 flags);
//   - testdata/aiperf013/flag_owners.json: which engineer's issue owns each
//     flag (by its first spelling), from COORDINATION.md, for the report;
//   - testdata/aiperf013/flags_pending.txt: spellings not accepted yet,
//     each waiting for its owner's issue. It only shrinks;
//   - testdata/aiperf013/repeatable_flags.json: the flags AIPerf's parser
//     accepts twice (its list flags, which append), by first spelling;
//     it refuses every other flag given twice (repeat_flags.py).

// aiperfProfileFlags reads profile_flags.json: help group -> flags, each
// the list of its spellings.
func aiperfProfileFlags(t *testing.T) (groups []string, flags map[string][][]string) {
	t.Helper()
	b, err := os.ReadFile("testdata/aiperf013/profile_flags.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &flags); err != nil {
		t.Fatal(err)
	}
	for g := range flags {
		groups = append(groups, g)
	}
	sort.Strings(groups)
	return groups, flags
}

// acceptsSpelling reports whether `aiperf profile` knows the flag spelled
// s: a long name (after aliases and snake_case), a one-letter shorthand,
// or -vv.
func acceptsSpelling(fs *pflag.FlagSet, s string) bool {
	switch {
	case strings.HasPrefix(s, "--"):
		return fs.Lookup(s[2:]) != nil
	case s == "-vv":
		return fs.Lookup("extra-verbose") != nil
	case len(s) == 2 && s[0] == '-':
		return fs.ShorthandLookup(s[1:]) != nil
	}
	return false
}

// TestAIPerfProfileFlagsAccepted is the flag half of the compatibility
// harness: every spelling AIPerf 0.13's `profile` accepts is accepted
// here, but for the ones listed as pending (each owned by an open issue).
// A spelling that is neither is a regression. With AIPERF_COMPAT_REPORT=1
// it prints accepted/missing per owner (scripts/aiperf-compat.sh does).
func TestAIPerfProfileFlagsAccepted(t *testing.T) {
	groups, flags := aiperfProfileFlags(t)
	owners := map[string]string{} // first spelling -> owner
	{
		b, err := os.ReadFile("testdata/aiperf013/flag_owners.json")
		if err != nil {
			t.Fatal(err)
		}
		var byOwner map[string][]string
		if err := json.Unmarshal(b, &byOwner); err != nil {
			t.Fatal(err)
		}
		for who, list := range byOwner {
			for _, f := range list {
				owners[f] = who
			}
		}
	}
	pending := map[string]bool{}
	if b, err := os.ReadFile("testdata/aiperf013/flags_pending.txt"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) > 0 && !strings.HasPrefix(f[0], "#") {
				pending[f[0]] = true
			}
		}
	}

	fs := newProfileCommand(&Env{}).cmd.Flags()
	type tally struct {
		accepted, total int
		missing         []string
	}
	byOwner := map[string]*tally{}
	nFlags, nSpellings, nAccepted := 0, 0, 0
	var unexpected, stale []string
	for _, g := range groups {
		for _, spellings := range flags[g] {
			nFlags++
			who := owners[spellings[0]]
			if who == "" {
				t.Errorf("%s has no owner in flag_owners.json", spellings[0])
			}
			tl := byOwner[who]
			if tl == nil {
				tl = &tally{}
				byOwner[who] = tl
			}
			for _, s := range spellings {
				nSpellings++
				tl.total++
				ok := acceptsSpelling(fs, s)
				switch {
				case ok:
					nAccepted++
					tl.accepted++
					if pending[s] {
						stale = append(stale, s)
					}
				case pending[s]:
					tl.missing = append(tl.missing, s)
				default:
					tl.missing = append(tl.missing, s)
					unexpected = append(unexpected, fmt.Sprintf("%s (%s, owner %s)", s, g, who))
				}
			}
		}
	}
	if nSpellings != 321 || nFlags != 264 {
		t.Errorf("reference lists %d spellings of %d flags, want AIPerf 0.13's 321 of 264", nSpellings, nFlags)
	}
	for _, u := range unexpected {
		t.Errorf("AIPerf flag %s is not accepted and not pending", u)
	}
	if len(stale) > 0 {
		t.Logf("now accepted, remove from flags_pending.txt: %s", strings.Join(stale, " "))
	}
	t.Logf("AIPerf 0.13 profile flags accepted: %d of %d spellings", nAccepted, nSpellings)
	if os.Getenv("AIPERF_COMPAT_REPORT") != "" {
		var who []string
		for w := range byOwner {
			who = append(who, w)
		}
		slices.Sort(who)
		for _, w := range who {
			tl := byOwner[w]
			t.Logf("  %-4s %3d of %3d accepted; missing: %s", w, tl.accepted, tl.total, strings.Join(tl.missing, " "))
		}
	}
}

// TestCompatFlagsParse checks the flags of flags_compat.go set what they
// document, under AIPerf's spellings, and reject bad values.
func TestCompatFlagsParse(t *testing.T) {
	base := []string{"-m", "x"}
	tests := []struct {
		args []string
		path string
		want string
	}{
		{[]string{"--record-processors", "3"}, "compat.record_processor_service_count", `3`},
		{[]string{"--record_processor_service_count", "2"}, "compat.record_processor_service_count", `2`},
		{[]string{"--max-workers", "4"}, "compat.workers_max", `4`},
		{[]string{"--stats-interval", "0"}, "compat.stats_interval", `0`},
		{[]string{"--zmq-host", "10.0.0.2"}, "compat.zmq_host", `"10.0.0.2"`},
		{[]string{"--zmq_ipc_path", "/tmp/z"}, "compat.zmq_ipc_path", `"/tmp/z"`},
		{[]string{"--zmq-dual-bind"}, "compat.zmq_dual_bind", `true`},
		{[]string{"--scenario", "inferencex-agentx-mvp", "--input-file", "t.jsonl", "--custom-dataset-type", "mooncake_trace", "--unsafe-override"},
			"compat.scenario", `"inferencex-agentx-mvp"`},
		{[]string{"--export-outputs-json"}, "artifacts.export_outputs_json", `true`},
	}
	for _, tt := range tests {
		cfg := profile(t, append(base, tt.args...)...)
		if got := jsonPath(t, cfg, tt.path); got != tt.want {
			t.Errorf("%v: %s = %s, want %s", tt.args, tt.path, got, tt.want)
		}
	}
	for _, bad := range [][]string{{"--workers-max", "0"}, {"--record-processors", "0"}, {"--stats-interval", "-1"}} {
		r := runMain(t, t.Context(), nil, append(append([]string{"profile"}, base...), bad...)...)
		if r.code != 2 || !strings.Contains(r.stderr, bad[0]) {
			t.Errorf("%v: exit %d, stderr %q; want 2 naming the flag", bad, r.code, r.stderr)
		}
	}
}

// TestAIPerfRepeatedFlags pins which flags may be given twice to AIPerf
// 0.13's parser: for every AIPerf flag accepted here, the flag repeats
// (option.Option.Repeatable) exactly when AIPerf's repeats, and any other
// is refused on the command line, naming it.
func TestAIPerfRepeatedFlags(t *testing.T) {
	t.Parallel()
	_, flags := aiperfProfileFlags(t)
	b, err := os.ReadFile("testdata/aiperf013/repeatable_flags.json")
	if err != nil {
		t.Fatal(err)
	}
	var list []string
	if err := json.Unmarshal(b, &list); err != nil {
		t.Fatal(err)
	}
	aiperf := map[string]bool{}
	for _, f := range list {
		aiperf[f] = true
	}
	fs := profileFlags()
	ours := repeatableFlags()
	checked := 0
	for _, group := range flags {
		for _, spellings := range group {
			first := spellings[0]
			f := fs.Lookup(strings.TrimPrefix(first, "--"))
			if !strings.HasPrefix(first, "--") || f == nil {
				continue // pending (TestAIPerfProfileFlagsAccepted)
			}
			checked++
			if ours[f.Name] != aiperf[first] {
				t.Errorf("%s (--%s): repeatable here %v, in AIPerf %v", first, f.Name, ours[f.Name], aiperf[first])
			}
			if aiperf[first] {
				continue
			}
			value := []string{"1"}
			if f.NoOptDefVal != "" {
				value = nil
			}
			args := append(append([]string{first}, value...), append([]string{first}, value...)...)
			_, problems, _ := prepareProfileArgs(fs, args)
			if len(problems) == 0 || !strings.Contains(problems[len(problems)-1].Error(), "given more than once") {
				t.Errorf("%s given twice: problems %v; want it refused", first, problems)
			}
		}
	}
	if checked < 200 {
		t.Errorf("checked %d AIPerf flags; the reference did not load", checked)
	}
}
