package loader

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"github.com/aiperf-go/aiperf/internal/dataset"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// shareGPTSample is a small file in ShareGPT's format: an entry with two
// human->gpt pairs, one whose prompt is too short, one without roles, one
// with a single message, and one whose completion is too short.
const shareGPTSample = `[
 {"id":"a","conversations":[
   {"from":"human","value":"Tell me a story about a brave little toaster please."},
   {"from":"gpt","value":"Once upon a time a toaster set out across the wide world."},
   {"from":"human","value":"And what happened to it in the end of the story?"},
   {"from":"gpt","value":"It found its way home and toasted bread happily ever after."}]},
 {"id":"b","conversations":[{"from":"human","value":"Hi"},{"from":"gpt","value":"Hello there, how can I help you today my friend?"}]},
 {"id":"c","conversations":[{"value":"Explain how rainbows form in the sky after rain."},{"value":"Sunlight refracts and reflects inside raindrops, splitting into colors."}]},
 {"id":"d","conversations":[{"from":"human","value":"Just one message here, nothing else."}]},
 {"id":"e","conversations":[{"from":"human","value":"What is the capital city of France, please tell me?"},{"from":"gpt","value":"Paris."}]}
]`

func TestLoadShareGPT(t *testing.T) {
	path := writeFile(t, "sharegpt.json", shareGPTSample)
	tok := builtinTok(t)
	l, err := LoadShareGPT(ShareGPTOptions{Path: path, Models: []string{"m1", "m2"}, Seed: 1, SeedSet: true}, tok)
	if err != nil {
		t.Fatal(err)
	}
	c := l.Dataset.Conversations
	if len(c) != 2 || len(c[0].Turns) != 2 || len(c[1].Turns) != 1 {
		t.Fatalf("got %d conversations %+v; want entries a (2 turns) and c (1 turn)", len(c), c)
	}
	t0 := c[0].Turns[0]
	if !strings.HasPrefix(t0.Texts[0], "Tell me a story") || t0.MaxTokens != tok.Count("Once upon a time a toaster set out across the wide world.") || t0.Model != "m1" || c[0].Turns[1].Model != "m2" {
		t.Errorf("turn = %+v", t0)
	}
	if l.Sampling != dataset.SamplingSequential {
		t.Errorf("sampling = %s", l.Sampling)
	}
	// With --osl the completion length check is skipped: entry e passes.
	l, err = LoadShareGPT(ShareGPTOptions{Path: path, OSLSet: true, Seed: 1, SeedSet: true}, tok)
	if err != nil || len(l.Dataset.Conversations) != 3 {
		t.Fatalf("with OSL set: %v, %d conversations; want 3", err, len(l.Dataset.Conversations))
	}
}

func TestLoadShareGPTBadInput(t *testing.T) {
	tok := builtinTok(t)
	for _, content := range []string{`{"not":"an array"}`, `[1]`, `[{"conversations":[{"from":"human","value":"x"},{"from":"gpt","value":"y"}]}]`} {
		path := writeFile(t, "s.json", content)
		if _, err := LoadShareGPT(ShareGPTOptions{Path: path}, tok); err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: error %v should name the file", content, err)
		}
	}
}

// TestFetchShareGPT downloads the file from a fake hub into an empty
// cache, then finds it there offline.
func TestFetchShareGPT(t *testing.T) {
	const commit = "0123456789abcdef0123456789abcdef01234567"
	sum := sha1.Sum([]byte(shareGPTSample))
	etag := hex.EncodeToString(sum[:])
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path != "/datasets/"+ShareGPTRepo+"/resolve/main/"+ShareGPTFile {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("X-Repo-Commit", commit)
		w.Header().Set("ETag", `"`+etag+`"`)
		w.Header().Set("Content-Length", strconv.Itoa(len(shareGPTSample)))
		if r.Method == http.MethodGet {
			w.Write([]byte(shareGPTSample))
		}
	}))
	defer srv.Close()
	home := t.TempDir()
	env := map[string]string{"HF_HOME": home, "HF_ENDPOINT": srv.URL}
	path, err := FetchShareGPT(context.Background(), func(k string) string { return env[k] }, srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(path, home) || !strings.Contains(path, "datasets--anon8231489123--ShareGPT_Vicuna_unfiltered") {
		t.Errorf("path = %s; want it in the hub cache under %s", path, home)
	}
	if data, err := os.ReadFile(path); err != nil || string(data) != shareGPTSample {
		t.Fatalf("cached file: %v", err)
	}
	env["HF_HUB_OFFLINE"] = "1"
	before := hits.Load()
	again, err := FetchShareGPT(context.Background(), func(k string) string { return env[k] }, srv.Client())
	if err != nil || again != path || hits.Load() != before {
		t.Errorf("offline fetch = %s, %v, %d new requests; want the cached file without requests", again, err, hits.Load()-before)
	}
	// Offline with an empty cache fails and says so.
	env["HF_HOME"] = t.TempDir()
	if _, err := FetchShareGPT(context.Background(), func(k string) string { return env[k] }, srv.Client()); err == nil {
		t.Error("offline fetch with an empty cache succeeded")
	}
	// The snapshot entry is a link into blobs/: a dataset the user names
	// may be a link (symlinked home and temporary directories),
	// so it reads as a user path too.
	if l, err := LoadShareGPT(ShareGPTOptions{Path: path}, builtinTok(t)); err != nil || len(l.Dataset.Conversations) != 2 {
		t.Errorf("loading the fetched file as a user path (a link): %v", err)
	}
	if l, err := LoadShareGPT(ShareGPTOptions{Path: path, FromHubCache: true}, builtinTok(t)); err != nil || len(l.Dataset.Conversations) != 2 {
		t.Errorf("loading the fetched file: %v", err)
	}
}
