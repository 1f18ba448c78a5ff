package media

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/color"
	_ "image/gif" // registers GIF for image.Decode
	_ "image/jpeg"
	_ "image/png"
)

// ImageDataURL re-encodes an image file (PNG, JPEG or GIF) as AIPerf's
// public-dataset loaders send dataset images: converted to 8-bit RGB
// (alpha dropped, not composited, as PIL's convert("RGB")), saved as a
// quality-85 JPEG without chroma subsampling, and wrapped in a
// "data:image/jpeg;base64," URL.
func ImageDataURL(data []byte) (string, error) {
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return "", fmt.Errorf("decoding an image: %w", err)
	}
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	if w*h > maxImagePixels {
		return "", fmt.Errorf("image of %dx%d pixels is too large (at most %d pixels)", w, h, maxImagePixels)
	}
	rgb := make([]byte, 0, 3*w*h)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
			rgb = append(rgb, c.R, c.G, c.B)
		}
	}
	var buf bytes.Buffer
	encodeJPEG444(&buf, rgb, w, h, jpegQuality)
	return "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(buf.Bytes()), nil
}
