package report

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// TurnMessagesOptions configure TurnMessages (AIPerf's defaults: 40
// conversations, 60 turns each, 8000 characters per message).
type TurnMessagesOptions struct {
	Out                string // empty: <run>/turn_messages.html
	LimitConversations int
	MaxTurns           int
	ContentCap         int
}

// rawRecordFiles finds a run's raw exports: raw_records/*.jsonl shards
// or profile_export_raw.jsonl.
func rawRecordFiles(runDir string) []string {
	shards, _ := filepath.Glob(filepath.Join(runDir, "raw_records", "*.jsonl"))
	slices.Sort(shards)
	if len(shards) > 0 {
		return shards
	}
	if p := filepath.Join(runDir, "profile_export_raw.jsonl"); fileExists(p) {
		return []string{p}
	}
	return nil
}

// turn is one request of a conversation, as the viewer shows it.
type turn struct {
	Index     int    `json:"i"`
	Phase     string `json:"p,omitempty"`
	Model     string `json:"m,omitempty"`
	MaxTokens int    `json:"k,omitempty"`
	Error     string `json:"e,omitempty"`
	Cancelled bool   `json:"c,omitempty"`
	Msgs      []int  `json:"g"` // indices into the interned messages
	start     int64
}

type conversation struct {
	ID     string `json:"id"`
	Depth  int    `json:"d,omitempty"`
	Parent string `json:"pa,omitempty"`
	Turns  []turn `json:"t"`
	Hidden int    `json:"h,omitempty"` // turns past MaxTurns
	start  int64
}

// message is one interned (role, body) pair.
type message struct {
	Role string `json:"r"`
	Body string `json:"b"`
	Cut  int    `json:"x,omitempty"` // characters cut past ContentCap
}

