package openai

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/endpoint"
)

// TestMultimodalPayloadMatchesAIPerf rebuilds the turn behind a multimodal
// payload that the real AIPerf 0.13 wrote to inputs.json (one text, two
// synthetic images, one WAV clip: --image-batch-size 2 --audio-length-mean
// 0.05) and checks that our body is byte for byte the same.
func TestMultimodalPayloadMatchesAIPerf(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join("testdata", "aiperf", "chat_multimodal.json"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := jsontext.AppendFormat(nil, raw)
	if err != nil {
		t.Fatal(err)
	}
	var in struct {
		Messages []struct {
			Content []struct {
				Type     string `json:"type"`
				Text     string `json:"text"`
				ImageURL struct {
					URL string `json:"url"`
				} `json:"image_url"`
				InputAudio struct {
					Data   string `json:"data"`
					Format string `json:"format"`
				} `json:"input_audio"`
			} `json:"content"`
		} `json:"messages"`
		MaxTokens int `json:"max_completion_tokens"`
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		t.Fatal(err)
	}
	turn := &dataset.Turn{MaxTokens: in.MaxTokens}
	for _, p := range in.Messages[0].Content {
		switch p.Type {
		case "text":
			turn.Texts = append(turn.Texts, p.Text)
		case "image_url":
			turn.Images = append(turn.Images, p.ImageURL.URL)
		case "input_audio":
			turn.Audios = append(turn.Audios, p.InputAudio.Format+","+p.InputAudio.Data)
		}
	}
	if len(turn.Texts) != 1 || len(turn.Images) != 2 || len(turn.Audios) != 1 {
		t.Fatalf("fixture has %d texts, %d images, %d audios; want 1, 2, 1", len(turn.Texts), len(turn.Images), len(turn.Audios))
	}
	got, err := NewChat().AppendPayload(nil, turn, &endpoint.Options{Model: "mock-model"})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("AppendPayload =\n%s\nAIPerf sent\n%s", got, want)
	}
	checkValid(t, got)
}

func TestMultimodalPayloadGolden(t *testing.T) {
	t.Parallel()
	opts := endpoint.Options{Model: "m", Streaming: true}
	tests := []struct {
		name string
		turn dataset.Turn
	}{
		{"chat_image_only", dataset.Turn{Images: []string{"https://example.com/cat.png"}}},
		{"chat_text_and_image", dataset.Turn{Texts: []string{"describe"}, Images: []string{"data:image/png;base64,iVBORw0KGgo="}, MaxTokens: 5}},
		{"chat_texts_images_audio_order", dataset.Turn{
			Texts:  []string{"a", "", "b"},
			Images: []string{"data:image/jpeg;base64,/9j/", ""},
			Audios: []string{"wav,UklGRg==", "", "data:audio/mp3;base64,SUQz", "data:audio/;base64,AAAA"},
		}},
		{"chat_only_empty_media", dataset.Turn{Texts: []string{""}, Images: []string{""}, Audios: []string{""}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := NewChat().AppendPayload(nil, &tt.turn, &opts)
			if err != nil {
				t.Fatal(err)
			}
			checkValid(t, got)
			path := filepath.Join("testdata", "golden", tt.name+".json")
			if *update {
				if err := os.WriteFile(path, append(got, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create)", err)
			}
			if !bytes.Equal(got, bytes.TrimSuffix(want, []byte("\n"))) {
				t.Errorf("got\n%s\nwant\n%s", got, want)
			}
		})
	}
}

func TestPayloadRefusesMalformedAudio(t *testing.T) {
	t.Parallel()
	turn := &dataset.Turn{Texts: []string{"x"}, Audios: []string{"UklGRg=="}}
	_, err := NewChat().AppendPayload(nil, turn, &endpoint.Options{Model: "m"})
	if err == nil || !strings.Contains(err.Error(), "audio 0") {
		t.Fatalf("err = %v, want a malformed-audio error", err)
	}
}

func FuzzAppendContent(f *testing.F) {
	f.Add("text", "data:image/png;base64,AA==", "wav,AAAA")
	f.Add("", "", "data:audio/;base64,")
	f.Add("\u2028\"", "\xff", "mp3,\x00")
	f.Fuzz(func(t *testing.T, text, img, audio string) {
		turn := &dataset.Turn{Texts: []string{text}, Images: []string{img}, Audios: []string{audio}}
		body, err := NewChat().AppendPayload(nil, turn, &endpoint.Options{Model: "m"})
		if err != nil {
			if audio == "" || strings.Contains(audio, ",") {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		if !jsontext.Value(body).IsValid() {
			t.Fatalf("invalid JSON: %q", body)
		}
	})
}
