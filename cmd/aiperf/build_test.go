package main

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestREADMEBuildIsStaticAndVersioned builds aiperf as README's build line
// does (cgo left as the machine has it, -tags netgo,osusergo, the version
// stamped with -ldflags -X) and checks the result: no ELF interpreter and
// no dynamic section (statically linked), no compiler output (no
// warnings), and `aiperf version` printing the stamped version and a
// static build.
func TestREADMEBuildIsStaticAndVersioned(t *testing.T) {
	if os.Getenv("AIPERF_STATIC_BUILD_TEST") == "" {
		t.Skip("set AIPERF_STATIC_BUILD_TEST=1 to build the binary as README says and check it (about a minute)")
	}
	if runtime.GOOS != "linux" {
		t.Skip("ELF check")
	}
	out := filepath.Join(t.TempDir(), "aiperf")
	const version = "v9.8.7-test"
	cmd := exec.Command("go", "build", "-tags", "netgo,osusergo",
		"-ldflags", "-X github.com/aiperf-go/aiperf/internal/cli.buildVersion="+version, "-o", out, ".")
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local")
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	if len(b) > 0 {
		t.Errorf("go build printed (warnings?):\n%s", b)
	}
	f, err := elf.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
			t.Errorf("the binary has a %v program header: dynamically linked", p.Type)
		}
	}
	v, err := exec.Command(out, "version").CombinedOutput()
	if err != nil {
		t.Fatalf("aiperf version: %v\n%s", err, v)
	}
	if !strings.HasPrefix(string(v), "aiperf "+version+"\n") || !strings.Contains(string(v), "(static)") {
		t.Errorf("aiperf version printed:\n%s", v)
	}
}
