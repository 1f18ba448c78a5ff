package kube

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestDockerfileBuildsTheStaticBinaryTheManifestsRun: the image cannot be
// built here (no container daemon), so this checks what can be: the
// Dockerfile builds with CGO off onto a static base and puts the binary at
// /aiperf as user 65532, which is what the generated pods run, with
// aiperf-kube beside it (the operator Deployment runs /aiperf kube
// operator, which runs /aiperf-kube); and the binary built that way is
// static (no dynamic section, no interpreter).
func TestDockerfileBuildsTheStaticBinaryTheManifestsRun(t *testing.T) {
	b, err := os.ReadFile("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	df := string(b)
	for _, want := range []string{"CGO_ENABLED=0", "-o /out/ ./cmd/aiperf ./cmd/aiperf-kube", "distroless/static",
		"COPY --from=build /out/aiperf /aiperf", "COPY --from=build /out/aiperf-kube /aiperf-kube", "USER 65532"} {
		if !strings.Contains(df, want) {
			t.Errorf("Dockerfile lacks %q", want)
		}
	}
	job := (&Options{Name: "x", Workers: 1}).workersJob()
	if c := job.Spec.Template.Spec.Containers[0]; c.Command[0] != "/aiperf" || *job.Spec.Template.Spec.SecurityContext.RunAsUser != 65532 {
		t.Errorf("worker pod runs %v as %d; the image has /aiperf for 65532", c.Command, *job.Spec.Template.Spec.SecurityContext.RunAsUser)
	}
	if os.Getenv("AIPERF_STATIC_BUILD_TEST") == "" {
		t.Skip("set AIPERF_STATIC_BUILD_TEST=1 to also build the binary as the Dockerfile does and check it is static (about a minute)")
	}
	if runtime.GOOS != "linux" {
		t.Skip("ELF check")
	}
	out := filepath.Join(t.TempDir(), "aiperf")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", out, "../../cmd/aiperf")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOTOOLCHAIN=local")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	if b, err := exec.Command("file", out).CombinedOutput(); err == nil && !strings.Contains(string(b), "statically linked") {
		t.Errorf("the binary is not static: %s", b)
	}
}
