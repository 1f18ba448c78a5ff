package sigv4_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/aiperf-go/aiperf/internal/sigv4"
	"github.com/aiperf-go/aiperf/internal/sigv4/sigv4test"
)

// static is a fixed credentials provider.
type static sigv4.Credentials

func (s static) Retrieve() (sigv4.Credentials, error) { return sigv4.Credentials(s), nil }

var signTime = time.Date(2026, 12, 7, 22, 30, 15, 0, time.UTC)

type signCase struct {
	name, method, url string
	header            http.Header
	body              []byte
	token             string
	unsigned, s3      bool
	region, service   string
}

func signCases() []signCase {
	return []signCase{
		{name: "chat completions through API Gateway", method: "POST", url: "https://abc123.execute-api.us-east-1.amazonaws.com/prod/v1/chat/completions",
			header: http.Header{"Content-Type": {"application/json"}, "Accept": {"text/event-stream"}, "User-Agent": {"aiperf-go"}, "X-Request-Id": {"6f1c"}},
			body:   []byte(`{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":true}`), region: "us-east-1", service: "execute-api"},
		{name: "sagemaker streaming with session token", method: "POST", url: "https://runtime.sagemaker.us-west-2.amazonaws.com/endpoints/my-vllm-endpoint/invocations-response-stream",
			header: http.Header{"Content-Type": {"application/json"}, "X-Amzn-Sagemaker-Accept": {"application/json"}, "X-Amzn-Sagemaker-Inference-Id": {"req-1"}},
			body:   []byte(`{"prompt":"x","stream":true}`), token: "FwoGZXIvYXdzEJr//////////wEaDOC+/=", region: "us-west-2", service: "sagemaker"},
		{name: "path that needs escaping twice", method: "POST", url: "http://127.0.0.1:8080/endpoints/my%20ep%2Fx/invocations?b=2&a=1&a=0&sp=a%20b",
			header: http.Header{"X-Multi": {"one", "  two   words  "}, "Expect": {"100-continue"}, "X-Amzn-Trace-Id": {"Root=1"}},
			body:   []byte("body"), region: "eu-central-1", service: "sagemaker"},
		{name: "empty body GET", method: "GET", url: "https://example.com", header: http.Header{}, region: "us-east-1", service: "execute-api"},
		{name: "s3 object, unsigned payload", method: "GET", url: "http://127.0.0.1:9000/bucket/traces/my%20file.jsonl",
			header: http.Header{}, unsigned: true, s3: true, region: "us-east-1", service: "s3"},
		{name: "s3 object, signed payload", method: "GET", url: "https://bucket.s3.us-east-1.amazonaws.com:443/a/b~c.json?versionId=3",
			header: http.Header{"Range": {"bytes=0-9"}}, s3: true, token: "tok", region: "us-east-1", service: "s3"},
	}
}

// sdkAuthorization signs the same request with the AWS SDK for Go's
// signer: the independent reference.
func sdkAuthorization(t *testing.T, c signCase, sent http.Header) string {
	t.Helper()
	req, err := http.NewRequest(c.method, c.url, bytes.NewReader(c.body))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.body) == 0 {
		req.ContentLength = 0
	}
	for k, v := range c.header {
		req.Header[k] = append([]string(nil), v...)
	}
	payload := "UNSIGNED-PAYLOAD"
	if !c.unsigned {
		sum := sha256.Sum256(c.body)
		payload = hex.EncodeToString(sum[:])
	}
	if c.s3 {
		req.Header.Set("X-Amz-Content-Sha256", payload)
	}
	s := v4.NewSigner(func(o *v4.SignerOptions) { o.DisableURIPathEscaping = c.s3 })
	creds := aws.Credentials{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", SessionToken: c.token}
	if err := s.SignHTTP(context.Background(), creds, req, payload, c.service, c.region, signTime); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"X-Amz-Date", "X-Amz-Security-Token", "X-Amz-Content-Sha256"} {
		if got, want := sent.Get(k), req.Header.Get(k); got != want {
			t.Errorf("%s = %q, the SDK sends %q", k, got, want)
		}
	}
	return req.Header.Get("Authorization")
}

