package transport

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/clock"
	"github.com/aiperf-go/aiperf/internal/eventstream"
	"github.com/aiperf-go/aiperf/internal/record"
	"github.com/aiperf-go/aiperf/internal/sagemaker"
	"github.com/aiperf-go/aiperf/internal/sagemaker/sagemakertest"
	"github.com/aiperf-go/aiperf/internal/sigv4"
	"github.com/aiperf-go/aiperf/internal/sigv4/sigv4test"
)

type staticCreds sigv4.Credentials

func (s staticCreds) Retrieve() (sigv4.Credentials, error) { return sigv4.Credentials(s), nil }

// sageMakerDo sends one chat request to a SageMaker-shaped server that
// checks every signature, with both engines.
func sageMakerDo(t *testing.T, srv *sagemakertest.Server, secret string, streaming, netHTTP bool) *record.Record {
	t.Helper()
	signer := &sigv4.Signer{Region: "us-west-2", Service: sagemaker.SigningName,
		Credentials: staticCreds{AccessKeyID: "AKIDTEST", SecretAccessKey: secret, SessionToken: "session"}}
	c := New(Options{Sign: signer.Sign, NetHTTP: netHTTP})
	defer c.Close()
	h := http.Header{"Content-Type": {"application/json"}, "User-Agent": {"aiperf-go"}, "X-Request-Id": {"req-1"}, sagemaker.HeaderInferenceID: {"req-1"}}
	sagemaker.SetHeaders(h, sagemaker.Options{}, streaming)
	rec := &record.Record{}
	body := []byte(`{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":` + map[bool]string{true: "true", false: "false"}[streaming] + `}`)
	c.Do(context.Background(), clock.New(), &Request{URL: sagemaker.URL(srv.URL, "my-ep", streaming, ""), Body: body, Header: h}, rec)
	return rec
}

func newSageMaker(tokens, failAfter int) *sagemakertest.Server {
	return (&sagemakertest.Server{Endpoint: "my-ep", Tokens: tokens, FailAfter: failAfter, Verifier: sigv4test.Verifier{Region: "us-west-2", Service: "sagemaker",
		Keys: []sigv4test.Key{{AccessKeyID: "AKIDTEST", SecretAccessKey: "secret", SessionToken: "session"}}}}).Start()
}

// TestSageMakerStream checks a signed streaming request end to end: the
// server accepts the signature, and the event stream becomes one chunk
// per SSE line, the [DONE] line last, with both engines.
func TestSageMakerStream(t *testing.T) {
	srv := newSageMaker(7, 0)
	defer srv.Close()
	for _, netHTTP := range []bool{false, true} {
		rec := sageMakerDo(t, srv, "secret", true, netHTTP)
		if rec.Error != nil {
			t.Fatalf("netHTTP=%v: %+v", netHTTP, rec.Error)
		}
		if !rec.Streaming || len(rec.Chunks) != 8 || string(rec.Chunks[7].Data) != "[DONE]" {
			t.Fatalf("netHTTP=%v: streaming=%v, %d chunks", netHTTP, rec.Streaming, len(rec.Chunks))
		}
		for i, ch := range rec.Chunks[:7] {
			var v struct {
				Choices []struct {
					Delta struct{ Content string } `json:"delta"`
				} `json:"choices"`
			}
			if err := json.Unmarshal(ch.Data, &v); err != nil || v.Choices[0].Delta.Content == "" {
				t.Fatalf("chunk %d %q: %v", i, ch.Data, err)
			}
			if i > 0 && ch.At < rec.Chunks[i-1].At {
				t.Fatalf("chunk %d stamped before chunk %d", i, i-1)
			}
		}
	}
	for _, r := range srv.Requests() {
		if r.SignatureError != "" || r.Path != "/endpoints/my-ep/invocations-response-stream" || r.Header.Get(sagemaker.HeaderInferenceID) != "req-1" || r.Header.Get("X-Amz-Security-Token") != "session" {
			t.Errorf("request %+v", r)
		}
	}
}

