package configfile

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/aiperf-go/aiperf/internal/config"
)

// TestInputConfigSettings: an option appears in input_config when it was
// given or holds a value other than its default, at its input_config
// path, encoded as its config-file key and with its secrets redacted.
func TestInputConfigSettings(t *testing.T) {
	tests := []struct {
		name  string
		set   func(c *config.Config)
		given []string
		want  map[string]any
	}{
		{name: "nothing set", set: func(*config.Config) {}, want: map[string]any{}},
		{name: "a default given", set: func(*config.Config) {}, given: []string{"log-level"},
			want: map[string]any{"logging.level": "INFO"}},
		{name: "changed, not given (a config file)", set: func(c *config.Config) { c.Endpoint.ConnectionReuse = config.ReuseNever },
			want: map[string]any{"endpoint.connection_reuse": "never"}},
		{name: "a path of its own", set: func(c *config.Config) { c.Service.LogLevel = config.LogWarning; w := 2; c.Compat.WorkersMax = &w },
			want: map[string]any{"logging.level": "WARNING", "runtime.workers": int64(2)}},
		{name: "several paths", set: func(c *config.Config) { c.Output.ExportLevel = config.ExportSummary }, given: []string{"export-level"},
			want: map[string]any{"artifacts.records": false, "artifacts.raw": false}},
		{name: "headers redacted", set: func(c *config.Config) {
			c.Input.Headers = []config.Header{{Name: "X-Foo", Value: "bar"}, {Name: "Authorization", Value: "Bearer s3cret"}}
		}, want: map[string]any{"endpoint.headers": map[string]any{"X-Foo": "bar", "Authorization": config.Redacted}}},
		{name: "extra inputs redacted", set: func(c *config.Config) {
			c.Input.Extra = []config.ExtraInput{{Key: "temperature", Value: json.RawMessage("0.5")}, {Key: "api_key", Value: json.RawMessage(`"s3cret"`)}}
		}, want: map[string]any{"endpoint.extra": map[string]any{"temperature": 0.5, "api_key": config.Redacted}}},
		{name: "URL password redacted", set: func(c *config.Config) { c.Integrations.MLflow.TrackingURI = "http://u:s3cret@mlflow:5000" },
			want: map[string]any{"mlflow.tracking_uri": "http://" + config.Redacted + "@mlflow:5000"}},
		{name: "the engine is runtime's", set: func(c *config.Config) { c.Network.HTTPClient = config.ClientLean }, given: []string{"http-client"},
			want: map[string]any{}},
		{name: "an empty list says nothing", set: func(*config.Config) {}, given: []string{"gpu-telemetry"}, want: map[string]any{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := config.Defaults()
			tt.set(&cfg)
			got := map[string]any{}
			for _, s := range InputConfigSettings(&cfg, func(o string) bool { return slices.Contains(tt.given, o) }) {
				got[s.Path] = s.Value
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("settings (-want +got):\n%s", diff)
			}
		})
	}
}
