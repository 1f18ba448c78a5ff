package media

import (
	"errors"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/endpoint"
	"github.com/aiperf-go/aiperf/internal/endpoint/endpointtest"
	"github.com/aiperf-go/aiperf/internal/record"
)

const png1x1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="

// TestParseImages reads OpenAI's documented image answers: a whole body
// and a stream of partial images are output (each partial image a content
// response) with the image usage; a refusal is the record's error.
func TestParseImages(t *testing.T) {
	t.Parallel()
	c := endpointtest.Count
	usage := record.Usage{PromptTokens: c(50), CompletionTokens: c(50), TotalTokens: c(100)}
	for _, ep := range []endpoint.Endpoint{NewImageGeneration(), NewImageEdit()} {
		r := endpointtest.Parse(t, ep, endpointtest.Body(t, endpointtest.Fixture("docs_image_generation.json")))
		if r.Content != 1 || r.Text != "" || r.Usage == nil || *r.Usage != usage {
			t.Errorf("%s body: %+v usage %+v", ep.Metadata().Type, r, r.Usage)
		}
		r = endpointtest.Parse(t, ep, endpointtest.Body(t, endpointtest.Fixture("docs_image_error.json")))
		if len(r.Errors) != 1 || r.Errors[0].Type != "invalid_request_error" || r.Content != 0 {
			t.Errorf("%s refusal: %+v", ep.Metadata().Type, r)
		}
	}
	r := endpointtest.Parse(t, NewImageGeneration(), endpointtest.Events(t, endpointtest.Fixture("docs_image_generation_stream.sse")))
	if r.Content != 3 || r.Usage == nil || *r.Usage != usage {
		t.Errorf("stream: %+v usage %+v", r, r.Usage)
	}
}

// TestImagePayloads: generation asks for one base64 image (stream only
// when streaming); an edit uploads the first image as a file (type from
// the data URL, or sniffed from raw base64), or sends an http(s) image as
// url, and extras cannot replace the prompt or the image.
func TestImagePayloads(t *testing.T) {
	t.Parallel()
	o := &endpoint.Options{Model: "gpt-image-1", Streaming: true, Extra: endpointtest.Extras("size", `"1024x1024"`, "prompt", `"no"`)}
	got, err := NewImageGeneration().AppendPayload(nil, &dataset.Turn{Texts: []string{"a red fox"}}, o)
	if err != nil {
		t.Fatal(err)
	}
	endpointtest.SameBody(t, "generation", got, []byte(`{"prompt":"no","model":"gpt-image-1","response_format":"b64_json","n":1,"stream":true,"size":"1024x1024"}`))

	o.Streaming = false
	for img, field := range map[string]string{
		"data:image/png;base64," + png1x1: `"image":{"b64_data":"` + png1x1 + `","filename":"image.png","content_type":"image/png"}`,
		png1x1:                            `"image":{"b64_data":"` + png1x1 + `","filename":"image.png","content_type":"image/png"}`,
		"data:image/jpeg;base64,/9j/4AAQ": `"image":{"b64_data":"/9j/4AAQ","filename":"image.jpg","content_type":"image/jpeg"}`,
		"https://x.test/cat.png":          `"url":"https://x.test/cat.png"`,
	} {
		got, err := NewImageEdit().AppendPayload(nil, &dataset.Turn{Texts: []string{"make it blue"}, Images: []string{img}}, o)
		if err != nil {
			t.Fatal(err)
		}
		endpointtest.SameBody(t, "edit "+img[:12], got, []byte(`{"prompt":"make it blue","model":"gpt-image-1","response_format":"b64_json","n":1,`+field+`,"size":"1024x1024"}`))
	}
	for _, turn := range []*dataset.Turn{{Texts: []string{"x"}}, {Images: []string{png1x1}}, {Texts: []string{"x"}, Images: []string{"bm90IGFuIGltYWdl"}}} {
		if _, err := NewImageEdit().AppendPayload(nil, turn, o); err == nil {
			t.Errorf("edit of %+v accepted", turn)
		}
	}
}

// TestParseTranscriptions: a JSON answer's text and token usage; text,
// srt and vtt answers are the whole body.
func TestParseTranscriptions(t *testing.T) {
	t.Parallel()
	ep := NewAudioTranscription()
	r := endpointtest.Parse(t, ep, endpointtest.Body(t, endpointtest.Fixture("docs_transcription_json.json")))
	c := endpointtest.Count
	if !strings.HasPrefix(r.Text, "Imagine the wildest idea") || r.Content != 1 ||
		r.Usage == nil || *r.Usage != (record.Usage{PromptTokens: c(14), CompletionTokens: c(45), TotalTokens: c(59)}) {
		t.Errorf("json: %+v usage %+v", r, r.Usage)
	}
	srt := endpointtest.Body(t, endpointtest.Fixture("docs_transcription.srt"))
	if r := endpointtest.Parse(t, ep, srt); r.Text != string(srt[0]) {
		t.Errorf("srt: %q", r.Text)
	}
}

