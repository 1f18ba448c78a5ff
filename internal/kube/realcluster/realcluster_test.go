// Package realcluster runs aiperf kube end to end on a real Kubernetes
// cluster: real pods, a real kubelet, the image loaded into the node's
// container runtime. It runs only when AIPERF_TEST_KUBECONFIG names the
// cluster's kubeconfig (docs/kubernetes.md: localkube here, kind or a
// cloud cluster elsewhere), with the image already loaded
// (scripts/kube-image.sh) and helm built (scripts/helm.sh):
//
//	AIPERF_TEST_KUBECONFIG=$KUBECONFIG AIPERF_TEST_IMAGE=aiperf:dev AIPERF_TEST_HELM=$(scripts/helm.sh) \
//	  go test -v -timeout 30m ./internal/kube/realcluster/
package realcluster

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/aiperf-go/aiperf/internal/kube"
	"github.com/aiperf-go/aiperf/internal/kube/api/v1alpha1"
)

// The credentials every run is given; no object, log, status or
// artifact other than their Secret may hold them.
const (
	apiKey    = "sk-e2e-NEVER-IN-PLAINTEXT-7f3a91"
	headerKey = "hdr-e2e-NEVER-IN-PLAINTEXT-c4d2"
)

// cluster is the test's view of the real cluster.
type cluster struct {
	t          *testing.T
	kubeconfig string
	image      string
	pull       corev1.PullPolicy // the benchmark pods' (Never: the image is on the nodes)
	cs         kubernetes.Interface
	dyn        dynamic.Interface
	disc       discovery.DiscoveryInterface
	bin        string // the aiperf binary (aiperf-kube beside it)
	ns         string // the benchmarks' namespace
	mockURL    string
}

func setup(t *testing.T) *cluster {
	kc := os.Getenv("AIPERF_TEST_KUBECONFIG")
	if kc == "" {
		t.Skip("AIPERF_TEST_KUBECONFIG is not set: no real cluster (docs/kubernetes.md says how to run this test)")
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kc)
	if err != nil {
		t.Fatal(err)
	}
	c := &cluster{t: t, kubeconfig: kc, image: os.Getenv("AIPERF_TEST_IMAGE")}
	if c.image == "" {
		c.image = "aiperf:dev"
	}
	c.pull = corev1.PullPolicy(os.Getenv("AIPERF_TEST_PULL_POLICY"))
	if c.pull == "" {
		c.pull = corev1.PullNever
	}
	if c.cs, err = kubernetes.NewForConfig(cfg); err != nil {
		t.Fatal(err)
	}
	if c.dyn, err = dynamic.NewForConfig(cfg); err != nil {
		t.Fatal(err)
	}
	c.disc = c.cs.Discovery()
	c.bin = buildBinaries(t)
	c.ns = fmt.Sprintf("aiperf-e2e-%d", time.Now().Unix()%100000)
	ctx := context.Background()
	if _, err := c.cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: c.ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() && os.Getenv("AIPERF_TEST_KEEP") != "" {
			t.Logf("keeping namespace %s (AIPERF_TEST_KEEP)", c.ns)
			return
		}
		_ = c.cs.CoreV1().Namespaces().Delete(context.Background(), c.ns, metav1.DeleteOptions{})
	})
	c.startMock()
	return c
}

// buildBinaries builds aiperf and aiperf-kube from this checkout into a
// temporary directory: the test drives them as a user would.
func buildBinaries(t *testing.T) string {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Dir(strings.TrimSpace(string(out)))
	dir := t.TempDir()
	cmd := exec.Command("go", "build", "-o", dir+"/", "./cmd/aiperf", "./cmd/aiperf-kube")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOTOOLCHAIN=local")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	return filepath.Join(dir, "aiperf")
}

// aiperf runs `aiperf args...` against the cluster and returns its output
// and exit code.
func (c *cluster) aiperf(timeout time.Duration, args ...string) (string, int) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.bin, args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+c.kubeconfig, "HOME="+c.t.TempDir())
	out, err := cmd.CombinedOutput()
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		c.t.Fatalf("aiperf %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out), code
}

// mustAIPerf is aiperf that must exit 0.
func (c *cluster) mustAIPerf(timeout time.Duration, args ...string) string {
	c.t.Helper()
	out, code := c.aiperf(timeout, args...)
	if code != 0 {
		c.t.Fatalf("aiperf %s: exit %d\n%s", strings.Join(args, " "), code, out)
	}
	return out
}

