package media

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"github.com/aiperf-go/aiperf/internal/dataset"
	"image"
	"image/png"
	"math"
	"math/rand/v2"
)

// Image formats of synthetic images (AIPerf's ImageFormat values).
const (
	ImagePNG    = "png"
	ImageJPEG   = "jpeg"
	ImageRandom = "random" // png or jpeg, drawn per image
)

// maxImagePixels bounds one synthetic image (about 300 MB of RGBA), so that
// an absurd size draw fails with a message instead of exhausting memory.
const maxImagePixels = 1 << 26

// jpegQuality is the quality AIPerf encodes its JPEG images with.
const jpegQuality = 85

// ImageOptions describes the synthetic images of each turn.
type ImageOptions struct {
	// BatchSize is the number of images per turn; 0 disables images.
	BatchSize int
	// Width and height are drawn from normal distributions around these
	// means, as whole pixels of at least 1. Like AIPerf, the means and
	// standard deviations are truncated to integers first.
	WidthMean, WidthStddev   float64
	HeightMean, HeightStddev float64
	// Format is ImagePNG, ImageJPEG or ImageRandom.
	Format string
	// Source is where the pixels come from: ImageSourceNoise (or ""),
	// ImageSourceAssets, or a directory of source images, resized to the
	// drawn size.
	Source string
	// Sampling picks source images from assets or a directory:
	// SampleRandomWithReplacement ("" too), SampleShuffleCycle or
	// SampleSequentialCycle.
	Sampling string
}

// finiteSource reports whether images are resized from a pool.
func (o ImageOptions) finiteSource() bool { return o.Source != "" && o.Source != ImageSourceNoise }

// Enabled reports whether turns get images.
func (o ImageOptions) Enabled() bool {
	return o.BatchSize > 0 && o.WidthMean > 0 && o.HeightMean > 0
}

func (o ImageOptions) validate() error {
	if !o.Enabled() {
		return nil
	}
	var errs []error
	for _, f := range []struct {
		name string
		v    float64
	}{
		{"image width mean", o.WidthMean}, {"image width stddev", o.WidthStddev},
		{"image height mean", o.HeightMean}, {"image height stddev", o.HeightStddev},
	} {
		if !(f.v >= 0) || math.IsInf(f.v, 0) {
			errs = append(errs, fmt.Errorf("%s must be a finite number >= 0, got %v", f.name, f.v))
		}
	}
	switch o.Format {
	case ImagePNG, ImageJPEG, ImageRandom:
	default:
		errs = append(errs, fmt.Errorf("image format must be png, jpeg or random, got %q", o.Format))
	}
	switch o.Sampling {
	case "", SampleRandomWithReplacement:
	case SampleShuffleCycle, SampleSequentialCycle:
		if !o.finiteSource() {
			errs = append(errs, fmt.Errorf("image source sampling %s needs a finite source (assets or a directory)", o.Sampling))
		}
	default:
		errs = append(errs, fmt.Errorf("unknown image source sampling %q", o.Sampling))
	}
	return errors.Join(errs...)
}

// imageGen draws synthetic images. It is used by one goroutine at a time.
type imageGen struct {
	o   ImageOptions
	rng *rand.Rand // sizes and formats
	px  *rand.ChaCha8
	buf bytes.Buffer
	// pool, when set, is the finite source images are resized from; k is
	// the dataset-wide index of the next image, srcRNG the stream of
	// random-with-replacement picks.
	pool   *sourcePool
	k      int
	srcRNG *rand.Rand
}

// next returns one image as a data URL ("data:image/png;base64,...").
//
// Pixels are uniform random RGB bytes, AIPerf's default "noise" source, or
// a source image resized to the drawn size.
// PNG is encoded at zlib's default level (6, as AIPerf sets it); JPEG at
// quality 85 with full-resolution chroma (encodeJPEG444), as AIPerf's PIL
// settings, so that payload sizes match AIPerf's.
func (g *imageGen) next() (string, error) {
	format := g.o.Format
	if format == ImageRandom {
		format = [...]string{ImagePNG, ImageJPEG}[g.rng.IntN(2)]
	}
	w := dataset.PositiveNormalInt(g.rng, math.Trunc(g.o.WidthMean), math.Trunc(g.o.WidthStddev))
	h := dataset.PositiveNormalInt(g.rng, math.Trunc(g.o.HeightMean), math.Trunc(g.o.HeightStddev))
	if w*h > maxImagePixels {
		return "", fmt.Errorf("synthetic image of %dx%d pixels is too large (at most %d pixels)", w, h, maxImagePixels)
	}
	var rgb []byte
	if g.pool != nil {
		rgb = resizeRGB(g.pool.images[g.pool.pick(g.k, g.srcRNG)], w, h)
		g.k++
	} else {
		rgb = make([]byte, 3*w*h)
		g.px.Read(rgb)
	}
	g.buf.Reset()
	if format == ImagePNG {
		img := image.NewRGBA(image.Rect(0, 0, w, h))
		for i, j := 0, 0; i < len(rgb); i, j = i+3, j+4 {
			copy(img.Pix[j:j+3], rgb[i:i+3])
			img.Pix[j+3] = 0xff // opaque: written as 8-bit RGB, as AIPerf's
		}
		if err := (&png.Encoder{CompressionLevel: png.DefaultCompression}).Encode(&g.buf, img); err != nil {
			return "", fmt.Errorf("encoding a synthetic png image: %w", err)
		}
	} else {
		encodeJPEG444(&g.buf, rgb, w, h, jpegQuality)
	}
	prefix := "data:image/" + format + ";base64,"
	out := make([]byte, len(prefix)+base64.StdEncoding.EncodedLen(g.buf.Len()))
	copy(out, prefix)
	base64.StdEncoding.Encode(out[len(prefix):], g.buf.Bytes())
	return string(out), nil
}
