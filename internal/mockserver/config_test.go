package mockserver

import (
	"flag"
	"io"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestDefaultConfig(t *testing.T) {
	t.Parallel()
	c := DefaultConfig()
	want := Config{Host: "127.0.0.1", Port: 8000, TTFT: 20 * time.Millisecond, ITL: 5 * time.Millisecond, DefaultModel: "mock-model",
		FaultDelay: time.Second, Batch: BatchConfig{StepMs: 4, StepPerSeqMs: 1, PrefillPerTokenMs: 0.01},
		MetricsStyle: "vllm", KVCacheTokens: 131072,
		DCGM:         DCGM{GPUs: 2, GPUName: "h200", MinThroughput: 100, Window: time.Second, Hostname: "localhost"},
		ServerTiming: "none", OTLPTracesProtocol: "grpc", SpecDecode: "none", SpecDecodeK: 4}
	if diff := cmp.Diff(want, c, cmpopts.IgnoreFields(Config{}, "CountTokens")); diff != "" {
		t.Errorf("DefaultConfig() mismatch (-want +got):\n%s", diff)
	}
	if err := c.Validate(); err != nil {
		t.Errorf("DefaultConfig().Validate() = %v", err)
	}
}

func TestRegisterFlagsRoundTrip(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want func(*Config)
	}{
		{"defaults", nil, func(*Config) {}},
		{"everything", []string{
			"-host", "0.0.0.0", "-port", "9001", "-ttft", "40", "-itl", "10.5",
			"-ttft-per-isl-token-ms", "0.01", "-ttft-concurrency-quad-ms", "0.2",
			"-itl-per-osl-token-ms", "0.03", "-itl-concurrency-lin-ms", "0.4",
			"-ttft-jitter-cv", "0.1", "-itl-jitter-cv", "0.2", "-fast", "-error-rate", "12.5",
			"-random-seed", "7", "-default-model", "m2",
			"-batch-slots", "8", "-batch-step-ms", "3", "-batch-step-per-seq-ms", "0.5", "-batch-prefill-per-token-ms", "0.02",
			"-metrics-style", "sglang", "-kv-cache-tokens", "4096", "-dcgm-port", "9401", "-dcgm-num-gpus", "4",
			"-dcgm-gpu-name", "b200", "-dcgm-min-throughput", "50", "-dcgm-window-sec", "2.5", "-dcgm-hostname", "node7",
		}, func(c *Config) {
			c.Batch = BatchConfig{Slots: 8, StepMs: 3, StepPerSeqMs: 0.5, PrefillPerTokenMs: 0.02}
			c.Host, c.Port = "0.0.0.0", 9001
			c.TTFT, c.ITL = 40*time.Millisecond, 10500*time.Microsecond
			c.TTFTPerISLToken, c.TTFTConcurrencyQuad = 0.01, 0.2
			c.ITLPerOSLToken, c.ITLConcurrencyLin = 0.03, 0.4
			c.TTFTJitterCV, c.ITLJitterCV = 0.1, 0.2
			c.Fast, c.ErrorRate = true, 12.5
			c.RandomSeed, c.SeedSet = 7, true
			c.DefaultModel = "m2"
			c.MetricsStyle, c.KVCacheTokens = "sglang", 4096
			c.DCGM = DCGM{Enabled: true, Port: 9401, GPUs: 4, GPUName: "b200", MinThroughput: 50, Window: 2500 * time.Millisecond, Hostname: "node7"}
		}},
		{"seed zero is set", []string{"-random-seed", "0"}, func(c *Config) { c.SeedSet = true }},
		{"fractional ttft", []string{"-ttft=0.25"}, func(c *Config) { c.TTFT = 250 * time.Microsecond }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := DefaultConfig()
			fs := flag.NewFlagSet("mock", flag.ContinueOnError)
			got.RegisterFlags(fs)
			if err := fs.Parse(tc.args); err != nil {
				t.Fatalf("Parse(%q) = %v", tc.args, err)
			}
			want := DefaultConfig()
			tc.want(&want)
			if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(Config{}, "CountTokens")); diff != "" {
				t.Errorf("Parse(%q) mismatch (-want +got):\n%s", tc.args, diff)
			}
			// Printing the flags back and parsing them again is lossless.
			var args []string
			fs.VisitAll(func(f *flag.Flag) {
				if v := f.Value.String(); v != "" {
					args = append(args, "-"+f.Name+"="+v)
				}
			})
			again := DefaultConfig()
			fs2 := flag.NewFlagSet("mock", flag.ContinueOnError)
			again.RegisterFlags(fs2)
			if err := fs2.Parse(args); err != nil {
				t.Fatalf("re-Parse(%q) = %v", args, err)
			}
			if diff := cmp.Diff(got, again, cmpopts.IgnoreFields(Config{}, "CountTokens")); diff != "" {
				t.Errorf("round trip through %q mismatch (-first +second):\n%s", args, diff)
			}
		})
	}
}

