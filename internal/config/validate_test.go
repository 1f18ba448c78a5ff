package config

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

func ptr[T any](v T) *T { return &v }

// valid returns the smallest configuration that validates.
func valid() Config {
	c := Defaults()
	c.Endpoint.ModelNames = []string{"mock-model"}
	return c
}

func TestDefaultsNeedOnlyAModel(t *testing.T) {
	t.Parallel()
	c := Defaults()
	err := c.Validate()
	if err == nil || !strings.Contains(err.Error(), "--model-names") {
		t.Fatalf("Defaults().Validate() = %v; want a --model-names problem", err)
	}
	if got := flagsOf(err); len(got) != 1 {
		t.Fatalf("Defaults().Validate() problems = %v; want only --model-names", got)
	}
	c = valid()
	if err := c.Validate(); err != nil {
		t.Fatalf("valid().Validate() = %v; want nil", err)
	}
}

// flagsOf lists the Flag of every FieldError joined in err.
// validateCase is one Validate check: edit a valid config; every
// problem's flag, in order (nil = valid), and text in the error.
type validateCase struct {
	name  string
	edit  func(c *Config)
	flags []string
	text  string
}

// checkValidate runs each case in parallel.
func checkValidate(t *testing.T, tests []validateCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := valid()
			tt.edit(&c)
			err := c.Validate()
			if got := flagsOf(err); !slices.Equal(got, tt.flags) {
				t.Fatalf("Validate() = %v; want problems with %v", err, tt.flags)
			}
			if tt.text != "" && !strings.Contains(err.Error(), tt.text) {
				t.Fatalf("Validate() = %v; want %q in it", err, tt.text)
			}
		})
	}
}

func flagsOf(err error) []string {
	var out []string
	var joined interface{ Unwrap() []error }
	if errors.As(err, &joined) {
		for _, e := range joined.Unwrap() {
			var fe *FieldError
			if errors.As(e, &fe) {
				out = append(out, fe.Flag)
			}
		}
	}
	return out
}

