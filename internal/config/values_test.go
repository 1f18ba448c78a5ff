package config

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
)

func TestSecretsNeverMarshal(t *testing.T) {
	t.Parallel()
	c := valid()
	c.Endpoint.APIKey = "sk-very-secret"
	c.Input.Headers = []Header{
		{Name: "Authorization", Value: "Bearer sk-1"},
		{Name: "X-Api-Key", Value: "k-2"},
		{Name: "X-Auth-Token", Value: "t-3"},
		{Name: "X-Request-Source", Value: "bench"},
	}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, secret := range []string{"sk-very-secret", "sk-1", "k-2", "t-3"} {
		if strings.Contains(s, secret) {
			t.Errorf("json.Marshal(config) leaks %q: %s", secret, s)
		}
	}
	if !strings.Contains(s, `"bench"`) {
		t.Errorf("json.Marshal(config) redacted a benign header: %s", s)
	}
	if got := c.Endpoint.APIKey.String(); got != Redacted {
		t.Errorf("APIKey.String() = %q; want %q", got, Redacted)
	}
	if got := Secret("").String(); got != "" {
		t.Errorf(`Secret("").String() = %q; want ""`, got)
	}
}

func TestIsSensitiveHeader(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{
		"Authorization": true, "proxy-authorization": true, "X-API-Key": true,
		"api-key": true, "X-Goog-Api-Key": true, "Cookie": true, "X-Session-Id": true,
		"X-Custom-Token": true, "X-Tenant-Secret": true,
		"Content-Type": false, "X-Request-Id": false, "Accept": false,
	} {
		if got := IsSensitiveHeader(name); got != want {
			t.Errorf("IsSensitiveHeader(%q) = %v; want %v", name, got, want)
		}
	}
}

func TestConfigJSONShape(t *testing.T) {
	t.Parallel()
	c := valid()
	c.Load.Concurrency = ptr(4)
	c.Load.BenchmarkDuration = ptr(10.0)
	c.Load.BenchmarkGracePeriod = ptr(Seconds(math.Inf(1)))
	c.Input.Extra = []ExtraInput{{Key: "ignore_eos", Value: json.RawMessage("true")}}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatalf("json.Marshal = %v", err)
	}
	s := string(b)
	for _, want := range []string{
		`"endpoint":{"model_names":["mock-model"],"type":"chat","streaming":false,"urls":["http://localhost:8000"],"timeout_seconds":21600`,
		`"loadgen":{"concurrency":4,"benchmark_duration":10,"benchmark_grace_period":"inf"}`,
		`"extra":[{"key":"ignore_eos","value":true}]`,
		`"input_tokens":{"mean":550,"stddev":0}`,
		`"output":{"artifact_directory":"artifacts","export_level":"records"}`,
		`"service":{"log_level":"INFO","verbose":false,"extra_verbose":false}`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("json.Marshal(config) = %s\nmissing %s", s, want)
		}
	}
	var back Config
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatalf("json.Unmarshal = %v", err)
	}
	if g := back.GracePeriod(); !math.IsInf(g, 1) {
		t.Errorf("round-tripped GracePeriod() = %v; want +Inf", g)
	}
	if *back.Load.Concurrency != 4 || back.Endpoint.ModelNames[0] != "mock-model" {
		t.Errorf("round trip lost fields: %+v", back)
	}
}

func TestSecondsJSON(t *testing.T) {
	t.Parallel()
	for in, want := range map[Seconds]string{30: "30", 2.5: "2.5", Seconds(math.Inf(1)): `"inf"`} {
		b, err := json.Marshal(in)
		if err != nil || string(b) != want {
			t.Errorf("json.Marshal(Seconds(%v)) = %s, %v; want %s", in, b, err, want)
		}
	}
	if _, err := json.Marshal(Seconds(math.NaN())); err == nil {
		t.Errorf("json.Marshal(Seconds(NaN)) = nil error; want refused")
	}
	var s Seconds
	for _, in := range []string{`"inf"`, `"Infinity"`} {
		if err := json.Unmarshal([]byte(in), &s); err != nil || !math.IsInf(float64(s), 1) {
			t.Errorf("json.Unmarshal(%s) = %v, %v; want +Inf", in, s, err)
		}
	}
	if err := json.Unmarshal([]byte(`"soon"`), &s); err == nil {
		t.Errorf(`json.Unmarshal("soon") = nil error`)
	}
}

func TestExitError(t *testing.T) {
	t.Parallel()
	inner := errors.New("all requests failed")
	err := error(&ExitError{Code: ExitFailure, Err: inner})
	if err.Error() != "all requests failed" || !errors.Is(err, inner) {
		t.Errorf("ExitError = %q; want the wrapped message and Unwrap", err)
	}
	if got := (&ExitError{Code: 3}).Error(); got != "exit status 3" {
		t.Errorf("ExitError{Code:3}.Error() = %q", got)
	}
}

func TestNormalizeChoice(t *testing.T) {
	t.Parallel()
	if got := NormalizeChoice(" Concurrency-Burst "); got != "concurrency_burst" {
		t.Errorf("NormalizeChoice = %q", got)
	}
	if got := NormalizeLogLevel("debug"); got != LogDebug {
		t.Errorf("NormalizeLogLevel = %q", got)
	}
	for _, e := range SupportedEndpointTypes() {
		if !e.Known() {
			t.Errorf("supported endpoint %q is not in AIPerfEndpointTypes", e)
		}
	}
}