// TurnMessages writes `aiperf analyze turn-messages`: a self-contained
// HTML viewer of the input messages each turn of each conversation sent,
// read from the run's raw records (--export-level raw). Conversations,
// turns and messages are nested <details> built in the browser from an
// embedded JSON tree, lazily when opened, so a large run stays light; a
// message body repeated by later turns (the history) is stored once.
func TurnMessages(runDir string, o TurnMessagesOptions) (string, error) {
	files := rawRecordFiles(runDir)
	if len(files) == 0 {
		return "", fmt.Errorf("%s has no raw records (raw_records/*.jsonl or profile_export_raw.jsonl): run with --export-level raw", runDir)
	}
	o.LimitConversations = cmp.Or(o.LimitConversations, 40)
	o.MaxTurns = cmp.Or(o.MaxTurns, 60)
	o.ContentCap = cmp.Or(o.ContentCap, 8000)

	convs := map[string]*conversation{}
	corrToConv := map[string]string{}
	var msgs []message
	msgIndex := map[string]int{}
	intern := func(role, body string) int {
		key := role + "\x00" + body
		if i, ok := msgIndex[key]; ok {
			return i
		}
		m := message{Role: role, Body: body}
		if n := utf8.RuneCountInString(body); n > o.ContentCap {
			r := []rune(body)
			m.Body, m.Cut = string(r[:o.ContentCap]), n-o.ContentCap
		}
		msgs = append(msgs, m)
		msgIndex[key] = len(msgs) - 1
		return len(msgs) - 1
	}
	records := 0
	for _, f := range files {
		if err := scanRaw(f, func(r *rawRecord) {
			records++
			md := &r.Metadata
			id := cmp.Or(md.ConversationID, "(none)")
			c := convs[id]
			if c == nil {
				c = &conversation{ID: id, Depth: md.AgentDepth, start: md.StartNs}
				convs[id] = c
			}
			if md.XCorrelationID != "" {
				corrToConv[md.XCorrelationID] = id
			}
			if md.ParentCorrelationID != "" {
				c.Parent = md.ParentCorrelationID
			}
			c.start = min(c.start, md.StartNs)
			t := turn{Index: md.TurnIndex, Phase: md.Phase, Model: r.Payload.Model, MaxTokens: cmp.Or(r.Payload.MaxCompletionTokens, r.Payload.MaxTokens),
				Cancelled: md.Cancelled, start: md.StartNs}
			if len(r.Error) > 0 && string(r.Error) != "null" {
				t.Error = string(r.Error)
			}
			for _, m := range r.Payload.Messages {
				role, body := displayMessage(m)
				t.Msgs = append(t.Msgs, intern(role, body))
			}
			c.Turns = append(c.Turns, t)
		}); err != nil {
			return "", err
		}
	}
	if records == 0 {
		return "", fmt.Errorf("%s: the raw records are empty", runDir)
	}
	all := make([]*conversation, 0, len(convs))
	for _, c := range convs {
		if c.Parent != "" {
			if p, ok := corrToConv[c.Parent]; ok {
				c.Parent = p
			}
		}
		slices.SortStableFunc(c.Turns, func(a, b turn) int { return cmp.Or(cmp.Compare(a.Index, b.Index), cmp.Compare(a.start, b.start)) })
		if len(c.Turns) > o.MaxTurns {
			c.Hidden = len(c.Turns) - o.MaxTurns
			c.Turns = c.Turns[:o.MaxTurns]
		}
		all = append(all, c)
	}
	// Roots first, then by their first request.
	slices.SortStableFunc(all, func(a, b *conversation) int {
		return cmp.Or(cmp.Compare(a.Depth, b.Depth), cmp.Compare(a.start, b.start), cmp.Compare(a.ID, b.ID))
	})
	total := len(all)
	all = all[:min(len(all), o.LimitConversations)]
	// Keep only the messages the shown turns use, renumbered.
	used := map[int]int{}
	var kept []message
	for _, c := range all {
		for ti := range c.Turns {
			for mi, g := range c.Turns[ti].Msgs {
				n, ok := used[g]
				if !ok {
					n = len(kept)
					used[g] = n
					kept = append(kept, msgs[g])
				}
				c.Turns[ti].Msgs[mi] = n
			}
		}
	}
	data, err := json.Marshal(struct {
		Convs []*conversation `json:"convs"`
		Msgs  []message       `json:"msgs"`
	}{all, kept})
	if err != nil {
		return "", err
	}
	out := cmp.Or(o.Out, filepath.Join(runDir, "turn_messages.html"))
	var buf bytes.Buffer
	err = turnMessagesTemplate().Execute(&buf, map[string]any{
		"Title": "Turn messages: " + filepath.Base(runDir), "Shown": len(all), "Total": total, "Records": records,
		"Data": template.JS(jsonForScript(data)),
	})
	if err != nil {
		return "", err
	}
	return out, os.WriteFile(out, buf.Bytes(), 0o644)
}

// jsonForScript makes JSON safe inside <script>: no "</" can end it.
func jsonForScript(b []byte) string {
	return strings.ReplaceAll(string(b), "</", `<\/`)
}

type rawRecord struct {
	Metadata struct {
		ConversationID      string `json:"conversation_id"`
		TurnIndex           int    `json:"turn_index"`
		AgentDepth          int    `json:"agent_depth"`
		ParentCorrelationID string `json:"parent_correlation_id"`
		XCorrelationID      string `json:"x_correlation_id"`
		Phase               string `json:"benchmark_phase"`
		Cancelled           bool   `json:"was_cancelled"`
		StartNs             int64  `json:"request_start_ns"`
	} `json:"metadata"`
	Payload struct {
		Model               string            `json:"model"`
		MaxCompletionTokens int               `json:"max_completion_tokens"`
		MaxTokens           int               `json:"max_tokens"`
		Messages            []json.RawMessage `json:"messages"`
	} `json:"payload"`
	Error json.RawMessage `json:"error"`
}

