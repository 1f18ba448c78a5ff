package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func TestCPUProfileWrittenWhenAsked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cpu.pprof")
	var stderr bytes.Buffer
	stop := startCPUProfile(func(k string) string {
		if k == cpuProfileEnv {
			return path
		}
		return ""
	}, &stderr)
	stop()
	st, err := os.Stat(path)
	if err != nil || st.Size() == 0 || stderr.Len() != 0 {
		t.Fatalf("profile %v (err %v), stderr %q; want a non-empty profile and no complaint", st, err, stderr.String())
	}
	startCPUProfile(func(string) string { return "" }, &stderr)() // off: nothing happens
}
