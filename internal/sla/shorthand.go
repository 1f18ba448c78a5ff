package sla

import (
	"errors"
	"fmt"
)

// Shorthands are AIPerf's recipe SLA flags. nil means "not given".
type Shorthands struct {
	// TTFTms is --ttft-sla-ms: time_to_first_token p95 < TTFTms.
	TTFTms *float64 `json:"ttft_sla_ms,omitempty"`
	// ITLms is --itl-sla-ms and TPOTms --tpot-sla-ms: aliases of one
	// inter_token_latency p95 < value filter (AIPerf treats TPOT and ITL as
	// the same metric); both given with different values is an error.
	ITLms  *float64 `json:"itl_sla_ms,omitempty"`
	TPOTms *float64 `json:"tpot_sla_ms,omitempty"`
	// E2Ems is --e2e-sla-ms: request_latency p99 < E2Ems.
	E2Ems *float64 `json:"e2e_sla_ms,omitempty"`
	// ErrorRate is --error-rate-sla, a fraction in (0, 1):
	// request_error_rate avg < 100*ErrorRate (the metric is in percent).
	ErrorRate *float64 `json:"error_rate_sla,omitempty"`
}

// Any reports whether any shorthand was given.
func (s Shorthands) Any() bool {
	return s.TTFTms != nil || s.ITLms != nil || s.TPOTms != nil || s.E2Ems != nil || s.ErrorRate != nil
}

// Validate checks the ranges AIPerf enforces: latencies > 0 ms, the error
// rate a fraction in (0, 1), and --itl-sla-ms / --tpot-sla-ms agreeing.
// Problems name the flag.
func (s Shorthands) Validate() error {
	var errs []error
	positive := func(flag string, p *float64) {
		if p != nil && !(*p > 0) {
			errs = append(errs, fmt.Errorf("%s: must be > 0 ms (a zero or negative threshold can never pass), got %v", flag, *p))
		}
	}
	positive("--ttft-sla-ms", s.TTFTms)
	positive("--itl-sla-ms", s.ITLms)
	positive("--tpot-sla-ms", s.TPOTms)
	positive("--e2e-sla-ms", s.E2Ems)
	if p := s.ErrorRate; p != nil && !(*p > 0 && *p < 1) {
		errs = append(errs, fmt.Errorf("--error-rate-sla: must be a fraction between 0 and 1 exclusive (0.05 = 5%%), got %v", *p))
	}
	if s.ITLms != nil && s.TPOTms != nil && *s.ITLms != *s.TPOTms {
		errs = append(errs, fmt.Errorf("--tpot-sla-ms and --itl-sla-ms are aliases of one inter-token-latency SLA but differ (%v vs %v); pass only one", *s.TPOTms, *s.ITLms))
	}
	return errors.Join(errs...)
}

// InterToken returns the inter-token-latency threshold from --itl-sla-ms
// or --tpot-sla-ms, and whether either was given.
func (s Shorthands) InterToken() (float64, bool) {
	switch {
	case s.TPOTms != nil:
		return *s.TPOTms, true
	case s.ITLms != nil:
		return *s.ITLms, true
	}
	return 0, false
}

// Filters returns the filters the shorthands stand for, in AIPerf's order
// (TTFT, inter-token latency, end-to-end latency, error rate), as its
// max-concurrency-under-sla recipe builds them. It validates first.
func (s Shorthands) Filters() ([]Filter, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	var out []Filter
	if s.TTFTms != nil {
		out = append(out, Filter{Metric: "time_to_first_token", Stat: "p95", Op: LT, Threshold: *s.TTFTms})
	}
	if v, ok := s.InterToken(); ok {
		out = append(out, Filter{Metric: "inter_token_latency", Stat: "p95", Op: LT, Threshold: v})
	}
	if s.E2Ems != nil {
		out = append(out, Filter{Metric: "request_latency", Stat: "p99", Op: LT, Threshold: *s.E2Ems})
	}
	if s.ErrorRate != nil {
		out = append(out, Filter{Metric: "request_error_rate", Stat: "avg", Op: LT, Threshold: *s.ErrorRate * 100})
	}
	return out, nil
}

// StreamingOnly reports whether a metric exists only for streaming runs
// (TTFT and inter-token latency), so a filter on it needs --streaming.
func StreamingOnly(metric string) bool {
	switch Canonical(metric) {
	case "time_to_first_token", "inter_token_latency", "time_to_second_token", "output_token_throughput_per_user", "prefill_throughput_per_user":
		return true
	}
	return false
}
