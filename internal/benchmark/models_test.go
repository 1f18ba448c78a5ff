package benchmark

import (
	"slices"
	"testing"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/dataset"
)

func modelsDataset(turns ...int) *dataset.Dataset {
	ds := &dataset.Dataset{}
	for _, n := range turns {
		ds.Conversations = append(ds.Conversations, dataset.Conversation{Turns: make([]dataset.Turn, n)})
	}
	return ds
}

func turnModels(ds *dataset.Dataset) []string {
	var out []string
	for _, c := range ds.Conversations {
		for _, t := range c.Turns {
			out = append(out, t.Model)
		}
	}
	return out
}

func TestAssignModels(t *testing.T) {
	t.Parallel()
	ds := modelsDataset(2, 1, 2)
	ds.Conversations[1].Turns[0].Model = "pinned"
	if err := assignModels(ds, []string{"a", "b", "c"}, config.ModelRoundRobin, 1); err != nil {
		t.Fatal(err)
	}
	if got, want := turnModels(ds), []string{"a", "b", "pinned", "c", "a"}; !slices.Equal(got, want) {
		t.Errorf("round robin = %v; want %v", got, want)
	}

	one := modelsDataset(3)
	if err := assignModels(one, []string{"only"}, config.ModelRandom, 1); err != nil {
		t.Fatal(err)
	}
	if got := turnModels(one); !slices.Equal(got, []string{"", "", ""}) {
		t.Errorf("one model: %v; want the run's model (empty) everywhere", got)
	}

	r1, r2 := modelsDataset(50), modelsDataset(50)
	for _, d := range []*dataset.Dataset{r1, r2} {
		if err := assignModels(d, []string{"a", "b"}, config.ModelRandom, 7); err != nil {
			t.Fatal(err)
		}
	}
	got := turnModels(r1)
	if !slices.Equal(got, turnModels(r2)) {
		t.Error("random selection differs for the same seed")
	}
	if !slices.Contains(got, "a") || !slices.Contains(got, "b") {
		t.Errorf("random selection of 50 turns used one model only: %v", got)
	}
	if err := assignModels(modelsDataset(1), []string{"a", "b"}, "weighted", 1); err == nil {
		t.Error("unknown strategy accepted")
	}
}

// TestRandomModelsMatchAIPerf pins --model-selection-strategy random to
// AIPerf 0.13's sequence for the same seed: rng.derive(
// "composer.turn.model_selection").choice(models) once per turn, printed by
// AIPerf's own RandomGenerator (aiperf.common.random_generator, init(seed)).
func TestRandomModelsMatchAIPerf(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		seed   uint64
		models []string
		want   []string
	}{
		{42, []string{"a", "b", "c"}, []string{"a", "b", "c", "c", "a", "c", "a", "b", "b", "c", "c", "b"}},
		{7, []string{"m1", "m2"}, []string{"m1", "m1", "m2", "m1", "m2", "m2", "m2", "m2", "m2", "m2", "m2", "m2"}},
	} {
		ds := modelsDataset(5, 1, 6) // 12 turns over three conversations, in dataset order
		if err := assignModels(ds, c.models, config.ModelRandom, c.seed); err != nil {
			t.Fatal(err)
		}
		if got := turnModels(ds); !slices.Equal(got, c.want) {
			t.Errorf("seed %d: %v; AIPerf draws %v", c.seed, got, c.want)
		}
	}
}