// scanRaw streams a raw JSONL file, skipping lines that do not parse (a
// torn last line of an interrupted run).
func scanRaw(path string, fn func(*rawRecord)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 256<<20)
	for sc.Scan() {
		var r rawRecord
		if json.Unmarshal(sc.Bytes(), &r) == nil {
			fn(&r)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// displayMessage is a chat message's role and what the viewer shows: a
// plain string content as is; multimodal parts, tool calls and other
// fields as the JSON that was sent.
func displayMessage(raw json.RawMessage) (role, body string) {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return "?", string(raw)
	}
	_ = json.Unmarshal(m["role"], &role)
	var content string
	if json.Unmarshal(m["content"], &content) == nil && len(m) <= 2 {
		return cmp.Or(role, "?"), content
	}
	delete(m, "role")
	b, _ := json.MarshalIndent(m, "", "  ")
	return cmp.Or(role, "?"), string(b)
}

var turnMessagesTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("turns").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}}</title>
<style>
body { font-family: -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; margin: 16px 24px; }
h1 { color: #76B900; }
details { margin: 4px 0 4px 16px; }
summary { cursor: pointer; }
.conv > summary { font-weight: bold; }
.role { display: inline-block; min-width: 80px; color: #fff; background: #76B900; border-radius: 3px; padding: 0 6px; margin-right: 8px; }
.role.assistant { background: #1F77B4; } .role.system { background: #7F7F7F; } .role.tool { background: #9467BD; }
pre { white-space: pre-wrap; word-break: break-word; background: #f7f7f7; padding: 6px; margin: 4px 0 8px 16px; }
.meta { color: #888; font-size: 0.85em; }
.err { color: #D62728; }
</style></head>
<body>
<h1>{{.Title}}</h1>
<p class="meta">{{.Shown}} of {{.Total}} conversation(s) from {{.Records}} request(s); open a conversation, then a turn, to see the messages it sent.</p>
<div id="root"></div>
<script id="turn-data" type="application/json">{{.Data}}</script>
<script>
(function () {
  var data = JSON.parse(document.getElementById("turn-data").textContent);
  var root = document.getElementById("root");
  function el(tag, cls, text) { var e = document.createElement(tag); if (cls) { e.className = cls; } if (text !== undefined) { e.textContent = text; } return e; }
  function lazy(details, build) {
    details.addEventListener("toggle", function () { if (details.open && !details.dataset.built) { details.dataset.built = "1"; build(); } });
  }
  data.convs.forEach(function (c) {
    var d = el("details", "conv");
    var label = c.id + " · " + c.t.length + " turn(s)" + (c.h ? " (+" + c.h + " hidden)" : "") + (c.d ? " · subagent of " + (c.pa || "?") : "");
    d.appendChild(el("summary", "", label));
    lazy(d, function () {
      c.t.forEach(function (t) {
        var td = el("details", "turn");
        var meta = "turn " + t.i + " · " + t.g.length + " message(s)" + (t.m ? " · " + t.m : "") + (t.k ? " · max tokens " + t.k : "") + (t.p && t.p !== "profiling" ? " · " + t.p : "");
        var s = el("summary", t.e ? "err" : "", meta + (t.e ? " · error" : "") + (t.c ? " · cancelled" : ""));
        td.appendChild(s);
        lazy(td, function () {
          if (t.e) { td.appendChild(el("pre", "err", t.e)); }
          t.g.forEach(function (gi) {
            var m = data.msgs[gi];
            var md = el("details", "msg");
            var sum = el("summary");
            sum.appendChild(el("span", "role " + m.r, m.r));
            sum.appendChild(document.createTextNode(m.b.slice(0, 120).replace(/\s+/g, " ") + (m.b.length > 120 ? "…" : "")));
            md.appendChild(sum);
            lazy(md, function () { md.appendChild(el("pre", "", m.b + (m.x ? "\n… " + m.x + " more characters (raise --content-cap)" : ""))); });
            td.appendChild(md);
          });
        });
        d.appendChild(td);
      });
    });
    root.appendChild(d);
  });
  document.body.setAttribute("data-conversations", String(data.convs.length));
})();
</script>
</body></html>
`))
})
