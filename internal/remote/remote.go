// Package remote fetches a remote --input-file into a local cache: a
// HuggingFace dataset repository (hf://org/repo[@revision][/path]), an S3
// object or prefix (s3://bucket/key), or an HTTPS URL. A repository,
// folder or prefix is run through the published-trace manifest at its
// root (aiperf.json: the data file's path and its loader's format); a
// single file may carry a sidecar manifest next to it
// (<file>.aiperf.json: defaults only, never a path). The dataset loaders
// then read the cached file exactly as a local one.
package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/aiperf-go/aiperf/internal/environ"
	"github.com/aiperf-go/aiperf/internal/tokenizer/hub"
)

// ManifestName is the published-trace manifest at the root of a
// repository, folder or prefix; a file's sidecar is <file> + SidecarSuffix.
const (
	ManifestName  = "aiperf.json"
	SidecarSuffix = ".aiperf.json"
)

// Manifest is a published trace's manifest. Path and Format are read;
// every other field is kept as published (defaults and requirements).
type Manifest struct {
	// Path is the data file, relative to the manifest (root manifests
	// only).
	Path string `json:"path,omitempty"`
	// Format is the loader that reads it (--custom-dataset-type), e.g.
	// mooncake_trace.
	Format string `json:"format,omitempty"`
	// Fields are all of the manifest's fields, Path and Format included.
	Fields map[string]json.RawMessage `json:"-"`
}

func parseManifest(data []byte, where string, sidecar bool) (*Manifest, error) {
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: not a JSON manifest: %w", where, err)
	}
	_ = json.Unmarshal(data, &m.Fields)
	if sidecar && m.Path != "" {
		return nil, fmt.Errorf("%s: a sidecar manifest must not set path (it describes the file it sits next to)", where)
	}
	if !sidecar && m.Path == "" {
		return nil, fmt.Errorf("%s: the manifest names no data file (\"path\")", where)
	}
	if strings.HasPrefix(m.Path, "/") || strings.Contains("/"+m.Path+"/", "/../") {
		return nil, fmt.Errorf("%s: path %q must stay inside the repository", where, m.Path)
	}
	return &m, nil
}

// Fetched is a remote input made local.
type Fetched struct {
	// Path is the local copy, read as the --input-file.
	Path string
	// Manifest is the root or sidecar manifest; nil when there is none.
	Manifest *Manifest
	// Pinned names exactly what was read: the repository commit, the
	// object's ETag (and version), the URL's ETag.
	Pinned string
}

// Format is the manifest's loader, "" when it names none.
func (f *Fetched) Format() string {
	if f.Manifest == nil {
		return ""
	}
	return f.Manifest.Format
}

// Options are where and how remote inputs are fetched.
type Options struct {
	// CacheDir holds the HTTPS and S3 downloads (hf:// uses the hub
	// cache).
	CacheDir string
	// HTTP is the client of HTTPS and S3 requests; nil is
	// http.DefaultClient.
	HTTP *http.Client
	// Hub fetches hf:// references (HF_ENDPOINT, HF_TOKEN, the hub cache).
	Hub *hub.Client
	// Getenv reads AWS_REGION, AWS_DEFAULT_REGION, AWS_ENDPOINT_URL_S3,
	// AWS_ENDPOINT_URL and the credential chain's variables; nil is
	// environ.Getenv.
	Getenv func(string) string
	// AWSProfile is the credential profile of s3:// requests.
	AWSProfile string
}

// IsRemote reports whether an --input-file names a remote input.
func IsRemote(ref string) bool {
	for _, p := range []string{"hf://", "s3://", "https://", "http://"} {
		if strings.HasPrefix(strings.ToLower(ref), p) {
			return true
		}
	}
	return false
}

// Fetch makes ref local, with its manifest.
func Fetch(ctx context.Context, ref string, o Options) (*Fetched, error) {
	u, err := url.Parse(ref)
	if err != nil {
		return nil, fmt.Errorf("--input-file %s: %w", ref, err)
	}
	var f *Fetched
	switch strings.ToLower(u.Scheme) {
	case "hf":
		f, err = fetchHF(ctx, u, o)
	case "s3":
		f, err = fetchS3(ctx, u, o)
	case "http", "https":
		f, err = fetchHTTPS(ctx, ref, o)
	default:
		err = errors.New("not a remote reference (hf://, s3://, https://)")
	}
	if err != nil {
		return nil, fmt.Errorf("--input-file %s: %w", ref, err)
	}
	return f, nil
}

func (o *Options) httpClient() *http.Client {
	if o.HTTP != nil {
		return o.HTTP
	}
	return http.DefaultClient
}

func (o *Options) getenv(k string) string {
	if o.Getenv == nil {
		return environ.Getenv(k)
	}
	return o.Getenv(k)
}
