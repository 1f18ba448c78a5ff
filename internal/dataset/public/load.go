package public

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/dataset/hfdata"
	"github.com/aiperf-go/aiperf/internal/dataset/loader"
	"github.com/aiperf-go/aiperf/internal/environ"
	"github.com/aiperf-go/aiperf/internal/tokenizer"
	"github.com/aiperf-go/aiperf/internal/tokenizer/hub"
)

// Options shape a public dataset load.
type Options struct {
	// Subset overrides the spec's default config (--hf-subset).
	Subset string
	// WekaRepo names the repository of weka_hf (--hf-weka-dataset).
	WekaRepo string
	// Filters are --dataset-filter key=value pairs; only the Exgentic
	// datasets accept them.
	Filters map[string]string
	// Limit caps the conversations of a streaming dataset (AIPerf: the
	// largest profiling request count, else the dataset's entries); 0
	// reads the whole split.
	Limit int
	// Entries is --num-dataset-entries when given (0 otherwise): the
	// session cap of the Exgentic datasets.
	Entries int
	// Tokenizer counts input tokens (-1 without one) and, for sharegpt,
	// filters by length; trace datasets synthesize prompts with it.
	Tokenizer tokenizer.Tokenizer
	// OSLSet is --osl given (sharegpt skips its completion length check).
	OSLSet bool
	// Models are assigned to turns round-robin (sharegpt).
	Models []string
	// Seed and SeedSet are the run's random seed.
	Seed    uint64
	SeedSet bool
	// FixedSchedule: the run replays timestamps (Exgentic splits a
	// session into one conversation per call, each at its time).
	FixedSchedule bool
	// IgnoreDelays drops recorded inter-turn delays (Exgentic; Weka reads
	// Weka.IgnoreDelays) (--ignore-trace-delays).
	IgnoreDelays bool
	// Weka shapes the Weka trace reconstruction (weka datasets).
	Weka loader.WekaOptions
	// Getenv supplies the HuggingFace environment (HF_HOME, HF_ENDPOINT,
	// HF_HUB_OFFLINE, HF_TOKEN, ...); nil means environ.Getenv.
	Getenv func(string) string
	// HTTP makes the downloads; nil means a default client.
	HTTP *http.Client
	// SpecBenchURL overrides where spec_bench is downloaded from (tests);
	// SpecBenchCache is its cache file ("" means spec_bench.jsonl in
	// $AIPERF_DATASET_CACHE_DIR, else in AIPerf's .cache/aiperf/datasets
	// under the working directory).
	SpecBenchURL, SpecBenchCache string
}

// Load reads the public dataset name into conversations.
func Load(ctx context.Context, name string, o Options) (*loader.Loaded, error) {
	spec, ok := Lookup(name)
	if !ok {
		return nil, fmt.Errorf("unknown public dataset %q (available: %s)", name, SortedNames())
	}
	if len(o.Filters) > 0 && !spec.Filters {
		return nil, fmt.Errorf("public dataset %q does not support --dataset-filter", name)
	}
	if o.Getenv == nil {
		o.Getenv = environ.Getenv
	}
	l := &loading{spec: spec, o: o, ids: loader.NewSessionIDs(o.Seed, o.SeedSet)}
	var (
		convs []dataset.Conversation
		err   error
	)
	switch spec.Kind {
	case KindShareGPT:
		return l.shareGPT(ctx)
	case KindSpecBench:
		convs, err = l.specBench(ctx)
	case KindExgentic:
		convs, err = l.exgentic(ctx)
	case KindWeka:
		return l.weka(ctx)
	default:
		convs, err = l.hfRows(ctx)
	}
	if err != nil {
		return nil, fmt.Errorf("public dataset %s: %w", name, err)
	}
	if len(convs) == 0 {
		return nil, fmt.Errorf("public dataset %s: no row gave a conversation; the dataset is empty", name)
	}
	l.count(convs)
	return &loader.Loaded{Dataset: &dataset.Dataset{Conversations: convs}, Type: name, Sampling: dataset.SamplingSequential,
		Timestamps: len(convs[0].Turns) > 0 && convs[0].Turns[0].HasTimestamp}, nil
}

// loading is one Load call's state.
type loading struct {
	spec Spec
	o    Options
	ids  *loader.SessionIDs
}

func (l *loading) client() *hub.Client { return hub.FromEnv(l.o.Getenv, l.o.HTTP) }

// subset is the config to read: --hf-subset, else the spec's.
func (l *loading) subset() string {
	if l.o.Subset != "" {
		return l.o.Subset
	}
	return l.spec.Subset
}

// fetch resolves and downloads the spec's split.
func (l *loading) fetch(ctx context.Context, repo string) (*hfdata.Local, error) {
	return hfdata.Fetch(ctx, l.client(), hfdata.Source{Repo: repo, Revision: l.spec.Revision, Config: l.subset(), Split: l.spec.Split})
}

// count fills every turn's input token count from its texts.
func (l *loading) count(convs []dataset.Conversation) {
	for c := range convs {
		for t := range convs[c].Turns {
			turn := &convs[c].Turns[t]
			if turn.InputTokens != 0 {
				continue
			}
			turn.InputTokens = -1
			if l.o.Tokenizer != nil {
				turn.InputTokens = l.o.Tokenizer.Count(joinTexts(turn.Texts))
			}
		}
	}
}

func joinTexts(texts []string) string {
	switch len(texts) {
	case 0:
		return ""
	case 1:
		return texts[0]
	}
	out := texts[0]
	for _, t := range texts[1:] {
		out += " " + t
	}
	return out
}

// errLimit ends a row scan once Limit conversations are built.
var errLimit = hfdata.ErrStop

// full reports whether a streaming dataset has its conversations.
func (l *loading) full(n int) bool {
	return l.spec.Streaming && l.o.Limit > 0 && n >= l.o.Limit
}

func (l *loading) shareGPT(ctx context.Context) (*loader.Loaded, error) {
	path, err := loader.FetchShareGPT(ctx, l.o.Getenv, l.o.HTTP)
	if err != nil {
		return nil, err
	}
	return loader.LoadShareGPT(loader.ShareGPTOptions{
		Path: path, FromHubCache: true, OSLSet: l.o.OSLSet, Models: l.o.Models, Seed: l.o.Seed, SeedSet: l.o.SeedSet,
	}, l.o.Tokenizer)
}

// errNoColumn is a dataset that lacks the column a loader reads.
var errNoColumn = errors.New("column not found")
