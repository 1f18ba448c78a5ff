package media

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/aiperf-go/aiperf/internal/dataset"
	"math"
	"math/rand/v2"
	"slices"
)

// Synthetic audio formats (AIPerf's): WAV is written here, MP3 is the WAV
// encoded by ffmpeg.
const (
	AudioWAV = "wav"
	AudioMP3 = "mp3"
)

// minAudioSeconds is AIPerf's shortest synthetic clip.
const minAudioSeconds = 0.01

// maxAudioBytes bounds one synthetic clip, so that an absurd length draw
// fails with a message instead of exhausting memory.
const maxAudioBytes = 1 << 28

// wavHeaderSize is the size of a canonical PCM WAV header (RIFF, fmt, data).
const wavHeaderSize = 44

// noiseStddev is the standard deviation of the Gaussian noise the clips
// hold, in full-scale units, as in AIPerf (samples are clipped to [-1, 1]).
const noiseStddev = 0.3

// AudioOptions describes the synthetic audio clips of each turn.
type AudioOptions struct {
	// BatchSize is the number of clips per turn; 0 disables audio.
	BatchSize int
	// LengthMean and LengthStddev (seconds) give each clip's duration: a
	// normal draw redrawn until it is at least 0.01 s.
	LengthMean, LengthStddev float64
	// Format is AudioWAV or AudioMP3.
	Format string
	// SampleRatesKHz and Depths (bits: 8, 16, 24 or 32) are picked from
	// uniformly for each clip.
	SampleRatesKHz []float64
	Depths         []int
	// Channels is 1 (mono) or 2 (stereo).
	Channels int
}

// Enabled reports whether turns get audio.
func (o AudioOptions) Enabled() bool { return o.BatchSize > 0 && o.LengthMean > 0 }

func (o AudioOptions) validate() error {
	if !o.Enabled() {
		return nil
	}
	var errs []error
	if !(o.LengthMean >= minAudioSeconds) || math.IsInf(o.LengthMean, 0) {
		errs = append(errs, fmt.Errorf("audio length must be at least %v seconds, got %v", minAudioSeconds, o.LengthMean))
	}
	if !(o.LengthStddev >= 0) || math.IsInf(o.LengthStddev, 0) {
		errs = append(errs, fmt.Errorf("audio length stddev must be a finite number >= 0, got %v", o.LengthStddev))
	}
	switch o.Format {
	case AudioWAV:
	case AudioMP3:
		if _, err := FFmpegPath(); err != nil {
			errs = append(errs, fmt.Errorf("mp3 audio: %w", err))
		}
	default:
		errs = append(errs, fmt.Errorf("audio format must be wav or mp3, got %q", o.Format))
	}
	if len(o.SampleRatesKHz) == 0 {
		errs = append(errs, errors.New("audio needs at least one sample rate"))
	}
	for _, r := range o.SampleRatesKHz {
		if hz := r * 1000; !(hz >= 1) || hz > math.MaxUint32/8 {
			errs = append(errs, fmt.Errorf("audio sample rate %v kHz is out of range", r))
		}
	}
	if len(o.Depths) == 0 {
		errs = append(errs, errors.New("audio needs at least one bit depth"))
	}
	for _, d := range o.Depths {
		if !slices.Contains([]int{8, 16, 24, 32}, d) {
			errs = append(errs, fmt.Errorf("unsupported audio bit depth %d (supported: 8, 16, 24, 32)", d))
		}
	}
	if o.Channels != 1 && o.Channels != 2 {
		errs = append(errs, fmt.Errorf("audio channels must be 1 or 2, got %d", o.Channels))
	}
	return errors.Join(errs...)
}

// audioGen draws synthetic clips. It is used by one goroutine at a time.
type audioGen struct {
	o   AudioOptions
	rng *rand.Rand
	buf []byte
}

// next returns one clip in AIPerf's "wav,<base64>" form and its duration
// in seconds.
//
// The clip is Gaussian noise (stddev 0.3 of full scale, clipped) as
// canonical PCM WAV: a 44-byte header, then little-endian interleaved
// samples; 8-bit samples are unsigned, as WAV requires, the others signed.
// Its sample count is int(duration x rate), as in AIPerf.
func (g *audioGen) next() (string, float64, error) {
	secs := g.o.LengthMean
	if g.o.LengthStddev > 0 {
		secs = max(g.o.LengthMean, minAudioSeconds) // AIPerf's fallback
		for range dataset.MaxNormalTries {
			if v := g.rng.NormFloat64()*g.o.LengthStddev + g.o.LengthMean; v >= minAudioSeconds {
				secs = v
				break
			}
		}
	}
	rate := int(g.o.SampleRatesKHz[g.rng.IntN(len(g.o.SampleRatesKHz))] * 1000)
	depth := g.o.Depths[g.rng.IntN(len(g.o.Depths))]
	frames := secs * float64(rate)
	width := depth / 8
	size := frames * float64(width*g.o.Channels)
	if size > maxAudioBytes {
		return "", 0, fmt.Errorf("synthetic audio clip of %v s at %d Hz is too large (over %d bytes)", secs, rate, maxAudioBytes)
	}
	data := g.wav(int(frames), rate, depth)
	if g.o.Format == AudioMP3 {
		mp3, err := encodeMP3(data)
		if err != nil {
			return "", 0, err
		}
		data = mp3
	}
	format := g.o.Format
	out := make([]byte, len(format)+1+base64.StdEncoding.EncodedLen(len(data)))
	copy(out, format+",")
	base64.StdEncoding.Encode(out[len(format)+1:], data)
	return string(out), secs, nil
}

// wav renders frames frames of noise as a WAV file in g.buf and returns it.
func (g *audioGen) wav(frames, rate, depth int) []byte {
	ch := g.o.Channels
	width := depth / 8
	dataLen := frames * ch * width
	pad := dataLen & 1 // RIFF chunks are word-aligned
	b := slices.Grow(g.buf[:0], wavHeaderSize+dataLen+pad)
	b = append(b, "RIFF"...)
	b = binary.LittleEndian.AppendUint32(b, uint32(36+dataLen+pad))
	b = append(b, "WAVEfmt "...)
	b = binary.LittleEndian.AppendUint32(b, 16)
	b = binary.LittleEndian.AppendUint16(b, 1) // PCM
	b = binary.LittleEndian.AppendUint16(b, uint16(ch))
	b = binary.LittleEndian.AppendUint32(b, uint32(rate))
	b = binary.LittleEndian.AppendUint32(b, uint32(rate*ch*width))
	b = binary.LittleEndian.AppendUint16(b, uint16(ch*width))
	b = binary.LittleEndian.AppendUint16(b, uint16(depth))
	b = append(b, "data"...)
	b = binary.LittleEndian.AppendUint32(b, uint32(dataLen))
	full := float64(int64(1)<<(depth-1) - 1)
	if depth == 8 {
		full = math.MaxInt16 // AIPerf scales 8-bit audio as 16-bit, then narrows it
	}
	for range frames * ch {
		x := max(-1, min(1, g.rng.NormFloat64()*noiseStddev))
		v := int32(x * full) // truncation toward zero, as numpy's astype
		switch depth {
		case 8:
			b = append(b, byte((v>>8)+128))
		case 16:
			b = binary.LittleEndian.AppendUint16(b, uint16(v))
		case 24:
			b = append(b, byte(v), byte(v>>8), byte(v>>16))
		default:
			b = binary.LittleEndian.AppendUint32(b, uint32(v))
		}
	}
	if pad == 1 {
		b = append(b, 0)
	}
	g.buf = b
	return b
}
