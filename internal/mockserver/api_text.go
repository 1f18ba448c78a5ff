package mockserver

import (
	"encoding/json"
	"net/http"
	"strings"
)

// Text-generation APIs besides OpenAI chat and completions: the OpenAI
// Responses API, Anthropic Messages, Hugging Face TGI and the Solido RAG
// prompt API. Each answers with the same deterministic text and latency as
// chat would for the same prompt and length.

// userText joins the text of user messages (string content, or parts of
// the given text types) with "\n", as chatPromptText does for chat.
func userText(msgs []json.RawMessage, textTypes ...string) (string, error) {
	var texts []string
	for i, raw := range msgs {
		var m struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		}
		if err := json.Unmarshal(raw, &m); err != nil {
			return "", badRequest("message %d: %v", i, err)
		}
		if m.Role != "user" || len(m.Content) == 0 {
			continue
		}
		var s string
		if json.Unmarshal(m.Content, &s) == nil {
			texts = append(texts, s)
			continue
		}
		var parts []contentPart
		if err := json.Unmarshal(m.Content, &parts); err != nil {
			return "", badRequest("message %d: content must be a string or an array of parts", i)
		}
		for _, p := range parts {
			for _, t := range textTypes {
				if p.Type == t {
					texts = append(texts, p.Text)
				}
			}
		}
	}
	return strings.Join(texts, "\n"), nil
}

// --- OpenAI Responses API ---------------------------------------------------

var responsesAPI = &apiSpec{
	name: "resp",
	parse: func(_ *http.Request, body []byte) (apiRequest, error) {
		var in struct {
			Model           string          `json:"model"`
			Input           json.RawMessage `json:"input"`
			Stream          bool            `json:"stream"`
			MaxOutputTokens *int            `json:"max_output_tokens"`
			IgnoreEOS       bool            `json:"ignore_eos"`
		}
		if err := decodeJSON(body, &in); err != nil {
			return apiRequest{}, err
		}
		req := apiRequest{Model: in.Model, Stream: in.Stream, MaxTokens: in.MaxOutputTokens, IgnoreEOS: in.IgnoreEOS}
		var s string
		var items []json.RawMessage
		switch {
		case len(in.Input) == 0:
			return req, badRequest("'input' is required")
		case json.Unmarshal(in.Input, &s) == nil:
			req.Prompt.Text = s
		case json.Unmarshal(in.Input, &items) == nil:
			text, err := userText(items, "input_text")
			if err != nil {
				return req, err
			}
			req.Prompt.Text = text
		default:
			return req, badRequest("'input' must be a string or an array of items")
		}
		return req, checkMax("max_output_tokens", req.MaxTokens)
	},
	answer: func(s *Server, ex *exchange) {
		words := s.outputWords(ex.plan)
		text := strings.Join(words, "")
		msgID := "msg_" + ex.id
		usage := map[string]any{
			"input_tokens": ex.plan.ISL, "input_tokens_details": map[string]int{"cached_tokens": 0},
			"output_tokens": ex.plan.Count, "output_tokens_details": map[string]int{"reasoning_tokens": 0},
			"total_tokens": ex.plan.ISL + ex.plan.Count,
		}
		item := func(status, text string) map[string]any {
			content := []any{}
			if status == "completed" {
				content = append(content, map[string]any{"type": "output_text", "text": text, "annotations": []any{}})
			}
			return map[string]any{"id": msgID, "type": "message", "status": status, "role": "assistant", "content": content}
		}
		response := func(status string, output []any) map[string]any {
			r := map[string]any{
				"id": ex.id, "object": "response", "created_at": ex.arrival.Unix(), "status": status,
				"model": ex.model, "output": output,
			}
			if status == "completed" {
				r["usage"] = usage
			}
			return r
		}
		if !ex.req.Stream {
			if ex.waitTokens(ex.plan.Count) {
				s.writeBody(ex, response("completed", []any{item("completed", text)}))
			}
			return
		}
		e := startStream(ex.w)
		seq := 0
		send := func(typ string, v map[string]any) bool {
			v["type"], v["sequence_number"] = typ, seq
			seq++
			return e.send(typ, v) == nil
		}
		part := map[string]any{"type": "output_text", "text": "", "annotations": []any{}}
		if !send("response.created", map[string]any{"response": response("in_progress", []any{})}) ||
			!send("response.in_progress", map[string]any{"response": response("in_progress", []any{})}) ||
			!send("response.output_item.added", map[string]any{"output_index": 0, "item": item("in_progress", "")}) ||
			!send("response.content_part.added", map[string]any{"item_id": msgID, "output_index": 0, "content_index": 0, "part": part}) {
			return
		}
		for _, w := range words {
			if !ex.waitNext() || !send("response.output_text.delta",
				map[string]any{"item_id": msgID, "output_index": 0, "content_index": 0, "delta": w}) {
				return
			}
		}
		done := map[string]any{"type": "output_text", "text": text, "annotations": []any{}}
		_ = send("response.output_text.done", map[string]any{"item_id": msgID, "output_index": 0, "content_index": 0, "text": text}) &&
			send("response.content_part.done", map[string]any{"item_id": msgID, "output_index": 0, "content_index": 0, "part": done}) &&
			send("response.output_item.done", map[string]any{"output_index": 0, "item": item("completed", text)}) &&
			send("response.completed", map[string]any{"response": response("completed", []any{item("completed", text)})})
	},
}

