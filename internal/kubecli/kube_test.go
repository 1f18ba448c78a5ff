package kubecli

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/client-go/kubernetes/scheme"
)

// TestKubeGenerateManifestsRunThisBinary: `kube generate` prints manifests
// that decode into client-go's types, and the controller pod's command
// line is one this build's profile command accepts, as a run over
// --workers N --worker-listen.
func TestKubeGenerateManifestsRunThisBinary(t *testing.T) {
	for _, sub := range [][]string{{"kube", "generate"}, {"kube", "profile", "--dry-run"}} {
		args := append(sub, "--name", "chat1", "--namespace", "perf", "--workers", "3", "--image", "reg/aiperf:v1",
			"--", "-m", "llama", "-u", "http://vllm:8000", "--streaming", "--concurrency", "300")
		r := runMain(t, context.Background(), nil, args...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d\n%s", sub, r.code, r.stderr)
		}
		var ctl *batchv1.Job
		kinds := 0
		for _, doc := range bytes.Split([]byte(r.stdout), []byte("\n---\n")) {
			obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(doc, nil, nil)
			if err != nil {
				t.Fatalf("%v: a manifest does not decode: %v\n%s", sub, err, doc)
			}
			kinds++
			if j, ok := obj.(*batchv1.Job); ok && strings.HasSuffix(j.Name, "-controller") {
				ctl = j
			}
		}
		if kinds != 6 || ctl == nil {
			t.Fatalf("%v: %d objects, controller job %v", sub, kinds, ctl != nil)
		}
		cfg := profile(t, ctl.Spec.Template.Spec.Containers[0].Args[1:]...)
		if cfg.Cluster.Workers != 3 || cfg.Cluster.WorkerListen != ":7070" || cfg.Load.Concurrency == nil || *cfg.Load.Concurrency != 300 {
			t.Errorf("%v: the controller pod's command parses to workers %d listen %q", sub, cfg.Cluster.Workers, cfg.Cluster.WorkerListen)
		}
	}
}

// TestKubeGenerateSweepWorkersRejoinEachRun: profile arguments that run
// a sweep make workers that stay for the controller's next runs.
func TestKubeGenerateSweepWorkersRejoinEachRun(t *testing.T) {
	for _, c := range []struct {
		conc string
		want bool
	}{{"8,16", true}, {"8", false}} {
		r := runMain(t, context.Background(), nil, "kube", "generate", "--", "-m", "m", "-u", "http://x:8000", "--concurrency", c.conc)
		if r.code != 0 || strings.Contains(r.stdout, "--next-run-timeout") != c.want {
			t.Errorf("--concurrency %s: exit %d; worker args with --next-run-timeout: %v, want %v\n%s", c.conc, r.code, !c.want, c.want, r.stderr)
		}
	}
}

func TestKubeGenerateRejectsBadInputBeforeDeploying(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"kube", "generate", "--workers", "2"}, "no profile arguments"},
		{[]string{"kube", "generate", "--", "-m", "m", "--concurrency", "-4"}, "--concurrency"},
		{[]string{"kube", "generate", "--", "-m", "m", "--workers", "3"}, "set by the controller pod itself"},
		{[]string{"kube", "profile", "--operator", "--no-operator", "--", "-m", "m"}, "choose one"},
		{[]string{"kube", "generate", "--operator", "--", "-m", "m", "--concurrency", "-4"}, "--concurrency"},
	} {
		r := runMain(t, context.Background(), nil, c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want usage error mentioning %q", c.args, r.code, r.stderr, c.want)
		}
	}
}

