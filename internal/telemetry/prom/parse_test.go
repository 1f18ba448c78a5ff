package prom

import (
	"errors"
	"math"
	"testing"

	"github.com/aiperf-go/aiperf/internal/metrics/stats"
	"github.com/google/go-cmp/cmp"
)

func TestParseTextPage(t *testing.T) {
	t.Parallel()
	page := `# HELP vllm:num_requests_running Number of requests in model execution batches.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{model_name="m",engine="0"} 3.0
# HELP vllm:generation_tokens_total Number of generation tokens processed.
# TYPE vllm:generation_tokens_total counter
vllm:generation_tokens_total{model_name="m",engine="0"} 120.0
# HELP vllm:generation_tokens_created Created.
# TYPE vllm:generation_tokens_created gauge
vllm:generation_tokens_created{model_name="m",engine="0"} 1.7e9
# HELP process_uptime_seconds Up.
# TYPE process_uptime_seconds gauge
process_uptime_seconds 12
# HELP lat A summary.
# TYPE lat summary
lat{quantile="0.5"} 1
lat_sum 2
lat_count 2
# HELP ttft Histogram of time to first token in seconds.
# TYPE ttft histogram
ttft_bucket{le="0.5",model_name="m"} 1.0
ttft_bucket{le="1.0",model_name="m"} 3.0
ttft_bucket{le="+Inf",model_name="m"} 4.0
ttft_sum{model_name="m"} 5.5
ttft_count{model_name="m"} 4.0
untyped_thing 7
nan_gauge NaN
# TYPE dup gauge
dup{a="x"} 1
dup{a="x"} 2
`
	fams, err := Parse([]byte(page), "text/plain; version=0.0.4")
	if err != nil {
		t.Fatal(err)
	}
	want := []Family{
		{Name: "dup", Type: Gauge, Series: []Series{{Labels: []Label{{"a", "x"}}, Value: 2}}},
		{Name: "ttft", Help: "Histogram of time to first token in seconds.", Type: Histogram, Series: []Series{{
			Labels: []Label{{"model_name", "m"}}, Sum: 5.5, Count: 4,
			Buckets: []Bucket{{"0.5", 0.5, 1}, {"1.0", 1, 3}, {"+Inf", math.Inf(1), 4}},
		}}},
		{Name: "untyped_thing", Type: Unknown, Series: []Series{{Value: 7}}},
		{Name: "vllm:generation_tokens", Help: "Number of generation tokens processed.", Type: Counter,
			Series: []Series{{Labels: []Label{{"engine", "0"}, {"model_name", "m"}}, Value: 120}}},
		{Name: "vllm:num_requests_running", Help: "Number of requests in model execution batches.", Type: Gauge,
			Series: []Series{{Labels: []Label{{"engine", "0"}, {"model_name", "m"}}, Value: 3}}},
	}
	if diff := cmp.Diff(want, fams); diff != "" {
		t.Errorf("Parse mismatch (-want +got):\n%s", diff)
	}
}

func TestParseKeepsBoundSpelling(t *testing.T) {
	t.Parallel()
	page := "# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_bucket{le=\"2.50\"} 2\nh_bucket{le=\"+Inf\"} 2\nh_sum 3\nh_count 2\n"
	fams, err := Parse([]byte(page), "")
	if err != nil {
		t.Fatal(err)
	}
	var les []string
	for _, b := range fams[0].Series[0].Buckets {
		les = append(les, b.LE)
	}
	if diff := cmp.Diff([]string{"1", "2.50", "+Inf"}, les); diff != "" {
		t.Errorf("bucket keys (-want +got):\n%s", diff)
	}
}

