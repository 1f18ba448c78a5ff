package agenticcode

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
)

// WriteDataset writes dataset.jsonl: one mooncake_trace row per turn,
// session by session. A row's input_length is the turn's new tokens
// (mooncake rows are incremental: the replay carries the history), its
// hash_ids exactly ceil(input_length/block_size) blocks: a session's
// first row its L1, L1.5 and L2 ids, every later row fresh ids from one
// counter over the whole dataset. First rows carry timestamp (0.0),
// group_id and is_restart (continuations only); later rows delay (ms).
// It returns each session's rows' hash ids, as written.
func WriteDataset(path string, sessions []Session, blockSize int) ([][][]int, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	rows := make([][][]int, len(sessions))
	w := bufio.NewWriterSize(f, 1<<16)
	next := 0
	var b bytes.Buffer
	for si, s := range sessions {
		for _, t := range s.Turns {
			ids := t.HashIDs
			if t.Index == 0 {
				for _, id := range ids {
					next = max(next, id+1)
				}
			} else {
				n := ceilDiv(t.NewTokens, blockSize)
				ids = make([]int, n)
				for i := range ids {
					ids[i] = next + i
				}
				next += n
			}
			rows[si] = append(rows[si], ids)
			row := obj{{"session_id", s.ID}, {"input_length", t.NewTokens}, {"output_length", t.Output}, {"hash_ids", ids}}
			if t.Index == 0 {
				row = append(row, kv{"timestamp", pyRound(t.TimestampMs, 1)}, kv{"group_id", s.Group})
				if s.Continuation {
					row = append(row, kv{"is_restart", true})
				}
			} else {
				row = append(row, kv{"delay", pyRound(t.DelayMs, 1)})
			}
			b.Reset()
			encode(&b, row, 0, 0)
			b.WriteByte('\n')
			w.Write(b.Bytes())
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return nil, err
	}
	return rows, f.Close()
}

// Manifest is manifest.json: the seed, the session count, the config's
// name and the whole configuration, which --config accepts back.
func Manifest(c *Config, seed uint64, sessions int, name string) obj {
	return obj{{"seed", int(seed)}, {"num_sessions", sessions}, {"config_name", name}, {"generation_params", c.json()}}
}

func (l Lognormal) json() obj {
	return obj{{"mu", l.Mu}, {"sigma", l.Sigma}, {"mean", l.Mean}, {"median", l.Median}, {"min", l.Min}, {"max", l.Max}}
}

// json is the configuration as AIPerf's model dumps it (field order,
// floats as floats).
func (c *Config) json() obj {
	nt := append(c.NewTokensPerTurn.Lognormal.json(), kv{"bias", c.NewTokensPerTurn.Bias})
	var reset, turns any
	if r := c.Reset; r != nil {
		reset = obj{{"base_probability", r.BaseProbability}, {"context_scaling", r.ContextScaling}}
	}
	if t := c.Turns; t != nil {
		var attempts any
		if t.MaxSessionAttempts != nil {
			attempts = *t.MaxSessionAttempts
		}
		turns = obj{{"mean", t.Mean}, {"median", t.Median}, {"min", t.Min}, {"max", t.Max},
			{"allow_truncation", t.AllowTruncation}, {"max_session_attempts", attempts}}
	}
	m := c.InterTurnDelay
	return obj{
		{"new_tokens_per_turn", nt},
		{"generation_length", c.GenerationLength.json()},
		{"inter_turn_delay", obj{{"agentic_fraction", m.AgenticFraction}, {"agentic_delay", m.Agentic.json()},
			{"human_delay", m.Human.json()}, {"max", m.Max}}},
		{"reset", reset},
		{"turns", turns},
		{"max_prompt_tokens", c.MaxPromptTokens},
		{"block_size", c.BlockSize},
		{"cache", obj{{"layer1_tokens", c.Cache.Layer1Tokens}, {"layer1_5_tokens", c.Cache.Layer15Tokens},
			{"layer2", c.Cache.Layer2.json()},
			{"layer1_5_groups", obj{{"num_groups", c.Cache.Groups.NumGroups}, {"zipf_alpha", c.Cache.Groups.ZipfAlpha}}}}},
		{"restart_initial_probability", c.RestartInitialProbability},
		{"restart_turn_range", []int{c.RestartTurnRange[0], c.RestartTurnRange[1]}},
	}
}

// writeDoc writes v as an indented JSON document.
func writeDoc(dir, name string, v any) error {
	if err := os.WriteFile(filepath.Join(dir, name), document(v), 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	return nil
}
