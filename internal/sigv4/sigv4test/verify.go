// Package sigv4test checks SigV4 signatures the way an AWS service does,
// with the AWS SDK for Go's own signer, so that a test server built on it
// is independent of package sigv4's code. Only tests import it.
package sigv4test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// Key is one access key a server accepts.
type Key struct {
	AccessKeyID, SecretAccessKey, SessionToken string
}

// Verifier checks requests against its keys for one region and service.
type Verifier struct {
	Region, Service string
	Keys            []Key
	// S3 signs the path as sent (no second escaping).
	S3 bool
	// Now is the server's clock; nil is time.Now. A signature more than
	// five minutes away from it is refused, as AWS does.
	Now func() time.Time
}

// Verify recomputes r's signature with the AWS SDK's signer over the
// headers r says it signed and body, and returns nil when it matches
// the Authorization header r carries. The error text is AWS's
// (SignatureDoesNotMatch, ...), for the server to send back.
func (v *Verifier) Verify(r *http.Request, body []byte) error {
	auth := r.Header.Get("Authorization")
	rest, ok := strings.CutPrefix(auth, "AWS4-HMAC-SHA256 ")
	if !ok {
		return fmt.Errorf("MissingAuthenticationToken: no SigV4 Authorization header (got %q)", auth)
	}
	fields := map[string]string{}
	for _, f := range strings.Split(rest, ",") {
		k, val, _ := strings.Cut(strings.TrimSpace(f), "=")
		fields[k] = val
	}
	scope := strings.Split(fields["Credential"], "/")
	if len(scope) != 5 {
		return fmt.Errorf("IncompleteSignature: Credential=%q", fields["Credential"])
	}
	if scope[2] != v.Region || scope[3] != v.Service || scope[4] != "aws4_request" {
		return fmt.Errorf("SignatureDoesNotMatch: credential scope %s/%s/%s, want region %s service %s", scope[2], scope[3], scope[4], v.Region, v.Service)
	}
	var key *Key
	for i := range v.Keys {
		if v.Keys[i].AccessKeyID == scope[0] {
			key = &v.Keys[i]
		}
	}
	if key == nil {
		return fmt.Errorf("UnrecognizedClientException: the security token included in the request is invalid (access key %s)", scope[0])
	}
	if key.SessionToken != r.Header.Get("X-Amz-Security-Token") {
		return fmt.Errorf("UnrecognizedClientException: the security token included in the request is invalid (session token)")
	}
	t, err := time.Parse("20060102T150405Z", r.Header.Get("X-Amz-Date"))
	if err != nil {
		return fmt.Errorf("IncompleteSignature: X-Amz-Date %q", r.Header.Get("X-Amz-Date"))
	}
	now := time.Now()
	if v.Now != nil {
		now = v.Now()
	}
	if d := now.Sub(t); d > 5*time.Minute || d < -5*time.Minute {
		return fmt.Errorf("InvalidSignatureException: Signature expired: %s is now earlier than %s", t.Format("20060102T150405Z"), now.Add(-5*time.Minute).UTC().Format("20060102T150405Z"))
	}
	u := *r.URL
	u.Scheme, u.Host = "http", r.Host
	req, err := http.NewRequest(r.Method, u.String(), nil)
	if err != nil {
		return err
	}
	req.Host = r.Host
	for _, name := range strings.Split(fields["SignedHeaders"], ";") {
		switch name {
		case "host", "x-amz-date", "x-amz-security-token":
		case "content-length":
			req.ContentLength = int64(len(body))
		default:
			vals := r.Header.Values(name)
			if len(vals) == 0 {
				return fmt.Errorf("SignatureDoesNotMatch: signed header %s was not sent", name)
			}
			req.Header[http.CanonicalHeaderKey(name)] = vals
		}
	}
	payload := r.Header.Get("X-Amz-Content-Sha256")
	if payload == "" || !v.S3 {
		sum := sha256.Sum256(body)
		payload = hex.EncodeToString(sum[:])
	}
	s := v4.NewSigner(func(o *v4.SignerOptions) { o.DisableURIPathEscaping = v.S3 })
	creds := aws.Credentials{AccessKeyID: key.AccessKeyID, SecretAccessKey: key.SecretAccessKey, SessionToken: key.SessionToken}
	if err := s.SignHTTP(context.Background(), creds, req, payload, v.Service, v.Region, t); err != nil {
		return err
	}
	if got, want := auth, req.Header.Get("Authorization"); got != want {
		return fmt.Errorf("SignatureDoesNotMatch: the request signature we calculated does not match the signature you provided (got %q, want %q)", got, want)
	}
	return nil
}
