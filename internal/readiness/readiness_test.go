package readiness

import (
	"testing"

	"github.com/aiperf-go/aiperf/internal/config"
)

func TestReadinessPayload(t *testing.T) {
	t.Parallel()
	tests := []struct {
		kind config.EndpointType
		want string
	}{
		{config.EndpointChat, `{"messages":[{"role":"user","content":"Lo"}],"max_tokens":1,"model":"m"}`},
		{config.EndpointCompletions, `{"prompt":"Lo","max_tokens":1,"model":"m"}`},
	}
	for _, tt := range tests {
		if got := string(readinessPayload(tt.kind, "m")); got != tt.want {
			t.Errorf("%s: %s; want %s", tt.kind, got, tt.want)
		}
	}
}

func FuzzModelIDs(f *testing.F) {
	for _, s := range []string{
		`{"object":"list","data":[{"id":"a"},{"id":"b"}]}`, `{"data":[]}`, `{"data":null}`, `{"data":[1,"x",{"id":2}]}`,
		`[]`, `null`, ``, `{"data":[{"id":"\u00e9"}]`, "\xff",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		ids, ok := modelIDs(body)
		if !ok && ids != nil {
			t.Errorf("modelIDs(%q) = %v, false; want no ids when the body is not a list", body, ids)
		}
		_ = snippet(body)
	})
}