func sign(t *testing.T, c signCase) http.Header {
	t.Helper()
	s := &sigv4.Signer{Region: c.region, Service: c.service, UnsignedPayload: c.unsigned, ContentSHA256: c.s3, DisableURIPathEscaping: c.s3,
		Credentials: static{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", SessionToken: c.token},
		Now:         func() time.Time { return signTime }}
	h := c.header.Clone()
	if err := s.Sign(c.method, c.url, h, c.body); err != nil {
		t.Fatal(err)
	}
	return h
}

// TestSignMatchesSDK checks every case's Authorization, X-Amz-Date,
// X-Amz-Security-Token and X-Amz-Content-Sha256 against the AWS SDK
// for Go's signer.
func TestSignMatchesSDK(t *testing.T) {
	for _, c := range signCases() {
		t.Run(c.name, func(t *testing.T) {
			h := sign(t, c)
			if got, want := h.Get("Authorization"), sdkAuthorization(t, c, h); got != want {
				t.Errorf("Authorization\n got %s\nwant %s", got, want)
			}
		})
	}
}

// TestSignRandomMatchesSDK compares random requests (header names and
// values with spaces, paths and queries with reserved bytes, bodies)
// with the SDK's signatures; the seed is fixed, so a failure repeats.
func TestSignRandomMatchesSDK(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const alphabet = "abcXYZ019-_.~ /%?=&+:;,!*'()@$é"
	word := func(n int) string {
		var b strings.Builder
		for range r.IntN(n) + 1 {
			b.WriteByte(alphabet[r.IntN(len(alphabet))])
		}
		return b.String()
	}
	for i := range 300 {
		c := signCase{method: []string{"GET", "POST", "PUT"}[r.IntN(3)], region: "us-west-2", service: []string{"sagemaker", "execute-api", "s3"}[r.IntN(3)], header: http.Header{}}
		c.s3 = c.service == "s3"
		c.unsigned = c.s3 && r.IntN(2) == 0
		c.url = fmt.Sprintf("https://h%d.example.com/%s/%s?%s=%s&k=%s", i, escape(word(6)), escape(word(4)), escape(word(3)), escape(word(5)), escape(word(2)))
		for range r.IntN(4) {
			c.header.Add("X-Test-"+strings.Repeat("a", r.IntN(3)+1), strings.ReplaceAll(word(12), "é", "e"))
		}
		if r.IntN(2) == 0 {
			c.body = []byte(word(40))
		}
		if r.IntN(2) == 0 {
			c.token = "token" + word(5)
		}
		h := sign(t, c)
		if got, want := h.Get("Authorization"), sdkAuthorization(t, c, h); got != want {
			t.Fatalf("case %d %s %s: Authorization\n got %s\nwant %s", i, c.method, c.url, got, want)
		}
	}
}

// escape percent-encodes what a URL cannot carry as is.
func escape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == ' ' || c == '%' || c == '?' || c == '&' || c == '=' || c == '/' || c == '+' || c >= 0x80 || c == '#':
			fmt.Fprintf(&b, "%%%02X", c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// TestVerifierAcceptsSignedRequest sends a signed request over real HTTP
// to a server that checks it with the SDK, and checks that the server
// refuses a tampered body, a wrong key and a stale date.
func TestVerifierAcceptsSignedRequest(t *testing.T) {
	c := signCases()[1]
	v := &sigv4test.Verifier{Region: c.region, Service: c.service, Now: func() time.Time { return signTime.Add(time.Minute) },
		Keys: []sigv4test.Key{{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", SessionToken: c.token}}}
	h := sign(t, c)
	req, _ := http.NewRequest(c.method, c.url, nil)
	req.Header = h
	if err := v.Verify(req, c.body); err != nil {
		t.Fatalf("signed request refused: %v", err)
	}
	if err := v.Verify(req, append([]byte("x"), c.body...)); err == nil || !strings.Contains(err.Error(), "SignatureDoesNotMatch") {
		t.Errorf("tampered body: %v", err)
	}
	stale := &sigv4test.Verifier{Region: v.Region, Service: v.Service, Keys: v.Keys, Now: func() time.Time { return signTime.Add(6 * time.Minute) }}
	if err := stale.Verify(req, c.body); err == nil || !strings.Contains(err.Error(), "expired") {
		t.Errorf("stale date: %v", err)
	}
	other := &sigv4test.Verifier{Region: v.Region, Service: v.Service, Now: v.Now, Keys: []sigv4test.Key{{AccessKeyID: "AKIDOTHER", SecretAccessKey: "x"}}}
	if err := other.Verify(req, c.body); err == nil {
		t.Error("unknown key accepted")
	}
}