// TestAudioPayload: the first clip is the file, typed from its format.
func TestAudioPayload(t *testing.T) {
	t.Parallel()
	o := &endpoint.Options{Model: "whisper-1", Extra: endpointtest.Extras("language", `"en"`, "file", `"x"`)}
	for audio, file := range map[string]string{
		"wav,UklGRg==": `{"b64_data":"UklGRg==","filename":"audio.wav","content_type":"audio/wav"}`,
		"MP3,SUQz":     `{"b64_data":"SUQz","filename":"audio.mp3","content_type":"audio/mpeg"}`,
	} {
		got, err := NewAudioTranscription().AppendPayload(nil, &dataset.Turn{Audios: []string{audio}}, o)
		if err != nil {
			t.Fatal(err)
		}
		endpointtest.SameBody(t, audio, got, []byte(`{"file":`+file+`,"model":"whisper-1","language":"en"}`))
	}
	if _, err := NewAudioTranscription().AppendPayload(nil, &dataset.Turn{Texts: []string{"x"}}, o); err == nil {
		t.Error("turn without audio accepted")
	}
}

// TestVideoJobs walks the documented job lifecycle (OpenAI's Sora API and
// SGLang's): the submit answer's id, queued and completed states, the
// failure as an error, the content URL (SGLang's own, else the poll URL's
// /content) and SGLang's inference time and peak memory.
func TestVideoJobs(t *testing.T) {
	t.Parallel()
	v := VideoGeneration{}
	queued := endpointtest.Body(t, endpointtest.Fixture("docs_video_job_queued.json"))[0]
	done := endpointtest.Body(t, endpointtest.Fixture("docs_video_job_completed.json"))[0]
	failed := endpointtest.Body(t, endpointtest.Fixture("docs_video_job_failed.json"))[0]
	sglang := endpointtest.Body(t, endpointtest.Fixture("sglang_video_job_completed.json"))[0]
	if id, err := v.JobID(queued); err != nil || id != "video_123" {
		t.Errorf("job id %q, %v", id, err)
	}
	if _, err := v.JobID([]byte(`{"status":"queued"}`)); err == nil {
		t.Error("answer without an id accepted")
	}
	if ok, err := v.JobState(queued); ok || err != nil {
		t.Errorf("queued: %v, %v", ok, err)
	}
	if ok, err := v.JobState(done); !ok || err != nil {
		t.Errorf("completed: %v, %v", ok, err)
	}
	if _, err := v.JobState(failed); !errors.Is(err, ErrJobFailed) || !strings.Contains(err.Error(), "moderation system") {
		t.Errorf("failed: %v", err)
	}
	if u := v.ContentURL(done, "http://h/v1/videos/video_123/"); u != "http://h/v1/videos/video_123/content" {
		t.Errorf("content url %q", u)
	}
	if u := v.ContentURL(sglang, "http://h/v1/videos/vid_8f2c"); u != "http://gen.local/files/vid_8f2c.mp4" {
		t.Errorf("sglang content url %q", u)
	}
	r := endpointtest.Parse(t, v, [][]byte{sglang})
	if r.Content != 1 || r.Video == nil || r.Video.InferenceSeconds.V != 41.25 || r.Video.PeakMemoryMB.V != 61234.5 {
		t.Errorf("sglang completed: %+v video %+v", r, r.Video)
	}
	if r := endpointtest.Parse(t, v, [][]byte{done}); r.Content != 1 || r.Video != nil {
		t.Errorf("openai completed: %+v", r)
	}
	r = endpointtest.Parse(t, v, [][]byte{failed})
	if len(r.Errors) != 1 || r.Errors[0].Type != "VideoGenerationError" || r.Content != 0 {
		t.Errorf("failed job: %+v", r.Errors)
	}
	got, _ := v.AppendPayload(nil, &dataset.Turn{Texts: []string{"a cat", "ignored"}}, &endpoint.Options{Model: "sora-2", Extra: endpointtest.Extras("seconds", `"4"`)})
	endpointtest.SameBody(t, "video", got, []byte(`{"prompt":"a cat","model":"sora-2","seconds":"4"}`))
}

// TestImageRetrieval: every image is an image_url item; the answer's data
// is the output.
func TestImageRetrieval(t *testing.T) {
	t.Parallel()
	ep := NewImageRetrieval()
	got, err := ep.AppendPayload(nil, &dataset.Turn{Images: []string{"data:image/png;base64,AA", "", "data:image/png;base64,BB"}}, &endpoint.Options{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	endpointtest.SameBody(t, "infer", got, []byte(`{"input":[{"type":"image_url","url":"data:image/png;base64,AA"},{"type":"image_url","url":"data:image/png;base64,BB"}]}`))
	if endpoint.CountParts(got, ep.Metadata().ImagePart) != 2 {
		t.Errorf("images not counted in %s", got)
	}
	if _, err := ep.AppendPayload(nil, &dataset.Turn{Texts: []string{"x"}}, &endpoint.Options{}); err == nil {
		t.Error("turn without images accepted")
	}
	if r := endpointtest.Parse(t, ep, endpointtest.Body(t, endpointtest.Fixture("docs_infer.json"))); r.Content != 1 {
		t.Errorf("infer answer: %+v", r)
	}
	if r := endpointtest.Parse(t, ep, [][]byte{[]byte(`{"data":[]}`)}); r.Content != 0 {
		t.Errorf("empty data counted: %+v", r)
	}
}
