// Package sagemaker is what is particular to a SageMaker Runtime
// endpoint: its URL (one path per endpoint, invocations or
// invocations-response-stream chosen by streaming), its routing headers
// and its signing name. The request body stays the container's own
// (OpenAI-shaped for vLLM, TGI and LMI containers): SageMaker routes on
// the path and passes the body through.
package sagemaker

import (
	"net/http"
	"net/url"
	"strings"
)

// SigningName is the SigV4 service name of the SageMaker Runtime API
// (botocore's sagemaker-runtime service model signs as "sagemaker").
const SigningName = "sagemaker"

// Header names, from the sagemaker-runtime service model. The two
// operations differ: Accept is X-Amzn-SageMaker-Accept on the streaming
// one, and TargetModel exists on InvokeEndpoint only.
const (
	HeaderTargetModel        = "X-Amzn-SageMaker-Target-Model"
	HeaderTargetVariant      = "X-Amzn-SageMaker-Target-Variant"
	HeaderInferenceID        = "X-Amzn-SageMaker-Inference-Id"
	HeaderInferenceComponent = "X-Amzn-SageMaker-Inference-Component"
	HeaderAcceptStreaming    = "X-Amzn-SageMaker-Accept"
)

// Operation paths under /endpoints/{name}/.
const (
	Invocations       = "invocations"
	InvocationsStream = "invocations-response-stream"
)

// Options are the SageMaker flags of a run.
type Options struct {
	EndpointName           string // --sagemaker-endpoint-name
	TargetModel            string // --sagemaker-target-model (multi-model endpoints)
	InferenceComponentName string // --sagemaker-inference-component-name
	TargetVariant          string // --sagemaker-target-variant
}

// BaseURL is the SageMaker Runtime URL of region
// (https://runtime.sagemaker.<region>.amazonaws.com, .com.cn in China).
func BaseURL(region string) string {
	suffix := "amazonaws.com"
	if strings.HasPrefix(region, "cn-") {
		suffix = "amazonaws.com.cn"
	}
	return "https://runtime.sagemaker." + region + "." + suffix
}

// URL is the invocation URL of an endpoint under base: custom (the
// --endpoint path) when set, else /endpoints/<name>/invocations, or
// invocations-response-stream when streaming (a different operation,
// not a content negotiation: the plain path with "stream": true answers
// one buffered response). A base that already ends with the path (a
// full invocations URL pasted into --url) is not given it twice.
func URL(base, name string, streaming bool, custom string) string {
	u, err := url.Parse(base)
	if err != nil || u.Scheme == "" || u.Host == "" {
		if u, err = url.Parse("https://" + base); err != nil {
			return base
		}
	}
	basePath := strings.TrimRight(u.EscapedPath(), "/")
	var sub string
	if custom != "" {
		sub = strings.TrimLeft(custom, "/")
	} else {
		ep := "endpoints/" + url.PathEscape(name) + "/"
		sub = ep + Invocations
		if streaming {
			sub = ep + InvocationsStream
		}
		// The endpoint's own path pasted with either operation gives
		// way to the one --streaming picks.
		basePath = strings.TrimSuffix(basePath, "/"+ep+InvocationsStream)
		basePath = strings.TrimSuffix(basePath, "/"+ep+Invocations)
	}
	basePath = strings.TrimSuffix(basePath, "/"+sub)
	out := u.Scheme + "://" + u.Host + basePath + "/" + sub
	if u.RawQuery != "" {
		out += "?" + u.RawQuery
	}
	return out
}

// SetHeaders sets the operation's headers on h: Accept (under its
// streaming name when streaming; application/json in both, the event
// stream framing being the operation's), the inference component, the
// target variant and, on InvokeEndpoint only, the target model. The
// target model is sent only when given: SageMaker refuses it on a
// single-model endpoint. The inference id (the request id) is added per
// request by the worker.
func SetHeaders(h http.Header, o Options, streaming bool) {
	h.Del("Accept")
	if streaming {
		h.Set(HeaderAcceptStreaming, "application/json")
	} else {
		h.Set("Accept", "application/json")
	}
	if o.InferenceComponentName != "" {
		h.Set(HeaderInferenceComponent, o.InferenceComponentName)
	}
	if o.TargetVariant != "" {
		h.Set(HeaderTargetVariant, o.TargetVariant)
	}
	if !streaming && o.TargetModel != "" {
		h.Set(HeaderTargetModel, o.TargetModel)
	}
}
