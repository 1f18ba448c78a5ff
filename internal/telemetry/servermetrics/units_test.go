package servermetrics

import (
	"encoding/json"
	"os"
	"testing"
)

// TestInferUnitMatchesAIPerf checks InferUnit against the units AIPerf
// 0.13's infer_unit gave the same names and HELP texts
// (testdata/aiperf_units.json, scripts/telemetry-goldens.sh).
func TestInferUnitMatchesAIPerf(t *testing.T) {
	raw, err := os.ReadFile("testdata/aiperf_units.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Cases []struct {
			Name        string  `json:"name"`
			Description string  `json:"description"`
			Unit        *string `json:"unit"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Cases) < 20 {
		t.Fatalf("only %d reference cases", len(ref.Cases))
	}
	for _, c := range ref.Cases {
		want := ""
		if c.Unit != nil {
			want = *c.Unit
		}
		if got := InferUnit(c.Name, c.Description); got != want {
			t.Errorf("InferUnit(%q, %q) = %q, AIPerf says %q", c.Name, c.Description, got, want)
		}
	}
}
