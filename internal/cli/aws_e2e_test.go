package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/sagemaker"
	"github.com/aiperf-go/aiperf/internal/sagemaker/sagemakertest"
	"github.com/aiperf-go/aiperf/internal/sigv4/sigv4test"
)

// awsTestServer is a SageMaker-shaped server accepting one access key
// with a session token.
func awsTestServer(t *testing.T, tokens, failAfter int) *sagemakertest.Server {
	t.Helper()
	srv := (&sagemakertest.Server{Endpoint: "my-ep", Tokens: tokens, FailAfter: failAfter, Verifier: sigv4test.Verifier{Region: "us-west-2", Service: "sagemaker",
		Keys: []sigv4test.Key{{AccessKeyID: "AKIDE2E", SecretAccessKey: "e2e-secret", SessionToken: "e2e-session"}}}}).Start()
	t.Cleanup(srv.Close)
	return srv
}

// awsProfile runs `aiperf profile` with the AWS credentials in env (and a
// HOME of its own, so no real ~/.aws is read) and returns the artifact
// directory.
func awsProfile(t *testing.T, env []string, args ...string) (string, string, error) {
	t.Helper()
	dir := t.TempDir()
	cmd := aiperfCmd(t, append([]string{"profile", "-m", "m", "--tokenizer", "builtin", "--endpoint-type", "chat", "--ui", "none", "--output-artifact-dir", dir}, args...)...)
	cmd.Env = append(cmd.Env, "HOME="+dir, "AWS_ACCESS_KEY_ID=", "AWS_SECRET_ACCESS_KEY=", "AWS_SESSION_TOKEN=", "AWS_PROFILE=", "AWS_CONFIG_FILE=", "AWS_SHARED_CREDENTIALS_FILE=", "AWS_CONTAINER_CREDENTIALS_FULL_URI=", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI=")
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	return dir, string(out), err
}

var e2eKeys = []string{"AWS_ACCESS_KEY_ID=AKIDE2E", "AWS_SECRET_ACCESS_KEY=e2e-secret", "AWS_SESSION_TOKEN=e2e-session"}

// TestSageMakerEndToEnd runs a streaming profile through the SageMaker
// transport: every request is signed and accepted, goes to the
// streaming operation with the routing headers and the request id as
// the inference id, and the event stream yields streaming metrics.
func TestSageMakerEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end run")
	}
	srv := awsTestServer(t, 6, 0)
	dir, out, err := awsProfile(t, e2eKeys, "--streaming", "--request-count", "4", "--concurrency", "2",
		"--sagemaker-endpoint-name", "my-ep", "--aws-region", "us-west-2", "--url", srv.URL,
		"--sagemaker-inference-component-name", "ic-1", "--sagemaker-target-variant", "variant-b", "--api-key", "must-not-be-sent")
	if err != nil {
		t.Fatalf("profile failed: %v\n%s", err, out)
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("server saw %d requests, want 4", len(reqs))
	}
	for _, r := range reqs {
		switch {
		case r.SignatureError != "":
			t.Errorf("signature refused: %s", r.SignatureError)
		case r.Path != "/endpoints/my-ep/invocations-response-stream":
			t.Errorf("path %s", r.Path)
		case r.Header.Get(sagemaker.HeaderInferenceComponent) != "ic-1" || r.Header.Get(sagemaker.HeaderTargetVariant) != "variant-b":
			t.Errorf("routing headers %v", r.Header)
		case r.Header.Get(sagemaker.HeaderInferenceID) == "" || r.Header.Get(sagemaker.HeaderInferenceID) != r.Header.Get("X-Request-Id"):
			t.Errorf("inference id %q, request id %q", r.Header.Get(sagemaker.HeaderInferenceID), r.Header.Get("X-Request-Id"))
		case r.Header.Get(sagemaker.HeaderAcceptStreaming) != "application/json" || r.Header.Get(sagemaker.HeaderTargetModel) != "":
			t.Errorf("accept/target model %v", r.Header)
		case strings.Contains(r.Header.Get("Authorization"), "must-not-be-sent") || r.Header.Get("X-Api-Key") != "":
			t.Errorf("api key sent beside the signature: %v", r.Header)
		}
	}
	doc := readSummary(t, filepath.Join(dir, "profile_export_aiperf.json"))
	if n := metric(t, doc, "request_count").Avg; n != 4 {
		t.Errorf("request_count = %v, want 4", n)
	}
	if osl := metric(t, doc, "output_sequence_length"); osl.Avg <= 0 {
		t.Errorf("output_sequence_length %+v", osl)
	}
	if ttft := metric(t, doc, "time_to_first_token"); ttft.Avg <= 0 {
		t.Errorf("time_to_first_token %+v", ttft)
	}
	if _, ok := doc["inter_token_latency"]; !ok {
		t.Error("no inter_token_latency: the event stream was not read as a stream")
	}
	ids := map[string]bool{}
	for _, r := range reqs {
		ids[r.Header.Get(sagemaker.HeaderInferenceID)] = true
	}
	for _, l := range jsonlLines(t, filepath.Join(dir, "profile_export.jsonl")) {
		if _, failed := l["error"]; failed && string(l["error"]) != "null" {
			t.Errorf("record failed: %s", l["error"])
		}
		meta := string(l["metadata"])
		found := false
		for id := range ids {
			found = found || strings.Contains(meta, id)
		}
		if !found {
			t.Errorf("record's x_request_id not among the inference ids sent: %s", meta)
		}
	}
}

