package benchmark

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/mockserver"
)

// TestRunWarnsWhenStreamingIsIgnored: a server that answers a --streaming
// run with one JSON body (it ignores "stream": true) gets a console line
// saying so and the count in client_health, since those requests' TTFT is
// the whole request and their ITL 0; a server that streams gets neither.
func TestRunWarnsWhenStreamingIsIgnored(t *testing.T) {
	t.Parallel()
	for _, ignore := range []bool{true, false} {
		h := mockserver.New(mockConfig(t, nil))
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if ignore && r.Body != nil {
				b, _ := io.ReadAll(r.Body)
				b = bytes.ReplaceAll(b, []byte(`"stream":true`), []byte(`"stream":false`))
				r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(b)), int64(len(b))
			}
			h.ServeHTTP(w, r)
		}))
		t.Cleanup(srv.Close)
		cfg := baseConfig(t, srv.URL)
		cfg.Load.RequestCount = ptr(4)
		out, err := run(t, context.Background(), cfg)
		if err != nil {
			t.Fatalf("ignore %v: %v\n%s", ignore, err, out)
		}
		var doc struct {
			Health struct {
				Unstreamed int `json:"unstreamed_responses"`
			} `json:"client_health"`
		}
		if err := json.Unmarshal(summary(t, filepath.Join(cfg.Output.ArtifactDir, "profile_export_aiperf.json"))["client_health"], &doc.Health); err != nil {
			t.Fatal(err)
		}
		warned := strings.Contains(out, "Streaming: 4 of 4 good responses came back as one non-streamed body")
		if want := map[bool]int{true: 4, false: 0}[ignore]; doc.Health.Unstreamed != want || warned != ignore {
			t.Errorf("ignore %v: unstreamed_responses %d, console line %v; want %d and %v\n%s", ignore, doc.Health.Unstreamed, warned, want, ignore, out)
		}
	}
}
