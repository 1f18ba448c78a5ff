// Package loader reads the dataset file formats (single and multi turn,
// raw payloads, traces such as mooncake, bailian, burstgpt, Weka, Baseten
// and TraceLab, DAG sessions, SageMaker capture, ShareGPT) into
// conversations, detecting the format when it is not given. Trace prompts
// are built from hash ids by the synthesis package.
package loader

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/dataset/synthesis"
	"github.com/aiperf-go/aiperf/internal/tokenizer"
)

// Custom dataset formats (--custom-dataset-type), AIPerf's names.
const (
	TypeSingleTurn    = "single_turn"
	TypeMultiTurn     = "multi_turn"
	TypeRandomPool    = "random_pool"
	TypeMooncakeTrace = "mooncake_trace"
	TypeInputsJSON    = "inputs_json"
	TypeRawPayload    = "raw_payload"
	TypeBailianTrace  = "bailian_trace"
	TypeBurstGPTTrace = "burst_gpt_trace"
)

// Types lists the formats Load reads.
func Types() []string {
	return append([]string{TypeSingleTurn, TypeMultiTurn, TypeRandomPool, TypeMooncakeTrace,
		TypeInputsJSON, TypeRawPayload, TypeBailianTrace, TypeBurstGPTTrace, TypeWekaTrace,
		TypeBasetenTrace, TypeDagJSONL, TypeSageMakerDataCapture, TypeTraceLab}, SpeedBenchTypes()...)
}

// Default hash-id block sizes of the trace formats, as in AIPerf's loader
// metadata; --isl-block-size overrides them.
const (
	DefaultMooncakeBlockSize = 512
	DefaultBailianBlockSize  = 16
)

// DefaultPoolConversations is the number of conversations a random_pool
// dataset is sampled into when --conversation-num is not given.
const DefaultPoolConversations = 100

// LoadOptions says which file to read and how.
type LoadOptions struct {
	// Path is the file or directory (--input-file).
	Path string
	// Type is the format; "" detects it (see Detect).
	Type string
	// BlockSize is the tokens per hash_ids block; 0 means the format's
	// default.
	BlockSize int
	// Conversations is how many conversations a random_pool is sampled
	// into; 0 means DefaultPoolConversations.
	Conversations int
	// PoolBatch packs a random_pool (-b, --image-, --audio-,
	// --video-batch-size); nil packs nothing.
	PoolBatch *PoolBatch
	// Keep, when > 0, keeps only the first Keep conversations of a file
	// read in order (single_turn, multi_turn, raw_payload): a run that
	// samples sequentially and stops after Keep conversations never sends
	// the others. The rest of the file is still read and checked, line by
	// line, but not held. Traces, pools, inputs.json and files whose first
	// turn has a timestamp (replayed whole) ignore it.
	Keep int
	// Seed and SeedSet are the run's random seed (see SyntheticOptions).
	Seed    uint64
	SeedSet bool
	// Corpus is where synthesized trace prompts are cut from; nil means
	// the format's default (coding for the agentic-coding formats, sonnet
	// otherwise).
	Corpus *synthesis.PromptCorpus
	// SeparatorToken, when set, is the token each hash-id block of a trace
	// prompt starts with: the tokenizer's BOS, else its EOS (AIPerf's
	// block_separation_token_id; see SeparationToken). nil = none.
	SeparatorToken *int
	// Synthesis reshapes the trace formats' requests (the Synthesis
	// flags); the zero value changes nothing.
	Synthesis Synthesis
	// LazyPrompts leaves the hash-id prompts of mooncake, bailian and
	// BurstGPT traces unbuilt: such a turn carries a Prompt (and
	// InputTokens -1) instead of Texts, and is built when sent
	// (Turn.Materialize), so memory grows with the trace's rows, not its
	// tokens. Off, every prompt is built and counted at load time.
	LazyPrompts bool
	// CompactRows keeps a trace whose rows are all single hash-id requests
	// (a mooncake trace without sessions, text or messages) as TraceRows
	// rather than Conversations (it implies LazyPrompts for them): tens of
	// bytes a row where a Conversation is hundreds.
	CompactRows bool
	// Weka shapes weka_trace (and tracelab) replay.
	Weka WekaOptions
	// Baseten shapes baseten_trace replay.
	Baseten BasetenOptions
	// UUIDAndStrip (--uuid-and-strip) drops the bytes of single_turn
	// images a conversation already sent under the same cache UUID (see
	// StripRepeatedImages); multi_turn files refuse it, as in AIPerf.
	UUIDAndStrip bool
}

// isTraceType reports a trace format (AIPerf's is_trace loaders), the
// formats the Synthesis options apply to.
func isTraceType(typ string) bool {
	switch typ {
	case TypeMooncakeTrace, TypeBailianTrace, TypeBurstGPTTrace, TypeBasetenTrace, TypeSageMakerDataCapture, TypeWekaTrace, TypeTraceLab:
		return true
	}
	return false
}

// Loaded is a dataset read from a file.
type Loaded struct {
	Dataset *dataset.Dataset
	// Type is the format, as given or detected.
	Type string
	// Sampling is the format's preferred sampling strategy (sequential for
	// files and traces, shuffle for random_pool), used when
	// --dataset-sampling-strategy is not given.
	Sampling string
	// Timestamps reports that the first turn carries a timestamp, which
	// makes a run switch to fixed-schedule replay as AIPerf does.
	Timestamps bool
}

