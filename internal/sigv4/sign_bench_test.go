package sigv4_test

import (
	"bytes"
	"crypto/sha256"
	"net/http"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/sigv4"
)

// BenchmarkSign is the cost SigV4 adds to one chat request (a 2 KB body,
// the headers the worker sends); BenchmarkBodyHash is its reference in
// the same run, hashing the body alone, which signing cannot avoid.
func BenchmarkSign(b *testing.B) {
	body := bytes.Repeat([]byte("x"), 2048)
	s := &sigv4.Signer{Region: "us-west-2", Service: "sagemaker", Now: func() time.Time { return signTime },
		Credentials: static{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: "secret", SessionToken: "token"}}
	base := http.Header{"Content-Type": {"application/json"}, "User-Agent": {"aiperf-go"}, "X-Request-Id": {"0b7c6a2e-1d3f-4c55-9e0a-2b1f3d4c5e6f"},
		"X-Correlation-Id": {"c1"}, "X-Amzn-Sagemaker-Accept": {"application/json"}}
	b.ReportAllocs()
	for b.Loop() {
		h := base.Clone()
		if err := s.Sign("POST", "https://runtime.sagemaker.us-west-2.amazonaws.com/endpoints/my-ep/invocations-response-stream", h, body); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBodyHash(b *testing.B) {
	body := bytes.Repeat([]byte("x"), 2048)
	for b.Loop() {
		_ = sha256.Sum256(body)
	}
}
