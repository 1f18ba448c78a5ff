package media

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/endpoint"
	"github.com/aiperf-go/aiperf/internal/record"
)

// AudioTranscription is OpenAI's Whisper-style transcription endpoint
// (/v1/audio/transcriptions, also NIM and SGLang): the turn's first audio
// clip is uploaded as a multipart file. It is stateless.
type AudioTranscription struct{}

var _ endpoint.Endpoint = AudioTranscription{}

// NewAudioTranscription returns the audio_transcription endpoint.
func NewAudioTranscription() endpoint.Endpoint { return AudioTranscription{} }

// Metadata describes the endpoint as AIPerf's plugin metadata does.
func (AudioTranscription) Metadata() endpoint.Metadata {
	return endpoint.Metadata{
		Type: "audio_transcription",
		Description: "OpenAI audio transcription (/v1/audio/transcriptions, Whisper-style): the turn's first " +
			"audio clip is uploaded as a multipart file; the answer is the transcript (JSON text, or the " +
			"whole body for text, srt and vtt formats).",
		Path:             "/v1/audio/transcriptions",
		ServiceKind:      "openai",
		MetricsTitle:     "Audio Transcription Metrics",
		SupportsAudio:    true,
		RequiresFormData: true,
	}
}

// audioTypes maps a format to its MIME type (IANA audio/mpeg for mp3 and
// its aliases).
var audioTypes = map[string]string{
	"wav": "audio/wav", "mp3": "audio/mpeg", "mpga": "audio/mpeg", "mpeg": "audio/mpeg",
	"flac": "audio/flac", "ogg": "audio/ogg", "m4a": "audio/mp4", "mp4": "audio/mp4", "webm": "audio/webm",
}

// AppendPayload appends {"file":<audio.<format> file>,"model":..,<extras>};
// an extra input named file is ignored (the endpoint manages it).
func (AudioTranscription) AppendPayload(dst []byte, t *dataset.Turn, o *endpoint.Options) ([]byte, error) {
	if len(t.Audios) == 0 || t.Audios[0] == "" {
		return dst, errors.New("audio_transcription: needs audio (the turn's first clip); use an ASR dataset or --audio-length-mean")
	}
	format, data, ok := endpoint.SplitAudio(t.Audios[0])
	if !ok {
		return dst, fmt.Errorf("audio_transcription: audio must be \"<format>,<base64>\" (got %.40q)", t.Audios[0])
	}
	format = strings.ToLower(format)
	ctype, known := audioTypes[format]
	if !known {
		ctype = "audio/" + format
	}
	var body endpoint.Object
	body.Set("file", endpoint.AppendFileField(nil, endpoint.FileField{B64Data: data, Filename: "audio." + format, ContentType: ctype}))
	body.SetString("model", model(t, o))
	if err := body.Merge(o.Extra, func(e endpoint.ExtraInput) bool { return e.Key == "file" }); err != nil {
		return dst, err
	}
	return body.AppendTo(dst), nil
}

type transcript struct {
	endpoint.Envelope `json:",inline"`
	Text              endpoint.String `json:"text"`
}

// ParseResponse reads the transcript: "text" of a json or verbose_json
// answer with its usage, or, for the text, srt and vtt formats, the whole
// body.
func (AudioTranscription) ParseResponse(data []byte) (record.Parsed, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return record.Parsed{Text: string(data)}, nil
	}
	var r transcript
	if _, err := endpoint.DecodeEvent(trimmed, &r); err != nil {
		return record.Parsed{}, fmt.Errorf("audio_transcription response: %w", err)
	}
	p := r.Envelope.Parsed(false)
	p.Text = r.Text.S
	return p, nil
}

// ImageRetrieval is NVIDIA NIM's image inference endpoint (/v1/infer),
// for retrieval tasks such as detecting bounding boxes. It is stateless.
type ImageRetrieval struct{}

var _ endpoint.Endpoint = ImageRetrieval{}

// NewImageRetrieval returns the image_retrieval endpoint.
func NewImageRetrieval() endpoint.Endpoint { return ImageRetrieval{} }

// Metadata describes the endpoint as AIPerf's plugin metadata does.
func (ImageRetrieval) Metadata() endpoint.Metadata {
	return endpoint.Metadata{
		Type: "image_retrieval",
		Description: "NVIDIA NIM image inference (/v1/infer): the turn's images go in \"input\" as " +
			"{\"type\":\"image_url\",\"url\":..} items (inlined as data URLs); the answer's \"data\" holds the results.",
		Path:                "/v1/infer",
		ServiceKind:         "openai",
		MetricsTitle:        "Image Retrieval Metrics",
		SupportsImages:      true,
		RequiresInlineMedia: true,
		ImagePart:           "image_url",
	}
}

// AppendPayload appends {"input":[{"type":"image_url","url":..},..],<extras>}.
func (ImageRetrieval) AppendPayload(dst []byte, t *dataset.Turn, o *endpoint.Options) ([]byte, error) {
	input := []byte{'['}
	for _, img := range t.Images {
		if img == "" {
			continue
		}
		if len(input) > 1 {
			input = append(input, ',')
		}
		input = append(input, `{"type":"image_url","url":`...)
		input = endpoint.AppendString(input, img)
		input = append(input, '}')
	}
	if len(input) == 1 {
		return dst, errors.New("image_retrieval: needs at least one image (--image-width-mean, or images in the dataset)")
	}
	var body endpoint.Object
	body.Set("input", append(input, ']'))
	if err := body.Merge(o.Extra, nil); err != nil {
		return dst, err
	}
	return body.AppendTo(dst), nil
}

type retrieval struct {
	endpoint.Envelope `json:",inline"`
	Data              endpoint.Present `json:"data"`
}

// ParseResponse reads an answer: a non-empty "data" is output without
// text; none is no content.
func (ImageRetrieval) ParseResponse(data []byte) (record.Parsed, error) {
	var r retrieval
	done, err := endpoint.DecodeEvent(data, &r)
	if err != nil {
		return record.Parsed{}, fmt.Errorf("image_retrieval response: %w", err)
	}
	if done {
		return record.Parsed{Done: true}, nil
	}
	p := r.Envelope.Parsed(false)
	p.Output = r.Data.Set
	return p, nil
}
