package config

import (
	"math"
	"testing"
)

func TestLoadResolution(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		load        Load
		mode        LoadMode
		concurrency int
		count       int
		pattern     ArrivalPattern
	}{
		{"defaults", Load{}, ModeConcurrency, 1, 10, ArrivalConcurrencyBurst},
		{"concurrency 2", Load{Concurrency: ptr(2)}, ModeConcurrency, 2, 10, ArrivalConcurrencyBurst},
		{"concurrency 8", Load{Concurrency: ptr(8)}, ModeConcurrency, 8, 16, ArrivalConcurrencyBurst},
		{"explicit count", Load{Concurrency: ptr(8), RequestCount: ptr(3)}, ModeConcurrency, 8, 3, ArrivalConcurrencyBurst},
		{"duration", Load{Concurrency: ptr(8), BenchmarkDuration: ptr(5.0)}, ModeConcurrency, 8, 0, ArrivalConcurrencyBurst},
		{"duration and count", Load{BenchmarkDuration: ptr(5.0), RequestCount: ptr(7)}, ModeConcurrency, 1, 7, ArrivalConcurrencyBurst},
		{"rate", Load{RequestRate: ptr(20.0)}, ModeRequestRate, 0, 10, ArrivalPoisson},
		{"rate capped", Load{RequestRate: ptr(20.0), Concurrency: ptr(30)}, ModeRequestRate, 30, 60, ArrivalPoisson},
		{"rate constant", Load{RequestRate: ptr(1.0), ArrivalPattern: ArrivalConstant}, ModeRequestRate, 0, 10, ArrivalConstant},
		{"rate smoothness", Load{RequestRate: ptr(1.0), ArrivalSmoothness: ptr(2.0)}, ModeRequestRate, 0, 10, ArrivalGamma},
		{"burst ignored pattern", Load{ArrivalPattern: ArrivalGamma}, ModeConcurrency, 1, 10, ArrivalConcurrencyBurst},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := valid()
			c.Load = tt.load
			if got := c.Mode(); got != tt.mode {
				t.Errorf("%+v.Mode() = %v; want %v", tt.load, got, tt.mode)
			}
			if got := c.Concurrency(); got != tt.concurrency {
				t.Errorf("%+v.Concurrency() = %v; want %v", tt.load, got, tt.concurrency)
			}
			if got := c.RequestCount(); got != tt.count {
				t.Errorf("%+v.RequestCount() = %v; want %v", tt.load, got, tt.count)
			}
			if got := c.ArrivalPattern(); got != tt.pattern {
				t.Errorf("%+v.ArrivalPattern() = %v; want %v", tt.load, got, tt.pattern)
			}
		})
	}
}

func TestScalarResolution(t *testing.T) {
	t.Parallel()
	c := valid()
	if got := c.ArrivalSmoothness(); got != 1 {
		t.Errorf("ArrivalSmoothness() = %v; want 1", got)
	}
	if got := c.GracePeriod(); got != 30 {
		t.Errorf("GracePeriod() = %v; want 30", got)
	}
	if got := c.DatasetEntries(); got != 100 {
		t.Errorf("DatasetEntries() = %v; want 100", got)
	}
	if c.WarmupEnabled() {
		t.Errorf("WarmupEnabled() = true; want false")
	}
	if got := c.LogLevel(); got != LogInfo {
		t.Errorf("LogLevel() = %v; want INFO", got)
	}

	c.Load.ArrivalSmoothness = ptr(0.5)
	c.Load.BenchmarkGracePeriod = ptr(Seconds(math.Inf(1)))
	c.Load.RequestCount = ptr(7)
	c.Warmup.Duration = ptr(1.0)
	if got := c.ArrivalSmoothness(); got != 0.5 {
		t.Errorf("ArrivalSmoothness() = %v; want 0.5", got)
	}
	if got := c.GracePeriod(); !math.IsInf(got, 1) {
		t.Errorf("GracePeriod() = %v; want +Inf", got)
	}
	if got := c.DatasetEntries(); got != 7 {
		t.Errorf("DatasetEntries() = %v; want 7 (the request count)", got)
	}
	c.Input.NumDatasetEntries = ptr(3)
	if got := c.DatasetEntries(); got != 3 {
		t.Errorf("DatasetEntries() = %v; want 3", got)
	}
	if !c.WarmupEnabled() {
		t.Errorf("WarmupEnabled() = false; want true")
	}
}

func TestLogLevel(t *testing.T) {
	t.Parallel()
	tests := []struct {
		svc  Service
		want LogLevel
	}{
		{Service{LogLevel: LogWarning}, LogWarning},
		{Service{}, LogInfo},
		{Service{LogLevel: LogError, Verbose: true}, LogDebug},
		{Service{LogLevel: LogError, ExtraVerbose: true}, LogTrace},
		{Service{Verbose: true, ExtraVerbose: true}, LogTrace},
	}
	for _, tt := range tests {
		c := valid()
		c.Service = tt.svc
		if got := c.LogLevel(); got != tt.want {
			t.Errorf("%+v.LogLevel() = %v; want %v", tt.svc, got, tt.want)
		}
	}
}

func TestUIType(t *testing.T) {
	t.Parallel()
	tests := []struct {
		svc   Service
		isTTY bool
		want  UIType
	}{
		{Service{}, true, UIDashboard},
		{Service{}, false, UINone},
		{Service{Verbose: true}, true, UISimple},
		{Service{Verbose: true}, false, UISimple},
		{Service{ExtraVerbose: true}, false, UISimple},
		{Service{UIType: UINone, Verbose: true}, true, UISimple},
		{Service{UIType: UINone}, true, UINone},
		{Service{UIType: UISimple}, false, UISimple},
		{Service{UIType: UIDashboard}, true, UIDashboard},
		{Service{UIType: UIDashboard}, false, UISimple},
	}
	for _, tt := range tests {
		c := valid()
		c.Service = tt.svc
		if got := c.UIType(tt.isTTY); got != tt.want {
			t.Errorf("%+v.UIType(%v) = %v; want %v", tt.svc, tt.isTTY, got, tt.want)
		}
	}
}

func TestNormalizeURL(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"localhost:8000", "http://localhost:8000"},
		{"http://localhost:8000/", "http://localhost:8000"},
		{"https://h/v1//", "https://h/v1"},
		{"  h:1  ", "http://h:1"},
		{"HTTPS://H", "HTTPS://H"},
		{"10.0.0.1", "http://10.0.0.1"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := NormalizeURL(tt.in); got != tt.want {
			t.Errorf("NormalizeURL(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}
