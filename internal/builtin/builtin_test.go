package builtin

import (
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/endpoint"
	"github.com/aiperf-go/aiperf/internal/report"
)

// TestNewRegistersEveryEndpointType: the registry holds exactly the 19
// endpoint types AIPerf 0.13 accepts (config's list, which the flag
// parser offers), in AIPerf's catalogue order, each reporting its own
// name.
func TestNewRegistersEveryEndpointType(t *testing.T) {
	t.Parallel()
	r := New()
	var want []string
	for _, e := range config.AIPerfEndpointTypes() {
		want = append(want, string(e))
	}
	if got := EndpointOrder(); !slices.Equal(got, want) {
		t.Fatalf("endpoint order = %v; want %v", got, want)
	}
	for _, name := range r.Endpoints.Names() {
		p, err := r.Endpoints.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if p.Meta.Type != name {
			t.Errorf("endpoint %q reports type %q", name, p.Meta.Type)
		}
		if p.Meta.Description == "" {
			t.Errorf("endpoint %q has no description", name)
		}
		e, err := p.New(endpoint.Settings{Extra: []endpoint.ExtraInput{{Key: "payload_template", Value: []byte(`"nv-embedqa"`)}}})
		if err != nil {
			t.Errorf("building %q: %v", name, err)
			continue
		}
		if got := e.Metadata(); got != p.Meta {
			t.Errorf("%q: built endpoint's metadata %+v differs from the registered %+v", name, got, p.Meta)
		}
	}
}

// aiperfMetadata is one endpoint's metadata in AIPerf 0.13's plugins.yaml
// (testdata/aiperf_endpoint_metadata.json, extracted from the installed
// wheel).
type aiperfMetadata struct {
	EndpointPath          *string `json:"endpoint_path"`
	StreamingPath         *string `json:"streaming_path"`
	MetricsTitle          string  `json:"metrics_title"`
	SupportsStreaming     bool    `json:"supports_streaming"`
	ProducesTokens        bool    `json:"produces_tokens"`
	TokenizesInput        bool    `json:"tokenizes_input"`
	SupportsAudio         bool    `json:"supports_audio"`
	SupportsImages        bool    `json:"supports_images"`
	SupportsVideos        bool    `json:"supports_videos"`
	ProducesImages        bool    `json:"produces_images"`
	ProducesVideos        bool    `json:"produces_videos"`
	ConsumesSystemMessage bool    `json:"consumes_system_message"`
	SupportsCacheBust     bool    `json:"supports_cache_bust"`
	RequiresFormData      bool    `json:"requires_form_data"`
	RequiresPolling       bool    `json:"requires_polling"`
	RequiresInlineMedia   bool    `json:"requires_inline_media"`
	ServiceKind           *string `json:"service_kind"`
}

// TestEndpointMetadataMatchesAIPerf: every capability and path of every
// endpoint is AIPerf's, since they decide which metrics a run shows and
// where requests go.
func TestEndpointMetadataMatchesAIPerf(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("testdata/aiperf_endpoint_metadata.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref map[string]aiperfMetadata
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	r := New()
	if got := len(r.Endpoints.Names()); got != len(ref) {
		t.Errorf("%d endpoint types registered; AIPerf has %d", got, len(ref))
	}
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	for name, a := range ref {
		p, err := r.Endpoints.Lookup(name)
		if err != nil {
			t.Errorf("AIPerf endpoint %q: %v", name, err)
			continue
		}
		m := p.Meta
		kind := str(a.ServiceKind)
		if kind == "" {
			kind = "openai" // the schema's default
		}
		want := endpoint.Metadata{
			Type: name, Description: m.Description, ImagePart: m.ImagePart,
			Path: str(a.EndpointPath), StreamingPath: str(a.StreamingPath), ServiceKind: kind,
			MetricsTitle: a.MetricsTitle, SupportsStreaming: a.SupportsStreaming,
			ProducesTokens: a.ProducesTokens, TokenizesInput: a.TokenizesInput,
			SupportsImages: a.SupportsImages, SupportsAudio: a.SupportsAudio, SupportsVideos: a.SupportsVideos,
			ProducesImages: a.ProducesImages, ProducesVideos: a.ProducesVideos,
			ConsumesSystemMessage: a.ConsumesSystemMessage, SupportsCacheBust: a.SupportsCacheBust,
			RequiresFormData: a.RequiresFormData, RequiresPolling: a.RequiresPolling,
			RequiresInlineMedia: a.RequiresInlineMedia,
		}
		if m != want {
			t.Errorf("%s metadata:\n got %+v\nwant %+v (AIPerf 0.13)", name, m, want)
		}
		if got := config.EndpointRequiresFormData(config.EndpointType(name)); got != m.RequiresFormData {
			t.Errorf("config.EndpointRequiresFormData(%s) = %v; metadata says %v", name, got, m.RequiresFormData)
		}
		if got := config.EndpointType(name).IsRankings(); got != (p.Meta.MetricsTitle == "Ranking Metrics" || p.Meta.MetricsTitle == "Rankings Metrics") {
			t.Errorf("config.EndpointType(%s).IsRankings() = %v", name, got)
		}
	}
}

// TestCatalogMatchesAIPerf: every category and plugin name of the
// catalogue is AIPerf 0.13's (testdata/aiperf_plugin_names.json, from its
// plugins.yaml), so `aiperf plugins` answers the same names, and the
// lists follow what actually runs: the endpoint registry, config's
// dataset formats, arrival patterns and UI types.
func TestCatalogMatchesAIPerf(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("testdata/aiperf_plugin_names.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref map[string][]string
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	cat := Catalog()
	names := func(category string) []string {
		var out []string
		for _, e := range cat.Entries(category) {
			out = append(out, e.Name)
		}
		return out
	}
	for _, c := range cat.Categories() {
		known, ok := ref[c.Name]
		if !ok {
			t.Errorf("category %q is not an AIPerf category", c.Name)
			continue
		}
		for _, e := range cat.Entries(c.Name) {
			if !slices.Contains(known, e.Name) {
				t.Errorf("%s plugin %q is not one of AIPerf's (%v)", c.Name, e.Name, known)
			}
			if e.Description == "" {
				t.Errorf("%s:%s has no description", c.Name, e.Name)
			}
		}
	}
	if got, want := names("endpoint"), EndpointOrder(); !slices.Equal(got, want) {
		t.Errorf("endpoint entries = %v; want the registry's %v", got, want)
	}
	sortedStrs := func(list []string) []string { s := slices.Clone(list); slices.Sort(s); return s }
	var loaders, patterns, uis []string
	for _, d := range config.SupportedCustomDatasetTypes() {
		loaders = append(loaders, string(d))
	}
	for _, a := range config.ArrivalPatterns() {
		patterns = append(patterns, string(a))
	}
	if got := sortedStrs(names("custom_dataset_loader")); !slices.Equal(got, sortedStrs(loaders)) {
		t.Errorf("custom_dataset_loader entries = %v; config supports %v", got, loaders)
	}
	if got := sortedStrs(names("arrival_pattern")); !slices.Equal(got, sortedStrs(patterns)) {
		t.Errorf("arrival_pattern entries = %v; config has %v", got, patterns)
	}
	if got := names("plot"); !slices.Equal(sortedStrs(got), sortedStrs(report.Types())) {
		t.Errorf("plot entries = %v; aiperf plot has %v", got, report.Types())
	}
	for _, u := range config.UITypes() {
		uis = append(uis, string(u))
	}
	for _, u := range names("ui") {
		if !slices.Contains(uis, u) {
			t.Errorf("ui entry %q is not a --ui-type value", u)
		}
	}
}
