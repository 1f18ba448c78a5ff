package kube

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// The controller pod serves the run's HTTP API (aiperf profile
// --api-port: AIPerf's /api/progress, /api/results, /api/results/files,
// POST /api/shutdown) and keeps serving it after the run, for
// ResultsLinger or until POST /api/shutdown, so the artifacts can be
// fetched from its emptyDir before the pod exits. The CLI reaches it
// through the API server's pod proxy (pods/proxy), so no port-forward and
// no exec into the distroless image is needed.
const (
	DefaultAPIPort = 9090
	// APIPortName names the controller container's API port.
	APIPortName = "api"
)

// ControllerAPI is one benchmark's controller pod's HTTP API, reached
// through the API server's pod proxy.
type ControllerAPI struct {
	rc             rest.Interface
	Namespace, Pod string
	Port           int
	// Phase is the pod's phase when it was found.
	Phase corev1.PodPhase
}

// ErrNoController says the benchmark has no controller pod to talk to.
var ErrNoController = errors.New("no running controller pod")

// ControllerPod returns the benchmark's controller pod: a running one
// first, else the newest.
func ControllerPod(ctx context.Context, cs kubernetes.Interface, namespace, name string) (*corev1.Pod, error) {
	pods, err := cs.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: LabelJob + "=" + name + "," + LabelRole + "=controller"})
	if err != nil {
		return nil, fmt.Errorf("listing the controller pod of %s/%s: %w", namespace, name, err)
	}
	var best *corev1.Pod
	for i := range pods.Items {
		p := &pods.Items[i]
		switch {
		case best == nil, p.Status.Phase == corev1.PodRunning && best.Status.Phase != corev1.PodRunning,
			p.Status.Phase == best.Status.Phase && best.CreationTimestamp.Before(&p.CreationTimestamp):
			best = p
		}
	}
	if best == nil {
		return nil, fmt.Errorf("benchmark %s/%s: %w (none created yet, or deleted)", namespace, name, ErrNoController)
	}
	return best, nil
}

// NewControllerAPI finds the benchmark's controller pod; it must be
// running (its API lives as long as its process).
func NewControllerAPI(ctx context.Context, cs kubernetes.Interface, namespace, name string) (*ControllerAPI, error) {
	p, err := ControllerPod(ctx, cs, namespace, name)
	if err != nil {
		return nil, err
	}
	if p.Status.Phase != corev1.PodRunning {
		return nil, fmt.Errorf("benchmark %s/%s: %w: pod %s is %s (after the run the controller serves its results until `aiperf kube shutdown` or its linger time; an exited pod's results are gone)",
			namespace, name, ErrNoController, p.Name, p.Status.Phase)
	}
	port := DefaultAPIPort
	for _, c := range p.Spec.Containers {
		for _, cp := range c.Ports {
			if cp.Name == APIPortName {
				port = int(cp.ContainerPort)
			}
		}
	}
	return &ControllerAPI{rc: restClient(cs), Namespace: namespace, Pod: p.Name, Port: port, Phase: p.Status.Phase}, nil
}

// restClient is cs's core REST client; client-go's fake clientset has
// none (a nil pointer), which requests report as an error.
func restClient(cs kubernetes.Interface) rest.Interface {
	rc := cs.CoreV1().RESTClient()
	if c, ok := rc.(*rest.RESTClient); ok && c == nil {
		return nil
	}
	return rc
}

func (c *ControllerAPI) request(method, p string) (*rest.Request, error) {
	if c.rc == nil {
		return nil, errors.New("this Kubernetes client cannot proxy to pods")
	}
	p, query, _ := strings.Cut(p, "?")
	req := c.rc.Verb(method).Namespace(c.Namespace).Resource("pods").Name(c.Pod + ":" + strconv.Itoa(c.Port)).
		SubResource("proxy").Suffix(strings.TrimPrefix(p, "/"))
	for _, kv := range strings.Split(query, "&") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			req = req.Param(k, v)
		}
	}
	return req, nil
}

