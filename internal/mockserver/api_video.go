package mockserver

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Video generation is an asynchronous job, as in OpenAI's and SGLang's
// /v1/videos: POST submits (multipart form data or JSON) and answers at
// once with a queued job; GET /v1/videos/{id} reports in_progress until
// the job's due time (the latency model's TTFT + ITL x output tokens for
// the prompt), then completed with SGLang's inference_time_s and
// peak_memory_mb; GET /v1/videos/{id}/content returns the video bytes.

// videoJob is one submitted job.
type videoJob struct {
	id, model, size, seconds string
	created                  time.Time
	due                      time.Time
	isl                      int
}

// videoJobs holds the submitted jobs. Jobs are dropped an hour after they
// are due, on the next submit, so a long run does not accumulate them.
type videoJobs struct {
	mu   sync.Mutex
	jobs map[string]*videoJob
}

func (v *videoJobs) add(j *videoJob) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.jobs == nil {
		v.jobs = map[string]*videoJob{}
	}
	for id, old := range v.jobs {
		if time.Since(old.due) > time.Hour {
			delete(v.jobs, id)
		}
	}
	v.jobs[j.id] = j
}

func (v *videoJobs) get(id string) *videoJob {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.jobs[id]
}

// mockVideo is the content a finished job serves: an MP4 ftyp box and
// filler, 4 KiB.
var mockVideo = func() []byte {
	b := make([]byte, 4096)
	copy(b, "\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom")
	return b
}()

var videoSubmitAPI = &apiSpec{
	name: "video",
	parse: func(r *http.Request, body []byte) (apiRequest, error) {
		fields := map[string]string{}
		if strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/") {
			var err error
			if fields, _, err = parseMultipart(r, body); err != nil {
				return apiRequest{}, err
			}
		} else {
			var in map[string]any
			if err := decodeJSON(body, &in); err != nil {
				return apiRequest{}, err
			}
			for k, v := range in {
				if s, ok := v.(string); ok {
					fields[k] = s
				} else {
					b, _ := json.Marshal(v)
					fields[k] = string(b)
				}
			}
		}
		if fields["prompt"] == "" {
			return apiRequest{}, badRequest("'prompt' is required")
		}
		return apiRequest{Model: fields["model"], Fields: fields, Prompt: prompt{Text: fields["prompt"]}}, nil
	},
	answer: func(s *Server, ex *exchange) {
		j := &videoJob{id: "video_" + ex.id, model: ex.model, created: ex.arrival, due: ex.arrival,
			size: ex.req.Fields["size"], seconds: ex.req.Fields["seconds"], isl: ex.plan.ISL}
		if j.size == "" {
			j.size = "1280x720"
		}
		if j.seconds == "" {
			j.seconds = "4"
		}
		if ex.clock != nil {
			j.due = ex.arrival.Add(ex.clock.complete(ex.plan.Count))
		}
		s.videos.add(j)
		s.writeBody(ex, j.view("queued", 0, ex.r))
	},
}

// view is the job's VideoResponse in the given state.
func (j *videoJob) view(status string, progress int, r *http.Request) map[string]any {
	v := map[string]any{"id": j.id, "object": "video", "model": j.model, "status": status, "progress": progress,
		"created_at": j.created.Unix(), "size": j.size, "seconds": j.seconds}
	if status == "completed" {
		v["completed_at"] = j.due.Unix()
		v["url"] = "http://" + r.Host + "/v1/videos/" + j.id + "/content"
		v["inference_time_s"] = j.due.Sub(j.created).Seconds()
		v["peak_memory_mb"] = 1024 + float64(j.isl)
	}
	return v
}

// videoJobRoute serves GET /v1/videos/{id} and /v1/videos/{id}/content.
func (s *Server) videoJobRoute(w http.ResponseWriter, r *http.Request) {
	rest := strings.TrimPrefix(r.URL.Path, "/v1/videos/")
	id, content := strings.CutSuffix(rest, "/content")
	j := s.videos.get(id)
	if j == nil || strings.Contains(id, "/") {
		writeError(w, http.StatusNotFound, "not_found_error", "no video job "+strconv.Quote(id))
		return
	}
	now := time.Now()
	switch {
	case content && now.Before(j.due):
		writeError(w, http.StatusConflict, "invalid_request_error", "video "+j.id+" is not completed")
	case content:
		h := w.Header()
		h.Set("Content-Type", "video/mp4")
		h.Set("Content-Length", strconv.Itoa(len(mockVideo)))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(mockVideo)
	case now.Before(j.due):
		total := j.due.Sub(j.created)
		progress := 0
		if total > 0 {
			progress = int(99 * now.Sub(j.created) / total)
		}
		writeJSON(w, http.StatusOK, j.view("in_progress", progress, r))
	default:
		writeJSON(w, http.StatusOK, j.view("completed", 100, r))
	}
}
