// Package otlptest is an OTLP/HTTP metrics receiver for tests: an
// httptest server that decodes each POST /v1/metrics body (protobuf,
// gzip or not) with the OpenTelemetry protocol's own generated types and
// keeps the requests, so a test can check what an exporter sent.
package otlptest

import (
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"

	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
	"google.golang.org/protobuf/proto"
)

// Receiver collects export requests.
type Receiver struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []*colmetricpb.ExportMetricsServiceRequest
	// ContentTypes are the requests' Content-Type headers.
	ContentTypes []string
}

// New starts a receiver; its metrics URL is URL()+"/v1/metrics".
func New() *Receiver {
	r := &Receiver{}
	r.Server = httptest.NewServer(http.HandlerFunc(r.serve))
	return r
}

func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost || req.URL.Path != "/v1/metrics" {
		http.NotFound(w, req)
		return
	}
	var body io.Reader = req.Body
	if req.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(req.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = zr
	}
	b, err := io.ReadAll(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var m colmetricpb.ExportMetricsServiceRequest
	if err := proto.Unmarshal(b, &m); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	r.reqs = append(r.reqs, &m)
	r.ContentTypes = append(r.ContentTypes, req.Header.Get("Content-Type"))
	r.mu.Unlock()
	out, _ := proto.Marshal(&colmetricpb.ExportMetricsServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(out)
}

// MetricsURL is the endpoint to export to.
func (r *Receiver) MetricsURL() string { return r.URL + "/v1/metrics" }

// Requests returns the requests received so far.
func (r *Receiver) Requests() []*colmetricpb.ExportMetricsServiceRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*colmetricpb.ExportMetricsServiceRequest(nil), r.reqs...)
}

// Metric is one metric of the last export that carried it (cumulative
// temporality: the latest values), with its resource attributes.
type Metric struct {
	*metricpb.Metric
	Resource map[string]string
}

// Latest returns every metric by name as last exported.
func (r *Receiver) Latest() map[string]Metric {
	out := map[string]Metric{}
	for _, req := range r.Requests() {
		for _, rm := range req.GetResourceMetrics() {
			res := Attrs(rm.GetResource().GetAttributes())
			for _, sm := range rm.GetScopeMetrics() {
				for _, m := range sm.GetMetrics() {
					out[m.GetName()] = Metric{Metric: m, Resource: res}
				}
			}
		}
	}
	return out
}

// Attrs converts OTLP attributes to strings.
func Attrs(kvs []*commonpb.KeyValue) map[string]string {
	out := map[string]string{}
	for _, kv := range kvs {
		v := kv.GetValue()
		switch x := v.GetValue().(type) {
		case *commonpb.AnyValue_StringValue:
			out[kv.GetKey()] = x.StringValue
		case *commonpb.AnyValue_BoolValue:
			if x.BoolValue {
				out[kv.GetKey()] = "true"
			} else {
				out[kv.GetKey()] = "false"
			}
		case *commonpb.AnyValue_IntValue:
			out[kv.GetKey()] = strconv.FormatInt(x.IntValue, 10)
		case *commonpb.AnyValue_DoubleValue:
			out[kv.GetKey()] = strconv.FormatFloat(x.DoubleValue, 'g', -1, 64)
		}
	}
	return out
}