// do sends one request and returns the answer's status and body; a
// non-2xx answer of the controller is not an error.
func (c *ControllerAPI) do(ctx context.Context, method, p string) (int, []byte, error) {
	req, err := c.request(method, p)
	if err != nil {
		return 0, nil, err
	}
	res := req.Do(ctx)
	code := 0
	res.StatusCode(&code)
	body, err := res.Raw()
	if code >= 300 {
		return code, body, nil // the controller's (or the proxy's) answer
	}
	if err != nil {
		return code, nil, fmt.Errorf("%s %s on pod %s/%s: %w", method, p, c.Namespace, c.Pod, err)
	}
	return code, body, nil
}

func (c *ControllerAPI) getJSON(ctx context.Context, p string, v any) error {
	code, body, err := c.do(ctx, http.MethodGet, p)
	if err != nil {
		return err
	}
	if code != http.StatusOK {
		return fmt.Errorf("GET %s on pod %s/%s: HTTP %d: %s", p, c.Namespace, c.Pod, code, strings.TrimSpace(string(body)))
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("GET %s on pod %s/%s: %w", p, c.Namespace, c.Pod, err)
	}
	return nil
}

// RunResult is /api/results: the run's status (running, complete,
// cancelled, incomplete, failed), its error and its summary JSON.
type RunResult struct {
	Status  string          `json:"status"`
	Error   string          `json:"error,omitempty"`
	Results json.RawMessage `json:"results,omitempty"`
}

// Result reads /api/results.
func (c *ControllerAPI) Result(ctx context.Context) (RunResult, error) {
	var r RunResult
	return r, c.getJSON(ctx, "/api/results", &r)
}

// PhaseProgress is one phase of /api/progress.
type PhaseProgress struct {
	Phase             string   `json:"phase"`
	RequestsSent      int      `json:"requests_sent"`
	RequestsCompleted int      `json:"requests_completed"`
	RequestErrors     int      `json:"request_errors"`
	TotalExpected     *int     `json:"total_expected_requests"`
	Progress          *float64 `json:"requests_progress_percent"`
	IsComplete        bool     `json:"is_complete"`
}

// Progress is /api/progress.
type Progress struct {
	Phases          map[string]PhaseProgress `json:"phases"`
	SystemState     string                   `json:"system_state"`
	ResultsExported bool                     `json:"results_exported"`
}

// Progress reads /api/progress.
func (c *ControllerAPI) Progress(ctx context.Context) (Progress, error) {
	var p Progress
	return p, c.getJSON(ctx, "/api/progress", &p)
}

// File is one artifact of /api/results/list.
type File struct {
	Name string `json:"name"`
	Size int64  `json:"size"`
}

// FileList is /api/results/list: the artifacts, once the run is over.
type FileList struct {
	Files   []File `json:"files"`
	Ready   bool   `json:"ready"`
	Partial bool   `json:"partial"`
}

// Files reads /api/results/list?recursive=true: every artifact, those of
// an experiment's runs (in subdirectories) by relative path.
func (c *ControllerAPI) Files(ctx context.Context) (FileList, error) {
	var l FileList
	return l, c.getJSON(ctx, "/api/results/list?recursive=true", &l)
}

// Download copies the artifact name (a slash-separated path relative to
// the artifact directory) under dir and returns its size.
func (c *ControllerAPI) Download(ctx context.Context, name, dir string) (int64, error) {
	if name == "" || path.Clean(name) != name || path.IsAbs(name) || strings.HasPrefix(name, ".") || strings.Contains(name, "/.") || strings.Contains(name, "\\") {
		return 0, fmt.Errorf("artifact name %q: not a path inside the artifact directory", name)
	}
	dir = filepath.Join(dir, filepath.FromSlash(path.Dir(name)))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	req, err := c.request(http.MethodGet, "/api/results/files/"+name)
	if err != nil {
		return 0, err
	}
	rc, err := req.Stream(ctx)
	if err != nil {
		return 0, fmt.Errorf("downloading %s from pod %s/%s: %w", name, c.Namespace, c.Pod, err)
	}
	defer rc.Close()
	base := path.Base(name)
	tmp, err := os.CreateTemp(dir, "."+base+".*")
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(tmp, rc)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(dir, base))
	}
	if err != nil {
		os.Remove(tmp.Name())
		return n, fmt.Errorf("downloading %s from pod %s/%s: %w", name, c.Namespace, c.Pod, err)
	}
	return n, nil
}

