package benchmark

import (
	"net"
	"reflect"
	"testing"

	"github.com/aiperf-go/aiperf/internal/config"
)

func TestManyStreamsSettings(t *testing.T) {
	intp := func(n int) *int { return &n }
	tests := []struct {
		name       string
		conc       int
		phases     []int
		preconnect string
		workers    int
		urls       []string
		peak       int
		perProcess int
		buf        int
		sources    []net.IP
	}{
		{"small run keeps the defaults", 100, nil, "", 0, []string{"http://127.0.0.1:8000/v1/chat/completions"}, 100, 100, 0, nil},
		{"warm-up phase counts", 10, []int{30000}, "", 0, []string{"http://127.0.0.1:8000/v1/chat/completions"}, 30000, 30000, 1 << 10,
			[]net.IP{net.IPv4(127, 0, 0, 1), net.IPv4(127, 0, 0, 2)}},
		{"pre-connect to two servers", 12000, nil, "12000", 0,
			[]string{"http://127.0.0.1:8000/v1/chat/completions", "http://127.0.0.1:8001/v1/chat/completions"}, 24000, 24000, 1 << 10,
			[]net.IP{net.IPv4(127, 0, 0, 1), net.IPv4(127, 0, 0, 2)}},
		{"100k streams to a remote server: no loopback sources", 100000, nil, "", 0, []string{"http://10.0.0.5:8000/v1/chat/completions"}, 100000, 100000, 1 << 10, nil},
		{"100k streams over 12 load workers: 8,334 each, default buffers", 100000, nil, "", 12, []string{"http://10.0.0.5:8000/v1/chat/completions"}, 100000, 8334, 0, nil},
		{"100k streams to the loopback: five sources", 100000, nil, "", 0, []string{"http://127.0.0.1:8000/v1/chat/completions"}, 100000, 100000, 1 << 10,
			[]net.IP{net.IPv4(127, 0, 0, 1), net.IPv4(127, 0, 0, 2), net.IPv4(127, 0, 0, 3), net.IPv4(127, 0, 0, 4), net.IPv4(127, 0, 0, 5)}},
	}
	for _, tt := range tests {
		cfg := config.Config{}
		cfg.Load.Concurrency = intp(tt.conc)
		cfg.Fidelity.PreConnect = tt.preconnect
		cfg.Cluster.Workers = tt.workers
		p := &Plan{Config: &cfg, URLs: tt.urls}
		p.Profiling.Concurrency = tt.conc
		for _, c := range tt.phases {
			p.Phases = append(p.Phases, &PhaseSpec{Concurrency: c})
		}
		if got := connBudget(p).Peak; got != tt.peak {
			t.Errorf("%s: peakConnections = %d, want %d", tt.name, got, tt.peak)
		}
		if got := connBudget(p).PerProcess(); got != tt.perProcess {
			t.Errorf("%s: processConnections = %d, want %d", tt.name, got, tt.perProcess)
		}
		if got := connBudget(p).BufferSize(); got != tt.buf {
			t.Errorf("%s: connBufferSize = %d, want %d", tt.name, got, tt.buf)
		}
		if got := connBudget(p).SourceAddrs(p.URLs); !reflect.DeepEqual(got, tt.sources) {
			t.Errorf("%s: sourceAddrs = %v, want %v", tt.name, got, tt.sources)
		}
	}
}
