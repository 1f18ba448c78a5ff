package tokenizer

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/aiperf-go/aiperf/internal/tokenizer/hub"
	"github.com/aiperf-go/aiperf/internal/tokenizer/testmodels"
)

// parsedTok is what the recording parser returns: it keeps the bytes Open
// handed over.
type parsedTok struct {
	name string
	data string
}

func (p *parsedTok) Name() string        { return p.name }
func (p *parsedTok) Encode(string) []int { return nil }
func (p *parsedTok) Decode([]int) string { return "" }
func (p *parsedTok) Count(string) int    { return 0 }
func recordingParse(name string, data []byte) (Tokenizer, error) {
	if strings.HasPrefix(string(data), "bad") {
		return nil, errors.New("bad tokenizer.json")
	}
	return &parsedTok{name: name, data: string(data)}, nil
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestOpenLocal(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"full/tokenizer.json":           "TOK-full",
		"full/tokenizer_config.json":    "CFG-full",
		"bare/tokenizer.json":           "TOK-bare",
		"slow/tokenizer.model":          "sentencepiece",
		"slow/tokenizer_config.json":    "{}",
		"empty/.keep":                   "",
		"home/mine/tokenizer.json":      "TOK-home",
		"bad/tokenizer.json":            "bad json",
		"renamed/my-tokenizer.json":     "TOK-renamed",
		"renamed/tokenizer_config.json": "CFG-renamed",
	})
	env := func(k string) string {
		if k == "HOME" {
			return filepath.Join(root, "home")
		}
		return ""
	}
	tests := []struct {
		name, tokenizer      string
		wantData, wantConfig string
		wantErr              []string
	}{
		{"directory", filepath.Join(root, "full"), "TOK-full", "CFG-full", nil},
		{"file with sibling config", filepath.Join(root, "full", "tokenizer.json"), "TOK-full", "CFG-full", nil},
		{"any file name", filepath.Join(root, "renamed", "my-tokenizer.json"), "TOK-renamed", "CFG-renamed", nil},
		{"directory without config", filepath.Join(root, "bare"), "TOK-bare", "", nil},
		{"home directory", "~/mine", "TOK-home", "", nil},
		{"slow tokenizer", filepath.Join(root, "slow"), "", "", []string{"has no tokenizer.json", "tokenizer.model", "not supported", "save_pretrained"}},
		{"empty directory", filepath.Join(root, "empty"), "", "", []string{"has no tokenizer.json"}},
		{"missing path", filepath.Join(root, "nope"), "", "", []string{"not a usable local path", "no such file"}},
		{"missing relative path", "./nope-" + strconv.Itoa(os.Getpid()), "", "", []string{"not a usable local path"}},
		{"parse error", filepath.Join(root, "bad"), "", "", []string{"bad tokenizer.json", filepath.Join(root, "bad", "tokenizer.json")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := open(tt.tokenizer, "mock-model", Options{Getenv: env}, recordingParse)
			if tt.wantErr != nil {
				if err == nil {
					t.Fatalf("Open(%q) succeeded; want an error", tt.tokenizer)
				}
				for _, w := range tt.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("Open(%q) error %q does not contain %q", tt.tokenizer, err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("Open(%q): %v", tt.tokenizer, err)
			}
			p := res.Tokenizer.(*parsedTok)
			if p.name != tt.tokenizer || p.data != tt.wantData || string(res.ConfigJSON) != tt.wantConfig {
				t.Errorf("Open(%q) parsed %q as %q, config %q; want %q, %q", tt.tokenizer, p.data, p.name, res.ConfigJSON, tt.wantData, tt.wantConfig)
			}
			if tt.wantConfig == "" && res.ConfigJSON != nil {
				t.Errorf("ConfigJSON = %q; want nil", res.ConfigJSON)
			}
			if !strings.HasPrefix(res.Source, "local ") {
				t.Errorf("Source = %q", res.Source)
			}
		})
	}
}

