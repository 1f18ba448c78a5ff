package public

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-json-experiment/json"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/dataset/hfdata"
	"github.com/aiperf-go/aiperf/internal/dataset/loader"
)

// weka reads a SemiAnalysis (or --hf-weka-dataset) corpus whose rows are
// Weka traces and replays them with the weka_trace reconstruction.
func (l *loading) weka(ctx context.Context) (*loader.Loaded, error) {
	repo := l.spec.Repo
	if l.o.WekaRepo != "" {
		repo = l.o.WekaRepo
	}
	if repo == "" {
		return nil, errors.New("public dataset weka_hf needs the repository: give --hf-weka-dataset ORG/NAME")
	}
	local, err := l.fetch(ctx, repo)
	if err != nil {
		return nil, fmt.Errorf("public dataset %s: %w", l.spec.Name, err)
	}
	var traces []*loader.WekaTrace
	seen := map[string]int{}
	i := 0
	err = local.Rows(func(r hfdata.Row) error {
		i++
		raw, err := json.Marshal(map[string]any(r), json.Deterministic(true))
		if err != nil {
			return err
		}
		where := fmt.Sprintf("row %d of %s", i-1, repo)
		tr, err := loader.ParseWekaTrace(raw, where)
		if err != nil {
			return fmt.Errorf("%s failed Weka trace validation: %w", where, err)
		}
		if prev, dup := seen[tr.ID]; dup {
			return fmt.Errorf("duplicate trace id %q at row %d of %s (also row %d)", tr.ID, i-1, repo, prev)
		}
		seen[tr.ID] = i - 1
		traces = append(traces, tr)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("public dataset %s: %w", l.spec.Name, err)
	}
	o := l.o.Weka
	o.Seed = l.o.Seed
	if o.BlockSize == 0 {
		o.BlockSize = l.spec.BlockSize
	}
	convs, err := loader.WekaConversations(traces, o, l.o.Tokenizer)
	if err != nil {
		return nil, fmt.Errorf("public dataset %s: %w", l.spec.Name, err)
	}
	return &loader.Loaded{Dataset: &dataset.Dataset{Conversations: convs}, Type: l.spec.Name, Sampling: dataset.SamplingSequential,
		Timestamps: len(convs) > 0 && len(convs[0].Turns) > 0 && convs[0].Turns[0].HasTimestamp}, nil
}
