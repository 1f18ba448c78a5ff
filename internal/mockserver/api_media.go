package mockserver

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"image"
	"image/color"
	"image/png"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Non-text APIs: embeddings, rankings, image generation and editing, audio
// transcription and NIM image retrieval (video jobs are in api_video.go).
// Their answers carry deterministic results derived from the inputs, usage
// where the real API reports it, and arrive after the latency model's TTFT
// (plus ITL per output token for the generative ones).

// embeddingDims is the length of the mock's embedding vectors.
const embeddingDims = 8

// vector is a deterministic unit-ish vector for s.
func vector(s string) []float64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	ws := wordStream{state: h.Sum64()}
	v := make([]float64, embeddingDims)
	for i := range v {
		v[i] = float64(ws.next(2001)-1000) / 1000
	}
	return v
}

// score is a deterministic relevance in [0, 1) of passage p for query q.
func score(q, p string) float64 {
	h := fnv.New64a()
	h.Write([]byte(q))
	h.Write([]byte{0})
	h.Write([]byte(p))
	return float64(h.Sum64()%10000) / 10000
}

var embeddingsAPI = &apiSpec{
	name: "embd",
	parse: func(_ *http.Request, body []byte) (apiRequest, error) {
		var in struct {
			Model    string            `json:"model"`
			Input    json.RawMessage   `json:"input"`
			Text     json.RawMessage   `json:"text"`     // AIPerf's nv-embedqa template body
			Messages []json.RawMessage `json:"messages"` // vLLM's chat-style embeddings
		}
		if err := decodeJSON(body, &in); err != nil {
			return apiRequest{}, err
		}
		if len(in.Input) == 0 {
			in.Input = in.Text
		}
		req := apiRequest{Model: in.Model}
		if in.Messages != nil {
			text, err := userText(in.Messages, "text")
			if err != nil {
				return req, err
			}
			req.Prompt.Text, req.Items = text, 1
			return req, nil
		}
		if len(in.Input) == 0 {
			return req, badRequest("'input' is required")
		}
		var one string
		var many []string
		switch {
		case json.Unmarshal(in.Input, &one) == nil:
			req.Prompt.Text, req.Items = one, 1
		case json.Unmarshal(in.Input, &many) == nil:
			req.Prompt.Text, req.Items = strings.Join(many, "\n"), len(many)
		default:
			p, err := completionPrompt(in.Input) // token ids
			if err != nil {
				return req, badRequest("'input' must be a string, an array of strings or token ids")
			}
			req.Prompt, req.Items = p, 1
		}
		if req.Items == 0 {
			return req, badRequest("'input' must not be empty")
		}
		return req, nil
	},
	answer: func(s *Server, ex *exchange) {
		if !ex.waitTokens(0) {
			return
		}
		data := make([]map[string]any, ex.req.Items)
		for i := range data {
			data[i] = map[string]any{"object": "embedding", "index": i, "embedding": vector(ex.req.Prompt.Text + strconv.Itoa(i))}
		}
		s.writeBody(ex, map[string]any{"object": "list", "data": data, "model": ex.model,
			"usage": map[string]int{"prompt_tokens": ex.plan.ISL, "total_tokens": ex.plan.ISL}})
	},
}

