package sagemaker_test

import (
	"net/http"
	"testing"

	"github.com/aiperf-go/aiperf/internal/sagemaker"
)

func TestURL(t *testing.T) {
	for _, c := range []struct {
		base, name string
		streaming  bool
		custom     string
		want       string
	}{
		{"https://runtime.sagemaker.us-west-2.amazonaws.com", "my-ep", false, "", "https://runtime.sagemaker.us-west-2.amazonaws.com/endpoints/my-ep/invocations"},
		{"https://runtime.sagemaker.us-west-2.amazonaws.com/", "my-ep", true, "", "https://runtime.sagemaker.us-west-2.amazonaws.com/endpoints/my-ep/invocations-response-stream"},
		{"runtime.sagemaker.us-west-2.amazonaws.com", "a b", false, "", "https://runtime.sagemaker.us-west-2.amazonaws.com/endpoints/a%20b/invocations"},
		{"http://127.0.0.1:9/endpoints/my-ep/invocations", "my-ep", true, "", "http://127.0.0.1:9/endpoints/my-ep/invocations-response-stream"},
		{"http://127.0.0.1:9/endpoints/my-ep/invocations-response-stream", "my-ep", false, "", "http://127.0.0.1:9/endpoints/my-ep/invocations"},
		{"https://vpce-0abc.sagemaker.us-west-2.vpce.amazonaws.com/prefix", "my-ep", false, "", "https://vpce-0abc.sagemaker.us-west-2.vpce.amazonaws.com/prefix/endpoints/my-ep/invocations"},
		{"http://127.0.0.1:9", "my-ep", true, "/custom/path", "http://127.0.0.1:9/custom/path"},
	} {
		if got := sagemaker.URL(c.base, c.name, c.streaming, c.custom); got != c.want {
			t.Errorf("URL(%q, %q, %v, %q) = %q, want %q", c.base, c.name, c.streaming, c.custom, got, c.want)
		}
	}
	if got := sagemaker.BaseURL("cn-north-1"); got != "https://runtime.sagemaker.cn-north-1.amazonaws.com.cn" {
		t.Errorf("China: %s", got)
	}
}

func TestSetHeaders(t *testing.T) {
	o := sagemaker.Options{TargetModel: "model-a.tar.gz", InferenceComponentName: "ic", TargetVariant: "variant-b"}
	h := http.Header{"Accept": {"text/event-stream"}}
	sagemaker.SetHeaders(h, o, true)
	want := http.Header{"X-Amzn-Sagemaker-Accept": {"application/json"}, "X-Amzn-Sagemaker-Inference-Component": {"ic"}, "X-Amzn-Sagemaker-Target-Variant": {"variant-b"}}
	if len(h) != len(want) || h.Get("Accept") != "" || h.Get(sagemaker.HeaderTargetModel) != "" {
		t.Errorf("streaming headers %v, want %v", h, want)
	}
	for k, v := range want {
		if h.Get(k) != v[0] {
			t.Errorf("%s = %q, want %q", k, h.Get(k), v[0])
		}
	}
	h = http.Header{}
	sagemaker.SetHeaders(h, o, false)
	if h.Get("Accept") != "application/json" || h.Get(sagemaker.HeaderTargetModel) != "model-a.tar.gz" || h.Get(sagemaker.HeaderAcceptStreaming) != "" {
		t.Errorf("invoke headers %v", h)
	}
}