// TestKubeSweep: kube sweep runs only experiments; its multi-run flags
// become the controller's profile flags; a sweep config file (a kube init
// manifest of a sweep template) goes to the controller pod, whose workers
// rejoin each run; --operator writes an AIPerfSweep.
func TestKubeSweep(t *testing.T) {
	ctx := context.Background()
	r := runMain(t, ctx, nil, "kube", "sweep", "--dry-run", "--", "-m", "m", "-u", "http://x:8000", "--concurrency", "8")
	if r.code != 2 || !strings.Contains(r.stderr, "not a sweep") {
		t.Errorf("one run: exit %d %s", r.code, r.stderr)
	}
	r = runMain(t, ctx, nil, "kube", "sweep", "--dry-run", "--trials", "3", "--cooldown", "2.5", "--", "-m", "m", "-u", "http://x:8000")
	for _, want := range []string{"--num-profile-runs\n        - \"3\"", "--profile-run-cooldown-seconds\n        - \"2.5\"", "--next-run-timeout"} {
		if r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Errorf("--trials/--cooldown: exit %d, manifests lack %q\n%s%s", r.code, want, r.stdout, r.stderr)
		}
	}
	job := filepath.Join(t.TempDir(), "sweep.yaml")
	if r := runMain(t, ctx, nil, "kube", "init", "-t", "sweep_distributions", "--model", "m", "--url", "http://x:8000", "--job-name", "conc", "-o", job); r.code != 0 {
		t.Fatalf("kube init: %s", r.stderr)
	}
	r = runMain(t, ctx, nil, "kube", "sweep", "--dry-run", "-f", job)
	if r.code != 0 || !strings.Contains(r.stdout, "name: conc-controller") || !strings.Contains(r.stdout, "--next-run-timeout") || !strings.Contains(r.stdout, "sweep:") {
		t.Errorf("-f sweep manifest: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// --operator: an AIPerfSweep for the operator (kube profile --operator
	// of a sweep is refused: that is an AIPerfSweep's).
	r = runMain(t, ctx, nil, "kube", "sweep", "--operator", "--dry-run", "--trials", "2", "--", "-m", "m", "-u", "http://x:8000")
	if r.code != 0 || !strings.Contains(r.stdout, "kind: AIPerfSweep") || !strings.Contains(r.stdout, "sweep: {}") {
		t.Errorf("--operator --trials: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runMain(t, ctx, nil, "kube", "sweep", "--operator", "--dry-run", "-f", job)
	if r.code != 0 || !strings.Contains(r.stdout, "kind: AIPerfSweep") || !strings.Contains(r.stdout, "name: conc") || strings.Contains(r.stdout, "sweep: {}") {
		t.Errorf("--operator -f sweep manifest: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runMain(t, ctx, nil, "kube", "profile", "--operator", "--dry-run", "--", "-m", "m", "-u", "http://x:8000", "--concurrency", "8,16")
	if r.code != 2 || !strings.Contains(r.stderr, "submit it as an AIPerfSweep") {
		t.Errorf("profile --operator of a sweep: exit %d %s", r.code, r.stderr)
	}
}

// TestKubeCredentialsStayOutOfResources: an --api-key and -H values given
// after -- go into a Secret, in direct and operator mode alike; no other
// object printed holds them; --api-key-secret names a Secret of one's own.
func TestKubeCredentialsStayOutOfResources(t *testing.T) {
	const key = "sk-plaintext-0123456789"
	args := []string{"-m", "llama", "-u", "http://vllm:8000", "--concurrency", "4", "--request-count", "8", "--api-key", key, "-H", "X-Api-Key: " + key}
	for _, mode := range [][]string{{"generate"}, {"profile", "--operator", "--dry-run"}} {
		r := runMain(t, context.Background(), nil, append(append(append([]string{"kube"}, mode...), "--name", "chat", "--"), args...)...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d\n%s", mode, r.code, r.stderr)
		}
		if strings.Contains(r.stdout, key) || !strings.Contains(r.stdout, "kind: Secret") || !strings.Contains(r.stdout, "name: chat-credentials") {
			t.Errorf("%v: the key in plaintext, or no Secret:\n%s", mode, r.stdout)
		}
	}
	r := runMain(t, context.Background(), nil, "kube", "generate", "--name", "chat", "--api-key-secret", "openai/token", "--", "-m", "llama", "-u", "http://vllm:8000")
	if r.code != 0 || strings.Contains(r.stdout, "kind: Secret") || !strings.Contains(r.stdout, "$(AIPERF_API_KEY)") ||
		!strings.Contains(r.stdout, "name: openai") || !strings.Contains(r.stdout, "key: token") {
		t.Fatalf("--api-key-secret: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runMain(t, context.Background(), nil, "kube", "generate", "--api-key-secret", "Bad_Name", "--", "-m", "llama", "-u", "http://vllm:8000")
	if r.code != 2 || !strings.Contains(r.stderr, "--api-key-secret") {
		t.Fatalf("bad --api-key-secret: exit %d\n%s", r.code, r.stderr)
	}
}
