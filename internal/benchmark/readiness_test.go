package benchmark

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/builtin"
	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/readiness"
)

// probeServer is an inference server that starts answering after a number
// of probes. It records what it was sent.
type probeServer struct {
	// modelsAfter and inferenceAfter are how many failed answers each
	// route gives before it is ready; modelsStatus and inferenceStatus are
	// the failing statuses (503 when 0).
	modelsAfter, inferenceAfter   int
	modelsStatus, inferenceStatus int
	noModelsRoute                 bool // /v1/models answers 404; / answers 200
	readyStatus                   int  // the inference status once ready (200 when 0)

	mu     sync.Mutex
	calls  []string // "GET /v1/models", "POST /v1/chat/completions", ...
	bodies []string
	auth   []string
}

func (s *probeServer) start(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return srv.URL
}

func (s *probeServer) count(call string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.calls {
		if c == call {
			n++
		}
	}
	return n
}

func (s *probeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	call := r.Method + " " + r.URL.Path
	s.mu.Lock()
	s.calls = append(s.calls, call)
	s.bodies = append(s.bodies, string(body))
	s.auth = append(s.auth, r.Header.Get("Authorization"))
	n := 0
	for _, c := range s.calls {
		if c == call {
			n++
		}
	}
	s.mu.Unlock()
	fail := func(status int) {
		if status == 0 {
			status = http.StatusServiceUnavailable
		}
		http.Error(w, `{"error":"loading"}`, status)
	}
	switch {
	case r.URL.Path == "/v1/models" && s.noModelsRoute:
		http.NotFound(w, r)
	case r.URL.Path == "/v1/models" && n <= s.modelsAfter:
		fail(s.modelsStatus)
	case r.URL.Path == "/v1/models":
		fmt.Fprint(w, `{"object":"list","data":[{"id":"other"},{"id":"mock-model"}]}`)
	case r.URL.Path == "/":
		fmt.Fprint(w, "ok")
	case n <= s.inferenceAfter:
		fail(s.inferenceStatus)
	default:
		status := s.readyStatus
		if status == 0 {
			status = http.StatusOK
		}
		w.WriteHeader(status)
		fmt.Fprint(w, `{"choices":[{"message":{"content":"Lo"}}]}`)
	}
}

// fakeClock stands in for the probes' clock: sleeping advances it.
type fakeClock struct {
	t     time.Time
	slept []time.Duration
}

func (c *fakeClock) now() time.Time { return c.t }

func (c *fakeClock) sleep(ctx context.Context, d time.Duration) error {
	c.slept = append(c.slept, d)
	c.t = c.t.Add(d)
	return ctx.Err()
}

// testProber builds the prober a run of cfg would use, on a fake clock,
// logging at debug into log.
func testProber(t *testing.T, cfg *config.Config) (*readiness.Prober, *fakeClock, *bytes.Buffer) {
	t.Helper()
	p, err := NewPlan(cfg, builtin.New(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	pr := newProber(p, &http.Client{}, slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug})))
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	pr.Now, pr.Sleep = clk.now, clk.sleep
	return pr, clk, &log
}

func readinessConfig(t *testing.T, mode config.WaitForModelMode, urls ...string) *config.Config {
	t.Helper()
	cfg := baseConfig(t, urls[0])
	cfg.Endpoint.URLs = urls
	cfg.Endpoint.WaitForModelTimeout = 10
	cfg.Endpoint.WaitForModelInterval = 1
	cfg.Endpoint.WaitForModelMode = mode
	cfg.Endpoint.APIKey = "sk-test"
	return cfg
}