// TestSageMakerInvoke checks the non-streaming operation.
func TestSageMakerInvoke(t *testing.T) {
	srv := newSageMaker(3, 0)
	defer srv.Close()
	rec := sageMakerDo(t, srv, "secret", false, false)
	if rec.Error != nil || rec.Streaming || len(rec.Chunks) != 1 || !strings.Contains(string(rec.Chunks[0].Data), "tok0 tok1 tok2") {
		t.Fatalf("%+v streaming=%v chunks=%d", rec.Error, rec.Streaming, len(rec.Chunks))
	}
	if p := srv.Requests()[0].Path; p != "/endpoints/my-ep/invocations" {
		t.Errorf("path %s", p)
	}
}

// TestSageMakerFailures checks a wrong secret (the server's 403 with
// AWS's reason) and a ModelStreamError exception mid-stream (its type on
// the record, the tokens before it kept).
func TestSageMakerFailures(t *testing.T) {
	srv := newSageMaker(5, 2)
	defer srv.Close()
	rec := sageMakerDo(t, srv, "wrong", true, false)
	if rec.Error == nil || rec.Error.Code != http.StatusForbidden || !strings.Contains(rec.Error.Message, "SignatureDoesNotMatch") {
		t.Errorf("wrong secret: %+v", rec.Error)
	}
	rec = sageMakerDo(t, srv, "secret", true, false)
	if rec.Error == nil || rec.Error.Type != "ModelStreamError" || !strings.Contains(rec.Error.Message, "Your model container has failed") || len(rec.Chunks) != 2 {
		t.Errorf("exception: %+v after %d chunks", rec.Error, len(rec.Chunks))
	}
}

// failingCreds has no credentials.
type failingCreds struct{}

func (failingCreds) Retrieve() (sigv4.Credentials, error) {
	return sigv4.Credentials{}, sigv4.ErrNoCredentials
}

// TestSignFailureIsRecorded: a request that cannot be signed is not sent
// and fails with SigningError.
func TestSignFailureIsRecorded(t *testing.T) {
	srv := newSageMaker(1, 0)
	defer srv.Close()
	signer := &sigv4.Signer{Region: "us-west-2", Service: "sagemaker", Credentials: failingCreds{}}
	c := New(Options{Sign: signer.Sign})
	defer c.Close()
	rec := &record.Record{}
	c.Do(context.Background(), clock.New(), &Request{URL: srv.URL + "/endpoints/my-ep/invocations", Body: []byte(`{}`), Header: http.Header{}}, rec)
	if rec.Error == nil || rec.Error.Type != SigningErrorType || len(srv.Requests()) != 0 {
		t.Errorf("%+v, %d requests sent", rec.Error, len(srv.Requests()))
	}
}

// readsOf returns its slices one per Read.
type readsOf [][]byte

func (r *readsOf) Read(p []byte) (int, error) {
	if len(*r) == 0 {
		return 0, io.EOF
	}
	n := copy(p, (*r)[0])
	(*r)[0] = (*r)[0][n:]
	if len((*r)[0]) == 0 {
		*r = (*r)[1:]
	}
	return n, nil
}

// TestAWSEventStreamOneStampPerRead: every line completed by one network
// read carries that read's time, and a line spread over two reads the
// second's.
func TestAWSEventStreamOneStampPerRead(t *testing.T) {
	read1 := eventstream.PayloadPart(eventstream.PayloadPart(nil, []byte("data: {\"a\":1}\n")), []byte("data: {\"b\":2}\ndata: {\"c\""))
	read2 := eventstream.PayloadPart(nil, []byte(":3}\ndata: {\"d\":4}\n"))
	body := readsOf{read1, read2}
	c := New(Options{})
	defer c.Close()
	rec := &record.Record{}
	c.readAWSEventStream(context.Background(), context.Background(), clock.New(), rec, &body, nil)
	if rec.Error != nil || len(rec.Chunks) != 4 {
		t.Fatalf("%+v, %d chunks", rec.Error, len(rec.Chunks))
	}
	if rec.Chunks[0].At != rec.Chunks[1].At || rec.Chunks[2].At != rec.Chunks[3].At || rec.Chunks[2].At < rec.Chunks[1].At {
		t.Errorf("stamps %v %v %v %v", rec.Chunks[0].At, rec.Chunks[1].At, rec.Chunks[2].At, rec.Chunks[3].At)
	}
	if got := string(rec.Chunks[2].Data); got != `{"c":3}` {
		t.Errorf("line across reads: %q", got)
	}
}
