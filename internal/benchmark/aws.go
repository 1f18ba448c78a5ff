package benchmark

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/remote"
	"github.com/aiperf-go/aiperf/internal/sagemaker"
	"github.com/aiperf-go/aiperf/internal/sigv4"
	"github.com/aiperf-go/aiperf/internal/tokenizer/hub"
	"github.com/aiperf-go/aiperf/internal/transport"
)

// awsSigning is a run's SigV4 signer, made on first use.
type awsSigning struct {
	once   sync.Once
	signer *sigv4.Signer
	err    error
}

// requestSigner is the run's SigV4 signer (--auth-type sigv4 or the
// SageMaker transport), nil when requests are not signed. The
// credentials are looked up once, when it is made, so that a run
// without any fails before it starts, naming where it looked; after
// that the cache refreshes expiring ones before a request would carry
// them. One signer serves the requests, the readiness probes and the
// control hooks.
func (p *Plan) requestSigner() (*sigv4.Signer, error) {
	cfg := p.Config
	if !cfg.Signs() {
		return nil, nil
	}
	if p.aws == nil {
		p.aws = &awsSigning{}
	}
	p.aws.once.Do(func() {
		creds := sigv4.NewCache(&sigv4.Chain{Profile: cfg.Endpoint.AWSProfile, Getenv: p.Env.Getenv}, nil)
		if _, err := creds.Retrieve(); err != nil {
			flag := "--auth-type sigv4"
			if cfg.Endpoint.AuthType != config.AuthSigV4 {
				flag = "--sagemaker-endpoint-name"
			}
			if cfg.Endpoint.AWSProfile != "" {
				flag = "--aws-profile"
			}
			p.aws.err = fmt.Errorf("%s: %w", flag, err)
			return
		}
		p.aws.signer = &sigv4.Signer{Region: cfg.Endpoint.AWSRegion, Service: cfg.SigningService(), Credentials: creds}
	})
	return p.aws.signer, p.aws.err
}

// transportSigner is the transport's signing hook; nil when requests are
// not signed.
func (p *Plan) transportSigner() (transport.Signer, error) {
	s, err := p.requestSigner()
	if s == nil || err != nil {
		return nil, err
	}
	return s.Sign, nil
}

// signedClient is c with its requests signed when the run signs them
// (readiness probes, control hooks).
func (p *Plan) signedClient(c *http.Client) (*http.Client, error) {
	s, err := p.requestSigner()
	if s == nil || err != nil {
		return c, err
	}
	signed := *c
	signed.Transport = s.RoundTripper(c.Transport)
	return &signed, nil
}

// sageMakerURLs are the invocation URLs of a SageMaker run: each --url
// (an explicit one always wins: VPC endpoints, custom domains), else
// the region's SageMaker Runtime host, with the endpoint's path.
func sageMakerURLs(cfg *config.Config, streaming bool) []string {
	bases := cfg.Endpoint.URLs
	if len(bases) == 0 || slices.Equal(bases, []string{config.DefaultURL}) {
		bases = []string{sagemaker.BaseURL(cfg.Endpoint.AWSRegion)}
	}
	urls := make([]string, 0, len(bases))
	for _, b := range bases {
		urls = append(urls, sagemaker.URL(b, cfg.Endpoint.SageMakerEndpointName, streaming, cfg.Endpoint.CustomEndpoint))
	}
	return urls
}

// sageMakerOptions are the run's SageMaker routing options.
func sageMakerOptions(cfg *config.Config) sagemaker.Options {
	e := &cfg.Endpoint
	return sagemaker.Options{EndpointName: e.SageMakerEndpointName, TargetModel: e.SageMakerTargetModel,
		InferenceComponentName: e.SageMakerInferenceComponentName, TargetVariant: e.SageMakerTargetVariant}
}

// localInput is the --input-file the loaders read and its format: a
// remote one (hf://, s3://, https://) is fetched into the cache first,
// and its manifest's format is used when --custom-dataset-type is not
// given. The configuration keeps the reference as given.
func (p *Plan) localInput() (path, format string, err error) {
	d := &p.Config.Dataset
	if !remote.IsRemote(d.InputFile) {
		return d.InputFile, string(d.CustomType), nil
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	f, err := remote.Fetch(context.Background(), d.InputFile, remote.Options{
		CacheDir:   filepath.Join(cache, "aiperf", "remote"),
		Hub:        hub.FromEnv(p.Env.Getenv, nil),
		Getenv:     p.Env.Getenv,
		AWSProfile: p.Config.Endpoint.AWSProfile,
	})
	if err != nil {
		return "", "", err
	}
	format = string(d.CustomType)
	if format == "" {
		format = f.Format()
	}
	slog.Info("remote input fetched", "input_file", d.InputFile, "pinned", f.Pinned, "local", f.Path, "format", format)
	return f.Path, format, nil
}
