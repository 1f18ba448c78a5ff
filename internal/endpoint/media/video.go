package media

import (
	"errors"
	"fmt"
	"strings"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/endpoint"
	"github.com/aiperf-go/aiperf/internal/record"
)

// VideoGeneration is the OpenAI / SGLang video generation endpoint
// (/v1/videos), an asynchronous job: POST submits it (multipart form data
// by default), GET /v1/videos/{id} is polled until it completes, and GET
// .../content downloads the video (--download-video-content). It is
// stateless.
type VideoGeneration struct{}

var (
	_ endpoint.Endpoint = VideoGeneration{}
	_ endpoint.Poller   = VideoGeneration{}
)

// NewVideoGeneration returns the video_generation endpoint.
func NewVideoGeneration() endpoint.Endpoint { return VideoGeneration{} }

// Metadata describes the endpoint as AIPerf's plugin metadata does.
func (VideoGeneration) Metadata() endpoint.Metadata {
	return endpoint.Metadata{
		Type: "video_generation",
		Description: "Text-to-video as an asynchronous job (OpenAI Sora API, SGLang /v1/videos): submit the " +
			"prompt, poll /v1/videos/{id} until it completes, optionally download the video; request latency " +
			"covers the whole job.",
		Path:             "/v1/videos",
		ServiceKind:      "openai",
		MetricsTitle:     "Video Generation Metrics",
		ProducesVideos:   true,
		TokenizesInput:   true,
		RequiresPolling:  true,
		RequiresFormData: true,
	}
}

// AppendPayload appends {"prompt":..,"model":..,<extras>} (size, seconds,
// seed, fps, num_frames, ... come from --extra-inputs).
func (VideoGeneration) AppendPayload(dst []byte, t *dataset.Turn, o *endpoint.Options) ([]byte, error) {
	p, err := prompt(t)
	if err != nil {
		return dst, fmt.Errorf("video_generation: %w", err)
	}
	var body endpoint.Object
	body.SetString("prompt", p)
	body.SetString("model", model(t, o))
	if err := body.Merge(o.Extra, nil); err != nil {
		return dst, err
	}
	return body.AppendTo(dst), nil
}

// videoJob is the VideoResponse of the submit and poll calls.
type videoJob struct {
	endpoint.Envelope `json:",inline"`
	ID                endpoint.String `json:"id"`
	Status            endpoint.String `json:"status"`
	URL               endpoint.String `json:"url"`
	InferenceTime     endpoint.Float  `json:"inference_time_s"`
	PeakMemory        endpoint.Float  `json:"peak_memory_mb"`
}

func decodeJob(data []byte) (videoJob, error) {
	var j videoJob
	if _, err := endpoint.DecodeEvent(data, &j); err != nil {
		return j, fmt.Errorf("video_generation response: %w", err)
	}
	return j, nil
}

// ParseResponse reads a job response: every JSON object (the submit and
// the final poll answer) is a content response without text, carrying
// SGLang's inference_time_s and peak_memory_mb when given (the
// video_inference_time and video_peak_memory metrics). A failed job is
// the record's error.
func (VideoGeneration) ParseResponse(data []byte) (record.Parsed, error) {
	j, err := decodeJob(data)
	if err != nil {
		return record.Parsed{}, err
	}
	p := j.Envelope.Parsed(false)
	if j.Status.S == "failed" {
		p.Error = jobFailure(&j)
		return p, nil
	}
	if p.Error != nil {
		return p, nil
	}
	p.Output = true
	if j.InferenceTime.OK || j.PeakMemory.OK {
		p.Video = &record.VideoStats{
			InferenceSeconds: record.Float{V: j.InferenceTime.V, OK: j.InferenceTime.OK},
			PeakMemoryMB:     record.Float{V: j.PeakMemory.V, OK: j.PeakMemory.OK},
		}
	}
	return p, nil
}

func jobFailure(j *videoJob) *record.ErrorDetails {
	msg := "Unknown error"
	if j.Error.Present && j.Error.Message.S != "" {
		msg = j.Error.Message.S
	}
	return &record.ErrorDetails{Code: 500, Type: "VideoGenerationError", Message: "Video generation failed: " + msg}
}

// JobID returns the submitted job's id.
func (VideoGeneration) JobID(body []byte) (string, error) {
	j, err := decodeJob(body)
	if err != nil {
		return "", err
	}
	if j.ID.S == "" {
		return "", fmt.Errorf("no job ID returned: %.200s", strings.TrimSpace(string(body)))
	}
	return j.ID.S, nil
}

// ErrJobFailed wraps the reason of a job the server reported failed.
var ErrJobFailed = errors.New("video generation failed")

// JobState reports whether a polled job completed; a failed one is an
// error with the server's reason.
func (VideoGeneration) JobState(body []byte) (bool, error) {
	j, err := decodeJob(body)
	if err != nil {
		return false, err
	}
	switch j.Status.S {
	case "completed":
		return true, nil
	case "failed":
		return false, fmt.Errorf("%w: %s", ErrJobFailed, strings.TrimPrefix(jobFailure(&j).Message, "Video generation failed: "))
	}
	return false, nil
}

// ContentURL is the finished job's url, else <pollURL>/content.
func (VideoGeneration) ContentURL(body []byte, pollURL string) string {
	if j, err := decodeJob(body); err == nil && j.URL.S != "" {
		return j.URL.S
	}
	return strings.TrimRight(pollURL, "/") + "/content"
}