func TestOpenBuiltinSource(t *testing.T) {
	res, err := Open("", "mock-model", Options{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	if res.Source != "builtin" || res.ConfigJSON != nil || res.Tokenizer.Name() != BuiltinName {
		t.Errorf("Open(placeholder) = %+v", res)
	}
}

const miniCommit = "0123456789abcdef0123456789abcdef01234567"

// miniHub serves repositories at one commit (also its "main") with the
// headers the hub sends, and counts requests.
type miniHub struct {
	t      *testing.T
	srv    *httptest.Server
	mu     sync.Mutex
	files  map[string]string // "org/name/file" -> content
	token  string            // when set, required
	forbid bool              // any request fails the test
	hits   int
}

func newMiniHub(t *testing.T, files map[string]string) *miniHub {
	h := &miniHub{t: t, files: files}
	h.srv = httptest.NewServer(http.HandlerFunc(h.serve))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *miniHub) serve(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.hits++
	if h.forbid {
		h.t.Errorf("unexpected hub request %s %s", r.Method, r.URL.Path)
	}
	repo, rest, ok := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/resolve/")
	rev, file, _ := strings.Cut(rest, "/")
	if !ok || (rev != "main" && rev != miniCommit) {
		w.Header().Set("X-Error-Code", "RevisionNotFound")
		w.WriteHeader(http.StatusNotFound)
		return
	}
	if h.token != "" && r.Header.Get("Authorization") != "Bearer "+h.token {
		w.Header().Set("X-Error-Code", "RepoNotFound")
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	w.Header().Set("X-Repo-Commit", miniCommit)
	content, ok := h.files[repo+"/"+file]
	if !ok {
		w.Header().Set("X-Error-Code", "EntryNotFound")
		w.WriteHeader(http.StatusNotFound)
		return
	}
	sum := sha256.Sum256([]byte(content))
	w.Header().Set("ETag", `"`+hex.EncodeToString(sum[:])+`"`)
	w.Header().Set("Content-Length", strconv.Itoa(len(content)))
	if r.Method == http.MethodGet {
		w.Write([]byte(content))
	}
}

func (h *miniHub) requests() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.hits
}

func (h *miniHub) setForbid(v bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.forbid = v
}

// hubEnv is an environment pointing at the hub with a private cache.
func hubEnv(t *testing.T, endpoint string, extra ...string) (func(string) string, string) {
	t.Helper()
	dir := t.TempDir()
	env := map[string]string{
		"HF_ENDPOINT":  endpoint,
		"HF_HUB_CACHE": filepath.Join(dir, "hub"),
		"HOME":         filepath.Join(dir, "home"), // no token file
	}
	for i := 0; i+1 < len(extra); i += 2 {
		env[extra[i]] = extra[i+1]
	}
	return func(k string) string { return env[k] }, env["HF_HUB_CACHE"]
}

func withEnv(base func(string) string, k, v string) func(string) string {
	return func(key string) string {
		if key == k {
			return v
		}
		return base(key)
	}
}

func TestOpenHub(t *testing.T) {
	h := newMiniHub(t, map[string]string{
		"org/model/tokenizer.json":        "TOK",
		"org/model/tokenizer_config.json": "CFG",
	})
	env, cache := hubEnv(t, h.srv.URL)
	opts := Options{Getenv: env, Client: h.srv.Client()}

	res, err := open("", "org/model", opts, recordingParse)
	if err != nil {
		t.Fatal(err)
	}
	p := res.Tokenizer.(*parsedTok)
	if p.name != "org/model" || p.data != "TOK" || string(res.ConfigJSON) != "CFG" {
		t.Errorf("Open = %q %q config %q", p.name, p.data, res.ConfigJSON)
	}
	snap := filepath.Join(cache, "models--org--model", "snapshots", miniCommit)
	for _, w := range []string{"org/model", "main", miniCommit, snap} {
		if !strings.Contains(res.Source, w) {
			t.Errorf("Source %q does not mention %q", res.Source, w)
		}
	}

	// Offline, and with a commit revision online, the cache answers alone.
	h.setForbid(true)
	for _, o := range []Options{
		{Getenv: withEnv(env, "HF_HUB_OFFLINE", "1"), Client: h.srv.Client()},
		{Getenv: env, Client: h.srv.Client(), Revision: miniCommit},
	} {
		res, err := open("org/model", "", o, recordingParse)
		if err != nil {
			t.Fatalf("Open from the cache (revision %q): %v", o.Revision, err)
		}
		if p := res.Tokenizer.(*parsedTok); p.data != "TOK" || string(res.ConfigJSON) != "CFG" {
			t.Errorf("cached Open = %q config %q", p.data, res.ConfigJSON)
		}
	}
}

func TestOpenHubWithoutConfig(t *testing.T) {
	h := newMiniHub(t, map[string]string{"org/bare/tokenizer.json": "TOK"})
	env, _ := hubEnv(t, h.srv.URL)
	var logs bytes.Buffer
	opts := Options{Getenv: env, Client: h.srv.Client(), Revision: miniCommit,
		Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	res, err := open("org/bare", "", opts, recordingParse)
	if err != nil {
		t.Fatal(err)
	}
	if res.ConfigJSON != nil {
		t.Errorf("ConfigJSON = %q; want nil", res.ConfigJSON)
	}
	if !strings.Contains(logs.String(), "no tokenizer_config.json") {
		t.Errorf("logs %q do not mention the missing config", logs.String())
	}
	// The absence is cached too: a commit revision needs no request.
	h.setForbid(true)
	if _, err := open("org/bare", "", opts, recordingParse); err != nil {
		t.Fatal(err)
	}
}

func TestOpenHubErrors(t *testing.T) {
	const secret = "hf_verysecret"
	h := newMiniHub(t, map[string]string{
		"org/slow/tokenizer.model":          "sp",
		"org/private/tokenizer.json":        "TOK",
		"org/private/tokenizer_config.json": "CFG",
	})
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL
	dead.Close()

	tests := []struct {
		name, tokenizer string
		endpoint        string
		env             []string
		rev             string
		want            []string
	}{
		{"no tokenizer.json", "org/slow", h.srv.URL, []string{"HF_TOKEN", "tok"}, "", []string{"has no tokenizer.json at revision main", "not supported", "tokenizer.model", "--tokenizer"}},
		{"private without token", "org/private", h.srv.URL, nil, "", []string{"set HF_TOKEN", "/org/private/resolve/main/tokenizer.json", "to work offline", "HF_HUB_OFFLINE=1"}},
		{"private with a wrong token", "org/private", h.srv.URL, []string{"HF_TOKEN", secret}, "", []string{"the token from HF_TOKEN has no access"}},
		{"unknown revision", "org/private", h.srv.URL, []string{"HF_TOKEN", "tok"}, "nope", []string{"revision not found", "--tokenizer-revision"}},
		{"offline miss", "org/private", h.srv.URL, []string{"HF_HUB_OFFLINE", "1"}, "", []string{
			"HF_HUB_OFFLINE", "huggingface-cli download org/private tokenizer.json tokenizer_config.json", "--tokenizer /path/to/dir", "refs"}},
		{"offline miss at a revision", "org/private", h.srv.URL, []string{"HF_HUB_OFFLINE", "1"}, "v2", []string{"--revision v2"}},
		{"explicit placeholder name is a hub id", "mock-model", h.srv.URL, []string{"HF_HUB_OFFLINE", "1"}, "", []string{"models--mock-model"}},
		{"network down", "org/private", deadURL, nil, "", []string{deadURL + "/org/private/resolve/main/tokenizer.json", "hub cache", "HF_HUB_OFFLINE=1", "huggingface-cli download"}},
		{"neither path nor id", "a/b/c", h.srv.URL, nil, "", []string{"nor a hub repository id"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h.mu.Lock()
			h.token = "tok"
			h.mu.Unlock()
			env, cache := hubEnv(t, tt.endpoint, tt.env...)
			before := h.requests()
			_, err := open(tt.tokenizer, "", Options{Getenv: env, Client: h.srv.Client(), Revision: tt.rev}, recordingParse)
			if err == nil {
				t.Fatal("Open succeeded; want an error")
			}
			msg := err.Error()
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q\ndoes not contain %q", msg, w)
				}
			}
			if strings.Contains(msg, secret) {
				t.Errorf("error %q contains the token", msg)
			}
			if env("HF_HUB_OFFLINE") != "" && h.requests() != before {
				t.Errorf("offline Open made %d requests", h.requests()-before)
			}
			if _, err := os.Stat(filepath.Join(cache, "models--org--private", "snapshots")); err == nil {
				t.Error("a failed Open left a snapshot")
			}
		})
	}
}

func TestOpenHubTokenSent(t *testing.T) {
	h := newMiniHub(t, map[string]string{"org/private/tokenizer.json": "TOK"})
	h.token = "hf_ok"
	env, _ := hubEnv(t, h.srv.URL, "HF_TOKEN", "hf_ok")
	if _, err := open("org/private", "", Options{Getenv: env, Client: h.srv.Client()}, recordingParse); err != nil {
		t.Fatalf("Open with the right token: %v", err)
	}
}

func TestOpenTrustRemoteCodeIsExplained(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"tokenizer.json": "TOK"})
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	if _, err := open(dir, "", Options{TrustRemoteCode: true, Logger: log}, recordingParse); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), "no code from the repository is ever run") {
		t.Errorf("debug log %q does not explain --tokenizer-trust-remote-code", logs.String())
	}
}