// startMock runs `aiperf mock-server` as a pod behind a headless Service
// (pods reach each other by DNS; nothing leaves the cluster): each
// request takes about 0.2 s + 40 x 20 ms.
func (c *cluster) startMock() {
	ctx := context.Background()
	labels := map[string]string{"app": "mock"}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "mock", Namespace: c.ns, Labels: labels}, Spec: corev1.PodSpec{
		Containers: []corev1.Container{{Name: "mock", Image: c.image, ImagePullPolicy: c.pull, Command: []string{"/aiperf"},
			Args:           []string{"mock-server", "--host", "0.0.0.0", "-p", "8000", "--ttft", "200", "--itl", "20"},
			Ports:          []corev1.ContainerPort{{ContainerPort: 8000}},
			ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(8000)}}, PeriodSeconds: 1},
		}},
		SecurityContext: &corev1.PodSecurityContext{RunAsNonRoot: ptr(true), RunAsUser: ptr(int64(65532))},
	}}
	if _, err := c.cs.CoreV1().Pods(c.ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		c.t.Fatal(err)
	}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "mock", Namespace: c.ns}, Spec: corev1.ServiceSpec{
		ClusterIP: corev1.ClusterIPNone, Selector: labels, Ports: []corev1.ServicePort{{Name: "http", Port: 8000}}}}
	if _, err := c.cs.CoreV1().Services(c.ns).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		c.t.Fatal(err)
	}
	c.poll("the mock server pod ready", 3*time.Minute, func() (bool, error) {
		p, err := c.cs.CoreV1().Pods(c.ns).Get(ctx, "mock", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, cond := range p.Status.Conditions {
			if cond.Type == corev1.PodReady && cond.Status == corev1.ConditionTrue {
				return true, nil
			}
		}
		return false, nil
	})
	c.mockURL = fmt.Sprintf("http://mock.%s.svc:8000", c.ns)
}

// poll waits for ok, every half second, at most limit.
func (c *cluster) poll(what string, limit time.Duration, ok func() (bool, error)) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	if err := wait.PollUntilContextCancel(ctx, 500*time.Millisecond, true, func(context.Context) (bool, error) { return ok() }); err != nil {
		c.t.Fatalf("%s: not within %s: %v", what, limit, err)
	}
}

// profileArgs is a benchmark of n requests at concurrency 4 against the
// mock, with an API key and a credential header.
func (c *cluster) profileArgs(n int) []string {
	return []string{"-m", "mock-model", "-u", c.mockURL, "--endpoint-type", "chat", "--streaming", "--tokenizer", "builtin",
		"--concurrency", "4", "--request-count", strconv.Itoa(n), "--isl", "16", "--osl", "40", "--random-seed", "7",
		"--api-key", apiKey, "-H", "X-Api-Key: " + headerKey}
}

// submit runs `aiperf kube profile` (direct or operator mode) for a
// benchmark called name.
func (c *cluster) submit(name string, operator bool, workers, n int, image string) {
	c.t.Helper()
	// The image is on the node already: pods never pull (no egress).
	args := []string{"kube", "profile", "--name", name, "-n", c.ns, "--image", image, "--image-pull-policy", string(c.pull),
		"--workers", strconv.Itoa(workers), "--results-linger", "10m"}
	if operator {
		args = append(args, "--operator")
	}
	c.mustAIPerf(time.Minute, append(append(args, "--"), c.profileArgs(n)...)...)
}

// record is one line of profile_export.jsonl.
type record struct {
	ID, Error  string
	Seq        int64
	Start, End time.Time
}

