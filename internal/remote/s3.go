package remote

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strings"

	"github.com/aiperf-go/aiperf/internal/sigv4"
)

// s3Object addresses objects of one bucket: path-style under
// AWS_ENDPOINT_URL_S3 (or AWS_ENDPOINT_URL) when set (MinIO and other
// S3-compatible stores), else virtual-hosted on AWS
// (https://<bucket>.s3.<region>.amazonaws.com/<key>).
type s3Object struct {
	bucket, region, endpoint string
	sign                     func(*http.Request) error
}

func (s *s3Object) url(key string) string {
	segs := strings.Split(key, "/")
	for i, seg := range segs {
		segs[i] = url.PathEscape(seg)
	}
	esc := strings.Join(segs, "/")
	if s.endpoint != "" {
		return strings.TrimRight(s.endpoint, "/") + "/" + s.bucket + "/" + esc
	}
	return "https://" + s.bucket + ".s3." + s.region + ".amazonaws.com/" + esc
}

// newS3 signs with the standard credential chain (service s3, unsigned
// payload, the path signed as sent); with no credentials at all, the
// requests go unsigned, as to a public bucket.
func newS3(bucket string, o Options) (*s3Object, error) {
	region := o.getenv("AWS_REGION")
	if region == "" {
		region = o.getenv("AWS_DEFAULT_REGION")
	}
	if region == "" {
		region = "us-east-1"
	}
	endpoint := o.getenv("AWS_ENDPOINT_URL_S3")
	if endpoint == "" {
		endpoint = o.getenv("AWS_ENDPOINT_URL")
	}
	s := &s3Object{bucket: bucket, region: region, endpoint: endpoint}
	creds := sigv4.NewCache(&sigv4.Chain{Profile: o.AWSProfile, Getenv: o.Getenv}, nil)
	if _, err := creds.Retrieve(); errors.Is(err, sigv4.ErrNoCredentials) {
		return s, nil
	} else if err != nil {
		return nil, err
	}
	signer := &sigv4.Signer{Region: region, Service: "s3", Credentials: creds,
		UnsignedPayload: true, ContentSHA256: true, DisableURIPathEscaping: true}
	s.sign = func(r *http.Request) error { return signer.Sign(r.Method, r.URL.String(), r.Header, nil) }
	return s, nil
}

// fetchS3 downloads s3://bucket/key: an object (with its sidecar when
// there is one), or, for a prefix (empty or ending in "/"), the file its
// aiperf.json names.
func fetchS3(ctx context.Context, u *url.URL, o Options) (*Fetched, error) {
	bucket, key := u.Host, strings.TrimPrefix(u.Path, "/")
	if bucket == "" {
		return nil, errors.New("no bucket (s3://bucket/key)")
	}
	s, err := newS3(bucket, o)
	if err != nil {
		return nil, err
	}
	if key == "" || strings.HasSuffix(key, "/") {
		where := "s3://" + bucket + "/" + key + ManifestName
		data, err := fetchBytes(ctx, o, s.url(key+ManifestName), s.sign)
		if err != nil {
			return nil, fmt.Errorf("a prefix is run through its %s, which could not be read: %w", ManifestName, err)
		}
		m, err := parseManifest(data, where, false)
		if err != nil {
			return nil, err
		}
		if strings.HasSuffix(m.Path, "/") {
			return nil, fmt.Errorf("%s: path %q is a folder; a folder of files is not read from S3 yet, name one file", where, m.Path)
		}
		dataKey := path.Join(key, m.Path)
		local, etag, err := cached(ctx, o, "s3", s.url(dataKey), s.sign)
		if err != nil {
			return nil, err
		}
		return &Fetched{Path: local, Manifest: m, Pinned: "s3://" + bucket + "/" + dataKey + " " + etag}, nil
	}
	local, etag, err := cached(ctx, o, "s3", s.url(key), s.sign)
	if err != nil {
		return nil, err
	}
	f := &Fetched{Path: local, Pinned: "s3://" + bucket + "/" + key + " " + etag}
	data, err := fetchBytes(ctx, o, s.url(key+SidecarSuffix), s.sign)
	switch {
	case err == nil:
		if f.Manifest, err = parseManifest(data, "s3://"+bucket+"/"+key+SidecarSuffix, true); err != nil {
			return nil, err
		}
	case errors.Is(err, errNotFound) || strings.Contains(err.Error(), "403"):
		// No sidecar (S3 answers 403 for a missing key to a reader
		// without list rights).
	default:
		return nil, err
	}
	return f, nil
}
