package loader

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/tokenizer"
	"github.com/aiperf-go/aiperf/internal/tokenizer/hub"
)

// Where AIPerf's ShareGPT public dataset comes from: a file of a dataset
// repository on the Hugging Face hub.
const (
	ShareGPTRepo = "anon8231489123/ShareGPT_Vicuna_unfiltered"
	ShareGPTFile = "ShareGPT_V3_unfiltered_cleaned_split.json"
)

// ShareGPT filter bounds, vLLM's (and so AIPerf's): a prompt and its
// completion must each have at least shareGPTMinLen tokens (the completion
// check is skipped when --osl is set), the prompt at most shareGPTMaxPrompt
// and both together at most shareGPTMaxTotal.
const (
	shareGPTMinLen    = 4
	shareGPTMaxPrompt = 1024
	shareGPTMaxTotal  = 2048
)

// FetchShareGPT returns the path of the ShareGPT file in the Hugging Face
// hub cache, downloading it there first when it is missing. getenv supplies
// HF_HOME, HF_HUB_CACHE, HF_HUB_OFFLINE, HF_ENDPOINT and HF_TOKEN (as
// environ.Getenv does); httpClient may be nil for the default.
func FetchShareGPT(ctx context.Context, getenv func(string) string, httpClient *http.Client) (string, error) {
	c := hub.FromEnv(getenv, httpClient)
	f, err := c.DownloadDataset(ctx, ShareGPTRepo, "", ShareGPTFile)
	if err != nil {
		return "", fmt.Errorf("public dataset sharegpt: %w", err)
	}
	return f.Path, nil
}

// ShareGPTOptions shapes a ShareGPT dataset.
type ShareGPTOptions struct {
	// Path is the ShareGPT JSON file (from FetchShareGPT or the user).
	Path string
	// FromHubCache marks Path as FetchShareGPT's answer: a file of the
	// hub cache, which the tool manages and which legitimately is a
	// symbolic link into blobs/. A user-given path (false) is read with
	// the safe reader, which refuses links.
	FromHubCache bool
	// OSLSet skips the minimum completion length check, as AIPerf does
	// when --osl is given.
	OSLSet bool
	// Models are assigned to turns round-robin; empty leaves Turn.Model
	// unset.
	Models  []string
	Seed    uint64
	SeedSet bool
}

type shareGPTMessage struct {
	From  string         `json:"from"`
	Value jsontext.Value `json:"value"`
}

// LoadShareGPT reads a ShareGPT file (a JSON array of {"conversations":
// [{"from": "human"|"gpt", "value": text}, ...]}) as AIPerf 0.13 does:
// every adjacent human->gpt pair of an entry is one turn (without roles,
// the first two messages are the pair), the completion's token count is
// the turn's max tokens, and an entry is dropped when any pair fails the
// length filter or it has no pair. Entries are sent sequentially.
func LoadShareGPT(o ShareGPTOptions, tok tokenizer.Tokenizer) (*Loaded, error) {
	if tok == nil {
		return nil, errors.New("the sharegpt dataset needs a tokenizer")
	}
	var data []byte
	var err error
	if o.FromHubCache {
		if data, err = os.ReadFile(o.Path); err != nil {
			err = &dataset.InputError{File: o.Path, Err: err}
		}
	} else {
		data, err = readFile(o.Path)
	}
	if err != nil {
		return nil, err
	}
	if !utf8.Valid(data) {
		return nil, &dataset.InputError{File: o.Path, Err: errors.New("not valid UTF-8")}
	}
	var entries []jsontext.Value
	if err := json.Unmarshal(data, &entries); err != nil {
		return nil, &dataset.InputError{File: o.Path, Err: fmt.Errorf("want a JSON array of conversations: %w", err)}
	}
	pairs := make([][][2]string, len(entries))
	var p problems
	for i, e := range entries {
		var entry struct {
			Conversations []jsontext.Value `json:"conversations"`
		}
		if e.Kind() != '{' || json.Unmarshal(e, &entry) != nil {
			p.add(&dataset.InputError{File: o.Path, Field: fmt.Sprintf("[%d].conversations", i), Err: errors.New("want an object with a conversations array")})
			continue
		}
		var msgs []shareGPTMessage
		for _, m := range entry.Conversations {
			var msg shareGPTMessage
			if m.Kind() == '{' && json.Unmarshal(m, &msg) == nil {
				msgs = append(msgs, msg)
			}
		}
		pairs[i] = shareGPTPairs(msgs)
	}
	if err := p.err(); err != nil {
		return nil, err
	}
	type counted struct{ prompt, completion int }
	counts := make([][]counted, len(pairs))
	dataset.ForEachParallel(len(pairs), func(i int) {
		counts[i] = make([]counted, len(pairs[i]))
		for j, pr := range pairs[i] {
			counts[i][j] = counted{tok.Count(pr[0]), tok.Count(pr[1])}
		}
	})
	l := &loader{opts: LoadOptions{SeedSet: o.SeedSet}, seed: o.Seed}
	var convs []dataset.Conversation
	turnNo := 0
	for i := range pairs {
		ok := len(pairs[i]) > 0
		for _, c := range counts[i] {
			ok = ok && shareGPTValid(c.prompt, c.completion, o.OSLSet)
		}
		if !ok {
			continue
		}
		conv := dataset.Conversation{ID: l.sessionID()}
		for j, pr := range pairs[i] {
			t := dataset.Turn{Role: "user", Texts: []string{pr[0]}, InputTokens: counts[i][j].prompt, MaxTokens: counts[i][j].completion}
			if len(o.Models) > 0 {
				t.Model = o.Models[turnNo%len(o.Models)]
				turnNo++
			}
			conv.Turns = append(conv.Turns, t)
		}
		convs = append(convs, conv)
	}
	if len(convs) == 0 {
		return nil, &dataset.InputError{File: o.Path, Err: errors.New("no conversation passes the ShareGPT length filter; the dataset is empty")}
	}
	return &Loaded{Dataset: &dataset.Dataset{Conversations: convs}, Type: "sharegpt", Sampling: dataset.SamplingSequential}, nil
}

// shareGPTPairs pairs prompts with completions.
func shareGPTPairs(msgs []shareGPTMessage) [][2]string {
	if len(msgs) < 2 {
		return nil
	}
	str := func(v jsontext.Value) string {
		var s string
		if v.Kind() == '"' && json.Unmarshal(v, &s) == nil {
			return s
		}
		return ""
	}
	roles := false
	for _, m := range msgs {
		roles = roles || m.From == "human" || m.From == "gpt"
	}
	if !roles {
		p, c := str(msgs[0].Value), str(msgs[1].Value)
		if p == "" || c == "" {
			return nil
		}
		return [][2]string{{p, c}}
	}
	var rm []shareGPTMessage
	for _, m := range msgs {
		if m.From == "human" || m.From == "gpt" {
			rm = append(rm, m)
		}
	}
	var out [][2]string
	for i := 0; i < len(rm)-1; {
		if rm[i].From == "human" && rm[i+1].From == "gpt" {
			if p, c := str(rm[i].Value), str(rm[i+1].Value); p != "" && c != "" {
				out = append(out, [2]string{p, c})
			}
			i += 2
		} else {
			i++
		}
	}
	return out
}

func shareGPTValid(prompt, completion int, oslSet bool) bool {
	switch {
	case prompt < shareGPTMinLen, prompt > shareGPTMaxPrompt:
		return false
	case !oslSet && completion < shareGPTMinLen:
		return false
	}
	return prompt+completion <= shareGPTMaxTotal
}
