package mockserver

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseRequest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		api     apiKind
		body    string
		want    prompt
		wantErr bool
	}{
		{"chat string", chatAPI, `{"messages":[{"role":"user","content":"hi there"}]}`, prompt{Text: "hi there"}, false},
		{"chat joins users", chatAPI, `{"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"},{"role":"user","content":"c"}]}`, prompt{Text: "a\nc", Context: "a\nb\nc"}, false}, // the output plan follows the users; usage counts all
		{"chat parts", chatAPI, `{"messages":[{"role":"user","content":[{"type":"text","text":"x"},{"type":"image_url","image_url":{"url":"u"}},{"type":"text","text":"y"}]}]}`, prompt{Text: "x\ny"}, false},
		{"chat null content", chatAPI, `{"messages":[{"role":"user","content":null},{"role":"user","content":"z"}]}`, prompt{Text: "z"}, false},
		{"chat empty messages", chatAPI, `{"messages":[]}`, prompt{}, false},
		{"chat no messages", chatAPI, `{"prompt":"x"}`, prompt{}, true},
		{"chat numeric content", chatAPI, `{"messages":[{"role":"user","content":1}]}`, prompt{}, true},
		{"chat bad parts", chatAPI, `{"messages":[{"role":"user","content":[1]}]}`, prompt{}, true},
		{"completion string", completionAPI, `{"prompt":"p q"}`, prompt{Text: "p q"}, false},
		{"completion strings", completionAPI, `{"prompt":["p","","q"]}`, prompt{Text: "p\nq"}, false},
		{"completion ids", completionAPI, `{"prompt":[5,6,7]}`, prompt{Text: "5 6 7", TokenIDs: []int{5, 6, 7}}, false},
		{"completion nested ids", completionAPI, `{"prompt":[[5],[6,7]]}`, prompt{Text: "5 6 7", TokenIDs: []int{5, 6, 7}}, false},
		{"completion empty ids", completionAPI, `{"prompt":[[]]}`, prompt{Text: "", TokenIDs: []int{}}, false},
		{"completion object", completionAPI, `{"prompt":{"a":1}}`, prompt{}, true},
		{"completion missing", completionAPI, `{"messages":[]}`, prompt{}, true},
		{"not json", completionAPI, `{`, prompt{}, true},
		{"wrong type", completionAPI, `{"prompt":"a","stream":"yes"}`, prompt{}, true},
		{"negative min", completionAPI, `{"prompt":"a","min_tokens":-2}`, prompt{}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := parseRequest(tc.api, []byte(tc.body))
			if tc.wantErr {
				if !errors.Is(err, errBadRequest) {
					t.Errorf("parseRequest(%s) error = %v; want errBadRequest", tc.body, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseRequest(%s) = %v", tc.body, err)
			}
			if !reflect.DeepEqual(got.Prompt, tc.want) {
				t.Errorf("parseRequest(%s).Prompt = %#v; want %#v", tc.body, got.Prompt, tc.want)
			}
		})
	}
}

func TestMaxOutputPrecedence(t *testing.T) {
	t.Parallel()
	tests := []struct {
		body string
		want any
	}{
		{`{"messages":[]}`, nil},
		{`{"messages":[],"max_tokens":5}`, 5},
		{`{"messages":[],"max_completion_tokens":6,"max_tokens":5}`, 6},
		{`{"messages":[],"max_completion_tokens":0,"max_tokens":5}`, 5},
		{`{"messages":[],"max_tokens":0}`, nil},
	}
	for _, tc := range tests {
		r, err := parseRequest(chatAPI, []byte(tc.body))
		if err != nil {
			t.Fatal(err)
		}
		if got := deref(r.maxOutput()); got != tc.want {
			t.Errorf("maxOutput(%s) = %v; want %v", tc.body, got, tc.want)
		}
	}
}

// FuzzParseRequest checks that no body panics the parser and that every
// accepted request plans a bounded, well-formed output.
func FuzzParseRequest(f *testing.F) {
	for _, s := range []string{
		`{"messages":[{"role":"user","content":"hi"}],"max_tokens":3}`,
		`{"messages":[{"role":"user","content":[{"type":"text","text":"x"}]}],"min_tokens":1,"ignore_eos":true}`,
		`{"prompt":[1,2,3],"stream":true,"stream_options":{"include_usage":true}}`,
		`{"prompt":[[1],[2]]}`, `{"prompt":["a",""]}`, `{"prompt":null}`, `[]`, `null`, `{`,
	} {
		f.Add(s)
	}
	count := func(s string) int { return len(strings.Fields(s)) }
	f.Fuzz(func(t *testing.T, body string) {
		for _, api := range []apiKind{chatAPI, completionAPI} {
			r, err := parseRequest(api, []byte(body))
			if err != nil {
				if !errors.Is(err, errBadRequest) {
					t.Fatalf("error %v does not wrap errBadRequest", err)
				}
				continue
			}
			p := planOutput(&r, count)
			if p.ISL < 0 || p.Count < 0 || p.Count > maxOutputTokens || (p.Finish != finishStop && p.Finish != finishLength) {
				t.Fatalf("planOutput(%s) = %+v", body, p)
			}
		}
	})
}