func TestReadinessBecomesReady(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		mode      config.WaitForModelMode
		server    *probeServer
		endpoint  config.EndpointType
		wantCalls map[string]int
		wantSlept int
	}{
		{"inference after two 503s", config.WaitForInference, &probeServer{inferenceAfter: 2}, config.EndpointChat,
			map[string]int{"POST /v1/chat/completions": 3, "GET /v1/models": 0}, 2},
		{"inference on completions", config.WaitForInference, &probeServer{inferenceAfter: 1}, config.EndpointCompletions,
			map[string]int{"POST /v1/completions": 2}, 1},
		{"inference 4xx counts as up", config.WaitForInference, &probeServer{readyStatus: 400}, config.EndpointChat,
			map[string]int{"POST /v1/chat/completions": 1}, 0},
		{"models after three failures", config.WaitForModels, &probeServer{modelsAfter: 3, modelsStatus: 500}, config.EndpointChat,
			map[string]int{"GET /v1/models": 4, "POST /v1/chat/completions": 0}, 3},
		{"models without the route", config.WaitForModels, &probeServer{noModelsRoute: true}, config.EndpointChat,
			map[string]int{"GET /v1/models": 1, "GET /": 1}, 0},
		{"both: models, then inference", config.WaitForBoth, &probeServer{modelsAfter: 1, inferenceAfter: 2}, config.EndpointChat,
			map[string]int{"GET /v1/models": 2, "POST /v1/chat/completions": 3}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := tt.server
			cfg := readinessConfig(t, tt.mode, srv.start(t))
			cfg.Endpoint.Type = tt.endpoint
			pr, clk, log := testProber(t, cfg)
			if err := pr.Wait(context.Background()); err != nil {
				t.Fatalf("wait: %v\n%s", err, log)
			}
			for call, want := range tt.wantCalls {
				if got := srv.count(call); got != want {
					t.Errorf("%s: %d calls; want %d (all: %v)", call, got, want, srv.calls)
				}
			}
			if len(clk.slept) != tt.wantSlept {
				t.Errorf("slept %v; want %d waits", clk.slept, tt.wantSlept)
			}
			for _, d := range clk.slept {
				if d != time.Second {
					t.Errorf("slept %v between probes; want the 1 s interval", d)
				}
			}
			for i, a := range srv.auth {
				if a != "Bearer sk-test" {
					t.Errorf("probe %d (%s) sent Authorization %q; want the API key", i, srv.calls[i], a)
				}
			}
			if n := strings.Count(log.String(), "level=DEBUG msg=\"readiness probe failed\""); n != tt.wantSlept {
				t.Errorf("%d failed probes logged at debug; want %d\n%s", n, tt.wantSlept, log)
			}
			if !strings.Contains(log.String(), "level=INFO msg=\"endpoint ready\"") {
				t.Errorf("no info line for the ready endpoint:\n%s", log)
			}
		})
	}
}

func TestReadinessProbesEveryURL(t *testing.T) {
	t.Parallel()
	a, b := &probeServer{}, &probeServer{inferenceAfter: 1}
	cfg := readinessConfig(t, config.WaitForBoth, a.start(t), b.start(t))
	pr, _, log := testProber(t, cfg)
	if err := pr.Wait(context.Background()); err != nil {
		t.Fatalf("wait: %v\n%s", err, log)
	}
	if a.count("GET /v1/models") != 1 || a.count("POST /v1/chat/completions") != 1 {
		t.Errorf("first URL saw %v; want one models and one inference probe", a.calls)
	}
	if b.count("GET /v1/models") != 1 || b.count("POST /v1/chat/completions") != 2 {
		t.Errorf("second URL saw %v; want one models and two inference probes", b.calls)
	}
	if !strings.Contains(b.bodies[len(b.bodies)-1], `"model":"mock-model"`) {
		t.Errorf("inference probe body %q lacks the model", b.bodies[len(b.bodies)-1])
	}
}

