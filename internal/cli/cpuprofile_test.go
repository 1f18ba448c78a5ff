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

func TestHeapProfileWrittenWhenAsked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "heap.pprof")
	var stderr bytes.Buffer
	env := map[string]string{heapProfileEnv: path, heapProfileAfterEnv: "1h"}
	stop := startHeapProfile(func(k string) string { return env[k] }, &stderr)
	stop() // before the delay: written at exit
	st, err := os.Stat(path)
	if err != nil || st.Size() == 0 || !bytes.Contains(stderr.Bytes(), []byte("heap in use")) {
		t.Fatalf("profile %v (err %v), stderr %q; want a non-empty profile and the memory line", st, err, stderr.String())
	}
	stderr.Reset()
	env[heapProfileAfterEnv] = "soon"
	startHeapProfile(func(k string) string { return env[k] }, &stderr)()
	if !bytes.Contains(stderr.Bytes(), []byte(heapProfileAfterEnv)) {
		t.Errorf("a bad delay was not reported: %q", stderr.String())
	}
}