func readRecords(t *testing.T, dir string) []record {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "profile_export.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []record
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var l struct {
			Metadata struct {
				XRequestID string `json:"x_request_id"`
				SessionNum int64  `json:"session_num"`
				StartNs    int64  `json:"request_start_ns"`
				EndNs      int64  `json:"request_end_ns"`
			} `json:"metadata"`
			Error *struct {
				Type string `json:"type"`
			} `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("profile_export.jsonl: %v", err)
		}
		r := record{ID: l.Metadata.XRequestID, Seq: l.Metadata.SessionNum,
			Start: time.Unix(0, l.Metadata.StartNs), End: time.Unix(0, l.Metadata.EndNs)}
		if l.Error != nil {
			r.Error = l.Error.Type
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// checkRecords: n records (every request present), none twice.
func checkRecords(t *testing.T, recs []record, n int) {
	t.Helper()
	if len(recs) != n {
		t.Errorf("%d records, want %d", len(recs), n)
	}
	seen := map[string]bool{}
	for _, r := range recs {
		if r.ID == "" || seen[r.ID] {
			t.Errorf("record %q missing its id or recorded twice", r.ID)
		}
		seen[r.ID] = true
	}
}

// fetch runs `kube results NAME --shutdown` into a new directory and
// checks that what came is what the controller pod lists (names and
// sizes), read from its API before.
func (c *cluster) fetch(name string) string {
	c.t.Helper()
	ctx := context.Background()
	capi, err := kube.NewControllerAPI(ctx, c.cs, c.ns, name)
	if err != nil {
		c.t.Fatal(err)
	}
	list, err := capi.Files(ctx)
	if err != nil || !list.Ready {
		c.t.Fatalf("the controller's artifact list: %+v %v", list, err)
	}
	res, err := capi.Result(ctx)
	if err != nil {
		c.t.Fatal(err)
	}
	resJSON, _ := json.Marshal(res)
	noPlaintext(c.t, "the results API's /api/results", resJSON)
	dir := filepath.Join(c.t.TempDir(), name)
	c.mustAIPerf(5*time.Minute, "kube", "results", name, "-n", c.ns, "-o", dir, "--shutdown")
	for _, f := range list.Files {
		st, err := os.Stat(filepath.Join(dir, filepath.FromSlash(f.Name)))
		if err != nil || st.Size() != f.Size {
			c.t.Errorf("artifact %s: fetched %v (%v), the controller has %d bytes", f.Name, st, err, f.Size)
			continue
		}
		b, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.Name)))
		noPlaintext(c.t, "artifact "+f.Name, b)
	}
	return dir
}

// noPlaintext fails when b holds a credential.
func noPlaintext(t *testing.T, where string, b []byte) {
	t.Helper()
	for _, s := range []string{apiKey, headerKey} {
		if bytes.Contains(b, []byte(s)) {
			t.Errorf("a credential in plaintext in %s", where)
		}
	}
}

// sweepForSecrets reads every object of every namespaced kind in the
// namespace (Secrets aside: that is where the credentials belong, and
// they must be there) and every container log, and requires no
// credential in any; the AIPerfJobs, their status and the Events are
// among them.
func (c *cluster) sweepForSecrets() {
	t := c.t
	t.Helper()
	ctx := context.Background()
	lists, err := c.disc.ServerPreferredNamespacedResources()
	if err != nil && len(lists) == 0 {
		t.Fatal(err)
	}
	kinds := 0
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range l.APIResources {
			if strings.Contains(r.Name, "/") || !slices.Contains(r.Verbs, "list") || r.Name == "secrets" {
				continue
			}
			items, err := c.dyn.Resource(gv.WithResource(r.Name)).Namespace(c.ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				continue // not listable here (permissions, aggregated APIs)
			}
			kinds++
			b, _ := json.Marshal(items)
			noPlaintext(t, gv.WithResource(r.Name).String(), b)
		}
	}
	if kinds < 10 {
		t.Fatalf("only %d kinds listed", kinds)
	}
	secrets, err := c.cs.CoreV1().Secrets(c.ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	held := false
	for _, s := range secrets.Items {
		for _, v := range s.Data {
			held = held || string(v) == apiKey
		}
	}
	if !held {
		t.Error("no Secret holds the API key")
	}
	pods, err := c.cs.CoreV1().Pods(c.ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pods.Items {
		if p.Name == "mock" {
			continue // the server: it is sent the key
		}
		for _, ct := range p.Spec.Containers {
			b, err := c.cs.CoreV1().Pods(c.ns).GetLogs(p.Name, &corev1.PodLogOptions{Container: ct.Name}).DoRaw(ctx)
			if err == nil {
				noPlaintext(t, "the log of "+p.Name, b)
			}
		}
	}
}

// statusSeen is one status of an AIPerfJob as a watch saw it.
type statusSeen struct {
	at        time.Time
	phase     v1alpha1.Phase
	connected int32
	completed int64
	reason    string
}

// watchStatus records every status of the AIPerfJob called name from
// now until stop is called, which returns what was seen.
func (c *cluster) watchStatus(name string) (stop func() []statusSeen) {
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	var seen []statusSeen
	done := make(chan struct{})
	go func() {
		defer close(done)
		res := c.dyn.Resource(v1alpha1.AIPerfJobResource).Namespace(c.ns)
		rv := ""
		for ctx.Err() == nil {
			w, err := res.Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + name, ResourceVersion: rv})
			if err != nil { // a watch that could not start: start it again
				select {
				case <-ctx.Done():
				case <-time.After(200 * time.Millisecond):
				}
				continue
			}
			for ev := range w.ResultChan() {
				u, ok := ev.Object.(*unstructured.Unstructured)
				if !ok {
					continue
				}
				rv = u.GetResourceVersion()
				var j v1alpha1.AIPerfJob
				b, _ := json.Marshal(u.Object)
				if json.Unmarshal(b, &j) != nil {
					continue
				}
				s := statusSeen{at: time.Now(), phase: j.Status.Phase}
				if j.Status.Workers != nil {
					s.connected = j.Status.Workers.Connected
				}
				if j.Status.Progress != nil {
					s.completed = j.Status.Progress.RequestsCompleted
				}
				for _, cond := range j.Status.Conditions {
					if cond.Type == v1alpha1.ConditionBenchmarkRunning || cond.Type == v1alpha1.ConditionFailed && cond.Status == metav1.ConditionTrue {
						s.reason = cond.Reason
					}
				}
				mu.Lock()
				seen = append(seen, s)
				mu.Unlock()
			}
		}
	}()
	return func() []statusSeen {
		cancel()
		<-done
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(seen)
	}
}

// phases is the sequence of distinct phases seen, in order, with when
// each was first seen.
func phases(seen []statusSeen) ([]v1alpha1.Phase, []time.Time) {
	var ps []v1alpha1.Phase
	var at []time.Time
	for _, s := range seen {
		if s.phase != "" && (len(ps) == 0 || ps[len(ps)-1] != s.phase) {
			ps = append(ps, s.phase)
			at = append(at, s.at)
		}
	}
	return ps, at
}

// within fails when the status saw an event more than slack after (or
// before) the truth.
func within(t *testing.T, what string, seen, truth time.Time, slack time.Duration) {
	t.Helper()
	d := seen.Sub(truth)
	t.Logf("%s: status %+.1fs from the records", what, d.Seconds())
	if d > slack || d < -slack {
		t.Errorf("%s: the status said it %s from the truth (more than %s)", what, d.Round(100*time.Millisecond), slack)
	}
}

func (c *cluster) aiperfJob(name string) *v1alpha1.AIPerfJob {
	c.t.Helper()
	u, err := c.dyn.Resource(v1alpha1.AIPerfJobResource).Namespace(c.ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		c.t.Fatal(err)
	}
	var j v1alpha1.AIPerfJob
	b, _ := json.Marshal(u.Object)
	if err := json.Unmarshal(b, &j); err != nil {
		c.t.Fatal(err)
	}
	return &j
}

func (c *cluster) waitPhase(name string, want v1alpha1.Phase, limit time.Duration) *v1alpha1.AIPerfJob {
	c.t.Helper()
	var j *v1alpha1.AIPerfJob
	c.poll(name+" "+string(want), limit, func() (bool, error) {
		j = c.aiperfJob(name)
		return j.Status.Phase == want, nil
	})
	return j
}

// benchmarkPods lists the pods of a benchmark with role ("" for all).
func (c *cluster) benchmarkPods(name, role string) []corev1.Pod {
	c.t.Helper()
	sel := kube.LabelJob + "=" + name
	if role != "" {
		sel += "," + kube.LabelRole + "=" + role
	}
	pods, err := c.cs.CoreV1().Pods(c.ns).List(context.Background(), metav1.ListOptions{LabelSelector: sel})
	if err != nil {
		c.t.Fatal(err)
	}
	return pods.Items
}

// installOperator installs the Helm chart (deploy/helm/aiperf-operator)
// with a real helm and waits for the operator to be ready.
func (c *cluster) installOperator() {
	t := c.t
	helm := os.Getenv("AIPERF_TEST_HELM")
	if helm == "" {
		t.Fatal("AIPERF_TEST_HELM is not set: the operator is installed with its Helm chart (AIPERF_TEST_HELM=$(scripts/helm.sh))")
	}
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatal(err)
	}
	chart := filepath.Join(filepath.Dir(strings.TrimSpace(string(out))), "deploy", "helm", "aiperf-operator")
	ns, release := c.ns+"-op", "aiperf-operator"
	run := func(args ...string) {
		cmd := exec.Command(helm, append(args, "--kubeconfig", c.kubeconfig)...)
		cmd.Env = append(os.Environ(), "HELM_CACHE_HOME="+t.TempDir(), "HELM_CONFIG_HOME="+t.TempDir(), "HELM_DATA_HOME="+t.TempDir())
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("helm %s: %v\n%s", strings.Join(args, " "), err, b)
		}
	}
	run("upgrade", "--install", release, chart, "--namespace", ns, "--create-namespace", "--set-string", "image="+c.image,
		"--set-string", "watchNamespace="+c.ns, "--wait", "--timeout", "5m")
	t.Cleanup(func() {
		if t.Failed() && os.Getenv("AIPERF_TEST_KEEP") != "" {
			return
		}
		cmd := exec.Command(helm, "uninstall", release, "--namespace", ns, "--kubeconfig", c.kubeconfig, "--wait")
		cmd.Env = append(os.Environ(), "HELM_CACHE_HOME="+t.TempDir(), "HELM_CONFIG_HOME="+t.TempDir(), "HELM_DATA_HOME="+t.TempDir())
		_ = cmd.Run()
		_ = c.cs.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{})
	})
	// The chart's objects are kube install's (TestHelmChartEqualsInstall
	// renders both): here, that the installed operator is the one running.
	d, err := c.cs.AppsV1().Deployments(ns).Get(context.Background(), release, metav1.GetOptions{})
	if err != nil || d.Status.ReadyReplicas != 1 {
		t.Fatalf("operator Deployment: %v %+v", err, d.Status)
	}
}

// operatorRestarts is how often the operator's container restarted.
func (c *cluster) operatorRestarts() int32 {
	pods, err := c.cs.CoreV1().Pods(c.ns+"-op").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		c.t.Fatal(err)
	}
	var n int32
	for _, p := range pods.Items {
		for _, s := range p.Status.ContainerStatuses {
			n += s.RestartCount
		}
	}
	return n
}

// TestRealCluster plays a user's session on a real cluster: direct mode,
// the operator installed from its Helm chart and its status watched from
// outside while a run goes, cancel, delete, a worker pod deleted mid-run
// and an image that does not exist; with credentials in every run, which
// no object, log, status or artifact may hold.
func TestRealCluster(t *testing.T) {
	c := setup(t)
	ctx := context.Background()

	t.Run("direct", func(t *testing.T) {
		c := *c
		c.t = t
		const n = 40
		c.submit("direct", false, 2, n, c.image)
		out := c.mustAIPerf(10*time.Minute, "kube", "attach", "direct", "-n", c.ns, "--interval", "1s")
		if !strings.Contains(out, "complete") {
			t.Fatalf("attach:\n%s", out)
		}
		for _, p := range c.benchmarkPods("direct", "") {
			ct := p.Spec.Containers[0]
			if !strings.HasSuffix(c.mockURL, ".svc:8000") || ct.ImagePullPolicy != c.pull {
				t.Errorf("pod %s could reach outside the machine: image pull %s", p.Name, ct.ImagePullPolicy)
			}
		}
		c.sweepForSecrets()
		dir := c.fetch("direct")
		recs := readRecords(t, dir)
		checkRecords(t, recs, n)
		for _, r := range recs {
			if r.Error != "" {
				t.Errorf("record %s failed: %s", r.ID, r.Error)
			}
		}
		c.mustAIPerf(time.Minute, "kube", "delete", "direct", "-n", c.ns)
	})

	t.Run("worker-pod-deleted", func(t *testing.T) {
		c := *c
		c.t = t
		const n = 60
		c.submit("lose", false, 2, n, c.image)
		var capi *kube.ControllerAPI
		c.poll("some requests completed", 5*time.Minute, func() (bool, error) {
			var err error
			if capi == nil {
				if capi, err = kube.NewControllerAPI(ctx, c.cs, c.ns, "lose"); err != nil {
					capi = nil
					return false, nil
				}
			}
			p, err := capi.Progress(ctx)
			return err == nil && p.Phases["profiling"].RequestsCompleted >= 8, nil
		})
		victims := c.benchmarkPods("lose", "worker")
		if len(victims) != 2 {
			t.Fatalf("%d worker pods", len(victims))
		}
		if err := c.cs.CoreV1().Pods(c.ns).Delete(ctx, victims[0].Name, metav1.DeleteOptions{GracePeriodSeconds: ptr(int64(0))}); err != nil {
			t.Fatal(err)
		}
		out, code := c.aiperf(10*time.Minute, "kube", "attach", "lose", "-n", c.ns, "--interval", "1s")
		t.Logf("attach (exit %d):\n%s", code, out)
		dir := c.fetch("lose")
		recs := readRecords(t, dir)
		checkRecords(t, recs, n)
		lost := 0
		for _, r := range recs {
			switch r.Error {
			case "":
			case "WorkerLostError":
				lost++
			default:
				t.Errorf("record %s: %s", r.ID, r.Error)
			}
		}
		if lost == 0 {
			t.Error("no request recorded as lost with the deleted worker (it had requests in flight)")
		}
		c.mustAIPerf(time.Minute, "kube", "delete", "lose", "-n", c.ns)
	})

	c.installOperator()
	restarts := c.operatorRestarts()

	t.Run("operator", func(t *testing.T) {
		c := *c
		c.t = t
		const n = 60
		stop := c.watchStatus("op")
		c.submit("op", true, 2, n, c.image)
		// attach right after submitting: it waits for the controller pod.
		out := c.mustAIPerf(10*time.Minute, "kube", "attach", "op", "-n", c.ns, "--interval", "1s")
		if !strings.Contains(out, "complete") {
			t.Fatalf("attach:\n%s", out)
		}
		j := c.waitPhase("op", v1alpha1.PhaseCompleted, time.Minute)
		if j.Status.Workers == nil || j.Status.Workers.Connected != 2 {
			t.Errorf("workers %+v", j.Status.Workers)
		}
		c.sweepForSecrets()
		if j.Spec.APIKeySecret == nil || len(j.Spec.HeaderSecrets) != 1 || slices.Contains(j.Spec.ProfileArgs, apiKey) {
			t.Errorf("the AIPerfJob does not name its Secret: %+v", j.Spec)
		}
		dir := c.fetch("op")
		recs := readRecords(t, dir)
		checkRecords(t, recs, n)
		// The truth, from the records: the first request went out once
		// every worker had connected; the last one ended the run.
		first, last := recs[0].Start, recs[0].End
		for _, r := range recs {
			if r.Start.Before(first) {
				first = r.Start
			}
			if r.End.After(last) {
				last = r.End
			}
		}
		// After the controller's API is gone and its pod exits, the
		// status stays Completed.
		c.poll("the controller pod gone", 3*time.Minute, func() (bool, error) {
			for _, p := range c.benchmarkPods("op", "controller") {
				if p.Status.Phase == corev1.PodRunning || p.Status.Phase == corev1.PodPending {
					return false, nil
				}
			}
			return true, nil
		})
		c.poll("the status settled after the pod exited", time.Minute, func() (bool, error) {
			j := c.aiperfJob("op")
			for _, cond := range j.Status.Conditions {
				if cond.Type == v1alpha1.ConditionResultsAvailable && cond.Status == metav1.ConditionFalse && j.Status.Phase == v1alpha1.PhaseCompleted {
					return true, nil // no pod serves the results any more
				}
			}
			return false, nil
		})
		seen := stop()
		ps, at := phases(seen)
		want := []v1alpha1.Phase{v1alpha1.PhasePending, v1alpha1.PhaseInitializing, v1alpha1.PhaseRunning, v1alpha1.PhaseCompleted}
		t.Logf("phases %v at %v", ps, at)
		if !slices.Equal(ps, want) {
			t.Fatalf("the status went %v, want %v", ps, want)
		}
		// Running when the workers connected and the first request went
		// out, Completed when the last one ended, each within a few seconds.
		within(t, "Running", at[2], first, 5*time.Second)
		within(t, "Completed", at[3], last, 5*time.Second)
		var moving []int64
		for _, s := range seen {
			if s.phase == v1alpha1.PhaseRunning {
				if s.connected != 2 {
					t.Errorf("Running with %d of 2 workers connected", s.connected)
				}
				if len(moving) == 0 || moving[len(moving)-1] != s.completed {
					moving = append(moving, s.completed)
				}
			}
		}
		t.Logf("completed counts while Running: %v", moving)
		if len(moving) < 2 || !slices.IsSorted(moving) {
			t.Errorf("progress did not move while running: %v", moving)
		}
		c.mustAIPerf(time.Minute, "kube", "delete", "op", "-n", c.ns)
	})

	t.Run("operator-cancel-delete", func(t *testing.T) {
		c := *c
		c.t = t
		const n = 400
		c.submit("opcancel", true, 2, n, c.image)
		c.poll("opcancel running with requests done", 5*time.Minute, func() (bool, error) {
			j := c.aiperfJob("opcancel")
			return j.Status.Phase == v1alpha1.PhaseRunning && j.Status.Progress != nil && j.Status.Progress.RequestsCompleted >= 8, nil
		})
		c.mustAIPerf(time.Minute, "kube", "cancel", "opcancel", "-n", c.ns)
		c.waitPhase("opcancel", v1alpha1.PhaseCancelled, time.Minute)
		c.poll("the worker pods gone", 2*time.Minute, func() (bool, error) { return len(c.benchmarkPods("opcancel", "worker")) == 0, nil })
		c.poll("the partial artifacts served", 2*time.Minute, func() (bool, error) {
			capi, err := kube.NewControllerAPI(ctx, c.cs, c.ns, "opcancel")
			if err != nil {
				return false, nil
			}
			l, err := capi.Files(ctx)
			return err == nil && l.Ready, nil
		})
		dir := c.fetch("opcancel")
		recs := readRecords(t, dir)
		if len(recs) == 0 || len(recs) >= n {
			t.Errorf("%d records after a cancel mid-run; want a partial run", len(recs))
		}
		c.mustAIPerf(time.Minute, "kube", "delete", "opcancel", "-n", c.ns)
		c.poll("every object of opcancel gone", 2*time.Minute, func() (bool, error) {
			_, err := c.dyn.Resource(v1alpha1.AIPerfJobResource).Namespace(c.ns).Get(ctx, "opcancel", metav1.GetOptions{})
			if !apierrors.IsNotFound(err) {
				return false, nil
			}
			sel := metav1.ListOptions{LabelSelector: kube.LabelJob + "=opcancel"}
			jobs, _ := c.cs.BatchV1().Jobs(c.ns).List(ctx, sel)
			pods, _ := c.cs.CoreV1().Pods(c.ns).List(ctx, sel)
			cms, _ := c.cs.CoreV1().ConfigMaps(c.ns).List(ctx, sel)
			svcs, _ := c.cs.CoreV1().Services(c.ns).List(ctx, sel)
			sas, _ := c.cs.CoreV1().ServiceAccounts(c.ns).List(ctx, sel)
			secrets, _ := c.cs.CoreV1().Secrets(c.ns).List(ctx, sel)
			return len(jobs.Items)+len(pods.Items)+len(cms.Items)+len(svcs.Items)+len(sas.Items)+len(secrets.Items) == 0, nil
		})
	})

	t.Run("image-does-not-exist", func(t *testing.T) {
		c := *c
		c.t = t
		if c.pull != corev1.PullNever {
			t.Skip("AIPERF_TEST_PULL_POLICY is not Never: a missing image would be pulled for")
		}
		c.submit("noimage", true, 1, 10, "aiperf:does-not-exist-e2e")
		// Not on the node and never pulled: the job fails with the
		// kubelet's reason, its pods stopped, rather than wait forever.
		j := c.waitPhase("noimage", v1alpha1.PhaseFailed, 3*time.Minute)
		if !strings.Contains(j.Status.Error, "ErrImageNeverPull") || !strings.Contains(j.Status.Error, "does-not-exist-e2e") {
			t.Errorf("failed, but the status does not say why: %q", j.Status.Error)
		}
		c.poll("the stuck pods stopped", 2*time.Minute, func() (bool, error) { return len(c.benchmarkPods("noimage", "")) == 0, nil })
		c.mustAIPerf(time.Minute, "kube", "delete", "noimage", "-n", c.ns)
	})

	if got := c.operatorRestarts(); got != restarts {
		t.Errorf("the operator restarted %d times during the runs", got-restarts)
	}
}

func ptr[T any](v T) *T { return &v }
