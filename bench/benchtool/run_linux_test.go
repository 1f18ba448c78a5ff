//go:build linux

package main

import (
	"os"
	"testing"
)

func TestParseProcStat(t *testing.T) {
	line := "1234 (a (weird) name) S 99 1234 1234 0 -1 4194560 500 0 0 0 12 3 0 0 20 0 4 0 100 123456789 2048 18446744073709551615\n"
	ppid, rss, ok := parseProcStat([]byte(line))
	if !ok || ppid != 99 || rss != 2048 {
		t.Errorf("parseProcStat = %d, %d, %v; want 99, 2048, true", ppid, rss, ok)
	}
	for _, bad := range []string{"", "1 (x) S", "1 (x) S notanumber 1 1 0 -1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0"} {
		if _, _, ok := parseProcStat([]byte(bad)); ok {
			t.Errorf("parseProcStat(%q) accepted", bad)
		}
	}
}

func TestTreeRSSSelf(t *testing.T) {
	rss, n := treeRSS(os.Getpid())
	if rss <= 0 || n < 1 {
		t.Errorf("treeRSS(self) = %d bytes over %d processes", rss, n)
	}
}

func FuzzParseProcStat(f *testing.F) {
	f.Add([]byte("1 (x) S 0 1 1 0 -1 0 0 0 0 0 0 0 0 0 0 0 1 0 0 0 7 0"))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _, _ = parseProcStat(b) // must not panic on any input
	})
}

func TestParseSchedstatWait(t *testing.T) {
	if ns, ok := parseSchedstatWait([]byte("123456 7890 42\n")); !ok || ns != 7890 {
		t.Errorf("parseSchedstatWait = %d, %v; want 7890, true", ns, ok)
	}
	if _, ok := parseSchedstatWait([]byte("123456\n")); ok {
		t.Error("a line without the wait field parsed")
	}
	waits := map[string]int64{}
	threadWaits(os.Getpid(), waits)
	if len(waits) == 0 {
		t.Skip("no schedstat here (kernel without CONFIG_SCHEDSTATS)")
	}
}