func TestValidateRules(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		edit func(c *Config)
		// flag is the flag the only problem must name ("" = valid); text
		// must appear in the message.
		flag, text string
	}{
		{"empty model name", func(c *Config) { c.Endpoint.ModelNames = []string{"a", " "} }, "--model-names", "must not be empty"},
		{"two models", func(c *Config) { c.Endpoint.ModelNames = []string{"a", "b"} }, "", ""},
		{"no url", func(c *Config) { c.Endpoint.URLs = nil }, "--url", "at least one URL"},
		{"url without host", func(c *Config) { c.Endpoint.URLs = []string{"http://"} }, "--url", "no host"},
		{"ftp url", func(c *Config) { c.Endpoint.URLs = []string{"ftp://x"} }, "--url", "http or https"},
		{"url with an empty port", func(c *Config) { c.Endpoint.URLs = []string{"http://host:"} }, "--url", "empty port"},
		{"url with port zero", func(c *Config) { c.Endpoint.URLs = []string{"http://host:0"} }, "--url", "not in 1-65535"},
		{"url with only a port", func(c *Config) { c.Endpoint.URLs = []string{"http://:8000"} }, "--url", "no host"},
		{"https url", func(c *Config) { c.Endpoint.URLs = []string{"https://x:1/p"} }, "", ""},
		{"mock server", func(c *Config) { c.Endpoint.MockServer = true }, "", ""},
		{"mock server no url", func(c *Config) { c.Endpoint.MockServer = true; c.Endpoint.URLs = nil }, "", ""},
		{"mock server with url", func(c *Config) {
			c.Endpoint.MockServer = true
			c.Endpoint.URLs = []string{"http://h:1"}
		}, "--mock-server", "cannot be combined with --url"},
		{"completions", func(c *Config) { c.Endpoint.Type = EndpointCompletions }, "", ""},
		{"embeddings", func(c *Config) { c.Endpoint.Type = EndpointEmbeddings }, "", ""},
		{"unknown endpoint", func(c *Config) { c.Endpoint.Type = "bogus" }, "--endpoint-type", "invalid choice"},
		{"custom endpoint space", func(c *Config) { c.Endpoint.CustomEndpoint = "/a b" }, "--custom-endpoint", "whitespace"},
		{"timeout zero", func(c *Config) { c.Endpoint.TimeoutSeconds = 0 }, "--request-timeout-seconds", "> 0"},
		{"timeout nan", func(c *Config) { c.Endpoint.TimeoutSeconds = math.NaN() }, "--request-timeout-seconds", "> 0"},
		{"timeout inf", func(c *Config) { c.Endpoint.TimeoutSeconds = math.Inf(1) }, "--request-timeout-seconds", "finite"},
		{"extra empty key", func(c *Config) { c.Input.Extra = []ExtraInput{{Key: "", Value: []byte("1")}} }, "--extra-inputs", "keys"},
		{"extra bad json", func(c *Config) { c.Input.Extra = []ExtraInput{{Key: "k", Value: []byte("{")}} }, "--extra-inputs", "not valid JSON"},
		{"header bad name", func(c *Config) { c.Input.Headers = []Header{{Name: "A B", Value: "v"}} }, "--header", "not a valid header name"},
		{"header empty name", func(c *Config) { c.Input.Headers = []Header{{Name: "", Value: "v"}} }, "--header", "not a valid header name"},
		{"header newline", func(c *Config) { c.Input.Headers = []Header{{Name: "A", Value: "v\r\nB: x"}} }, "--header", "CR, LF"},
		{"header ok", func(c *Config) { c.Input.Headers = []Header{{Name: "X-A", Value: "a, b: c"}} }, "", ""},
		{"seed negative", func(c *Config) { c.Input.RandomSeed = ptr(int64(-1)) }, "--random-seed", ">= 0"},
		{"seed zero", func(c *Config) { c.Input.RandomSeed = ptr(int64(0)) }, "", ""},
		{"goodput nan", func(c *Config) { c.Input.Goodput = map[string]float64{"ttft": math.NaN()} }, "--goodput", "finite"},
		{"goodput empty tag", func(c *Config) { c.Input.Goodput = map[string]float64{"": 1} }, "--goodput", "empty"},
		{"entries zero", func(c *Config) { c.Input.NumDatasetEntries = ptr(0) }, "--num-dataset-entries", ">= 1"},
		{"isl zero", func(c *Config) { c.Input.InputTokens.Mean = 0 }, "--prompt-input-tokens-mean", ">= 1"},
		{"isl stddev negative", func(c *Config) { c.Input.InputTokens.Stddev = -1 }, "--prompt-input-tokens-stddev", ">= 0"},
		{"osl zero", func(c *Config) { c.Input.OutputTokens.Mean = ptr(0) }, "--prompt-output-tokens-mean", ">= 1"},
		{"osl stddev negative", func(c *Config) { c.Input.OutputTokens.Stddev = -0.5 }, "--prompt-output-tokens-stddev", ">= 0"},
		{"concurrency zero", func(c *Config) { c.Load.Concurrency = ptr(0) }, "--concurrency", ">= 1"},
		{"rate zero", func(c *Config) { c.Load.RequestRate = ptr(0.0) }, "--request-rate", "> 0"},
		{"rate and concurrency", func(c *Config) { c.Load.RequestRate = ptr(5.0); c.Load.Concurrency = ptr(3) }, "", ""},
		{"count zero", func(c *Config) { c.Load.RequestCount = ptr(0) }, "--request-count", ">= 1"},
		{"duration zero", func(c *Config) { c.Load.BenchmarkDuration = ptr(0.0) }, "--benchmark-duration", "> 0"},
		{"count and duration", func(c *Config) { c.Load.RequestCount = ptr(5); c.Load.BenchmarkDuration = ptr(1.0) }, "", ""},
		{"grace without duration", func(c *Config) { c.Load.BenchmarkGracePeriod = ptr(Seconds(5)) }, "--benchmark-grace-period", "requires --benchmark-duration"},
		{"grace inf", func(c *Config) {
			c.Load.BenchmarkDuration = ptr(1.0)
			c.Load.BenchmarkGracePeriod = ptr(Seconds(math.Inf(1)))
		}, "", ""},
		{"grace zero", func(c *Config) {
			c.Load.BenchmarkDuration = ptr(1.0)
			c.Load.BenchmarkGracePeriod = ptr(Seconds(0))
		}, "", ""},
		{"grace negative", func(c *Config) {
			c.Load.BenchmarkDuration = ptr(1.0)
			c.Load.BenchmarkGracePeriod = ptr(Seconds(-1))
		}, "--benchmark-grace-period", ">= 0"},
		{"pattern without rate", func(c *Config) { c.Load.ArrivalPattern = ArrivalConstant }, "--arrival-pattern", "requires --request-rate"},
		{"pattern with rate", func(c *Config) { c.Load.ArrivalPattern = ArrivalConstant; c.Load.RequestRate = ptr(2.0) }, "", ""},
		{"burst without rate", func(c *Config) { c.Load.ArrivalPattern = ArrivalConcurrencyBurst }, "", ""},
		{"burst with rate", func(c *Config) {
			c.Load.ArrivalPattern = ArrivalConcurrencyBurst
			c.Load.RequestRate = ptr(2.0)
		}, "--arrival-pattern", "cannot be combined"},
		{"unknown pattern", func(c *Config) { c.Load.ArrivalPattern = "zipf"; c.Load.RequestRate = ptr(2.0) }, "--arrival-pattern", "invalid choice"},
		{"smoothness without rate", func(c *Config) { c.Load.ArrivalSmoothness = ptr(2.0) }, "--arrival-smoothness", "requires --request-rate"},
		{"smoothness implies gamma", func(c *Config) { c.Load.ArrivalSmoothness = ptr(2.0); c.Load.RequestRate = ptr(1.0) }, "", ""},
		{"smoothness with gamma", func(c *Config) {
			c.Load.ArrivalSmoothness = ptr(2.0)
			c.Load.RequestRate = ptr(1.0)
			c.Load.ArrivalPattern = ArrivalGamma
		}, "", ""},
		{"smoothness with poisson", func(c *Config) {
			c.Load.ArrivalSmoothness = ptr(2.0)
			c.Load.RequestRate = ptr(1.0)
			c.Load.ArrivalPattern = ArrivalPoisson
		}, "--arrival-smoothness", "only supported with --arrival-pattern gamma"},
		{"smoothness zero", func(c *Config) {
			c.Load.ArrivalSmoothness = ptr(0.0)
			c.Load.RequestRate = ptr(1.0)
		}, "--arrival-smoothness", "> 0"},
		{"cancel rate zero", func(c *Config) { c.Load.RequestCancellationRate = ptr(0.0) }, "--request-cancellation-rate", "> 0 and <= 100"},
		{"cancel rate above 100", func(c *Config) { c.Load.RequestCancellationRate = ptr(100.5) }, "--request-cancellation-rate", "<= 100"},
		{"cancel rate nan", func(c *Config) { c.Load.RequestCancellationRate = ptr(math.NaN()) }, "--request-cancellation-rate", "percentage"},
		{"cancel rate 100", func(c *Config) { c.Load.RequestCancellationRate = ptr(100.0) }, "", ""},
		{"cancel rate small", func(c *Config) { c.Load.RequestCancellationRate = ptr(0.5) }, "", ""},
		{"cancel delay without rate", func(c *Config) { c.Load.RequestCancellationDelay = 1 }, "--request-cancellation-delay", "requires --request-cancellation-rate"},
		{"cancel delay negative", func(c *Config) {
			c.Load.RequestCancellationRate = ptr(10.0)
			c.Load.RequestCancellationDelay = -1
		}, "--request-cancellation-delay", ">= 0"},
		{"cancel delay inf", func(c *Config) {
			c.Load.RequestCancellationRate = ptr(10.0)
			c.Load.RequestCancellationDelay = math.Inf(1)
		}, "--request-cancellation-delay", "finite"},
		{"cancel rate and delay", func(c *Config) {
			c.Load.RequestCancellationRate = ptr(10.0)
			c.Load.RequestCancellationDelay = 0.5
		}, "", ""},
		{"threshold negative", func(c *Config) { c.Load.FailedRequestThreshold = ptr(-0.1) }, "--failed-request-threshold", ">= 0 and <= 1"},
		{"threshold above 1", func(c *Config) { c.Load.FailedRequestThreshold = ptr(1.5) }, "--failed-request-threshold", "<= 1"},
		{"threshold nan", func(c *Config) { c.Load.FailedRequestThreshold = ptr(math.NaN()) }, "--failed-request-threshold", "fraction"},
		{"threshold zero", func(c *Config) { c.Load.FailedRequestThreshold = ptr(0.0) }, "", ""},
		{"threshold one", func(c *Config) { c.Load.FailedRequestThreshold = ptr(1.0) }, "", ""},
		{"wait timeout negative", func(c *Config) { c.Endpoint.WaitForModelTimeout = -1 }, "--wait-for-model-timeout", ">= 0"},
		{"wait timeout nan", func(c *Config) { c.Endpoint.WaitForModelTimeout = math.NaN() }, "--wait-for-model-timeout", ">= 0"},
		{"wait timeout set", func(c *Config) { c.Endpoint.WaitForModelTimeout = 30 }, "", ""},
		{"wait interval zero", func(c *Config) {
			c.Endpoint.WaitForModelTimeout = 30
			c.Endpoint.WaitForModelInterval = 0
		}, "--wait-for-model-interval", "> 0"},
		{"wait mode unknown", func(c *Config) {
			c.Endpoint.WaitForModelTimeout = 30
			c.Endpoint.WaitForModelMode = "ping"
		}, "--wait-for-model-mode", "invalid choice"},
		{"wait mode both", func(c *Config) {
			c.Endpoint.WaitForModelTimeout = 30
			c.Endpoint.WaitForModelMode = WaitForBoth
			c.Endpoint.WaitForModelInterval = 0.5
		}, "", ""},
		{"wait interval without timeout", func(c *Config) { c.Endpoint.WaitForModelInterval = 1 }, "--wait-for-model-interval", "no effect unless --wait-for-model-timeout"},
		{"wait mode without timeout", func(c *Config) { c.Endpoint.WaitForModelMode = WaitForModels }, "--wait-for-model-mode", "no effect unless --wait-for-model-timeout"},
		{"wait defaults without timeout", func(c *Config) {
			c.Endpoint.WaitForModelMode = WaitForInference
			c.Endpoint.WaitForModelInterval = 5
		}, "", ""},
		{"warmup count zero", func(c *Config) { c.Warmup.RequestCount = ptr(0) }, "--warmup-request-count", ">= 1"},
		{"warmup duration zero", func(c *Config) { c.Warmup.Duration = ptr(0.0) }, "--warmup-duration", "> 0"},
		{"warmup both", func(c *Config) { c.Warmup.Duration = ptr(1.0); c.Warmup.RequestCount = ptr(3) }, "", ""},
		{"artifact dir empty", func(c *Config) { c.Output.ArtifactDir = "" }, "--output-artifact-dir", "empty"},
		{"export level", func(c *Config) { c.Output.ExportLevel = "all" }, "--export-level", "invalid choice"},
		{"prefix path", func(c *Config) { c.Output.ProfileExportPrefix = "a/b" }, "--profile-export-prefix", "not a path"},
		{"prefix ok", func(c *Config) { c.Output.ProfileExportPrefix = "myrun" }, "", ""},
		{"log level", func(c *Config) { c.Service.LogLevel = "LOUD" }, "--log-level", "invalid choice"},
		{"ui type", func(c *Config) { c.Service.UIType = "tui" }, "--ui-type", "invalid choice"},
		{"ui simple", func(c *Config) { c.Service.UIType = UISimple }, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := valid()
			tt.edit(&c)
			err := c.Validate()
			if tt.flag == "" {
				if err != nil {
					t.Fatalf("Validate() = %v; want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate() = nil; want a %s problem", tt.flag)
			}
			if got := flagsOf(err); len(got) != 1 || got[0] != tt.flag {
				t.Fatalf("Validate() flags = %v (%v); want [%s]", got, err, tt.flag)
			}
			if !strings.Contains(err.Error(), tt.text) {
				t.Errorf("Validate() = %q; want it to contain %q", err, tt.text)
			}
			if !strings.HasPrefix(err.Error(), tt.flag+": ") {
				t.Errorf("Validate() = %q; want it to start with %q", err, tt.flag+": ")
			}
		})
	}
}

func TestValidateReportsEveryProblem(t *testing.T) {
	t.Parallel()
	c := Defaults()
	c.Load.Concurrency = ptr(0)
	c.Load.RequestCount = ptr(-1)
	c.Load.BenchmarkGracePeriod = ptr(Seconds(1))
	c.Input.InputTokens.Mean = 0
	c.Service.UIType = "x"
	c.Endpoint.WaitForModelTimeout = -2
	c.Load.RequestCancellationRate = ptr(101.0)
	c.Load.FailedRequestThreshold = ptr(2.0)
	err := c.Validate()
	want := []string{"--model-names", "--wait-for-model-timeout", "--prompt-input-tokens-mean", "--concurrency", "--request-count",
		"--benchmark-grace-period", "--request-cancellation-rate", "--failed-request-threshold", "--ui-type"}
	got := flagsOf(err)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("Validate() flags = %v; want %v\n%v", got, want, err)
	}
}
