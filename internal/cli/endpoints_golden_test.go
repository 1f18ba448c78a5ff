package cli

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"image"
	"image/draw"
	_ "image/png" // decodes the goldens' images
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/aiperf-go/aiperf/internal/endpoint"
	"github.com/aiperf-go/aiperf/internal/mockserver"
	"github.com/aiperf-go/aiperf/internal/testenv"
	"github.com/aiperf-go/aiperf/internal/tokenizer/testmodels"
)

// The endpoint goldens were made by running AIPerf 0.13 against this
// program's mock server, one run per case, with the arguments the golden
// holds (and -m mock-model, the llama3 test tokenizer, concurrency 1):
// testdata/aiperf013/endpoints/<case>.json keeps AIPerf's request bodies from its
// inputs.json, the API requests the mock received (headers with their
// per-request values masked) and the metric tags of AIPerf's summary.
// The inputs the cases read are under testdata/aiperf013/endpoints/inputs, with
// @DIR@ standing for the directory they are copied to.
type endpointGolden struct {
	Args []string `json:"args"`
	// Mock holds the mock server's options for the case (--fast, or a
	// small TTFT and ITL for streams, so that tokens arrive apart).
	Mock []string `json:"mock"`
	// URLPath is appended to the mock's URL (the raw and template
	// endpoints post to the URL as given).
	URLPath string `json:"url_path"`
	// Tokenizer is false for endpoints AIPerf refuses --tokenizer with.
	Tokenizer bool `json:"tokenizer"`
	// InputsJSON is false when AIPerf wrote no inputs.json (verbatim
	// datasets); Sessions then hold the bodies the mock received, one
	// request per session.
	InputsJSON bool                `json:"inputs_json"`
	Sessions   [][]json.RawMessage `json:"sessions"`
	Requests   []wireShape         `json:"requests"`
	Metrics    []string            `json:"metrics"`
}

// wireShape is one kind of request a run sent.
type wireShape struct {
	Method  string              `json:"method"`
	Path    string              `json:"path"`
	Headers map[string][]string `json:"headers"`
}

// wireCapture records the API requests a mock server received.
type wireCapture struct {
	mu     sync.Mutex
	shapes []wireShape
	bodies [][]byte // JSON request bodies, in arrival order
}

var (
	videoIDPath  = regexp.MustCompile(`^(/v1/videos/)[^/]+`)
	boundaryRE   = regexp.MustCompile(`boundary=.*`)
	perRequestHd = []string{"X-Request-Id", "X-Correlation-Id", "X-Session-Affinity"}
	// Encoded video differs with the encoder's build, so the bytes of
	// synthetic videos are not compared, only where they are.
	videoDataRE = regexp.MustCompile(`data:video/([a-z0-9]+);base64,[A-Za-z0-9+/=]+`)
)

func (c *wireCapture) note(r *http.Request, body []byte) {
	switch {
	case r.Method == http.MethodHead, strings.HasSuffix(r.URL.Path, "/metrics"), r.URL.Path == "/health", r.URL.Path == "/v1/models":
		return
	}
	h := map[string][]string{}
	for k, v := range r.Header {
		switch k {
		case "Content-Length", "User-Agent", "Accept-Encoding":
			continue
		case "Content-Type":
			v = []string{boundaryRE.ReplaceAllString(v[0], "boundary=<boundary>")}
		case "X-Api-Key", "Authorization":
			v = []string{"[REDACTED]"}
		}
		if slices.Contains(perRequestHd, k) {
			v = []string{"<per-request>"}
		}
		h[k] = v
	}
	s := wireShape{Method: r.Method, Path: videoIDPath.ReplaceAllString(r.URL.Path, "${1}{id}"), Headers: h}
	c.mu.Lock()
	defer c.mu.Unlock()
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		c.bodies = append(c.bodies, body)
	}
	for _, o := range c.shapes {
		if sameShape(o, s) {
			return
		}
	}
	c.shapes = append(c.shapes, s)
}

func sameShape(a, b wireShape) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}

