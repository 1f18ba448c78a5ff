package benchmark

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"image"
	_ "image/jpeg" // decoders for image.Decode
	_ "image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/mockserver"
)

// mediaRecordingMock serves the mock behind the request recorder; wire
// returns what it received once the run is over.
func mediaRecordingMock(t *testing.T) (url string, wire func() []mockserver.RecordedRequest) {
	t.Helper()
	return recorderServer(t, mockserver.New(mockConfig(t, nil)))
}

// wirePart is one OpenAI content part as the server received it.
type wirePart struct {
	Type     string  `json:"type"`
	Text     *string `json:"text"`
	ImageURL *struct {
		URL string `json:"url"`
	} `json:"image_url"`
	InputAudio *struct {
		Data   string `json:"data"`
		Format string `json:"format"`
	} `json:"input_audio"`
}

// TestRunMultimodalContentPartsOnTheWire runs a chat benchmark with
// synthetic images and audio against the recording mock and checks what
// the server received: per request one text part, two decodable 16x8
// images and one 50 ms stereo WAV clip, in AIPerf's part shapes; the
// mock answers every request; inputs.json holds the same bodies; and the
// image and audio metrics are computed from them.
func TestRunMultimodalContentPartsOnTheWire(t *testing.T) {
	t.Parallel()
	url, wire := mediaRecordingMock(t)
	cfg := baseConfig(t, url)
	cfg.Load.RequestCount = ptr(4)
	cfg.Input.InputTokens.Mean = 16
	cfg.Media = config.Media{
		ImageWidthMean: ptr(16.0), ImageHeightMean: ptr(8.0), ImageBatchSize: ptr(2), ImageFormat: config.ImageRandom,
		AudioLengthMean: ptr(0.05), AudioNumChannels: ptr(2),
	}
	if out, err := run(t, context.Background(), cfg); err != nil {
		t.Fatalf("Run: %v\n%s", err, out)
	}
	reqs := wire()
	if len(reqs) != 4 {
		t.Fatalf("server received %d requests, want 4", len(reqs))
	}
	for i, r := range reqs {
		if r.Status != 200 {
			t.Errorf("request %d answered %d", i, r.Status)
		}
		var body struct {
			Messages []struct {
				Role    string     `json:"role"`
				Content []wirePart `json:"content"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(r.Body, &body); err != nil || len(body.Messages) != 1 {
			t.Fatalf("request %d: body %.200s: %v", i, r.Body, err)
		}
		parts := body.Messages[0].Content
		var kinds []string
		for _, p := range parts {
			kinds = append(kinds, p.Type)
		}
		if got := strings.Join(kinds, ","); got != "text,image_url,image_url,input_audio" {
			t.Fatalf("request %d parts %s, want text,image_url,image_url,input_audio", i, got)
		}
		if parts[0].Text == nil || *parts[0].Text == "" {
			t.Errorf("request %d: empty text part", i)
		}
		for _, p := range parts[1:3] {
			head, b64, _ := strings.Cut(p.ImageURL.URL, ",")
			data, err := base64.StdEncoding.DecodeString(b64)
			if err != nil {
				t.Fatalf("request %d image: %v", i, err)
			}
			img, format, err := image.Decode(bytes.NewReader(data))
			if err != nil {
				t.Fatalf("request %d image: %v", i, err)
			}
			if head != "data:image/"+format+";base64" {
				t.Errorf("request %d: data URL %q holds a %s image", i, head, format)
			}
			if b := img.Bounds(); b.Dx() != 16 || b.Dy() != 8 {
				t.Errorf("request %d: image %dx%d, want 16x8", i, b.Dx(), b.Dy())
			}
		}
		audio := parts[3].InputAudio
		wav, err := base64.StdEncoding.DecodeString(audio.Data)
		if err != nil || audio.Format != "wav" || len(wav) < 44 || string(wav[:4]) != "RIFF" {
			t.Fatalf("request %d: audio format %q, %d bytes: %v", i, audio.Format, len(wav), err)
		}
		le := binary.LittleEndian
		if ch, rate, bits, n := le.Uint16(wav[22:]), le.Uint32(wav[24:]), le.Uint16(wav[34:]), le.Uint32(wav[40:]); ch != 2 || rate != 16000 || bits != 16 || n != 800*2*2 {
			t.Errorf("request %d: WAV %d ch, %d Hz, %d bits, %d data bytes; want 2, 16000, 16, 3200", i, ch, rate, bits, n)
		}
	}

	// inputs.json holds the bodies that went out.
	var inputs struct {
		Data []struct {
			Payloads []json.RawMessage `json:"payloads"`
		} `json:"data"`
	}
	raw, err := os.ReadFile(filepath.Join(cfg.Output.ArtifactDir, "inputs.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &inputs); err != nil {
		t.Fatal(err)
	}
	sent := map[string]bool{}
	for _, r := range reqs {
		sent[compactJSON(t, r.Body)] = true
	}
	for _, s := range inputs.Data {
		if !sent[compactJSON(t, s.Payloads[0])] {
			t.Errorf("inputs.json payload %.120s was not sent", s.Payloads[0])
		}
	}

	doc := summary(t, filepath.Join(cfg.Output.ArtifactDir, "profile_export_aiperf.json"))
	if n := avg(t, doc, "num_images"); n != 2 {
		t.Errorf("num_images avg %v, want 2", n)
	}
	if d := avg(t, doc, "audio_duration"); d != 0.05 {
		t.Errorf("audio_duration avg %v, want 0.05", d)
	}
	lat := avg(t, doc, "request_latency") // ms
	if got, want := avg(t, doc, "image_latency"), lat/2; !near(got, want) {
		t.Errorf("image_latency avg %v, want request_latency/2 = %v", got, want)
	}
	if rtfx := avg(t, doc, "rtfx"); rtfx <= 0 {
		t.Errorf("rtfx avg %v, want > 0", rtfx)
	}
	if tp := avg(t, doc, "image_throughput"); tp <= 0 {
		t.Errorf("image_throughput avg %v, want > 0", tp)
	}
}

// TestRunWithoutMediaHasNoMediaMetrics: a text-only chat run and a
// completions run given image flags send no media and report none of the
// modality metrics, as AIPerf.
func TestRunWithoutMediaHasNoMediaMetrics(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		edit  func(*config.Config)
		parts bool
	}{
		{"chat text only", func(*config.Config) {}, false},
		{"completions ignores images", func(c *config.Config) {
			c.Endpoint.Type = config.EndpointCompletions
			c.Media.ImageBatchSize = ptr(1)
			c.Media.ImageWidthMean, c.Media.ImageHeightMean = ptr(4.0), ptr(4.0)
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			url, wire := mediaRecordingMock(t)
			cfg := baseConfig(t, url)
			cfg.Load.RequestCount = ptr(2)
			tc.edit(cfg)
			if out, err := run(t, context.Background(), cfg); err != nil {
				t.Fatalf("Run: %v\n%s", err, out)
			}
			for _, r := range wire() {
				if bytes.Contains(r.Body, []byte("image_url")) || bytes.Contains(r.Body, []byte("input_audio")) {
					t.Errorf("media sent: %.200s", r.Body)
				}
			}
			doc := summary(t, filepath.Join(cfg.Output.ArtifactDir, "profile_export_aiperf.json"))
			for _, tag := range []string{"num_images", "image_throughput", "image_latency", "audio_duration", "rtfx"} {
				if _, ok := doc[tag]; ok {
					t.Errorf("summary has %s", tag)
				}
			}
		})
	}
}

func compactJSON(t *testing.T, raw []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// near reports a relative difference below 1e-9.
func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*max(1, math.Abs(b)) }

// TestMediaInputConfig: input_config lists the media flags given, with
// the batch size of 1 a size or length implies, as AIPerf writes it.
func TestMediaInputConfig(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		m    config.Media
		want string
	}{
		{"none", config.Media{}, `{}`},
		{"implied batch", config.Media{ImageWidthMean: ptr(16.0), ImageHeightMean: ptr(8.0), ImageFormat: config.ImageRandom, AudioLengthMean: ptr(0.05), AudioLengthStddev: ptr(0.01)},
			`{"images":{"batch_size":1,"width":{"mean":16},"height":{"mean":8},"format":"random"},"audio":{"batch_size":1,"length":{"mean":0.05,"stddev":0.01}}}`},
		{"format alone implies nothing", config.Media{ImageFormat: config.ImagePNG, AudioSampleRates: []float64{44100}},
			`{"images":{"format":"png"},"audio":{"sample_rates":[44.1]}}`},
		{"explicit zero batch", config.Media{ImageBatchSize: ptr(0), AudioBatchSize: ptr(3), AudioDepths: []int{8}, AudioNumChannels: ptr(2)},
			`{"images":{"batch_size":0},"audio":{"batch_size":3,"depths":[8],"channels":2}}`},
	} {
		got, err := json.Marshal(mediaDoc(&tc.m))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tc.want {
			t.Errorf("%s: %s\nwant %s", tc.name, got, tc.want)
		}
	}
}
