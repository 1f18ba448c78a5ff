package mockserver

import (
	"encoding/json"
	"sync"
)

// warmCodecs runs the completion path's JSON codecs once per process, on
// throwaway values, before a server answers anything. encoding/json sets
// up each type on first use (reflection over every field, cached
// process-wide): without this the first request did that work, about ten
// times a later request's allocations, while the connections of a cold
// run's first burst queued behind it on the mock's core. It draws no random
// number and touches no counter or statistic, so no request sees a
// difference. TestFirstRequestCostsNoMoreThanLater pins it.
var warmCodecs = sync.OnceFunc(func() {
	const chat = `{"model":"m","messages":[{"role":"user","content":"a"},` +
		`{"role":"user","content":[{"type":"text","text":"b"}]}],` +
		`"stream":true,"stream_options":{"include_usage":true},` +
		`"max_tokens":1,"max_completion_tokens":1,"min_tokens":1,"ignore_eos":true}`
	const completion = `{"model":"m","prompt":["a","b"],"max_tokens":1}`
	_, _ = parseRequest(chatAPI, []byte(chat))
	_, _ = parseRequest(completionAPI, []byte(completion))
	_, _ = parseRequest(completionAPI, []byte(`{"prompt":[1,2]}`))
	text := ""
	_, _ = json.Marshal(completionBody{
		Choices: []choiceOut{{Message: &chatMessageOut{}}, {Text: &text}},
		Usage:   usage{CompletionDetails: &completionDetails{}},
	})
	_, _ = json.Marshal(apiError{})
	_, _ = json.Marshal(usage{CompletionDetails: &completionDetails{}})
})