// TestSageMakerStreamErrorIsRecorded: a ModelStreamError mid-stream
// fails the request with that type in the error summary.
func TestSageMakerStreamErrorIsRecorded(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end run")
	}
	srv := awsTestServer(t, 6, 3)
	dir, out, err := awsProfile(t, e2eKeys, "--streaming", "--request-count", "2",
		"--sagemaker-endpoint-name", "my-ep", "--aws-region", "us-west-2", "--url", srv.URL)
	if err != nil && !strings.Contains(out, "ModelStreamError") {
		t.Fatalf("profile: %v\n%s", err, out)
	}
	doc := readSummary(t, filepath.Join(dir, "profile_export_aiperf.json"))
	if !strings.Contains(string(doc["error_summary"]), "ModelStreamError") {
		t.Errorf("error_summary %s", doc["error_summary"])
	}
}

// TestSigV4PlainHTTPWithProfile signs over the plain http transport
// (--auth-type sigv4 with an explicit --endpoint path, AIPerf's
// non-streaming SageMaker route) with credentials from a named profile
// of a shared credentials file, which takes precedence over wrong keys
// in the environment. The readiness probe is signed too.
func TestSigV4PlainHTTPWithProfile(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end run")
	}
	srv := awsTestServer(t, 3, 0)
	creds := filepath.Join(t.TempDir(), "credentials")
	if err := os.WriteFile(creds, []byte("[bench]\naws_access_key_id = AKIDE2E\naws_secret_access_key = e2e-secret\naws_session_token = e2e-session\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"AWS_SHARED_CREDENTIALS_FILE=" + creds, "AWS_ACCESS_KEY_ID=AKIDWRONG", "AWS_SECRET_ACCESS_KEY=wrong"}
	dir, out, err := awsProfile(t, env, "--request-count", "3", "--url", srv.URL, "--endpoint", "/endpoints/my-ep/invocations",
		"--auth-type", "sigv4", "--aws-region", "us-west-2", "--aws-service", "sagemaker", "--aws-profile", "bench",
		"--wait-for-model-timeout", "30", "--wait-for-model-mode", "inference")
	if err != nil {
		t.Fatalf("profile failed: %v\n%s", err, out)
	}
	invocations := 0
	for _, r := range srv.Requests() {
		if r.Path == "/metrics" {
			continue // the server-metrics scrape, unsigned as in AIPerf
		}
		invocations++
		if r.SignatureError != "" || r.Path != "/endpoints/my-ep/invocations" {
			t.Errorf("%s: %s", r.Path, r.SignatureError)
		}
	}
	if invocations != 4 { // the readiness probe, signed, then the 3 requests
		t.Errorf("%d signed invocations, want 4 (probe + 3)", invocations)
	}
	if n := metric(t, readSummary(t, filepath.Join(dir, "profile_export_aiperf.json")), "request_count").Avg; n != 3 {
		t.Errorf("request_count = %v, want 3", n)
	}
}

// TestAWSOptionsRefused checks the startup refusals, each naming its
// flag and AIPerf's reason, before any request is sent.
func TestAWSOptionsRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end run")
	}
	for _, c := range []struct {
		args []string
		env  []string
		want string
	}{
		{[]string{"--aws-region", "us-east-1"}, nil, "--aws-region: requires --auth-type sigv4"},
		{[]string{"--auth-type", "sigv4", "--aws-service", "execute-api"}, nil, "--aws-region: is required"},
		{[]string{"--auth-type", "sigv4", "--aws-region", "us-east-1"}, nil, "--aws-service: is required"},
		{[]string{"--sagemaker-target-variant", "v"}, nil, "--sagemaker-target-variant: requires the SageMaker transport"},
		{[]string{"--sagemaker-endpoint-name", "e", "--aws-region", "us-east-1", "--wait-for-model-timeout", "5"}, nil, "readiness probe targets OpenAI routes"},
		{[]string{"--auth-type", "sigv4", "--aws-region", "us-east-1", "--aws-service", "execute-api", "--endpoint-type", "image_edit"}, nil, "multipart/form-data"},
		{[]string{"--auth-type", "sigv4", "--aws-region", "us-east-1", "--aws-service", "execute-api", "--url", "http://127.0.0.1:9"}, nil, "no AWS credentials found"},
	} {
		_, out, err := awsProfile(t, c.env, append([]string{"--request-count", "1"}, c.args...)...)
		if err == nil || !strings.Contains(out, c.want) {
			t.Errorf("%v: err %v, output lacks %q:\n%s", c.args, err, c.want, out)
		}
	}
}