// ErrStillRunning is Shutdown's answer while the run goes on (the API
// refuses with 409, as AIPerf's).
var ErrStillRunning = errors.New("the benchmark is still running")

// Shutdown asks the controller's API to stop serving (POST
// /api/shutdown), which lets its process, and so the pod, exit.
func (c *ControllerAPI) Shutdown(ctx context.Context) error {
	code, body, err := c.do(ctx, http.MethodPost, "/api/shutdown")
	switch {
	case err != nil:
		return err
	case code == http.StatusConflict:
		return ErrStillRunning
	case code >= 300:
		return fmt.Errorf("POST /api/shutdown on pod %s/%s: HTTP %d: %s", c.Namespace, c.Pod, code, strings.TrimSpace(string(body)))
	}
	return nil
}

// SummaryFiles are what `kube results --summary-only` fetches (AIPerf's
// key result files, and the CSV summary), those of them the run wrote,
// in every run's directory of an experiment.
var SummaryFiles = []string{"profile_export_aiperf.json", "profile_export_aiperf.csv", "profile_export_console.txt", "metrics.json"}

// FetchResults downloads the run's artifacts (only SummaryFiles with
// summaryOnly) into dir, which it creates. It needs the run to be over.
func (c *ControllerAPI) FetchResults(ctx context.Context, dir string, summaryOnly bool) ([]File, FileList, error) {
	l, err := c.Files(ctx)
	if err != nil {
		return nil, l, err
	}
	if !l.Ready {
		return nil, l, fmt.Errorf("pod %s/%s: %w: no results yet (attach to it, or cancel it for partial results)", c.Namespace, c.Pod, ErrStillRunning)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, l, err
	}
	var got []File
	for _, f := range l.Files {
		if summaryOnly && !slices.Contains(SummaryFiles, path.Base(f.Name)) {
			continue
		}
		n, err := c.Download(ctx, f.Name, dir)
		if err != nil {
			return got, l, err
		}
		got = append(got, File{Name: f.Name, Size: n})
	}
	return got, l, nil
}

// WaitControllerPod waits, looking every interval, until the benchmark's
// controller pod runs or has ended, so that following a benchmark right
// after submitting it works: its objects may still be on their way (the
// operator creates them), its pod being scheduled or pulling its image.
// waiting, when set, is told what is awaited each time that changes. It
// fails at once when a pod of the benchmark can never start (a
// StartProblem that is Fatal), and when ctx ends.
func WaitControllerPod(ctx context.Context, cs kubernetes.Interface, namespace, name string, interval time.Duration, waiting func(string)) (*corev1.Pod, error) {
	t := time.NewTicker(interval)
	defer t.Stop()
	said := ""
	for {
		pod, err := ControllerPod(ctx, cs, namespace, name)
		if err != nil && !errors.Is(err, ErrNoController) {
			return nil, err
		}
		note := fmt.Sprintf("waiting for benchmark %s/%s's controller pod to be created", namespace, name)
		if pod != nil {
			switch pod.Status.Phase {
			case corev1.PodRunning, corev1.PodSucceeded, corev1.PodFailed:
				return pod, nil
			}
			note = fmt.Sprintf("waiting for the controller pod %s (%s)", pod.Name, pod.Status.Phase)
		}
		pods, err := cs.CoreV1().Pods(namespace).List(ctx, selector(name))
		if err != nil {
			return nil, fmt.Errorf("listing the pods of %s/%s: %w", namespace, name, err)
		}
		if p := StartProblemOf(pods.Items); p != nil {
			if p.Fatal {
				return nil, fmt.Errorf("benchmark %s/%s cannot start: %w", namespace, name, p)
			}
			note += ": " + p.Message
		}
		if note != said && waiting != nil {
			waiting(note)
		}
		said = note
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%s: %w", note, ctx.Err())
		case <-t.C:
		}
	}
}
