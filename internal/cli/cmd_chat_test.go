package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// chatServer streams "Hello", " world", "!" and a usage chunk, and
// records the messages of each request.
func chatServer(t *testing.T) (*httptest.Server, *[][]chatMessage) {
	var mu sync.Mutex
	var seen [][]chatMessage
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []chatMessage `json:"messages"`
			Stream   bool          `json:"stream"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		if r.Header.Get("Authorization") != "Bearer k-1" || !req.Stream {
			http.Error(w, "no", 401)
			return
		}
		mu.Lock()
		seen = append(seen, req.Messages)
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		fl := w.(http.Flusher)
		for i, piece := range []string{"Hello", " world", "!"} {
			if i > 0 {
				time.Sleep(5 * time.Millisecond)
			}
			fmt.Fprintf(w, "data: {\"choices\":[{\"delta\":{\"content\":%q}}]}\n\n", piece)
			fl.Flush()
		}
		fmt.Fprint(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":3,\"prompt_tokens_details\":{\"cached_tokens\":4}}}\n\ndata: [DONE]\n\n")
	}))
	return srv, &seen
}

func TestChatQuick(t *testing.T) {
	t.Parallel()
	srv, seen := chatServer(t)
	defer srv.Close()
	var out, errOut bytes.Buffer
	code := Main(context.Background(), []string{"chat", "-m", "m", "-u", srv.URL, "--api-key", "k-1", "--tokenizer", "builtin",
		"--system-prompt", "Be brief.", "-q", "hi"}, Env{Stdout: &out, Stderr: &errOut})
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	o := out.String()
	for _, want := range []string{"Hello world!\n", "TTFT: ", "TPS:  ", "tokens/s (3 tokens in ", "ITL:  ", "Cache: 4/10 prompt tokens cached (40.0%)"} {
		if !strings.Contains(o, want) {
			t.Errorf("output lacks %q:\n%s", want, o)
		}
	}
	if len(*seen) != 1 || len((*seen)[0]) != 2 || (*seen)[0][0].Role != "system" {
		t.Errorf("request messages %+v", *seen)
	}
}

// TestChatAPIKeyFromEnv: without --api-key the key is OPENAI_API_KEY,
// as in AIPerf.
func TestChatAPIKeyFromEnv(t *testing.T) {
	t.Parallel()
	srv, seen := chatServer(t)
	defer srv.Close()
	var out, errOut bytes.Buffer
	getenv := func(k string) string { return map[string]string{"OPENAI_API_KEY": "k-1"}[k] }
	code := Main(context.Background(), []string{"chat", "-m", "m", "-u", srv.URL, "--tokenizer", "builtin", "-q", "hi"},
		Env{Stdout: &out, Stderr: &errOut, Getenv: getenv})
	if code != 0 || len(*seen) != 1 {
		t.Fatalf("exit %d, %d requests accepted: %s", code, len(*seen), errOut.String())
	}
}

func TestChatInteractiveHistory(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want int // messages in the second request
	}{{nil, 3}, {[]string{"--no-history"}, 1}} {
		srv, seen := chatServer(t)
		var out bytes.Buffer
		args := append([]string{"chat", "-m", "m", "-u", srv.URL, "--api-key", "k-1", "--tokenizer", "builtin"}, tc.args...)
		code := Main(context.Background(), args, Env{Stdin: strings.NewReader("first\n\nsecond\n"), Stdout: &out})
		srv.Close()
		if code != 0 || len(*seen) != 2 {
			t.Fatalf("%v: exit %d, %d requests:\n%s", tc.args, code, len(*seen), out.String())
		}
		if n := len((*seen)[1]); n != tc.want {
			t.Errorf("%v: second request has %d messages; want %d", tc.args, n, tc.want)
		}
	}
}

func TestChatErrors(t *testing.T) {
	t.Parallel()
	srv, _ := chatServer(t)
	defer srv.Close()
	var errOut bytes.Buffer
	if code := Main(context.Background(), []string{"chat", "-u", srv.URL, "-q", "x"}, Env{Stderr: &errOut}); code != 2 {
		t.Errorf("no model: exit %d", code)
	}
	if code := Main(context.Background(), []string{"chat", "-m", "m", "-u", srv.URL, "--tokenizer", "builtin", "-q", "x"}, Env{Stderr: &errOut}); code != 1 || !strings.Contains(errOut.String(), "401") {
		t.Errorf("unauthorised: exit %d, %s", code, errOut.String())
	}
}

func TestFormatChatStats(t *testing.T) {
	t.Parallel()
	got := formatChatStats(chatStats{TTFT: 100 * time.Millisecond, Latency: 1100 * time.Millisecond, OutputTokens: 11})
	want := "TTFT: 100.00 ms\nTPS:  10.00 tokens/s (11 tokens in 1.10s)\nITL:  100.00 ms/token (decode 10.00 tokens/s)"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if got := formatChatStats(chatStats{}); got != "(no tokens received)" {
		t.Errorf("empty = %q", got)
	}
}
