package benchmark

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/dataset/loader"
	"github.com/aiperf-go/aiperf/internal/dataset/public"
)

// loadFileDataset reads the --input-file or --public-dataset dataset into
// p.Dataset, picks the sampling strategy (the flag's, else the format's
// preference) and builds the request bodies: a turn's RawPayload is sent
// as it is, every other turn goes through the endpoint.
func (p *Plan) loadFileDataset() error {
	d := &p.Config.Dataset
	var (
		loaded *loader.Loaded
		err    error
	)
	corpus, err := p.promptCorpus()
	if err != nil {
		return err
	}
	inputFile, customType, err := p.localInput()
	if err != nil {
		return usageError(err)
	}
	pub := d.ResolvedPublic()
	switch {
	case pub == config.PublicShareGPT && inputFile != "":
		// A local copy of ShareGPT.
		loaded, err = loader.LoadShareGPT(loader.ShareGPTOptions{
			Path:    inputFile,
			OSLSet:  p.Config.Input.OutputTokens.Mean != nil,
			Models:  p.Models,
			Seed:    p.Seed,
			SeedSet: p.SeedSet,
		}, p.Tokenizer)
	case pub != "":
		po := p.publicOptions()
		po.Weka.Corpus = corpus
		loaded, err = public.Load(context.Background(), string(pub), po)
	default:
		path, done, ierr := inlineRecordsFile(d.InlineRecords)
		if ierr != nil {
			return ierr
		}
		defer done()
		if path == "" {
			path = inputFile
		}
		o := loader.LoadOptions{
			Path:    path,
			Type:    customType,
			Seed:    p.Seed,
			SeedSet: p.SeedSet,
			Weka:    p.wekaOptions(),
			Baseten: p.basetenOptions(),
			// repeated images keep their UUID, not their bytes
			UUIDAndStrip: p.Config.Endpoint.UUIDAndStrip,
			Corpus:       corpus,

			SeparatorToken: p.separatorToken(),
			Synthesis:      p.synthesis(),
			LazyPrompts:    true,
			CompactRows:    true,
		}
		if d.BlockSize != nil {
			o.BlockSize = *d.BlockSize
		}
		// A random_pool is sampled into as many conversations as AIPerf
		// makes: --num-dataset-entries, else --num-sessions, else
		// --request-count, else the loader's 100.
		for _, n := range []*int{p.Config.Input.NumDatasetEntries, p.Config.Conversation.NumSessions, p.Config.Load.RequestCount} {
			if n != nil {
				o.Conversations = *n
				break
			}
		}
		o.PoolBatch = poolBatch(p.Config)
		o.Keep = p.datasetKeep()
		loaded, err = loader.Load(o, p.Tokenizer)
	}
	if err != nil {
		return usageError(fmt.Errorf("dataset: %w", err))
	}
	p.Dataset = loaded.Dataset
	p.DatasetType = loaded.Type
	p.DatasetTimestamps = loaded.Timestamps
	p.Sampling = loaded.Sampling
	if d.SamplingStrategy != "" {
		p.Sampling = string(d.SamplingStrategy)
	}
	return p.formatPayloads()
}

// inlineRecordsFile writes a config file's inline dataset records to a
// temporary JSONL file for the loader, one record a line; done removes
// it. Without records it returns "" and a no-op.
func inlineRecordsFile(records []json.RawMessage) (path string, done func(), err error) {
	if len(records) == 0 {
		return "", func() {}, nil
	}
	f, err := os.CreateTemp("", "aiperf-records-*.jsonl")
	if err != nil {
		return "", nil, fmt.Errorf("dataset records: %w", err)
	}
	done = func() { _ = os.Remove(f.Name()) }
	w := bufio.NewWriter(f)
	for _, r := range records {
		var b bytes.Buffer
		if err = json.Compact(&b, r); err == nil {
			b.WriteByte('\n')
			_, err = w.Write(b.Bytes())
		}
		if err != nil {
			break
		}
	}
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		done()
		return "", nil, fmt.Errorf("dataset records: %w", err)
	}
	return f.Name(), done, nil
}

// poolBatch is random_pool's packing from -b and the media batch sizes
// (1 each when not given).
func poolBatch(c *config.Config) *loader.PoolBatch {
	one := func(v *int) int {
		if v == nil {
			return 1
		}
		return *v
	}
	return &loader.PoolBatch{Texts: c.Prompt.BatchSize, Images: one(c.Media.ImageBatchSize), Audios: one(c.Media.AudioBatchSize), Videos: one(c.Video.BatchSize)}
}
