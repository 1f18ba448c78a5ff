package mockserver

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestValidateServerTiming(t *testing.T) {
	cases := []struct {
		name string
		edit func(c *Config)
		want string // "" for valid
	}{
		{"none", func(*Config) {}, ""},
		{"llamacpp", func(c *Config) { c.ServerTiming = ServerTimingLlamaCpp }, ""},
		{"unknown", func(c *Config) { c.ServerTiming = "sglang" }, "server-timing"},
		{"negative queue", func(c *Config) { c.ServerQueue = -time.Millisecond }, "server-queue-ms"},
		{"vllm without endpoint", func(c *Config) { c.ServerTiming = ServerTimingVLLM }, "otlp-traces-endpoint"},
		{"vllm bad protocol", func(c *Config) {
			c.ServerTiming, c.OTLPTracesEndpoint, c.OTLPTracesProtocol = ServerTimingVLLM, "x:1", "http/json"
		}, "otlp-traces-protocol"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultConfig()
			c.edit(&cfg)
			err := cfg.Validate()
			if (err == nil) != (c.want == "") || (err != nil && !strings.Contains(err.Error(), c.want)) {
				t.Errorf("Validate() = %v, want an error naming %q", err, c.want)
			}
		})
	}
}

// TestServerTimingForms: the llamacpp form puts llama.cpp's timings object
// on the body, the tgi form its headers, each with the planned values.
func TestServerTimingForms(t *testing.T) {
	for _, form := range []string{ServerTimingLlamaCpp, ServerTimingTGI} {
		t.Run(form, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.TTFT, cfg.ITL, cfg.ServerQueue, cfg.ServerTiming = 4*time.Millisecond, time.Millisecond, 3*time.Millisecond, form
			srv := httptest.NewServer(New(cfg))
			defer srv.Close()
			resp, err := http.Post(srv.URL+"/v1/chat/completions", "application/json",
				strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":3,"min_tokens":3}`))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if form == ServerTimingTGI {
				for h, want := range map[string]string{"X-Queue-Time": "3", "X-Inference-Time": "7", "X-Generated-Tokens": "3"} {
					if got := resp.Header.Get(h); got != want {
						t.Errorf("%s = %q, want %q", h, got, want)
					}
				}
				return
			}
			var v struct {
				Timings struct {
					PromptMs    float64 `json:"prompt_ms"`
					PredictedMs float64 `json:"predicted_ms"`
					PredictedN  int     `json:"predicted_n"`
				} `json:"timings"`
			}
			if err := json.Unmarshal(body, &v); err != nil || v.Timings.PromptMs != 4 || v.Timings.PredictedMs != 3 || v.Timings.PredictedN != 3 {
				t.Errorf("timings %+v (%v) in %s; want prompt 4 ms, predicted 3 ms, 3 tokens", v.Timings, err, body)
			}
		})
	}
}