// rankingsAPI serves one of the three rerank dialects.
func rankingsAPI(dialect string) *apiSpec {
	return &apiSpec{
		name: "rank",
		parse: func(_ *http.Request, body []byte) (apiRequest, error) {
			var in struct {
				Model string          `json:"model"`
				Query json.RawMessage `json:"query"`
				// NIM: passages [{text}]; TEI: texts [..]; Cohere: documents [..]
				Passages  []struct{ Text string } `json:"passages"`
				Texts     []string                `json:"texts"`
				Documents []string                `json:"documents"`
			}
			if err := decodeJSON(body, &in); err != nil {
				return apiRequest{}, err
			}
			var query string
			switch dialect {
			case "nim":
				var q struct{ Text *string }
				if json.Unmarshal(in.Query, &q) != nil || q.Text == nil {
					return apiRequest{}, badRequest("'query' must be an object with 'text'")
				}
				query = *q.Text
			default:
				if json.Unmarshal(in.Query, &query) != nil {
					return apiRequest{}, badRequest("'query' must be a string")
				}
			}
			passages := in.Texts
			switch dialect {
			case "nim":
				passages = nil
				for _, p := range in.Passages {
					passages = append(passages, p.Text)
				}
			case "cohere":
				passages = in.Documents
			}
			return apiRequest{Model: in.Model, Items: len(passages), Fields: map[string]string{"query": query},
				Prompt: prompt{Text: strings.Join(append([]string{query}, passages...), "\n")},
			}.withPassages(passages), nil
		},
		answer: func(s *Server, ex *exchange) {
			if !ex.waitTokens(0) {
				return
			}
			type ranked struct {
				i int
				v float64
			}
			query := ex.req.Fields["query"]
			rs := make([]ranked, 0, ex.req.Items)
			for i := range ex.req.Items {
				rs = append(rs, ranked{i, score(query, ex.req.Fields["p"+strconv.Itoa(i)])})
			}
			sort.SliceStable(rs, func(a, b int) bool { return rs[a].v > rs[b].v })
			switch dialect {
			case "nim":
				out := make([]map[string]any, len(rs))
				for k, r := range rs {
					out[k] = map[string]any{"index": r.i, "logit": r.v*20 - 10}
				}
				s.writeBody(ex, map[string]any{"rankings": out, "usage": map[string]int{"prompt_tokens": ex.plan.ISL, "total_tokens": ex.plan.ISL}})
			case "tei":
				out := make([]map[string]any, len(rs))
				for k, r := range rs {
					out[k] = map[string]any{"index": r.i, "score": r.v}
				}
				s.writeBody(ex, out)
			default:
				out := make([]map[string]any, len(rs))
				for k, r := range rs {
					out[k] = map[string]any{"index": r.i, "relevance_score": r.v}
				}
				s.writeBody(ex, map[string]any{"id": ex.id, "results": out,
					"meta": map[string]any{"api_version": map[string]string{"version": "2"}, "billed_units": map[string]int{"search_units": 1}}})
			}
		},
	}
}

// withPassages keeps the passages in Fields for the scorer.
func (r apiRequest) withPassages(ps []string) apiRequest {
	for i, p := range ps {
		r.Fields["p"+strconv.Itoa(i)] = p
	}
	return r
}

// tinyPNG is the image the image APIs answer with: 8x8 pixels, a gradient.
// It is encoded on first use (a PNG encoder's buffers at every start of the
// program would cost every command).
var tinyPNG = sync.OnceValue(func() string {
	img := image.NewRGBA(image.Rect(0, 0, 8, 8))
	for y := range 8 {
		for x := range 8 {
			img.Set(x, y, color.RGBA{uint8(x * 32), uint8(y * 32), 128, 255})
		}
	}
	var b bytes.Buffer
	_ = png.Encode(&b, img)
	return base64.StdEncoding.EncodeToString(b.Bytes())
})

// imagesAPI serves /v1/images/generations (JSON) and /v1/images/edits
// (multipart: prompt and an image file or url).
func imagesAPI(edit bool) *apiSpec {
	return &apiSpec{
		name: "img",
		parse: func(r *http.Request, body []byte) (apiRequest, error) {
			fields := map[string]string{}
			files := map[string]int{}
			if edit {
				var err error
				if fields, files, err = parseMultipart(r, body); err != nil {
					return apiRequest{}, err
				}
				if files["image"] == 0 && fields["url"] == "" {
					return apiRequest{}, badRequest("an 'image' file or a 'url' is required")
				}
			} else {
				var in map[string]any
				if err := decodeJSON(body, &in); err != nil {
					return apiRequest{}, err
				}
				for k, v := range in {
					fields[k] = fmt.Sprint(v)
				}
			}
			if fields["prompt"] == "" {
				return apiRequest{}, badRequest("'prompt' is required")
			}
			req := apiRequest{Model: fields["model"], Prompt: prompt{Text: fields["prompt"]}, Fields: fields, Files: files,
				Stream: fields["stream"] == "true", Items: 1}
			if n, err := strconv.Atoi(fields["n"]); err == nil && n > 1 && n <= 10 {
				req.Items = n
			}
			return req, nil
		},
		answer: func(s *Server, ex *exchange) {
			usage := map[string]any{"input_tokens": ex.plan.ISL, "output_tokens": ex.plan.Count,
				"total_tokens": ex.plan.ISL + ex.plan.Count, "input_tokens_details": map[string]int{"text_tokens": ex.plan.ISL, "image_tokens": 0}}
			item := map[string]any{"b64_json": tinyPNG()}
			if ex.req.Fields["response_format"] == "url" {
				item = map[string]any{"url": "http://" + ex.r.Host + "/v1/images/mock.png"}
			}
			if !ex.req.Stream {
				if !ex.waitTokens(ex.plan.Count) {
					return
				}
				data := make([]map[string]any, ex.req.Items)
				for i := range data {
					data[i] = item
				}
				s.writeBody(ex, map[string]any{"created": ex.arrival.Unix(), "data": data, "usage": usage,
					"size": "8x8", "output_format": "png"})
				return
			}
			partials, _ := strconv.Atoi(ex.req.Fields["partial_images"])
			partials = min(max(partials, 0), 3)
			e := startStream(ex.w)
			for i := range partials {
				if !ex.waitTokens(ex.plan.Count*(i+1)/(partials+1)) ||
					e.send("image_generation.partial_image", map[string]any{"type": "image_generation.partial_image",
						"b64_json": tinyPNG(), "partial_image_index": i, "created_at": ex.arrival.Unix()}) != nil {
					return
				}
			}
			if !ex.waitTokens(ex.plan.Count) {
				return
			}
			_ = e.send("image_generation.completed", map[string]any{"type": "image_generation.completed",
				"b64_json": tinyPNG(), "created_at": ex.arrival.Unix(), "usage": usage})
		},
	}
}