func TestRegisterFlagsNamesAndDefaults(t *testing.T) {
	t.Parallel()
	c := DefaultConfig()
	fs := flag.NewFlagSet("mock", flag.ContinueOnError)
	c.RegisterFlags(fs)
	want := map[string]string{
		"host": "127.0.0.1", "port": "8000", "ttft": "20", "itl": "5",
		"ttft-per-isl-token-ms": "0", "ttft-concurrency-quad-ms": "0",
		"itl-per-osl-token-ms": "0", "itl-concurrency-lin-ms": "0",
		"ttft-jitter-cv": "0", "itl-jitter-cv": "0", "fast": "false",
		"error-rate": "0", "prediction-accept-rate": "0", "random-seed": "", "default-model": "mock-model",
		"record-requests": "",
		"fault":           "", "fault-delay-ms": "1000",
		"batch-slots": "0", "batch-step-ms": "4", "batch-step-per-seq-ms": "1", "batch-prefill-per-token-ms": "0.01",
		"metrics-style": "vllm", "kv-cache-tokens": "131072",
		"dcgm-port": "", "dcgm-num-gpus": "2", "dcgm-gpu-name": "h200", "dcgm-min-throughput": "100",
		"dcgm-window-sec": "1", "dcgm-hostname": "localhost",
		"server-timing": "none", "server-queue-ms": "0", "otlp-traces-endpoint": "", "otlp-traces-protocol": "grpc",
		"spec-decode": "none", "spec-decode-k": "4",
		"chunk-tokens": "0", "reasoning-tokens": "0", "tool-call-tokens": "0", "usage-chunks": "false",
	}
	got := map[string]string{}
	fs.VisitAll(func(f *flag.Flag) { got[f.Name] = f.DefValue })
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("flags and defaults mismatch (-want +got):\n%s", diff)
	}
	fs.SetOutput(io.Discard)
	for _, bad := range [][]string{{"-ttft", "x"}, {"-itl", "NaN"}, {"-random-seed", "1.5"}, {"-ttft", "1e300"}} {
		if err := fs.Parse(bad); err == nil {
			t.Errorf("Parse(%q) succeeded; want an error", bad)
		}
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		modify func(*Config)
		want   []string // substrings, one per expected problem
	}{
		{"valid", func(*Config) {}, nil},
		{"valid edges", func(c *Config) { c.Port, c.ErrorRate, c.TTFT, c.ITL = 0, 100, 0, 0 }, nil},
		{"negative ttft", func(c *Config) { c.TTFT = -time.Millisecond }, []string{"ttft:"}},
		{"negative itl", func(c *Config) { c.ITL = -1 }, []string{"itl:"}},
		{"negative coefficients", func(c *Config) {
			c.TTFTPerISLToken, c.TTFTConcurrencyQuad, c.ITLPerOSLToken, c.ITLConcurrencyLin = -1, -1, -1, -1
		}, []string{"ttft-per-isl-token-ms", "ttft-concurrency-quad-ms", "itl-per-osl-token-ms", "itl-concurrency-lin-ms"}},
		{"bad cvs", func(c *Config) { c.TTFTJitterCV, c.ITLJitterCV = -0.1, math.NaN() }, []string{"ttft-jitter-cv", "itl-jitter-cv"}},
		{"infinite", func(c *Config) { c.ITLPerOSLToken = math.Inf(1) }, []string{"itl-per-osl-token-ms"}},
		{"error rate", func(c *Config) { c.ErrorRate = 101 }, []string{"error-rate"}},
		{"negative error rate", func(c *Config) { c.ErrorRate = -1 }, []string{"error-rate"}},
		{"port", func(c *Config) { c.Port = 70000 }, []string{"port"}},
		{"empty", func(c *Config) { c.Host, c.DefaultModel = "", "" }, []string{"host", "default-model"}},
		{"all at once", func(c *Config) { c.TTFT, c.ITL, c.ErrorRate = -1, -1, 200 }, []string{"ttft:", "itl:", "error-rate"}},
		{"batch", func(c *Config) {
			c.Batch = BatchConfig{Slots: -1, StepMs: -1, StepPerSeqMs: math.NaN(), PrefillPerTokenMs: math.Inf(1)}
		}, []string{"batch-slots", "batch-step-ms", "batch-step-per-seq-ms", "batch-prefill-per-token-ms"}},
		{"batch steps take no time", func(c *Config) { c.Batch = BatchConfig{Slots: 4} }, []string{"batch-step-ms"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := DefaultConfig()
			tc.modify(&c)
			err := c.Validate()
			if len(tc.want) == 0 {
				if err != nil {
					t.Errorf("Validate() = %v; want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate() = nil; want errors about %q", tc.want)
			}
			lines := strings.Split(err.Error(), "\n")
			if len(lines) != len(tc.want) {
				t.Errorf("Validate() reported %d problems %q; want %d", len(lines), lines, len(tc.want))
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Validate() = %q; want it to mention %q", err, w)
				}
			}
		})
	}
}

func TestConfigView(t *testing.T) {
	t.Parallel()
	c := DefaultConfig()
	c.TTFT = 1500 * time.Microsecond
	c.RandomSeed, c.SeedSet = 3, true
	v := c.view()
	if v.TTFT != 1.5 || v.ITL != 5 || v.RandomSeed == nil || *v.RandomSeed != 3 || v.Tokenizer == "injected" {
		t.Errorf("view() = %+v", v)
	}
}