// checkMax bounds an output-length option as parseRequest does.
func checkMax(name string, v *int) error {
	if v != nil && (*v < 0 || *v > maxOutputTokens) {
		return badRequest("'%s' must be in [0, %d], got %d", name, maxOutputTokens, *v)
	}
	return nil
}

// --- Anthropic Messages -----------------------------------------------------

var messagesAPI = &apiSpec{
	name: "msg",
	parse: func(r *http.Request, body []byte) (apiRequest, error) {
		if r.Header.Get("Anthropic-Version") == "" {
			return apiRequest{}, badRequest("anthropic-version: header is required")
		}
		var in struct {
			Model     string            `json:"model"`
			Messages  []json.RawMessage `json:"messages"`
			MaxTokens *int              `json:"max_tokens"`
			Stream    bool              `json:"stream"`
		}
		if err := decodeJSON(body, &in); err != nil {
			return apiRequest{}, err
		}
		if in.Messages == nil {
			return apiRequest{}, badRequest("messages: Field required")
		}
		if in.MaxTokens == nil {
			return apiRequest{}, badRequest("max_tokens: Field required")
		}
		text, err := userText(in.Messages, "text")
		if err != nil {
			return apiRequest{}, err
		}
		req := apiRequest{Model: in.Model, Stream: in.Stream, MaxTokens: in.MaxTokens, Prompt: prompt{Text: text}}
		return req, checkMax("max_tokens", req.MaxTokens)
	},
	answer: func(s *Server, ex *exchange) {
		words := s.outputWords(ex.plan)
		stop := "end_turn"
		if ex.plan.Finish == finishLength {
			stop = "max_tokens"
		}
		usage := func(output int) map[string]int {
			return map[string]int{"input_tokens": ex.plan.ISL, "cache_creation_input_tokens": 0,
				"cache_read_input_tokens": 0, "output_tokens": output}
		}
		message := func(content []any, stopReason any, u map[string]int) map[string]any {
			return map[string]any{"id": ex.id, "type": "message", "role": "assistant", "model": ex.model,
				"content": content, "stop_reason": stopReason, "stop_sequence": nil, "usage": u}
		}
		if !ex.req.Stream {
			if ex.waitTokens(ex.plan.Count) {
				text := strings.Join(words, "")
				s.writeBody(ex, message([]any{map[string]string{"type": "text", "text": text}}, stop, usage(ex.plan.Count)))
			}
			return
		}
		e := startStream(ex.w)
		send := func(typ string, v map[string]any) bool {
			v["type"] = typ
			return e.send(typ, v) == nil
		}
		if !send("message_start", map[string]any{"message": message([]any{}, nil, usage(1))}) ||
			!send("content_block_start", map[string]any{"index": 0, "content_block": map[string]string{"type": "text", "text": ""}}) ||
			!send("ping", map[string]any{}) {
			return
		}
		for _, w := range words {
			if !ex.waitNext() || !send("content_block_delta",
				map[string]any{"index": 0, "delta": map[string]string{"type": "text_delta", "text": w}}) {
				return
			}
		}
		_ = send("content_block_stop", map[string]any{"index": 0}) &&
			send("message_delta", map[string]any{"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
				"usage": map[string]int{"output_tokens": ex.plan.Count}}) &&
			send("message_stop", map[string]any{})
	},
}

