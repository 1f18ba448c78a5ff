package export

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestSummaryJSONClientHealth: RunInfo.ClientHealth is marshalled as the
// last key, "client_health", in its own field order, and leaves every other
// key as it was; without it the key is absent.
func TestSummaryJSONClientHealth(t *testing.T) {
	t.Parallel()
	plain, err := SummaryJSON(fixtureSummary(), fixtureRunInfo())
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(plain, []byte("client_health")) {
		t.Fatal("client_health written without ClientHealth")
	}
	type health struct {
		Healthy  bool     `json:"healthy"`
		Warnings []string `json:"warnings"`
		LagP99   float64  `json:"schedule_lag_p99_ms"`
	}
	info := fixtureRunInfo()
	info.ClientHealth = health{Warnings: []string{"schedule lag p99 is 2.000 ms"}, LagP99: 2}
	got, err := SummaryJSON(fixtureSummary(), info)
	if err != nil {
		t.Fatal(err)
	}
	want := `  "client_health": {
    "healthy": false,
    "warnings": [
      "schedule lag p99 is 2.000 ms"
    ],
    "schedule_lag_p99_ms": 2
  }
}`
	if !strings.HasSuffix(string(got), want) {
		t.Errorf("summary does not end with the client_health block:\n%s", got[max(0, len(got)-400):])
	}
	// Everything before it is the plain summary.
	trimmed := strings.TrimSuffix(string(plain), "\n}")
	if !strings.HasPrefix(string(got), trimmed+",\n") {
		t.Error("adding client_health changed the other keys")
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(got, &doc); err != nil {
		t.Fatal(err)
	}
}
