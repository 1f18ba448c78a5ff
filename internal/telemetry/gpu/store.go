package gpu

import (
	"math"
	"sort"
	"strconv"
)

// Meta identifies one GPU of a source.
type Meta struct {
	Index     int
	UUID      string
	ModelName string
	PCIBusID  string
	Device    string
	Hostname  string
	Namespace string // Kubernetes namespace of the exporter's pod; "" outside one
	Pod       string
	Platform  string // PlatformNVIDIA, PlatformAMD, ...
	// Simulated marks a GPU that does not exist: the mock server's fake
	// DCGM exporter labels its series simulated="true". Every place that
	// shows the GPU's figures says so.
	Simulated bool
}

// DisplayName is the GPU's model name as tables, plots and the dashboard
// show it: "NVIDIA H200 (simulated)" for a simulated one.
func (m Meta) DisplayName() string {
	if m.Simulated {
		return m.ModelName + " (simulated)"
	}
	return m.ModelName
}

// Sample is one reading of one GPU: the fields its source reported (in the
// fields' units: W, MJ, GB, %, °C), at a wall-clock time.
type Sample struct {
	Meta   Meta
	Source string // the source URL (DCGM metrics URL, "pynvml://localhost")
	At     int64  // Unix ns
	Values map[string]float64
}

// series is one GPU's samples; vals holds one column per field, NaN where
// a sample lacked the field.
type series struct {
	meta Meta
	ts   []int64
	vals map[string][]float64
}

// source is every GPU of one source, in first-seen order.
type source struct {
	url   string
	gpus  map[string]*series // by UUID
	order []*series
}

// Store holds every sample. It has one writer at a time (the collector,
// under its lock); read it after collection stops.
type Store struct {
	fields  []Field
	sources map[string]*source
	order   []string
	all     []int64 // every sample timestamp, for the scrape span
}

// NewStore returns an empty store over fields (nil: DefaultFields).
func NewStore(fields []Field) *Store {
	if fields == nil {
		fields = DefaultFields()
	}
	return &Store{fields: fields, sources: map[string]*source{}}
}

// Fields returns the store's fields, in export order.
func (s *Store) Fields() []Field { return s.fields }

// Add stores a sample. A GPU is known by its UUID within its source (its
// index when it has none).
func (s *Store) Add(sm Sample) {
	src := s.sources[sm.Source]
	if src == nil {
		src = &source{url: sm.Source, gpus: map[string]*series{}}
		s.sources[sm.Source] = src
		s.order = append(s.order, sm.Source)
	}
	key := sm.Meta.UUID
	if key == "" {
		key = "index:" + strconv.Itoa(sm.Meta.Index)
	}
	g := src.gpus[key]
	if g == nil {
		g = &series{meta: sm.Meta, vals: map[string][]float64{}}
		src.gpus[key] = g
		src.order = append(src.order, g)
	}
	// Keep timestamps sorted (one source's samples arrive in order; this
	// only guards a clock step).
	i := sort.Search(len(g.ts), func(i int) bool { return g.ts[i] > sm.At })
	g.ts = insertAt(g.ts, i, sm.At)
	n := len(g.ts)
	for _, f := range s.fields {
		col := g.vals[f.Name]
		for len(col) < n-1 {
			col = append(col, math.NaN())
		}
		v, ok := sm.Values[f.Name]
		if !ok {
			v = math.NaN()
		}
		g.vals[f.Name] = insertAt(col, i, v)
	}
	s.all = append(s.all, sm.At)
}

func insertAt[T any](s []T, i int, v T) []T {
	s = append(s, v)
	copy(s[i+1:], s[i:])
	s[i] = v
	return s
}

// Sources returns the source URLs in first-seen order.
func (s *Store) Sources() []string { return append([]string(nil), s.order...) }

// Span returns the first and last sample times; ok is false when empty.
func (s *Store) Span() (first, last int64, ok bool) {
	if len(s.all) == 0 {
		return 0, 0, false
	}
	first, last = s.all[0], s.all[0]
	for _, t := range s.all {
		first, last = min(first, t), max(last, t)
	}
	return first, last, true
}

// Platforms returns the platforms of the GPUs seen, sorted.
func (s *Store) Platforms() []string {
	set := map[string]bool{}
	for _, u := range s.order {
		for _, g := range s.sources[u].order {
			if g.meta.Platform != "" {
				set[g.meta.Platform] = true
			}
		}
	}
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}
