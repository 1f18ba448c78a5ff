package benchmark

import (
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/config"
)

// firstMessages returns each body's messages as (role, content) pairs.
func firstMessages(t *testing.T, body map[string]any) [][2]string {
	t.Helper()
	var out [][2]string
	msgs, _ := body["messages"].([]any)
	for _, m := range msgs {
		mm, _ := m.(map[string]any)
		c, _ := mm["content"].(string)
		r, _ := mm["role"].(string)
		out = append(out, [2]string{r, c})
	}
	return out
}

// cacheBustRun runs target against a recording mock, one request at a
// time, with edit applied, and returns the request bodies and the config.
func cacheBustRun(t *testing.T, target string, edit func(*config.Config)) ([]map[string]any, *config.Config) {
	t.Helper()
	url, bodies, _ := fileRecordingMock(t)
	cfg := baseConfig(t, url)
	cfg.Endpoint.Streaming = false
	cfg.Tokenizer.Name = "builtin"
	cfg.Load.Concurrency = ptr(1)
	cfg.Prompt.CacheBust = target
	edit(cfg)
	if out, err := run(t, context.Background(), cfg); err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	return bodies(), cfg
}

var ridPrefix = regexp.MustCompile(`^\[rid:[0-9a-f]{12}\]\n\n`)

// TestRunCacheBust runs --cache-bust against the mock: every conversation
// instance's first user message starts with its own RID marker, carried
// unchanged in the history of its later turns, and named in the raw
// records; a system suffix lands on the verbatim system prompt of every
// request; warmup isolation marks the warmup requests only.
func TestRunCacheBust(t *testing.T) {
	t.Run("first_turn_prefix", func(t *testing.T) {
		b, cfg := cacheBustRun(t, "first_turn_prefix", func(c *config.Config) {
			c.Conversation.TurnsMean = 2
			c.Load.RequestCount = ptr(6)
			c.Output.ExportLevel = config.ExportRaw
		})
		if len(b) != 6 {
			t.Fatalf("%d requests, want 6", len(b))
		}
		seen := map[string]bool{}
		for i := 0; i < len(b); i += 2 {
			first, second := firstMessages(t, b[i]), firstMessages(t, b[i+1])
			m := ridPrefix.FindString(first[0][1])
			if m == "" || first[0][0] != "user" {
				t.Fatalf("request %d starts with %q; want a RID marker", i, first[0])
			}
			if seen[m] {
				t.Errorf("marker %q reused by another conversation", m)
			}
			seen[m] = true
			if len(second) != 3 || second[0][1] != first[0][1] || strings.HasPrefix(second[2][1], "[rid:") {
				t.Errorf("turn 2 of conversation %d = %q; want the marked first turn in its history, its own text unmarked", i/2, second)
			}
		}
		// The raw records come in the order the record processors finish
		// them (two or more run at once), not in send order: a second
		// turn's record can be the first line. Each first turn names its
		// conversation's marker; a later turn, whose own text is unmarked,
		// names none.
		firsts := 0
		for i, line := range lines(t, filepath.Join(cfg.Output.ArtifactDir, "profile_export_raw.jsonl")) {
			var rec struct {
				Metadata struct {
					TurnIndex int `json:"turn_index"`
				} `json:"metadata"`
				Marker string `json:"cache_bust_marker"`
				Target string `json:"cache_bust_target"`
			}
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Fatalf("raw record %d: %v", i, err)
			}
			switch {
			case rec.Metadata.TurnIndex == 0 && (!seen[rec.Marker] || rec.Target != "first_turn_prefix"):
				t.Errorf("raw record %d (first turn): marker %q target %q", i, rec.Marker, rec.Target)
			case rec.Metadata.TurnIndex > 0 && rec.Marker != "":
				t.Errorf("raw record %d (turn %d): marker %q; a later turn is not marked itself", i, rec.Metadata.TurnIndex, rec.Marker)
			}
			if rec.Metadata.TurnIndex == 0 {
				firsts++
			}
		}
		if firsts != len(seen) {
			t.Errorf("%d first-turn raw records; want %d", firsts, len(seen))
		}
	})
	t.Run("system_suffix", func(t *testing.T) {
		b, _ := cacheBustRun(t, "system_suffix", func(c *config.Config) {
			c.Conversation.TurnsMean = 2
			c.Load.RequestCount = ptr(2)
			c.Prompt.SystemPrompt = "Be brief."
		})
		sys := regexp.MustCompile(`^Be brief\.\n\n\[rid:[0-9a-f]{12}\]$`)
		for i := range b {
			msgs := firstMessages(t, b[i])
			if msgs[0][0] != "system" || !sys.MatchString(msgs[0][1]) || strings.Contains(msgs[1][1], "[rid:") {
				t.Errorf("request %d = %q; want the marker after the system prompt only", i, msgs)
			}
		}
	})
	t.Run("warmup_isolation_first_turn", func(t *testing.T) {
		b, _ := cacheBustRun(t, "warmup_isolation_first_turn", func(c *config.Config) {
			c.Warmup.RequestCount = ptr(2)
			c.Load.RequestCount = ptr(2)
		})
		if len(b) != 4 {
			t.Fatalf("%d requests, want 4", len(b))
		}
		for i := range b {
			warm := strings.HasPrefix(firstMessages(t, b[i])[0][1], "[warmup]\n\n")
			if warm != (i < 2) {
				t.Errorf("request %d (warmup %v) marked %v", i, i < 2, warm)
			}
		}
	})
	t.Run("unsupported endpoint", func(t *testing.T) {
		cfg := baseConfig(t, "http://127.0.0.1:1")
		cfg.Tokenizer.Name = "builtin"
		cfg.Endpoint.Type = config.EndpointEmbeddings
		cfg.Prompt.CacheBust = "first_turn_prefix"
		cfg.Input.OutputTokens.Mean = nil
		_, err := run(t, context.Background(), cfg)
		if exitCode(err) != int(config.ExitUsage) || !strings.Contains(err.Error(), "--cache-bust") {
			t.Errorf("embeddings with --cache-bust: %v", err)
		}
	})
}
