package doctor

import (
	"context"
	"testing"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/tokenizer/testmodels"
)

// TestChatTemplateOverhead measures a real chat template (Qwen3's) through
// the offline tokenizer probe: at --isl 1024 its overhead crosses into the
// 2048 bucket; with --apply-chat-template it is compensated.
func TestChatTemplateOverhead(t *testing.T) {
	cfg := config.Defaults()
	cfg.Endpoint.ModelNames = []string{"qwen3"}
	cfg.Tokenizer.Name = testmodels.Dir(t, "qwen3")
	cfg.Input.InputTokens.Mean = 1024
	cfg.Telemetry.ServerMetrics.Disabled = true
	f := &Facts{}
	Config(&cfg, f)
	Prober{}.Probe(context.Background(), &cfg, f)
	if f.Tokenizer == nil || f.Tokenizer.Err != nil || !f.OverheadKnown || f.ChatOverhead <= 0 {
		t.Fatalf("tokenizer %+v, overhead %d (known %t)", f.Tokenizer, f.ChatOverhead, f.OverheadKnown)
	}
	if r := checkChatBucket(f); r.Status != Warn {
		t.Errorf("%s", r.Line())
	}
	f.ApplyChatTemplate = true
	if r := checkChatBucket(f); r.Status != OK {
		t.Errorf("%s", r.Line())
	}
}
