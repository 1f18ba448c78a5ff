// Package media makes the synthetic media inputs: images (with its own
// 4:4:4 JPEG encoder), WAV/MP3 audio and video clips, added to a dataset's
// turns by AddMedia.
package media

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"github.com/aiperf-go/aiperf/internal/dataset"
	"math/rand/v2"
	"strconv"
)

// Stream names of the media generators (AIPerf's derived RNG identifiers,
// with the conversation index appended: each conversation draws from its
// own streams so that conversations are generated in parallel and do not
// change when the number of entries does).
const (
	streamImage      = "dataset.image.dimensions"
	streamImageNoise = "dataset.image.noise"
	streamAudio      = "dataset.audio.data"
)

// MediaOptions describes the synthetic images and audio added to every
// turn of a synthetic dataset (AIPerf's --image-* and --audio-* options).
type MediaOptions struct {
	Images ImageOptions
	Audio  AudioOptions
	Video  VideoOptions
}

// Enabled reports whether any media is added.
func (o MediaOptions) Enabled() bool {
	return o.Images.Enabled() || o.Audio.Enabled() || o.Video.Enabled()
}

// Validate reports every problem with o at once. Disabled modalities are
// not checked.
func (o MediaOptions) Validate() error {
	return errors.Join(o.Images.validate(), o.Audio.validate(), o.Video.validate())
}

// AddMedia gives every turn of ds that has no raw payload
// o.Images.BatchSize synthetic images (Turn.Images, data URLs) and
// o.Audio.BatchSize synthetic audio clips (Turn.Audios, "wav,<base64>",
// with Turn.AudioSeconds the first clip's duration), as AIPerf's synthetic
// composer does.
//
// The same dataset shape, options and seed always give the same bytes.
// Conversations are generated in parallel, each from its own streams.
func AddMedia(ds *dataset.Dataset, o MediaOptions, seed uint64) error {
	if !o.Enabled() {
		return nil
	}
	if err := o.Validate(); err != nil {
		return err
	}
	var pool *sourcePool
	offsets := make([]int, len(ds.Conversations))
	if o.Images.Enabled() && o.Images.finiteSource() {
		var err error
		if pool, err = loadSourcePool(o.Images.Source, o.Images.Sampling, seed); err != nil {
			return err
		}
		// The dataset-wide index of each conversation's first image, so
		// that the cycles are the same however conversations interleave.
		n := 0
		for c := range ds.Conversations {
			offsets[c] = n
			for _, t := range ds.Conversations[c].Turns {
				if t.RawPayload == nil {
					n += o.Images.BatchSize
				}
			}
		}
	}
	errs := make([]error, len(ds.Conversations))
	dataset.ForEachParallel(len(ds.Conversations), func(c int) {
		errs[c] = addConversationMedia(&ds.Conversations[c], o, seed, c, pool, offsets[c])
	})
	return errors.Join(errs...)
}

// addConversationMedia fills the turns of conversation number c; its
// first image is the dataset's firstImage-th (for source cycles).
func addConversationMedia(conv *dataset.Conversation, o MediaOptions, seed uint64, c int, pool *sourcePool, firstImage int) error {
	suffix := "/" + strconv.Itoa(c)
	var img *imageGen
	if o.Images.Enabled() {
		img = &imageGen{
			o:   o.Images,
			rng: dataset.NewStream(seed, streamImage+suffix),
			px:  newChaCha(seed, streamImageNoise+suffix),
		}
		if pool != nil {
			img.pool, img.k, img.srcRNG = pool, firstImage, dataset.NewStream(seed, streamImageSource+suffix)
		}
	}
	var aud *audioGen
	if o.Audio.Enabled() {
		aud = &audioGen{o: o.Audio, rng: dataset.NewStream(seed, streamAudio+suffix)}
	}
	var vid *videoGen
	if o.Video.Enabled() {
		vid = &videoGen{o: o.Video, noise: newChaCha(seed, streamVideoNoise+suffix), audio: dataset.NewStream(seed, streamVideoAudio+suffix)}
	}
	for t := range conv.Turns {
		turn := &conv.Turns[t]
		if turn.RawPayload != nil {
			continue
		}
		for range o.Images.BatchSize {
			if img == nil {
				break
			}
			url, err := img.next()
			if err != nil {
				return fmt.Errorf("conversation %s turn %d: %w", conv.ID, t, err)
			}
			turn.Images = append(turn.Images, url)
		}
		for i := range o.Audio.BatchSize {
			if aud == nil {
				break
			}
			clip, secs, err := aud.next()
			if err != nil {
				return fmt.Errorf("conversation %s turn %d: %w", conv.ID, t, err)
			}
			turn.Audios = append(turn.Audios, clip)
			if i == 0 {
				turn.AudioSeconds = secs
			}
		}
		for range o.Video.BatchSize {
			if vid == nil {
				break
			}
			url, err := vid.next()
			if err != nil {
				return fmt.Errorf("conversation %s turn %d: %w", conv.ID, t, err)
			}
			turn.Videos = append(turn.Videos, url)
		}
	}
	return nil
}

// newChaCha is newStream's generator without the rand.Rand wrapper, for
// filling byte slices (pixel noise) directly.
func newChaCha(seed uint64, name string) *rand.ChaCha8 {
	return rand.NewChaCha8(sha256.Sum256([]byte(strconv.FormatUint(seed, 10) + ":" + name)))
}
