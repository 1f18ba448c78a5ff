// Package media implements the endpoints whose input or output is not
// text: OpenAI-style image generation and editing, video generation as an
// asynchronous job, audio transcription (Whisper-style), and NVIDIA NIM
// image retrieval. The multipart ones (image_edit, video_generation,
// audio_transcription) build a JSON payload in which files are
// endpoint.FileField objects, so inputs.json shows what was sent; the
// worker encodes it as multipart/form-data on the way out.
package media

import (
	"errors"
	"fmt"
	"strings"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/endpoint"
	"github.com/aiperf-go/aiperf/internal/record"
)

// ImageGeneration is OpenAI's image generation endpoint
// (/v1/images/generations), also served by SGLang's diffusion runtime. It
// is stateless.
type ImageGeneration struct{}

var _ endpoint.Endpoint = ImageGeneration{}

// NewImageGeneration returns the image_generation endpoint.
func NewImageGeneration() endpoint.Endpoint { return ImageGeneration{} }

// Metadata describes the endpoint as AIPerf's plugin metadata does.
func (ImageGeneration) Metadata() endpoint.Metadata {
	return endpoint.Metadata{
		Type: "image_generation",
		Description: "OpenAI Images API (/v1/images/generations): a text prompt in, base64 images out " +
			"(response_format b64_json; --extra-inputs for size, quality, n, ...); with --streaming, " +
			"partial images arrive as events.",
		Path:              "/v1/images/generations",
		ServiceKind:       "openai",
		MetricsTitle:      "Image Generation Metrics",
		SupportsStreaming: true,
		ProducesImages:    true,
		TokenizesInput:    true,
	}
}

// errNoPrompt is returned for a turn without text.
var errNoPrompt = errors.New("needs a text prompt")

// prompt is the turn's first text, which AIPerf sends as the prompt.
func prompt(t *dataset.Turn) (string, error) {
	if len(t.Texts) == 0 {
		return "", errNoPrompt
	}
	return t.Texts[0], nil
}

func model(t *dataset.Turn, o *endpoint.Options) string {
	if t.Model != "" {
		return t.Model
	}
	return o.Model
}

// AppendPayload appends {"prompt":..,"model":..,"response_format":
// "b64_json","n":1,"stream":true (streaming only),<extras>}. b64_json is
// the default because SGLang serves nothing else; --extra-inputs
// response_format:url overrides it.
func (ImageGeneration) AppendPayload(dst []byte, t *dataset.Turn, o *endpoint.Options) ([]byte, error) {
	p, err := prompt(t)
	if err != nil {
		return dst, fmt.Errorf("image_generation: %w", err)
	}
	var body endpoint.Object
	body.SetString("prompt", p)
	body.SetString("model", model(t, o))
	body.SetString("response_format", "b64_json")
	body.SetInt("n", 1)
	if o.Streaming {
		body.SetBool("stream", true)
	}
	if err := body.Merge(o.Extra, nil); err != nil {
		return dst, err
	}
	return body.AppendTo(dst), nil
}

// imageResponse is an images answer or a streamed partial image; only
// its usage and errors are read.
type imageResponse struct {
	endpoint.Envelope `json:",inline"`
}

// ParseResponse reads an images answer: any JSON object (a partial image
// event with b64_json, a body with data[] of url or b64_json items) is a
// content response without text, as in AIPerf, with its usage; an "error"
// member is the record's error.
func (ImageGeneration) ParseResponse(data []byte) (record.Parsed, error) {
	return parseImages("image_generation", data)
}

func parseImages(name string, data []byte) (record.Parsed, error) {
	var r imageResponse
	done, err := endpoint.DecodeEvent(data, &r)
	if err != nil {
		return record.Parsed{}, fmt.Errorf("%s response: %w", name, err)
	}
	if done {
		return record.Parsed{Done: true}, nil
	}
	p := r.Envelope.Parsed(false)
	if nonEmpty, _ := endpoint.Truthy(data); nonEmpty && p.Error == nil {
		p.Output = true
	}
	return p, nil
}

// ImageEdit is OpenAI's image edit endpoint (/v1/images/edits, SGLang and
// FLUX.2 serving): a reference image and a prompt, uploaded as multipart
// form data. It is stateless.
type ImageEdit struct{}

var _ endpoint.Endpoint = ImageEdit{}

// NewImageEdit returns the image_edit endpoint.
func NewImageEdit() endpoint.Endpoint { return ImageEdit{} }

