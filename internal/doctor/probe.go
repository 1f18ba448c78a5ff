package doctor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/aiperf-go/aiperf/internal/chattemplate"
	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/dataset/synthesis"
	"github.com/aiperf-go/aiperf/internal/tokenizer"
)

// Prober reaches out: TCP connects to the servers, GETs of their metrics
// pages, the tokenizer opened with the hub offline. Tests give it a
// loopback server and a fixture environment.
type Prober struct {
	// Dial opens a TCP connection; nil uses net.Dialer.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// Interfaces lists this host's interface names and networks; nil uses
	// net.Interfaces.
	Interfaces func() ([]Interface, error)
	// Client fetches metrics pages; nil uses a client without proxy.
	Client *http.Client
	// Getenv is the environment the tokenizer is looked up with (the hub
	// cache); HF_HUB_OFFLINE is forced on.
	Getenv func(string) string
	// Connects is the number of TCP connects per server (default 5).
	Connects int
	// Timeout bounds each connect and each GET (default 2 s).
	Timeout time.Duration
}

// Interface is a network interface: its name and its networks.
type Interface struct {
	Name string
	Nets []*net.IPNet
}

func (p *Prober) defaults() {
	if p.Connects <= 0 {
		p.Connects = 5
	}
	if p.Timeout <= 0 {
		p.Timeout = 2 * time.Second
	}
	if p.Dial == nil {
		d := &net.Dialer{}
		p.Dial = d.DialContext
	}
	if p.Interfaces == nil {
		p.Interfaces = localInterfaces
	}
	if p.Client == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.Proxy = nil // as the benchmark's transport
		p.Client = &http.Client{Transport: t}
	}
	if p.Getenv == nil {
		p.Getenv = func(string) string { return "" }
	}
}

// Probe fills f's network, tokenizer and metrics facts for cfg.
func (p Prober) Probe(ctx context.Context, cfg *config.Config, f *Facts) {
	p.defaults()
	ifs, _ := p.Interfaces()
	for _, u := range cfg.Endpoint.URLs {
		f.Paths = append(f.Paths, p.path(ctx, config.NormalizeURL(u), ifs))
	}
	f.Tokenizer = p.tokenizer(cfg, f)
	if !cfg.Telemetry.ServerMetrics.Disabled {
		var urls []string
		for _, u := range cfg.Endpoint.URLs {
			urls = append(urls, config.MetricsURL(config.NormalizeURL(u)))
		}
		for _, u := range append(urls, cfg.Telemetry.ServerMetrics.URLs...) {
			f.Metrics = append(f.Metrics, MetricsProbe{URL: u, Err: p.metrics(ctx, u)})
		}
	}
}

// path connects to the server of base p.Connects times.
func (p Prober) path(ctx context.Context, base string, ifs []Interface) Path {
	u, err := url.Parse(base)
	if err != nil {
		return Path{Addr: base, Kind: "unknown", Err: err}
	}
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	addr := net.JoinHostPort(u.Hostname(), port)
	out := Path{Addr: addr, Kind: "unknown"}
	if ip := net.ParseIP(u.Hostname()); ip != nil {
		out.Kind = PathKind(ip, ifs)
	} else if u.Hostname() == "localhost" {
		out.Kind = "loopback"
	}
	for range p.Connects {
		cctx, cancel := context.WithTimeout(ctx, p.Timeout)
		start := time.Now()
		c, err := p.Dial(cctx, "tcp", addr)
		rtt := time.Since(start)
		cancel()
		if err != nil {
			out.Err = err
			continue
		}
		if ta, ok := c.RemoteAddr().(*net.TCPAddr); ok {
			out.Kind = PathKind(ta.IP, ifs)
		}
		c.Close()
		out.RTTs = append(out.RTTs, rtt)
	}
	return out
}

// bridgePrefixes name the interfaces of local container networks.
var bridgePrefixes = []string{"docker", "br-", "cni", "podman", "virbr", "veth", "cali", "flannel", "kube"}

// PathKind says where ip leads from this host: "loopback", "this host"
// (an address of one of ifs), "container bridge" (inside the network of a
// docker/podman/CNI bridge among ifs) or "remote".
func PathKind(ip net.IP, ifs []Interface) string {
	if ip.IsLoopback() {
		return "loopback"
	}
	for _, i := range ifs {
		for _, n := range i.Nets {
			if n.IP.Equal(ip) {
				return "this host"
			}
		}
	}
	for _, i := range ifs {
		for _, pre := range bridgePrefixes {
			if !strings.HasPrefix(i.Name, pre) {
				continue
			}
			for _, n := range i.Nets {
				if n.Contains(ip) {
					return "container bridge"
				}
			}
		}
	}
	return "remote"
}

func localInterfaces() ([]Interface, error) {
	nis, err := net.Interfaces()
	if err != nil {
		return nil, err
	}
	var out []Interface
	for _, ni := range nis {
		addrs, err := ni.Addrs()
		if err != nil {
			continue
		}
		i := Interface{Name: ni.Name}
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok {
				i.Nets = append(i.Nets, n)
			}
		}
		out = append(out, i)
	}
	return out, nil
}

// errNotMetrics: the page answered but is not Prometheus text.
var errNotMetrics = errors.New("the page is not Prometheus text (no # HELP or # TYPE line)")

// metrics GETs one metrics page.
func (p Prober) metrics(ctx context.Context, u string) error {
	cctx, cancel := context.WithTimeout(ctx, p.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(cctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	resp, err := p.Client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	head, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if !strings.Contains(string(head), "# HELP") && !strings.Contains(string(head), "# TYPE") {
		return errNotMetrics
	}
	return nil
}

// tokenizer opens the run's tokenizer with the hub offline and, for a
// synthetic chat prompt, measures its chat template's overhead.
func (p Prober) tokenizer(cfg *config.Config, f *Facts) *TokenizerProbe {
	model := ""
	if len(cfg.Endpoint.ModelNames) > 0 {
		model = cfg.Endpoint.ModelNames[0]
	}
	name := cfg.Tokenizer.Name
	if name == "" {
		name = model
	}
	offline := func(k string) string {
		if k == "HF_HUB_OFFLINE" {
			return "1"
		}
		return p.Getenv(k)
	}
	r, err := tokenizer.Open(cfg.Tokenizer.Name, model, tokenizer.Options{Revision: cfg.Tokenizer.Revision, Getenv: offline})
	if err != nil {
		return &TokenizerProbe{Name: name, Err: err}
	}
	if f.Chat && f.ISL > 0 && len(r.ConfigJSON) > 0 {
		if c, err := chattemplate.ParseConfig(r.ConfigJSON); err == nil {
			if t, err := c.Template(false); err == nil {
				o := synthesis.EstimateChatOverhead(t, r.Tokenizer, synthesis.PromptSpecialTokens(r.Tokenizer))
				// The synthetic prompt already gives up the special tokens the
				// server prepends; the template adds its first turn's share.
				f.ChatOverhead, f.OverheadKnown = o.FirstTurn(), o != synthesis.ChatOverhead{}
			}
		}
	}
	return &TokenizerProbe{Name: name, Source: r.Source}
}