// TestEndpointsMatchAIPerf runs every golden case and checks the request
// bodies (inputs.json and on the wire), the requests' paths and headers,
// and that the summary has exactly the metrics AIPerf's had.
func TestEndpointsMatchAIPerf(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end runs")
	}
	files, err := filepath.Glob(filepath.Join("testdata", "aiperf013", "endpoints", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no goldens: %v", err)
	}
	tok := testmodels.Dir(t, "llama3")
	inputs, err := os.ReadDir(filepath.Join("testdata", "aiperf013", "endpoints", "inputs"))
	if err != nil {
		t.Fatal(err)
	}
	goldens := make([]endpointGolden, len(files))
	for i, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &goldens[i]); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
	}
	dependent := endpointDependentMetrics(goldens)
	// A few cases at a time: each is a whole run in its own process, and
	// the package's timing-sensitive tests run alongside.
	slots := make(chan struct{}, max(2, runtime.GOMAXPROCS(0)/4))
	for i, f := range files {
		g := goldens[i]
		t.Run(strings.TrimSuffix(filepath.Base(f), ".json"), func(t *testing.T) {
			t.Parallel()
			if tool := externalTool(g.Args); tool != "" {
				testenv.Tool(t, testenv.FFmpeg, tool)
			}
			slots <- struct{}{}
			defer func() { <-slots }()
			dir := t.TempDir()
			for _, in := range inputs {
				b, err := os.ReadFile(filepath.Join("testdata", "aiperf013", "endpoints", "inputs", in.Name()))
				if err != nil {
					t.Fatal(err)
				}
				b = bytes.ReplaceAll(b, []byte("@DIR@"), []byte(dir))
				if err := os.WriteFile(filepath.Join(dir, in.Name()), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			capture := &wireCapture{}
			cfg := mockserver.DefaultConfig()
			fs := flag.NewFlagSet("mock-server", flag.ContinueOnError)
			cfg.RegisterFlags(fs)
			if err := fs.Parse(g.Mock); err != nil {
				t.Fatal(err)
			}
			mock := mockserver.New(cfg)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				capture.note(r, body)
				r.Body = io.NopCloser(bytes.NewReader(body))
				mock.ServeHTTP(w, r)
			}))
			t.Cleanup(srv.Close)
			art := filepath.Join(dir, "art")
			args := []string{"profile", "-m", "mock-model", "-u", srv.URL + g.URLPath, "--concurrency", "1",
				"--ui-type", "none", "--output-artifact-dir", art}
			if g.Tokenizer {
				args = append(args, "--tokenizer", tok)
			}
			for _, a := range g.Args {
				args = append(args, strings.ReplaceAll(a, "@DIR@", dir))
			}
			cmd := aiperfCmd(t, args...)
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("aiperf %s: %v\n%s", strings.Join(args, " "), err, out)
			}
			checkGoldenBodies(t, g, art, capture)
			checkGoldenWire(t, g, capture)
			checkGoldenMetrics(t, g, art, dependent)
		})
	}
}

// pngBase64RE finds base64 PNG files (data URLs and multipart file
// fields alike).
var pngBase64RE = regexp.MustCompile(`iVBORw0KGgo[A-Za-z0-9+/]*={0,2}`)

// compactMasked compacts a body and masks what legitimately differs from
// AIPerf's bytes: a synthetic video's encoding, and a PNG file's (AIPerf
// re-encodes dataset images with PIL, this program sends the file as it
// is), which is replaced by its size and a hash of its pixels, so the same
// image still compares equal.
func compactMasked(t *testing.T, raw []byte) []byte {
	t.Helper()
	c, err := endpoint.Compact(raw)
	if err != nil {
		t.Fatalf("invalid JSON body %.200s: %v", raw, err)
	}
	c = videoDataRE.ReplaceAll(c, []byte("data:video/$1;base64,<video>"))
	return pngBase64RE.ReplaceAllFunc(c, func(b64 []byte) []byte {
		data, err := base64.StdEncoding.DecodeString(string(b64))
		if err != nil {
			return b64
		}
		img, _, err := image.Decode(bytes.NewReader(data))
		if err != nil {
			return b64
		}
		rgba := image.NewNRGBA(img.Bounds())
		draw.Draw(rgba, rgba.Bounds(), img, img.Bounds().Min, draw.Src)
		return fmt.Appendf(nil, "<png %dx%d %x>", rgba.Bounds().Dx(), rgba.Bounds().Dy(), sha256.Sum256(rgba.Pix))
	})
}