// --- Hugging Face TGI -------------------------------------------------------

// tgiAPI serves /generate (stream false) and /generate_stream (true).
func tgiAPI(stream bool) *apiSpec {
	return &apiSpec{
		name: "tgi",
		parse: func(_ *http.Request, body []byte) (apiRequest, error) {
			var in struct {
				Inputs     *string `json:"inputs"`
				Parameters struct {
					MaxNewTokens *int `json:"max_new_tokens"`
				} `json:"parameters"`
			}
			if err := decodeJSON(body, &in); err != nil {
				return apiRequest{}, err
			}
			if in.Inputs == nil {
				return apiRequest{}, badRequest("missing field `inputs`")
			}
			req := apiRequest{Stream: stream, MaxTokens: in.Parameters.MaxNewTokens, Prompt: prompt{Text: *in.Inputs}}
			return req, checkMax("max_new_tokens", req.MaxTokens)
		},
		answer: func(s *Server, ex *exchange) {
			words := s.outputWords(ex.plan)
			finish := "eos_token"
			if ex.plan.Finish == finishLength {
				finish = "length"
			}
			if !ex.req.Stream {
				if ex.waitTokens(ex.plan.Count) {
					s.writeBody(ex, map[string]any{"generated_text": strings.Join(words, "")})
				}
				return
			}
			e := startStream(ex.w)
			for i, w := range words {
				if !ex.waitNext() {
					return
				}
				ev := map[string]any{"index": i + 1, "token": map[string]any{"id": i + 1, "text": w, "logprob": -0.5, "special": false},
					"generated_text": nil, "details": nil}
				if i == len(words)-1 {
					ev["generated_text"] = strings.Join(words, "")
					ev["details"] = map[string]any{"finish_reason": finish, "generated_tokens": len(words), "seed": nil}
				}
				if e.send("", ev) != nil {
					return
				}
			}
		},
	}
}

// --- Solido RAG -------------------------------------------------------------

var solidoAPI = &apiSpec{
	name: "rag",
	parse: func(r *http.Request, body []byte) (apiRequest, error) {
		var in struct {
			Query          []string `json:"query"`
			InferenceModel string   `json:"inference_model"`
		}
		if err := decodeJSON(body, &in); err != nil {
			return apiRequest{}, err
		}
		if len(in.Query) == 0 {
			return apiRequest{}, badRequest("'query' is required")
		}
		return apiRequest{Model: in.InferenceModel, Stream: wantsStream(r), Prompt: prompt{Text: strings.Join(in.Query, "\n")}}, nil
	},
	answer: func(s *Server, ex *exchange) {
		words := s.outputWords(ex.plan)
		sources := []map[string]string{{"title": "Solido Design Environment User Guide", "chunk": "1"}}
		if !ex.req.Stream {
			if ex.waitTokens(ex.plan.Count) {
				s.writeBody(ex, map[string]any{"content": strings.Join(words, ""), "sources": sources})
			}
			return
		}
		e := startStream(ex.w)
		for _, w := range words {
			if !ex.waitNext() || e.send("", map[string]string{"content": w}) != nil {
				return
			}
		}
		_ = e.send("", map[string]any{"sources": sources})
	},
}