func TestReadinessTimeout(t *testing.T) {
	t.Parallel()
	refused := closedPort
	tests := []struct {
		name   string
		mode   config.WaitForModelMode
		url    func(t *testing.T) string
		what   []string // in the error
		probes int
	}{
		{"inference keeps failing", config.WaitForInference,
			func(t *testing.T) string { return (&probeServer{inferenceAfter: 1 << 30}).start(t) },
			[]string{"inference probe", "/v1/chat/completions", "--wait-for-model-mode inference", "HTTP 503", "12 attempts"}, 12},
		{"model never listed", config.WaitForModels,
			func(t *testing.T) string {
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
					fmt.Fprint(w, `{"data":[{"id":"other"}]}`)
				}))
				t.Cleanup(srv.Close)
				return srv.URL
			},
			[]string{"models probe", "/v1/models", "--wait-for-model-mode models", `model "mock-model" is not listed (listed: other)`}, 12},
		{"nothing listening", config.WaitForBoth, refused,
			[]string{"models probe", "--wait-for-model-mode both", "connection refused"}, 12},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			url := tt.url(t)
			cfg := readinessConfig(t, tt.mode, url)
			cfg.Endpoint.WaitForModelTimeout = 60
			cfg.Endpoint.WaitForModelInterval = 5
			pr, clk, log := testProber(t, cfg)
			err := pr.Wait(context.Background())
			if code := exitCode(err); code != config.ExitFailure {
				t.Fatalf("wait = %v (code %d); want exit code 1", err, code)
			}
			for _, w := range append(tt.what, url) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if len(clk.slept) != tt.probes {
				t.Errorf("slept %d times; want %d (probes at 0, 5, ..., 55 s, then the deadline)", len(clk.slept), tt.probes)
			}
			if got := clk.now().Sub(time.Unix(1_000_000, 0)); got != time.Minute {
				t.Errorf("gave up after %v; want the 60 s timeout", got)
			}
			if n := strings.Count(log.String(), "readiness probe failed"); n != tt.probes {
				t.Errorf("%d failed probes logged; want %d", n, tt.probes)
			}
			if n := strings.Count(log.String(), "level=INFO msg=\"still waiting for the endpoint\""); n != 1 {
				t.Errorf("%d progress lines at info; want 1 (at 30 s)\n%s", n, log)
			}
		})
	}
}

func TestReadinessInterrupted(t *testing.T) {
	t.Parallel()
	srv := &probeServer{inferenceAfter: 1 << 30}
	cfg := readinessConfig(t, config.WaitForInference, srv.start(t))
	pr, _, _ := testProber(t, cfg)
	ctx, cancel := context.WithCancel(context.Background())
	pr.Sleep = func(context.Context, time.Duration) error { cancel(); return ctx.Err() }
	if code := exitCode(pr.Wait(ctx)); code != config.ExitInterrupted {
		t.Errorf("exit code %d; want %d", code, config.ExitInterrupted)
	}
}

func TestRunWaitsForModel(t *testing.T) {
	t.Parallel()
	url, requests := mock(t, nil)
	cfg := baseConfig(t, url)
	cfg.Endpoint.WaitForModelTimeout = 5
	cfg.Endpoint.WaitForModelMode = config.WaitForBoth
	out, err := run(t, context.Background(), cfg)
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, out)
	}
	if got := requests.Load(); got != 11 {
		t.Errorf("server saw %d inference requests; want 1 readiness probe + 10", got)
	}
	if !strings.Contains(out, "Waiting up to 5s for the endpoint") {
		t.Errorf("console does not say it waits:\n%s", out)
	}
}

func TestRunNotReadyStartsNothing(t *testing.T) {
	t.Parallel()
	srv := &probeServer{inferenceAfter: 1 << 30}
	url := srv.start(t)
	cfg := baseConfig(t, url)
	cfg.Endpoint.WaitForModelTimeout = 0.05
	cfg.Endpoint.WaitForModelInterval = 0.01
	out, err := run(t, context.Background(), cfg)
	if code := exitCode(err); code != config.ExitFailure || !strings.Contains(err.Error(), url) {
		t.Fatalf("Run = %v (code %d); want exit code 1 naming %s\n%s", err, code, url, out)
	}
	for _, c := range srv.calls {
		if c != "POST /v1/chat/completions" {
			t.Errorf("unexpected call %s", c)
		}
	}
	for _, b := range srv.bodies {
		if !strings.Contains(b, `"max_tokens":1`) {
			t.Errorf("a benchmark request was sent: %s", b)
		}
	}
	if m, _ := filepath.Glob(filepath.Join(cfg.Output.ArtifactDir, "profile_export*")); len(m) != 0 {
		t.Errorf("artifacts written without a benchmark: %v", m)
	}
}
