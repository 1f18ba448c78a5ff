package clienthealth

import (
	"testing"
)

func TestParseSchedStat(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]SchedStat{
		"262175705 692526677 83\n": {Run: 262175705, Wait: 692526677, Slices: 83},
		"0 0 0":                    {},
	} {
		if got, ok := parseSchedStat(in); !ok || got != want {
			t.Errorf("parseSchedStat(%q) = %v %v, want %v", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "1 2", "1 2 3 4", "-1 2 3", "a 2 3", "99999999999999999999 1 1"} {
		if got, ok := parseSchedStat(in); ok {
			t.Errorf("parseSchedStat(%q) = %v, want an error", in, got)
		}
	}
	if s, ok := ProcessSchedStat(); ok && (s.Run < 0 || s.Wait < 0) {
		t.Errorf("ProcessSchedStat = %v", s)
	}
}

func FuzzParseSchedStat(f *testing.F) {
	f.Add("262175705 692526677 83")
	f.Fuzz(func(t *testing.T, s string) {
		st, ok := parseSchedStat(s)
		if ok && (st.Run < 0 || st.Wait < 0) {
			t.Fatalf("parseSchedStat(%q) = %v", s, st)
		}
		if share, ok := st.WaitShare(); ok && (share < 0 || share > 1) {
			t.Fatalf("WaitShare of %v = %v", st, share)
		}
	})
}
