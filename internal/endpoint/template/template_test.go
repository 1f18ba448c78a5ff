package template

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/endpoint"
	"github.com/aiperf-go/aiperf/internal/endpoint/endpointtest"
)

func extra(kv ...string) []endpoint.ExtraInput {
	var out []endpoint.ExtraInput
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, endpoint.ExtraInput{Key: kv[i], Value: endpoint.AppendString(nil, kv[i+1])})
	}
	return out
}

func build(t *testing.T, s endpoint.Settings) endpoint.Endpoint {
	t.Helper()
	if s.ReadFile == nil {
		s.ReadFile = os.ReadFile
	}
	ep, err := New(s)
	if err != nil {
		t.Fatal(err)
	}
	return ep
}

func render(t *testing.T, ep endpoint.Endpoint, turn *dataset.Turn, o *endpoint.Options) string {
	t.Helper()
	got, err := ep.AppendPayload(nil, turn, o)
	if err != nil {
		t.Fatal(err)
	}
	return string(got)
}

// TestAutoescape: as in AIPerf (Jinja2 with autoescaping), a plain
// {{ value }} is HTML-escaped, so quotes and markup in a prompt keep the
// body valid JSON, while |tojson and |safe print as they are.
func TestAutoescape(t *testing.T) {
	t.Parallel()
	prompt := `Quote " and <tag> & 'apos'`
	for tpl, want := range map[string]string{
		`{"p": "{{ text }}"}`:                                      `{"p":"Quote &#34; and &lt;tag&gt; &amp; &#39;apos&#39;"}`,
		`{"p": {{ text|tojson }}}`:                                 `{"p":"Quote \" and \u003ctag\u003e \u0026 \u0027apos\u0027"}`,
		`{"p": "{{ text|replace('"', '') |safe }}"}`:               `{"p":"Quote  and <tag> & 'apos'"}`,
		`{"n": {{ texts|length }}, "first": "{{ texts[0][:5] }}"}`: `{"n":1,"first":"Quote"}`,
		`{% raw %}{"p": "{{ text }}"}{% endraw %}`:                 `{"p":"{{ text }}"}`,
	} {
		ep := build(t, endpoint.Settings{Extra: extra("payload_template", tpl)})
		got, err := ep.AppendPayload(nil, &dataset.Turn{Texts: []string{prompt}}, &endpoint.Options{Model: "m"})
		if err != nil {
			t.Errorf("%s: %v", tpl, err)
			continue
		}
		want, _ := endpoint.Compact([]byte(want))
		if g, _ := endpoint.Compact(got); string(g) != string(want) {
			t.Errorf("%s:\n got %s\nwant %s", tpl, g, want)
		}
	}
}

// TestSources: a named template, a file (read with the settings' reader),
// and the config file's endpoint.template body and response field; the
// options that configure the endpoint are never sent, other extras and
// the turn's own fields are merged last.
func TestSources(t *testing.T) {
	t.Parallel()
	turn := &dataset.Turn{Texts: []string{"q1", "p1", "p2"}, TextNames: []string{"query", "passages", "passages"}, MaxTokens: 5}
	o := &endpoint.Options{Model: "rr", Extra: append(extra("payload_template", "nv-embedqa", "response_field", "data"), endpoint.ExtraInput{Key: "top_n", Value: []byte("2")})}
	got := render(t, build(t, endpoint.Settings{Extra: o.Extra}), turn, o)
	endpointtest.SameBody(t, "named", []byte(got), []byte(`{"text":["q1","p1","p2"],"top_n":2}`))

	file := filepath.Join("testdata", "rankings.j2")
	var read []string
	s := endpoint.Settings{Extra: extra("payload_template", file), ReadFile: func(p string) ([]byte, error) {
		read = append(read, p)
		return os.ReadFile(p)
	}}
	o.Extra = s.Extra
	got = render(t, build(t, s), turn, o)
	endpointtest.SameBody(t, "file", []byte(got), []byte(`{"q":"q1","docs":["p1","p2"],"n":2,"model":"rr","limit":5}`))
	if len(read) != 1 || read[0] != file {
		t.Errorf("file read through %v", read)
	}

	s = endpoint.Settings{TemplateBody: `{"prompt": {{ text|tojson }}, "stream": {{ stream|tojson }}}`, TemplateResponseField: "out.text",
		Extra: extra("payload_template", "ignored", "temperature", "0.5")}
	ep := build(t, s)
	o = &endpoint.Options{Model: "m", Streaming: true, Extra: s.Extra}
	o.Extra = append(o.Extra, endpoint.ExtraInput{Key: "seed", Value: []byte("7"), Turn: true})
	got = render(t, ep, &dataset.Turn{Texts: []string{"hi"}}, o)
	endpointtest.SameBody(t, "config body", []byte(got), []byte(`{"prompt":"hi","stream":true,"payload_template":"ignored","temperature":"0.5","seed":7}`))
	if p, err := ep.ParseResponse([]byte(`{"out":{"text":"hello"}}`)); err != nil || p.Text != "hello" {
		t.Errorf("response field: %+v, %v", p, err)
	}
}

// TestErrors: no template, one that does not compile or render a JSON
// object, and a malformed response field are errors naming the cause.
func TestErrors(t *testing.T) {
	t.Parallel()
	if _, err := New(endpoint.Settings{}); !errors.Is(err, ErrNoTemplate) {
		t.Errorf("no template: %v", err)
	}
	if _, err := New(endpoint.Settings{Extra: extra("payload_template", `{"a": {{ text `)}); err == nil {
		t.Error("template that does not compile accepted")
	}
	if _, err := New(endpoint.Settings{Extra: extra("payload_template", `{"a": 1}`, "response_field", "a[?")}); err == nil {
		t.Error("malformed response_field accepted")
	}
	ep := build(t, endpoint.Settings{Extra: extra("payload_template", `["{{ text }}"]`)})
	if _, err := ep.AppendPayload(nil, &dataset.Turn{Texts: []string{"x"}}, &endpoint.Options{}); err == nil || !strings.Contains(err.Error(), "JSON object") {
		t.Errorf("non-object render: %v", err)
	}
}