// parseMultipart reads a multipart/form-data body: form values, and the
// size of each file part.
func parseMultipart(r *http.Request, body []byte) (map[string]string, map[string]int, error) {
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		return nil, nil, badRequest("the body must be multipart/form-data (got Content-Type %q)", r.Header.Get("Content-Type"))
	}
	fields, files := map[string]string{}, map[string]int{}
	mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			return fields, files, nil
		}
		if err != nil {
			return nil, nil, badRequest("malformed multipart body: %v", err)
		}
		b, err := io.ReadAll(p)
		if err != nil {
			return nil, nil, badRequest("malformed multipart body: %v", err)
		}
		if p.FileName() != "" {
			files[p.FormName()] = len(b)
		} else {
			fields[p.FormName()] = string(b)
		}
	}
}

var transcriptionAPI = &apiSpec{
	name: "asr",
	parse: func(r *http.Request, body []byte) (apiRequest, error) {
		fields, files, err := parseMultipart(r, body)
		if err != nil {
			return apiRequest{}, err
		}
		if files["file"] == 0 {
			return apiRequest{}, badRequest("a non-empty 'file' is required")
		}
		// The output is planned from the upload's size: longer audio, a
		// longer transcript, deterministically.
		return apiRequest{Model: fields["model"], Fields: fields, Files: files,
			Prompt: prompt{Text: fmt.Sprintf("audio %d bytes", files["file"])}}, nil
	},
	answer: func(s *Server, ex *exchange) {
		if !ex.waitTokens(ex.plan.Count) {
			return
		}
		text := strings.TrimSpace(strings.Join(s.outputWords(ex.plan), ""))
		switch ex.req.Fields["response_format"] {
		case "text", "srt", "vtt":
			h := ex.w.Header()
			h.Set("Content-Type", "text/plain; charset=utf-8")
			h.Set("Content-Length", strconv.Itoa(len(text)))
			ex.w.WriteHeader(http.StatusOK)
			_, _ = io.WriteString(ex.w, text)
		default:
			audioTokens := ex.req.Files["file"] / 1000
			s.writeBody(ex, map[string]any{"text": text, "usage": map[string]any{"type": "tokens",
				"input_tokens": audioTokens, "input_token_details": map[string]int{"audio_tokens": audioTokens},
				"output_tokens": ex.plan.Count, "total_tokens": audioTokens + ex.plan.Count}})
		}
	},
}

var retrievalAPI = &apiSpec{
	name: "infer",
	parse: func(_ *http.Request, body []byte) (apiRequest, error) {
		var in struct {
			Input []struct {
				Type string `json:"type"`
				URL  string `json:"url"`
			} `json:"input"`
		}
		if err := decodeJSON(body, &in); err != nil {
			return apiRequest{}, err
		}
		if len(in.Input) == 0 {
			return apiRequest{}, badRequest("'input' must list at least one image")
		}
		var urls []string
		for i, it := range in.Input {
			if it.Type != "image_url" || it.URL == "" {
				return apiRequest{}, badRequest("input[%d] must be {\"type\":\"image_url\",\"url\":...}", i)
			}
			urls = append(urls, it.URL)
		}
		return apiRequest{Items: len(urls), Prompt: prompt{Text: strings.Join(urls, "\n")}}, nil
	},
	answer: func(s *Server, ex *exchange) {
		if !ex.waitTokens(0) {
			return
		}
		data := make([]map[string]any, ex.req.Items)
		for i := range data {
			c := score(ex.req.Prompt.Text, strconv.Itoa(i))
			data[i] = map[string]any{"index": i, "bounding_boxes": map[string]any{
				"chart": []map[string]float64{{"x_min": 0.1, "y_min": 0.1, "x_max": 0.9, "y_max": 0.9, "confidence": c}}}}
		}
		s.writeBody(ex, map[string]any{"data": data, "usage": map[string]int{"images": ex.req.Items}})
	},
}
