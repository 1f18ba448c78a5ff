package kubecli

import (
	"context"
	"encoding/json"
	"io/fs"
	"os/exec"
	"slices"
	"strconv"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/api"
	"github.com/aiperf-go/aiperf/internal/kube"
	"github.com/aiperf-go/aiperf/internal/kube/kubetest"
)

// kubeconfigFor writes a kubeconfig pointing at server.
func kubeconfigFor(t *testing.T, server string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "kubeconfig")
	cfg := "apiVersion: v1\nkind: Config\nclusters:\n- name: t\n  cluster:\n    server: " + server +
		"\ncontexts:\n- name: t\n  context:\n    cluster: t\n    user: u\nusers:\n- name: u\n  user: {}\ncurrent-context: t\n"
	if err := os.WriteFile(p, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// podBackend forwards to a pod's port at u; a pod not listening yet is a
// 503, as the API server's proxy answers.
func podBackend(u *url.URL) http.Handler {
	p := httputil.NewSingleHostReverseProxy(u)
	p.ErrorHandler = func(w http.ResponseWriter, _ *http.Request, err error) {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
	}
	return p
}

// controllerPod stands for a benchmark's controller pod whose API is a
// real api.Server over dir (the run's artifact directory), reached
// through kubetest's pod proxy as through a real API server's.
func controllerPod(t *testing.T, ns, name, dir string) (*kubetest.Pod, *api.Server) {
	t.Helper()
	srv, err := api.Start("127.0.0.1:0", api.Info{ArtifactDir: dir, SummaryFile: filepath.Join(dir, "profile_export_aiperf.json")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	u, _ := url.Parse(srv.URL())
	return &kubetest.Pod{
		Namespace: ns, Name: name + "-controller-abcde", Phase: "Running",
		Labels:  map[string]string{kube.LabelJob: name, kube.LabelRole: "controller"},
		Ports:   map[string]int{"cluster": kube.DefaultPort, kube.APIPortName: kube.DefaultAPIPort},
		Log:     "run finished\n",
		Backend: podBackend(u),
	}, srv
}

// TestKubeResultsAttachShutdownThroughThePodProxy: attach follows the
// controller's API until the run ends; results downloads the artifacts
// (all, or the summary files) through the API server's pod proxy;
// shutdown is refused while the run goes and accepted after, and the API
// then stops serving.
func TestKubeResultsAttachShutdownThroughThePodProxy(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"profile_export_aiperf.json": `{"request_count":{"unit":"requests","avg":40}}`,
		"profile_export_aiperf.csv":  "Metric,avg\nRequest Count,40\n",
		"profile_export.jsonl":       strings.Repeat(`{"metadata":{},"metrics":{}}`+"\n", 2000),
		"inputs.json":                `{"data":[]}`,
	}
	for n, c := range files {
		os.WriteFile(filepath.Join(dir, n), []byte(c), 0o644)
	}
	pod, srv := controllerPod(t, "perf", "chat1", dir)
	ks := kubetest.New(pod)
	defer ks.Close()
	kc := kubeconfigFor(t, ks.URL)
	ctx := context.Background()

	// While the run goes: no results, shutdown refused.
	r := runMain(t, ctx, nil, "kube", "results", "chat1", "-n", "perf", "--kubeconfig", kc, "-o", filepath.Join(t.TempDir(), "early"))
	if r.code != 1 || !strings.Contains(r.stderr, "still running") {
		t.Fatalf("results mid-run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runMain(t, ctx, nil, "kube", "shutdown", "chat1", "-n", "perf", "--kubeconfig", kc)
	if r.code != 0 || !strings.Contains(r.stdout, "still running") || !strings.Contains(r.stdout, "aiperf kube cancel chat1") {
		t.Fatalf("shutdown mid-run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// attach returns once the run is over.
	done := make(chan result, 1)
	go func() {
		done <- runMain(t, ctx, nil, "kube", "attach", "chat1", "-n", "perf", "--kubeconfig", kc, "--interval", "5ms")
	}()
	select {
	case r := <-done:
		t.Fatalf("attach returned mid-run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	case <-ks.WaitFor("GET", "/proxy/api/progress"): // only attach asks
	}
	srv.Finish(api.StatusComplete, "")
	r = <-done
	if r.code != 0 || !strings.Contains(r.stdout, "initializing") || !strings.Contains(r.stdout, "benchmark perf/chat1 complete") ||
		!strings.Contains(r.stdout, "aiperf kube results chat1 -n perf") {
		t.Fatalf("attach: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	out := filepath.Join(t.TempDir(), "sum")
	r = runMain(t, ctx, nil, "kube", "results", "chat1", "-n", "perf", "--kubeconfig", kc, "--summary-only", "-o", out)
	if r.code != 0 || !strings.Contains(r.stdout, "2 file(s) of benchmark perf/chat1 (complete)") {
		t.Fatalf("--summary-only: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if got, _ := filepath.Glob(filepath.Join(out, "*")); len(got) != 2 {
		t.Errorf("--summary-only wrote %v", got)
	}
	out = filepath.Join(t.TempDir(), "all")
	r = runMain(t, ctx, nil, "kube", "results", "chat1", "-n", "perf", "--kubeconfig", kc, "--from-pods", "--output", out, "--shutdown")
	if r.code != 0 || !strings.Contains(r.stdout, "4 file(s)") || !strings.Contains(r.stdout, "Shutdown requested for chat1") {
		t.Fatalf("results --shutdown: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for n, c := range files {
		if b, err := os.ReadFile(filepath.Join(out, n)); err != nil || string(b) != c {
			t.Errorf("%s: downloaded %d bytes, %v; want the %d the pod has", n, len(b), err, len(c))
		}
	}
	select {
	case <-srv.ShutdownRequested():
	default:
		t.Error("the controller's API was not asked to shut down")
	}
	// The pod has exited: its results are gone, and the commands say so.
	ks.SetPhase(pod.Name, "Succeeded")
	r = runMain(t, ctx, nil, "kube", "results", "chat1", "-n", "perf", "--kubeconfig", kc)
	if r.code != 1 || !strings.Contains(r.stderr, "is Succeeded") {
		t.Errorf("results after exit: exit %d\n%s", r.code, r.stderr)
	}
	r = runMain(t, ctx, nil, "kube", "attach", "chat1", "-n", "perf", "--kubeconfig", kc)
	if r.code != 0 || !strings.Contains(r.stdout, "Succeeded; its last log lines:\nrun finished") {
		t.Errorf("attach after exit: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runMain(t, ctx, nil, "kube", "attach", "nope", "-n", "perf", "--kubeconfig", kc, "--ignore-not-found")
	if r.code != 0 || !strings.Contains(r.stdout, "not found") {
		t.Errorf("attach --ignore-not-found: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// podCommand is container c's command line as this machine runs it: the
// pod's /results directory becomes dir, its addresses loopback ones, the
// downward-API $(POD_NAME) the pod's name.
func podCommand(t *testing.T, c corev1.Container, dir, podName string, controller string) *exec.Cmd {
	t.Helper()
	args := slices.Clone(c.Args)
	for i, a := range args {
		switch {
		case a == kube.ResultsDir:
			args[i] = dir
		case a == "0.0.0.0":
			args[i] = "127.0.0.1"
		case a == "$(POD_NAME)":
			args[i] = podName
		case strings.HasSuffix(a, ".svc:"+strconv.Itoa(kube.DefaultPort)) || strings.Contains(a, ".svc:"):
			args[i] = controller
		case strings.HasPrefix(a, ":"):
			args[i] = "127.0.0.1" + a
		}
	}
	cmd := aiperfCmd(t, args...)
	for _, e := range c.Env {
		if e.ValueFrom == nil {
			cmd.Env = append(cmd.Env, e.Name+"="+e.Value)
		}
	}
	return cmd
}

// TestKubeResultsOfARealControllerRun runs the generated controller and
// worker pods' command lines as processes against the mock, then
// attaches to the controller, downloads its real artifacts and shuts it
// down, all through the pod proxy: the controller pod's API outlives the
// run until `kube shutdown`, which ends its process with exit 0. The
// same for a sweep (what `kube sweep` runs in the controller pod): its
// runs' artifacts, in subdirectories, come back too.
func TestKubeResultsOfARealControllerRun(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end run")
	}
	mock := startMock(t, 5*time.Millisecond, time.Millisecond)
	common := []string{"-m", "mock-model", "-u", mock.URL, "--tokenizer", "builtin", "--isl", "16", "--osl", "4"}
	t.Run("one run", func(t *testing.T) {
		out, dir := runControllerPods(t, append(common, "--concurrency", "2", "--request-count", "10"), false)
		sum := readSummary(t, filepath.Join(out, "profile_export_aiperf.json"))
		var count struct{ Avg float64 }
		json.Unmarshal(sum["request_count"], &count)
		if count.Avg != 10 {
			t.Errorf("downloaded summary's request_count %s; want 10", sum["request_count"])
		}
		for _, f := range []string{"profile_export.jsonl", "profile_export_aiperf.csv", "cluster.json"} {
			a, _ := os.ReadFile(filepath.Join(dir, f))
			b, err := os.ReadFile(filepath.Join(out, f))
			if err != nil || len(a) == 0 || string(a) != string(b) {
				t.Errorf("%s: downloaded %d bytes (%v); the pod wrote %d", f, len(b), err, len(a))
			}
		}
	})
	t.Run("sweep", func(t *testing.T) {
		out, dir := runControllerPods(t, append(common, "--concurrency", "1,2", "--request-count", "4"), true)
		for _, v := range []string{"concurrency_1", "concurrency_2"} {
			sum := readSummary(t, filepath.Join(out, v, "profile_export_aiperf.json"))
			var count struct{ Avg float64 }
			json.Unmarshal(sum["request_count"], &count)
			if count.Avg != 4 {
				t.Errorf("%s: request_count %s; want 4", v, sum["request_count"])
			}
		}
		want, got := regularFiles(t, dir), regularFiles(t, out)
		if len(want) < 10 || !slices.Equal(got, want) {
			t.Errorf("downloaded %v;\nthe pod wrote %v", got, want)
		}
	})
}

// regularFiles lists the files under dir (not hidden ones) by relative
// path, sorted.
func regularFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err == nil && e.Type().IsRegular() && !strings.Contains(p, "/.") {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	slices.Sort(out)
	return out
}

// runControllerPods runs the controller and one worker of a benchmark
// with profileArgs (an experiment's: its worker rejoins each run) as
// processes, attaches to it, downloads its results
// and shuts it down through kubetest's pod proxy; it returns the
// download and the pod's artifact directories.
func runControllerPods(t *testing.T, profileArgs []string, experiment bool) (out, dir string) {
	t.Helper()
	o := kube.Options{Name: "e2e", Namespace: "perf", Workers: 1, Port: freePort(t), APIPort: freePort(t), ProfileArgs: profileArgs, Experiment: experiment}
	objs, err := kube.Objects(o)
	if err != nil {
		t.Fatal(err)
	}
	var ctlC, wC corev1.Container
	for _, obj := range objs {
		if j, ok := obj.(*batchv1.Job); ok {
			if j.Labels[kube.LabelRole] == "controller" {
				ctlC = j.Spec.Template.Spec.Containers[0]
			} else {
				wC = j.Spec.Template.Spec.Containers[0]
			}
		}
	}
	dir = t.TempDir()
	ctl := podCommand(t, ctlC, dir, "", "")
	var ctlOut lockedBuffer
	ctl.Stdout, ctl.Stderr = &ctlOut, &ctlOut
	if err := ctl.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- ctl.Wait() }()
	t.Cleanup(func() { ctl.Process.Kill() })
	w := podCommand(t, wC, dir, "e2e-workers-0", "127.0.0.1:"+strconv.Itoa(o.Port))
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Process.Kill(); w.Wait() })

	u, _ := url.Parse("http://127.0.0.1:" + strconv.Itoa(o.APIPort))
	pod := &kubetest.Pod{Namespace: "perf", Name: "e2e-controller-x1", Phase: "Running",
		Labels: map[string]string{kube.LabelJob: "e2e", kube.LabelRole: "controller"},
		Ports:  map[string]int{kube.APIPortName: o.APIPort}, Backend: podBackend(u)}
	ks := kubetest.New(pod)
	t.Cleanup(ks.Close)
	kc := kubeconfigFor(t, ks.URL)
	ctx := context.Background()
	r := runMain(t, ctx, nil, "kube", "attach", "e2e", "-n", "perf", "--kubeconfig", kc, "--interval", "50ms")
	if r.code != 0 || !strings.Contains(r.stdout, "benchmark perf/e2e complete") {
		t.Fatalf("attach: exit %d\n%s%s\ncontroller:\n%s", r.code, r.stdout, r.stderr, ctlOut.String())
	}
	out = filepath.Join(t.TempDir(), "got")
	r = runMain(t, ctx, nil, "kube", "results", "e2e", "-n", "perf", "--kubeconfig", kc, "-o", out, "--shutdown")
	if r.code != 0 || !strings.Contains(r.stdout, "Shutdown requested") || strings.Contains(r.stdout, "partial") {
		t.Fatalf("results: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("the controller exited with %v after kube shutdown; want 0\n%s", err, ctlOut.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("the controller did not exit after kube shutdown\n%s", ctlOut.String())
	}
	return out, dir
}