func checkGoldenBodies(t *testing.T, g endpointGolden, art string, capture *wireCapture) {
	t.Helper()
	if !g.InputsJSON {
		capture.mu.Lock()
		defer capture.mu.Unlock()
		if len(capture.bodies) != len(g.Sessions) {
			t.Fatalf("the server received %d bodies; AIPerf sent %d", len(capture.bodies), len(g.Sessions))
		}
		for i, s := range g.Sessions {
			if got, want := compactMasked(t, capture.bodies[i]), compactMasked(t, s[0]); !bytes.Equal(got, want) {
				t.Errorf("request %d differs from AIPerf 0.13's\n got %s\nwant %s", i, got, want)
			}
		}
		return
	}
	raw, err := os.ReadFile(filepath.Join(art, "inputs.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Data []struct {
			Payloads []json.RawMessage `json:"payloads"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	// A run that sends fewer conversations than the file holds keeps only
	// those it sends (bounded memory); AIPerf lists them all.
	sessions := g.Sessions
	if n := len(doc.Data); n < len(sessions) && n > 0 {
		t.Logf("inputs.json lists the %d conversations the run sends; AIPerf's lists all %d of the file", n, len(sessions))
		sessions = sessions[:n]
	}
	if len(doc.Data) != len(sessions) {
		t.Fatalf("inputs.json has %d sessions; AIPerf's had %d", len(doc.Data), len(g.Sessions))
	}
	var want [][]byte
	for i, s := range sessions {
		got := doc.Data[i].Payloads
		if len(got) != len(s) {
			t.Errorf("session %d: %d payloads; AIPerf's had %d", i, len(got), len(s))
			continue
		}
		for j := range s {
			w := compactMasked(t, s[j])
			want = append(want, w)
			if g := compactMasked(t, got[j]); !bytes.Equal(g, w) {
				t.Errorf("session %d payload %d differs from AIPerf 0.13's\n got %s\nwant %s", i, j, g, w)
			}
		}
	}
	// What went on the wire is what inputs.json says (JSON bodies only;
	// the multipart endpoints' forms are checked by their packages). A
	// later turn also carries the conversation so far, replies included,
	// which inputs.json does not.
	capture.mu.Lock()
	defer capture.mu.Unlock()
	for _, s := range sessions {
		if len(s) > 1 {
			return
		}
	}
	for _, b := range capture.bodies {
		c := compactMasked(t, b)
		if !slices.ContainsFunc(want, func(w []byte) bool { return bytes.Equal(w, c) }) {
			t.Errorf("the server received a body AIPerf never sent: %s", c)
		}
	}
}

func checkGoldenWire(t *testing.T, g endpointGolden, capture *wireCapture) {
	t.Helper()
	capture.mu.Lock()
	defer capture.mu.Unlock()
	for _, w := range g.Requests {
		if !slices.ContainsFunc(capture.shapes, func(s wireShape) bool { return sameShape(s, w) }) {
			got, _ := json.Marshal(capture.shapes)
			want, _ := json.Marshal(w)
			t.Errorf("AIPerf sent a request this run did not:\nwant %s\n got %s", want, got)
		}
	}
	for _, s := range capture.shapes {
		if !slices.ContainsFunc(g.Requests, func(w wireShape) bool { return sameShape(s, w) }) {
			got, _ := json.Marshal(s)
			t.Errorf("this run sent a request AIPerf did not: %s", got)
		}
	}
}

// checkGoldenMetrics: of the metrics that depend on the endpoint (those
// AIPerf's summaries show for some cases and not others), the summary
// shows exactly the ones AIPerf's did for the same endpoint and server
// responses. Metrics every AIPerf summary has (or none has) do not depend
// on the endpoint and are another area's concern.
func checkGoldenMetrics(t *testing.T, g endpointGolden, art string, dependent map[string]bool) {
	t.Helper()
	doc := readSummary(t, filepath.Join(art, "profile_export_aiperf.json"))
	got := map[string]bool{}
	for k, v := range doc {
		var m struct {
			Unit *string `json:"unit"`
		}
		if json.Unmarshal(v, &m) == nil && m.Unit != nil {
			got[k] = true
		}
	}
	typ := g.endpointType()
	var missing, extra []string
	for m := range dependent {
		switch want := slices.Contains(g.Metrics, m); {
		case want && !got[m]:
			if why := metricPending(typ, m); why != "" {
				t.Logf("%s: %s is not reported yet: %s", typ, m, why)
				continue
			}
			missing = append(missing, m)
		case !want && got[m]:
			if why := metricDeviation(typ, m); why != "" {
				t.Logf("%s: %s is reported, AIPerf 0.13 does not: %s", typ, m, why)
				continue
			}
			extra = append(extra, m)
		}
	}
	slices.Sort(missing)
	slices.Sort(extra)
	if len(missing)+len(extra) > 0 {
		t.Errorf("endpoint-dependent metrics differ from AIPerf 0.13's: missing %v, extra %v", missing, extra)
	}
}

// endpointDependentMetrics returns the metric tags some goldens have and
// others lack.
func endpointDependentMetrics(goldens []endpointGolden) map[string]bool {
	count := map[string]int{}
	for _, g := range goldens {
		for _, m := range g.Metrics {
			count[m]++
		}
	}
	out := map[string]bool{}
	for m, n := range count {
		// The HTTP trace metrics depend on the transport, not the
		// endpoint (AIPerf leaves them out of polled jobs), and are
		// another area's; they are not computed yet.
		if n < len(goldens) && !strings.HasPrefix(m, "http_req_") {
			out[m] = true
		}
	}
	return out
}

// endpointType is the case's --endpoint-type.
func (g endpointGolden) endpointType() string {
	for i, a := range g.Args {
		if a == "--endpoint-type" && i+1 < len(g.Args) {
			return g.Args[i+1]
		}
	}
	return "chat"
}

// metricPending says why this program does not report metric tag for
// endpoint type typ where AIPerf 0.13 does, or "" when it should.
func metricPending(typ, tag string) string {
	switch {
	case tag == "output_sequence_length":
		return "for an endpoint that produces no tokens AIPerf shows output_sequence_length, always 0, because " +
			"other metrics it computes depend on it; this program shows no metric the endpoint's metadata rules out"
	}
	return ""
}

// metricDeviation says why this program reports metric tag for endpoint
// type typ where AIPerf 0.13 does not, or "" when it should not.
func metricDeviation(typ, tag string) string {
	switch typ {
	case "nim_rankings", "hf_tei_rankings", "cohere_rankings", "solido_rag", "template":
		switch tag {
		case "input_sequence_length", "total_isl", "input_token_throughput", "total_token_throughput":
			return "AIPerf counts input tokens from the request body's known shapes and misses this endpoint's " +
				"(NIM's {\"text\"} objects, TEI's texts, Cohere's documents, Solido's query list, a template's " +
				"own body), although its metadata says the endpoint tokenizes its input; this program counts the " +
				"texts it sends"
		}
	}
	if typ == "image_retrieval" && (tag == "num_images" || tag == "image_throughput" || tag == "image_latency") {
		return "AIPerf 0.13 reports no image count for this endpoint although its own payload extraction " +
			"counts the image parts; this program counts the image parts it sends"
	}
	switch typ {
	case "embeddings", "nim_embeddings", "chat_embeddings", "nim_rankings", "hf_tei_rankings", "cohere_rankings",
		"solido_rag", "huggingface_generate", "template", "raw":
		if strings.HasPrefix(tag, "usage_") || strings.HasPrefix(tag, "total_usage_") {
			return "AIPerf's parser for this endpoint drops the usage the server reports; this program keeps it"
		}
	}
	return ""
}

// externalTool names the program a case's arguments need beyond this
// binary: synthetic video (any --video-* flag) is WebM unless
// --video-format mjpeg asks for the pure-Go container, and mp3 audio is
// encoded by ffmpeg as in AIPerf. "" when the case needs none.
func externalTool(args []string) string {
	video, mjpeg := false, false
	for i, a := range args {
		next := ""
		if i+1 < len(args) {
			next = args[i+1]
		}
		switch {
		case a == "--video-format":
			mjpeg = next == "mjpeg"
		case strings.HasPrefix(a, "--video-"):
			video = true
		case a == "--audio-format" && next == "mp3":
			return "ffmpeg"
		}
	}
	if video && !mjpeg {
		return "ffmpeg"
	}
	return ""
}

// TestExternalTool: the golden cases that encode WebM, MP4 or mp3 ask for
// ffmpeg (and are skipped without it); the pure-Go ones do not.
func TestExternalTool(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--video-width", "32", "--video-height", "32"}, "ffmpeg"},
		{[]string{"--video-format", "mp4", "--video-codec", "mpeg4"}, "ffmpeg"},
		{[]string{"--video-width", "32", "--video-format", "mjpeg"}, ""},
		{[]string{"--audio-format", "mp3", "--audio-length-mean", "1"}, "ffmpeg"},
		{[]string{"--audio-format", "wav"}, ""},
		{[]string{"--endpoint-type", "video_generation", "--download-video-content"}, ""},
	} {
		if got := externalTool(c.args); got != c.want {
			t.Errorf("externalTool(%q) = %q; want %q", c.args, got, c.want)
		}
	}
}