// Metadata describes the endpoint as AIPerf's plugin metadata does.
func (ImageEdit) Metadata() endpoint.Metadata {
	return endpoint.Metadata{
		Type: "image_edit",
		Description: "OpenAI image edit (/v1/images/edits): the turn's first image (uploaded as a " +
			"multipart file, or sent as url for http(s) images) is edited by its first text.",
		Path:             "/v1/images/edits",
		ServiceKind:      "openai",
		MetricsTitle:     "Image Edit Metrics",
		ProducesImages:   true,
		SupportsImages:   true,
		TokenizesInput:   true,
		RequiresFormData: true,
	}
}

// editReserved are the fields the endpoint manages; extra inputs naming
// them are ignored, as in AIPerf (mask would have to be a file).
var editReserved = map[string]bool{"prompt": true, "image": true, "url": true, "mask": true}

// AppendPayload appends {"prompt":..,"model":..,"response_format":
// "b64_json","n":1,"image":<file> | "url":<http(s) URL>,<extras>}.
func (ImageEdit) AppendPayload(dst []byte, t *dataset.Turn, o *endpoint.Options) ([]byte, error) {
	p, err := prompt(t)
	if err != nil {
		return dst, fmt.Errorf("image_edit: %w", err)
	}
	if len(t.Images) == 0 || t.Images[0] == "" {
		return dst, errors.New("image_edit: needs a reference image (the turn's first image)")
	}
	img := t.Images[0]
	var body endpoint.Object
	body.SetString("prompt", p)
	body.SetString("model", model(t, o))
	body.SetString("response_format", "b64_json")
	body.SetInt("n", 1)
	if lower := strings.ToLower(img); strings.HasPrefix(lower, "http://") || strings.HasPrefix(lower, "https://") {
		body.SetString("url", img)
	} else {
		f, err := imageFile(img)
		if err != nil {
			return dst, fmt.Errorf("image_edit: %w", err)
		}
		body.Set("image", endpoint.AppendFileField(nil, f))
	}
	if err := body.Merge(o.Extra, func(e endpoint.ExtraInput) bool { return editReserved[e.Key] }); err != nil {
		return dst, err
	}
	return body.AppendTo(dst), nil
}

// ParseResponse reads an images answer (see ImageGeneration).
func (ImageEdit) ParseResponse(data []byte) (record.Parsed, error) {
	return parseImages("image_edit", data)
}

// imageFile turns a data URL or raw base64 image into a file field: the
// MIME type from the URL when it names an image/* type, else sniffed from
// the base64 of the format's magic bytes.
func imageFile(content string) (endpoint.FileField, error) {
	b64, mime := content, ""
	if rest, ok := strings.CutPrefix(content, "data:"); ok {
		header, data, found := strings.Cut(rest, ",")
		if !found {
			return endpoint.FileField{}, errors.New("malformed data URL for the image (missing comma)")
		}
		b64 = data
		if m, _, hasParams := strings.Cut(header, ";"); hasParams && strings.HasPrefix(m, "image/") {
			mime = m
		}
	}
	if mime == "" {
		mime = sniffImage(b64)
	}
	if mime == "" {
		return endpoint.FileField{}, errors.New("the image is not a recognized format; expected a data URL or base64 PNG, JPEG, WebP, GIF or BMP")
	}
	ext, _, _ := strings.Cut(strings.TrimPrefix(mime, "image/"), "+")
	if ext == "jpeg" {
		ext = "jpg"
	}
	ctype := mime
	if c, ok := imageTypes[strings.TrimPrefix(mime, "image/")]; ok {
		ctype = c
	}
	return endpoint.FileField{B64Data: b64, Filename: "image." + ext, ContentType: ctype}, nil
}

var imageTypes = map[string]string{
	"png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg",
	"webp": "image/webp", "gif": "image/gif", "bmp": "image/bmp",
}

// sniffImage names the image type of base64 data from the encoding of its
// magic bytes (PNG, JPEG, GIF87a/89a, RIFF as WebP, BMP).
func sniffImage(b64 string) string {
	for _, m := range []struct{ prefix, mime string }{
		{"iVBORw0KGgo", "image/png"}, {"/9j/", "image/jpeg"}, {"R0lGODlh", "image/gif"},
		{"R0lGODdh", "image/gif"}, {"UklGR", "image/webp"}, {"Qk", "image/bmp"},
	} {
		if strings.HasPrefix(b64, m.prefix) {
			return m.mime
		}
	}
	return ""
}