// Load reads a custom dataset. tok counts each turn's input tokens (it may
// be nil for formats that need no prompt synthesis; counts are then -1) and
// builds the prompts of traces that give only lengths. Every problem in
// the file is reported, up to a bound, each naming file, line and field;
// an empty dataset is an error.
func Load(o LoadOptions, tok tokenizer.Tokenizer) (*Loaded, error) {
	typ := o.Type
	if typ == "" {
		t, err := Detect(o.Path)
		if err != nil {
			return nil, err
		}
		typ = t
	}
	if o.Synthesis.Active() && !isTraceType(typ) {
		return nil, &dataset.InputError{File: o.Path, Err: fmt.Errorf("the synthesis options only apply to trace datasets, and this is %s", typ)}
	}
	l := &loader{opts: o, tok: tok, seed: o.Seed}
	if !o.SeedSet {
		l.seed = rand.Uint64()
	}
	var (
		convs []dataset.Conversation
		err   error
	)
	sampling := dataset.SamplingSequential
	switch typ {
	case TypeSingleTurn:
		convs, err = l.singleTurn()
	case TypeMultiTurn:
		convs, err = l.multiTurn()
	case TypeRandomPool:
		convs, err = l.randomPool()
		sampling = dataset.SamplingShuffle
	case TypeMooncakeTrace:
		convs, err = l.mooncake()
	case TypeBailianTrace:
		convs, err = l.bailian()
	case TypeBurstGPTTrace:
		convs, err = l.burstGPT()
	case TypeRawPayload:
		convs, err = l.rawPayload()
	case TypeInputsJSON:
		convs, err = l.inputsJSON()
	case TypeWekaTrace:
		convs, err = l.wekaTrace()
	case TypeTraceLab:
		convs, err = l.traceLab()
	case TypeBasetenTrace:
		convs, err = l.basetenTrace()
	case TypeDagJSONL:
		convs, err = l.dagJSONL()
	case TypeSageMakerDataCapture:
		convs, err = l.sageMakerCapture()
	default:
		if isSpeedBenchType(typ) {
			convs, err = l.speedBench(typ)
			break
		}
		return nil, fmt.Errorf("unknown dataset type %q (want one of %s)", typ, strings.Join(Types(), ", "))
	}
	if err != nil {
		return nil, err
	}
	if l.rows != nil {
		_, has := l.rows.Timestamp(0)
		return &Loaded{Dataset: &dataset.Dataset{Rows: l.rows}, Type: typ, Sampling: sampling, Timestamps: has}, nil
	}
	if len(convs) == 0 {
		return nil, &dataset.InputError{File: o.Path, Err: errors.New("the dataset is empty")}
	}
	out := &Loaded{Dataset: &dataset.Dataset{Conversations: convs}, Type: typ, Sampling: sampling}
	if t := convs[0].Turns; len(t) > 0 && t[0].HasTimestamp {
		out.Timestamps = true
	}
	return out, nil
}

// loader holds what one Load call shares between formats.
type loader struct {
	opts LoadOptions
	tok  tokenizer.Tokenizer
	seed uint64
	ids  *SessionIDs
	// rows is the trace a loader kept compact (LoadOptions.CompactRows), in
	// place of the conversations it returns nil for.
	rows *dataset.TraceRows
}

// sessionID returns the next generated conversation ID.
func (l *loader) sessionID() string {
	if l.ids == nil {
		l.ids = NewSessionIDs(l.seed, l.opts.SeedSet)
	}
	return l.ids.Next()
}

// SessionIDs generates conversation IDs as AIPerf's SessionIDGenerator
// does: "session_000000", "session_000001", ... when the run has a seed,
// random (version 4) UUIDs drawn from the seed's session-ID stream
// otherwise. Not safe for concurrent use.
type SessionIDs struct {
	seeded bool
	next   int
	rng    *rand.Rand
}

// NewSessionIDs returns a generator for a run seeded with seed (seeded
// false: seed is the drawn one, and IDs are UUIDs).
func NewSessionIDs(seed uint64, seeded bool) *SessionIDs {
	s := &SessionIDs{seeded: seeded}
	if !seeded {
		s.rng = dataset.NewStream(seed, dataset.StreamSessionID)
	}
	return s
}

// Next returns the next ID.
func (s *SessionIDs) Next() string {
	if !s.seeded {
		return dataset.NewUUID(s.rng)
	}
	id := fmt.Sprintf("session_%06d", s.next)
	s.next++
	return id
}

// count returns the token count of a turn's texts, or -1 without a
// tokenizer.
func (l *loader) count(texts []string) int {
	if l.tok == nil {
		return -1
	}
	return l.tok.Count(strings.Join(texts, " "))
}

// dirFiles lists the regular files of directory dir, sorted by name,
// keeping those whose name ends in one of exts (all when exts is empty).
// The directory itself must not be reached through a symbolic link.
func dirFiles(dir string, exts ...string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, &dataset.InputError{File: dir, Err: err}
	}
	var out []string
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		keep := len(exts) == 0
		for _, x := range exts {
			keep = keep || strings.HasSuffix(e.Name(), x)
		}
		if keep {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	sort.Strings(out)
	return out, nil
}

// isDir reports whether path is a directory (not a link to one).
func isDir(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.IsDir()
}

// problems gathers a file's input errors up to maxInputErrors.
type problems struct {
	errs []error
}

func (p *problems) add(err error) bool {
	if len(p.errs) < dataset.MaxInputErrors {
		p.errs = append(p.errs, err)
	}
	return len(p.errs) < dataset.MaxInputErrors
}

func (p *problems) err() error { return errors.Join(p.errs...) }
