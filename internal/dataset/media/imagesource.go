package media

import (
	"fmt"
	"image"
	"image/color"
	_ "image/gif" // source images may be GIF
	_ "image/jpeg"
	_ "image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/userfile"
)

// Image sources (AIPerf's --image-source values; any other value is a
// directory) and source samplings (--image-source-sampling).
const (
	ImageSourceNoise  = "noise"
	ImageSourceAssets = "assets"

	SampleRandomWithReplacement = "random-with-replacement"
	SampleShuffleCycle          = "shuffle-cycle"
	SampleSequentialCycle       = "sequential-cycle"
)

// Stream names of the source-image choices.
const (
	streamImageSource = "dataset.image.source"
)

// sourcePool is a finite set of decoded source images that synthetic
// images are resized from, and how the next one is picked. It is read-only
// once built and shared by the conversations' generators.
type sourcePool struct {
	images   []*image.RGBA
	sampling string
	seed     uint64
}

// assetImages are the built-in source pictures (--image-source assets):
// four procedurally drawn 640x480 scenes (a sky with a sun over hills,
// concentric rings, soft diagonal stripes, a tinted checkerboard). Unlike
// noise they have the smooth regions and edges of real pictures, so they
// compress like photographs do; they are drawn here, not shipped as files.
var assetImages = sync.OnceValue(func() []*image.RGBA {
	const w, h = 640, 480
	scenes := []func(x, y int) color.RGBA{
		func(x, y int) color.RGBA { // sky, sun, hills
			fx, fy := float64(x)/w, float64(y)/h
			hill := 0.65 + 0.08*math.Sin(fx*7) + 0.05*math.Sin(fx*17+1)
			if fy > hill {
				return color.RGBA{uint8(40 + 60*fy), uint8(120 + 80*(1-fy)), 50, 255}
			}
			if d := math.Hypot(fx-0.72, fy-0.25); d < 0.09 {
				return color.RGBA{255, 220, uint8(90 + 300*d), 255}
			}
			return color.RGBA{uint8(90 + 100*fy), uint8(150 + 80*fy), 235, 255}
		},
		func(x, y int) color.RGBA { // rings
			d := math.Hypot(float64(x-w/2), float64(y-h/2))
			band := int(d/24) % 3
			shade := uint8(200 - int(d)/4%120)
			return [...]color.RGBA{{shade, 60, 70, 255}, {60, shade, 90, 255}, {70, 80, shade, 255}}[band]
		},
		func(x, y int) color.RGBA { // stripes
			v := math.Sin(float64(x+y)/18)*0.5 + 0.5
			return color.RGBA{uint8(120 + 100*v), uint8(90 + 60*v), uint8(160 - 80*v), 255}
		},
		func(x, y int) color.RGBA { // checkerboard
			c := uint8(60)
			if (x/40+y/40)%2 == 0 {
				c = 200
			}
			return color.RGBA{c, uint8(int(c)*x/w + 30), uint8(int(c)*y/h + 30), 255}
		},
	}
	out := make([]*image.RGBA, len(scenes))
	for i, f := range scenes {
		img := image.NewRGBA(image.Rect(0, 0, w, h))
		for y := range h {
			for x := range w {
				img.SetRGBA(x, y, f(x, y))
			}
		}
		out[i] = img
	}
	return out
})

// maxSourceImages bounds how many images a source directory contributes.
const maxSourceImages = 10000

// loadSourcePool reads a source: the built-in assets, or every PNG, JPEG
// and GIF file of a directory (in name order, through the safe reader),
// decoded once. A directory without readable images is an error naming it.
func loadSourcePool(source, sampling string, seed uint64) (*sourcePool, error) {
	if sampling == "" {
		sampling = SampleRandomWithReplacement
	}
	p := &sourcePool{sampling: sampling, seed: seed}
	if source == ImageSourceAssets {
		p.images = assetImages()
		return p, nil
	}
	info, err := os.Stat(source)
	switch {
	case err != nil:
		return nil, fmt.Errorf("image source %q: %w", source, err)
	case !info.IsDir():
		return nil, fmt.Errorf("image source %q is not a directory (give noise, assets or a directory of images)", source)
	}
	entries, err := os.ReadDir(source)
	if err != nil {
		return nil, fmt.Errorf("image source %q: %w", source, err)
	}
	var names []string
	for _, e := range entries {
		switch strings.ToLower(filepath.Ext(e.Name())) {
		case ".png", ".jpg", ".jpeg", ".gif":
			if e.Type().IsRegular() {
				names = append(names, e.Name())
			}
		}
	}
	slices.Sort(names)
	for _, n := range names[:min(len(names), maxSourceImages)] {
		f, err := userfile.Open(filepath.Join(source, n))
		if err != nil {
			continue // unreadable files are skipped, as AIPerf skips them
		}
		img, _, err := image.Decode(f)
		f.Close()
		if err != nil {
			continue
		}
		p.images = append(p.images, toRGBA(img))
	}
	if len(p.images) == 0 {
		return nil, fmt.Errorf("no readable source images (PNG, JPEG, GIF) in %q", source)
	}
	return p, nil
}

func toRGBA(img image.Image) *image.RGBA {
	if r, ok := img.(*image.RGBA); ok && r.Rect.Min == (image.Point{}) {
		return r
	}
	b := img.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	for y := range b.Dy() {
		for x := range b.Dx() {
			out.Set(x, y, img.At(b.Min.X+x, b.Min.Y+y))
		}
	}
	return out
}

// pick returns the index of the source image for the k-th image of the
// dataset (counting every image of every conversation in order), drawing
// from rng for random-with-replacement. The cycles are functions of k
// alone, so conversations generated in parallel agree on them.
func (p *sourcePool) pick(k int, rng *rand.Rand) int {
	n := len(p.images)
	switch p.sampling {
	case SampleSequentialCycle:
		return k % n
	case SampleShuffleCycle:
		perm := dataset.NewStream(p.seed, streamImageSource+"/cycle/"+strconv.Itoa(k/n)).Perm(n)
		return perm[k%n]
	}
	return rng.IntN(n)
}

// resizeRGB resamples src to w x h (bilinear) and returns packed RGB
// bytes, the layout the encoders take.
func resizeRGB(src *image.RGBA, w, h int) []byte {
	sw, sh := src.Rect.Dx(), src.Rect.Dy()
	out := make([]byte, 3*w*h)
	for y := range h {
		fy := (float64(y)+0.5)*float64(sh)/float64(h) - 0.5
		y0 := clampInt(int(math.Floor(fy)), 0, sh-1)
		y1 := clampInt(y0+1, 0, sh-1)
		wy := fy - math.Floor(fy)
		for x := range w {
			fx := (float64(x)+0.5)*float64(sw)/float64(w) - 0.5
			x0 := clampInt(int(math.Floor(fx)), 0, sw-1)
			x1 := clampInt(x0+1, 0, sw-1)
			wx := fx - math.Floor(fx)
			for c := range 3 {
				p := func(xx, yy int) float64 { return float64(src.Pix[yy*src.Stride+4*xx+c]) }
				v := (p(x0, y0)*(1-wx)+p(x1, y0)*wx)*(1-wy) + (p(x0, y1)*(1-wx)+p(x1, y1)*wx)*wy
				out[3*(y*w+x)+c] = uint8(math.Round(max(0, min(255, v))))
			}
		}
	}
	return out
}

func clampInt(v, lo, hi int) int { return max(lo, min(hi, v)) }
