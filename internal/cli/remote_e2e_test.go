package cli

import (
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/aiperf-go/aiperf/internal/sigv4/sigv4test"
)

const remoteTrace = `{"timestamp": 0, "input_length": 512, "output_length": 5, "hash_ids": [0]}
{"timestamp": 50, "input_length": 600, "output_length": 2, "hash_ids": [0, 1]}
{"timestamp": 90, "input_length": 7, "output_length": 3, "hash_ids": [2]}
`

// TestRemoteInputFile runs published traces by reference against the
// mock server: an https:// file whose sidecar names its loader, and an
// s3:// prefix whose aiperf.json names the file, from an S3-compatible
// store that checks every signature.
func TestRemoteInputFile(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end run")
	}
	mock := startMockServer(t)
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/pub/trace.jsonl":
			io.WriteString(w, remoteTrace)
		case "/pub/trace.jsonl.aiperf.json":
			io.WriteString(w, `{"format": "mooncake_trace"}`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer web.Close()
	v := &sigv4test.Verifier{Region: "us-east-1", Service: "s3", S3: true, Keys: []sigv4test.Key{{AccessKeyID: "AKIDS3", SecretAccessKey: "s3secret"}}}
	var mu sync.Mutex
	var refused []string
	s3 := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := v.Verify(r, nil); err != nil {
			mu.Lock()
			refused = append(refused, err.Error())
			mu.Unlock()
			http.Error(w, "SignatureDoesNotMatch", http.StatusForbidden)
			return
		}
		switch r.URL.Path {
		case "/bucket/runs/aiperf.json":
			io.WriteString(w, `{"path": "trace.jsonl", "format": "mooncake_trace"}`)
		case "/bucket/runs/trace.jsonl":
			io.WriteString(w, remoteTrace)
		default:
			http.Error(w, "NoSuchKey", http.StatusNotFound)
		}
	}))
	defer s3.Close()
	for _, c := range []struct {
		ref string
		env []string
	}{
		{web.URL + "/pub/trace.jsonl", nil},
		{"s3://bucket/runs/", []string{"AWS_ENDPOINT_URL_S3=" + s3.URL, "AWS_REGION=us-east-1", "AWS_ACCESS_KEY_ID=AKIDS3", "AWS_SECRET_ACCESS_KEY=s3secret"}},
	} {
		dir, out, err := awsProfile(t, append(c.env, "XDG_CACHE_HOME="+t.TempDir()), "--url", mock, "--input-file", c.ref)
		if err != nil {
			t.Fatalf("%s: %v\n%s", c.ref, err, out)
		}
		doc := readSummary(t, filepath.Join(dir, "profile_export_aiperf.json"))
		if n := metric(t, doc, "request_count").Avg; n != 3 {
			t.Errorf("%s: request_count = %v, want the trace's 3", c.ref, n)
		}
		if isl := metric(t, doc, "input_sequence_length"); isl.Max != 600 || isl.Min != 7 {
			t.Errorf("%s: input_sequence_length %+v, want the trace's 7..600", c.ref, isl)
		}
		if !strings.Contains(out, "remote input fetched") {
			t.Errorf("%s: the fetch is not logged:\n%s", c.ref, out)
		}
	}
	if len(refused) > 0 {
		t.Errorf("S3 signatures refused: %v", refused)
	}
}
