package benchmark

import (
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/metrics"
)

func TestListSketchFrom(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		env  map[string]string
		want metrics.ListSketch
		errs []string
	}{
		{"unset", nil, metrics.ListSketch{}, nil},
		{"both", map[string]string{EnvListExactLimit: "5000", EnvTDigestCompression: "200"}, metrics.ListSketch{ExactLimit: 5000, Compression: 200}, nil},
		{"unbounded", map[string]string{EnvListExactLimit: " -1 "}, metrics.ListSketch{ExactLimit: -1}, nil},
		{"scalar limit", map[string]string{EnvRecordExactLimit: "2000000"}, metrics.ListSketch{ScalarExactLimit: 2_000_000}, nil},
		{"all bad", map[string]string{EnvListExactLimit: "-2", EnvTDigestCompression: "10", EnvRecordExactLimit: "-1"}, metrics.ListSketch{},
			[]string{EnvListExactLimit + `="-2"`, EnvTDigestCompression + `="10"`, EnvRecordExactLimit + `="-1"`}},
		{"not numbers", map[string]string{EnvListExactLimit: "1e6", EnvTDigestCompression: "x"}, metrics.ListSketch{},
			[]string{EnvListExactLimit, EnvTDigestCompression}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := listSketchFrom(func(k string) string { return tt.env[k] })
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
			if (err != nil) != (tt.errs != nil) {
				t.Fatalf("err = %v, want errors %v", err, tt.errs)
			}
			for _, w := range tt.errs {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}