// TestOpenRealTokenizer parses real tokenizer.json files, locally and
// through the hub cache; the expected ids come from HuggingFace tokenizers
// (encode(text, add_special_tokens=False)).
func TestOpenRealTokenizer(t *testing.T) {
	const text = "Hello, world! 你好"
	qwen := testmodels.Dir(t, "qwen3")
	llama := testmodels.Dir(t, "llama3")
	read := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	h := newMiniHub(t, map[string]string{
		"Qwen/Qwen3-0.6B/tokenizer.json":        read(filepath.Join(qwen, "tokenizer.json")),
		"Qwen/Qwen3-0.6B/tokenizer_config.json": read(filepath.Join(qwen, "tokenizer_config.json")),
	})
	env, _ := hubEnv(t, h.srv.URL)

	tests := []struct {
		name, tokenizer string
		want            []int
	}{
		{"hub", "Qwen/Qwen3-0.6B", []int{9707, 11, 1879, 0, 220, 108386}},
		{"local directory", llama, []int{9906, 11, 1917, 0, 118195, 53901}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Open(tt.tokenizer, "", Options{Getenv: env, Client: h.srv.Client()})
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Tokenizer.Encode(text); !slices.Equal(got, tt.want) {
				t.Errorf("Encode(%q) = %v; want %v", text, got, tt.want)
			}
			if res.Tokenizer.Name() != tt.tokenizer || len(res.ConfigJSON) == 0 {
				t.Errorf("Name() = %q, %d config bytes", res.Tokenizer.Name(), len(res.ConfigJSON))
			}
			if _, ok := res.Tokenizer.(SpecialEncoder); !ok {
				t.Error("a tokenizer.json tokenizer should be a SpecialEncoder")
			}
		})
	}
}

// The hub package's sentinel kinds reach callers of Open.
func TestOpenErrorsWrapHubKinds(t *testing.T) {
	h := newMiniHub(t, map[string]string{})
	env, _ := hubEnv(t, h.srv.URL)
	_, err := open("org/none", "", Options{Getenv: env, Client: h.srv.Client()}, recordingParse)
	if !errors.Is(err, hub.ErrEntryNotFound) {
		t.Errorf("err = %v; want it to wrap hub.ErrEntryNotFound", err)
	}
}