func TestParseDropsNonFiniteHistogramWhole(t *testing.T) {
	t.Parallel()
	page := "# TYPE h histogram\nh_bucket{le=\"1\",k=\"a\"} NaN\nh_bucket{le=\"+Inf\",k=\"a\"} 2\nh_sum{k=\"a\"} 3\nh_count{k=\"a\"} 2\n" +
		"h_bucket{le=\"1\",k=\"b\"} 1\nh_bucket{le=\"+Inf\",k=\"b\"} 2\nh_sum{k=\"b\"} 3\nh_count{k=\"b\"} 2\n"
	fams, err := Parse([]byte(page), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(fams) != 1 || len(fams[0].Series) != 1 || fams[0].Series[0].Labels[0].Value != "b" {
		t.Errorf("Parse = %+v; want only series k=b", fams)
	}
}

func TestParseOpenMetrics(t *testing.T) {
	t.Parallel()
	page := `# TYPE vllm:prompt_tokens counter
# HELP vllm:prompt_tokens Number of prefill tokens processed.
vllm:prompt_tokens_total{model_name="m"} 42.0
vllm:prompt_tokens_created{model_name="m"} 1.7e+09
# TYPE vllm:kv_cache_usage_perc gauge
vllm:kv_cache_usage_perc{model_name="m"} 0.25
# EOF
`
	fams, err := Parse([]byte(page), "application/openmetrics-text; version=1.0.0; charset=utf-8")
	if err != nil {
		t.Fatal(err)
	}
	want := []Family{
		{Name: "vllm:kv_cache_usage_perc", Type: Gauge, Series: []Series{{Labels: []Label{{"model_name", "m"}}, Value: 0.25}}},
		{Name: "vllm:prompt_tokens", Help: "Number of prefill tokens processed.", Type: Counter, Series: []Series{{Labels: []Label{{"model_name", "m"}}, Value: 42}}},
	}
	if diff := cmp.Diff(want, fams); diff != "" {
		t.Errorf("Parse(OpenMetrics) mismatch (-want +got):\n%s", diff)
	}
	// A page sent with the OpenMetrics content type that only the text
	// parser accepts is still read (AIPerf falls back the same way).
	if _, err := Parse([]byte("# TYPE g gauge\ng 1\n"), "application/openmetrics-text; version=1.0.0"); err != nil {
		t.Errorf("text page with an OpenMetrics content type: %v", err)
	}
}

func TestParseRejectsNonPrometheus(t *testing.T) {
	t.Parallel()
	for _, body := range []string{`[{"iter": 1, "numActiveRequests": 2}]`, "<html><body>hi</body></html>", "metric{unclosed 1\n"} {
		if _, err := Parse([]byte(body), "text/plain"); !errors.Is(err, ErrNotPrometheus) {
			t.Errorf("Parse(%q) error = %v; want ErrNotPrometheus", body, err)
		}
	}
}

func TestEndpointDisplayAndNormalize(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"http://localhost:8000/metrics":     "localhost:8000",
		"https://node1:9400/api/metrics":    "node1:9400/api",
		"http://h:1/prometheus/metrics":     "h:1/prometheus",
		"http://user:pw@h:2/metrics":        "h:2",
		"http://localhost:9400/metrics?x=1": "localhost:9400",
	} {
		if got := EndpointDisplay(in); got != want {
			t.Errorf("EndpointDisplay(%q) = %q; want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"node1:8081":               "http://node1:8081/metrics",
		"node2:9090/metrics":       "http://node2:9090/metrics",
		"https://x:1/custom/path":  "https://x:1/custom/path",
		" http://localhost:9400/ ": "http://localhost:9400/metrics",
	} {
		if got := NormalizeURL(in); got != want {
			t.Errorf("NormalizeURL(%q) = %q; want %q", in, got, want)
		}
	}
	if got := RedactURL("http://user:secret@h:2/metrics"); got != "http://h:2/metrics" {
		t.Errorf("RedactURL = %q", got)
	}
}

// FuzzParse checks that any page either parses into well-formed families
// or fails with ErrNotPrometheus, never panicking.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"# TYPE g gauge\ng{a=\"b\"} 1\n",
		"# TYPE c counter\nc_total 2\n",
		"# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_bucket{le=\"+Inf\"} 2\nh_sum 3\nh_count 2\n",
		"# TYPE o counter\no_total 1\n# EOF\n",
		"x 1 1700000000000\n",
		`[{"a":1}]`,
	} {
		f.Add([]byte(seed), "text/plain")
		f.Add([]byte(seed), "application/openmetrics-text; version=1.0.0")
	}
	f.Fuzz(func(t *testing.T, body []byte, ct string) {
		fams, err := Parse(body, ct)
		if err != nil {
			if !errors.Is(err, ErrNotPrometheus) {
				t.Fatalf("error %v does not wrap ErrNotPrometheus", err)
			}
			return
		}
		for i, f := range fams {
			if i > 0 && fams[i-1].Name > f.Name {
				t.Fatalf("families not sorted: %q before %q", fams[i-1].Name, f.Name)
			}
			if len(f.Series) == 0 {
				t.Fatalf("family %q has no series", f.Name)
			}
			for _, s := range f.Series {
				if f.Type != Histogram && !stats.Finite(s.Value) {
					t.Fatalf("non-finite value in %q", f.Name)
				}
				for j := 1; j < len(s.Buckets); j++ {
					if s.Buckets[j-1].Bound > s.Buckets[j].Bound {
						t.Fatalf("buckets of %q not sorted", f.Name)
					}
				}
			}
		}
	})
}
