package loader

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/dataset/synthesis"
	"github.com/go-json-experiment/json/jsontext"
)

// traceEntry is one request of a trace: its turn (without texts when the
// prompt is to be synthesized) and, then, the prompt request. The turn is
// held as a slice of one, allocated on its own, so that a session of one
// request (most trace rows) becomes a conversation without a copy: a
// million rows hold a million turns once, not twice.
type traceEntry struct {
	session string
	one     []dataset.Turn
	prompt  *synthesis.PromptRequest
}

// turn returns the entry's turn, allocating it on first use.
func (e *traceEntry) turn() *dataset.Turn {
	if e.one == nil {
		e.one = make([]dataset.Turn, 1)
	}
	return &e.one[0]
}

// hashPrompts returns the builder of trace id's prompts of bs-token
// blocks.
func (l *loader) hashPrompts(id string, bs int) (*synthesis.HashPrompts, error) {
	if l.tok == nil {
		return nil, errors.New("trace prompts need a tokenizer")
	}
	sep := -1
	if l.opts.SeparatorToken != nil {
		sep = *l.opts.SeparatorToken
	}
	return synthesis.NewHashPrompts(l.tok, l.opts.Corpus, l.seed, id, bs, sep)
}

// finishTrace applies the Synthesis options, builds the prompts the
// entries ask for and groups the entries into conversations by session
// (generated IDs for entries with none), in order of first appearance.
// Synthesis and prompts go in session order (each session's entries
// together), as AIPerf takes them.
func (l *loader) finishTrace(id string, entries []traceEntry, defaultBlock int) ([]dataset.Conversation, error) {
	bs := l.opts.BlockSize
	if bs <= 0 {
		bs = defaultBlock
	}
	entries, order, err := l.synthesize(entries, bs)
	if err != nil {
		return nil, err
	}
	var reqs []synthesis.PromptRequest
	var at []int
	for _, i := range order {
		if e := &entries[i]; e.prompt != nil {
			reqs = append(reqs, *e.prompt)
			at = append(at, i)
		}
	}
	if len(reqs) > 0 {
		h, err := l.hashPrompts(id, bs)
		if err != nil {
			return nil, err
		}
		texts, counts, prompts, err := h.Build(reqs, l.opts.LazyPrompts)
		if err != nil {
			return nil, err
		}
		for k, i := range at {
			if t := entries[i].turn(); prompts[k] != nil {
				t.Prompt, t.InputTokens = prompts[k], -1
			} else {
				t.Texts, t.InputTokens = []string{texts[k]}, counts[k]
			}
		}
	}
	// Conversations in order of first appearance; a session of one
	// request keeps its entry's turn slice.
	index := map[string]int{}
	n := 0
	for i := range entries {
		if s := entries[i].session; s == "" {
			n++
		} else if _, ok := index[s]; !ok {
			index[s] = -1
			n++
		}
	}
	clear(index)
	convs := make([]dataset.Conversation, 0, n)
	for i := range entries {
		e := &entries[i]
		if t := e.turn(); e.prompt == nil && t.RawPayload == nil {
			t.InputTokens = l.count(t.Texts)
		}
		if e.session == "" {
			convs = append(convs, dataset.Conversation{ID: l.sessionID(), Turns: e.one})
			continue
		}
		if c, ok := index[e.session]; ok {
			convs[c].Turns = append(convs[c].Turns, e.one...)
			continue
		}
		index[e.session] = len(convs)
		convs = append(convs, dataset.Conversation{ID: e.session, Turns: e.one[:1:1]})
	}
	for i := range convs {
		if err := selfContained(&convs[i]); err != nil {
			return nil, err
		}
	}
	return convs, nil
}

// sessionOrder lists entry indices session by session, sessions in order
// of first appearance (an entry without a session is one of its own).
func sessionOrder(entries []traceEntry) []int {
	groups := map[string]int{}
	var lists [][]int
	for i, e := range entries {
		g, ok := groups[e.session]
		if !ok || e.session == "" {
			g = len(lists)
			lists = append(lists, nil)
			if e.session != "" {
				groups[e.session] = g
			}
		}
		lists[g] = append(lists[g], i)
	}
	order := make([]int, 0, len(entries))
	for _, l := range lists {
		order = append(order, l...)
	}
	return order
}

// synthesize drops the entries over --synthesis-max-isl and applies the
// rest of the Synthesis options (see Synthesis), returning the entries
// kept and their session order.
func (l *loader) synthesize(entries []traceEntry, bs int) ([]traceEntry, []int, error) {
	syn := l.opts.Synthesis
	if syn.Active() {
		kept := entries[:0]
		for _, e := range entries {
			it := e.synthItem()
			if syn.keep(&it) {
				kept = append(kept, e)
			}
		}
		entries = kept
	}
	order := sessionOrder(entries)
	if !syn.Active() {
		return entries, order, nil
	}
	items := make([]*synthItem, len(order))
	for k, i := range order {
		it := entries[i].synthItem()
		items[k] = &it
	}
	if err := syn.apply(items, bs, l.seed); err != nil {
		return nil, nil, err
	}
	for k, i := range order {
		entries[i].setSynth(items[k])
	}
	return entries, order, nil
}

// synthItem is what the Synthesizer sees of the entry.
func (e *traceEntry) synthItem() synthItem {
	t := e.turn()
	it := synthItem{ts: t.Timestamp, hasTS: t.HasTimestamp, out: t.MaxTokens}
	if p := e.prompt; p != nil {
		it.hashIDs, it.inputLen, it.hasInput, it.file, it.line = p.HashIDs, p.Length, true, p.File, p.Line
	}
	return it
}

// setSynth takes the synthesized values back.
func (e *traceEntry) setSynth(it *synthItem) {
	t := e.turn()
	t.Timestamp, t.MaxTokens = it.ts, it.out
	if p := e.prompt; p != nil {
		p.HashIDs, p.Length = it.hashIDs, it.inputLen
	}
}

// selfContained marks a session whose turns all carry their own recorded
// messages (or a verbatim payload) as sending each turn alone, as AIPerf
// does; a session mixing them with synthesized prompts, or mixing the two
// kinds, is an error.
func selfContained(c *dataset.Conversation) error {
	msgs, payloads := 0, 0
	for _, t := range c.Turns {
		switch {
		case t.Messages != nil:
			msgs++
		case t.RawPayload != nil:
			payloads++
		}
	}
	switch {
	case msgs > 0 && payloads > 0:
		return fmt.Errorf("session %q mixes %d messages turn(s) and %d payload turn(s); a session must use one mode", c.ID, msgs, payloads)
	case msgs+payloads == len(c.Turns) && msgs+payloads > 0:
		c.Context = dataset.ContextMessageArray
	case msgs+payloads > 0:
		return fmt.Errorf("session %q mixes recorded messages or payloads with synthesized prompts, which cannot be replayed together", c.ID)
	}
	return nil
}

// mooncake reads a mooncake_trace JSONL file. Each line has exactly one
// input mode: input_length (a prompt synthesized from hash_ids blocks, or
// of that many tokens), text_input (the prompt itself) or payload (a
// request body sent verbatim); plus optional output_length, timestamp or
// delay (ms), session_id (lines sharing one form a multi-turn session)
// and extra.
func (l *loader) mooncake() ([]dataset.Conversation, error) {
	file := l.opts.Path
	var entries []traceEntry
	c := newCompactLoad(file)
	compact := l.opts.CompactRows && !l.opts.Synthesis.Active()
	var fast fastRow
	var p problems
	id := p.eachLine(file, func(n int, line []byte) error {
		if compact {
			c.sized(line)
			if scanFastRow(line, &fast) && c.addFast(&fast, n) {
				return nil
			}
		}
		e, err := l.mooncakeLine(file, n, line)
		if err != nil {
			return err
		}
		if compact {
			if c.add(&e) {
				return nil
			}
			compact, entries = false, c.expand(file)
		}
		entries = append(entries, e)
		return nil
	})
	if err := p.err(); err != nil {
		return nil, err
	}
	if compact && c.rows.Len() > 0 {
		var err error
		l.rows, err = l.finishCompact(id, &c, DefaultMooncakeBlockSize)
		return nil, err
	}
	return l.finishTrace(id, entries, DefaultMooncakeBlockSize)
}

func (l *loader) mooncakeLine(file string, n int, line []byte) (traceEntry, error) {
	var e traceEntry
	r, err := parseRow(line)
	if err != nil {
		return e, err
	}
	if typ, ok, _ := r.str("type"); ok && typ != TypeMooncakeTrace {
		return e, &fieldErr{"type", fmt.Errorf("%q is not a mooncake_trace record", typ)}
	}
	if err := mooncakeFieldSet(r); err != nil {
		return e, err
	}
	t := e.turn()
	hashIDs, err := mooncakeCommon(r, &e, t)
	if err != nil {
		return e, err
	}
	if err := l.mooncakeInput(r, &e, t, hashIDs, file, n); err != nil {
		return e, err
	}
	return e, nil
}

// mooncakeFieldSet checks which fields a mooncake row may combine: one
// input mode, tools only with messages, hash_ids only with input_length.
func mooncakeFieldSet(r row) error {
	modes := 0
	for _, k := range []string{"input_length", "text_input", "messages", "payload"} {
		if r.has(k) {
			modes++
		}
	}
	if modes != 1 {
		return errors.New("exactly one of input_length, text_input, messages or payload must be given")
	}
	if r.has("tools") {
		if !r.has("messages") {
			return &fieldErr{"tools", errors.New("only allowed when messages is given")}
		}
		if raw := r.raw("tools"); jsontext.Value(raw).Kind() != '[' || string(raw) == "[]" {
			return &fieldErr{"tools", errors.New("want a non-empty array of tool definitions")}
		}
	}
	if r.has("hash_ids") && !r.has("input_length") {
		return &fieldErr{"hash_ids", errors.New("only allowed with input_length (not with text_input, messages or payload)")}
	}
	return nil
}

// mooncakeCommon reads the fields every input mode shares into e and t.
func mooncakeCommon(r row, e *traceEntry, t *dataset.Turn) (hashIDs []int, err error) {
	if t.MaxTokens, _, err = r.int("output_length"); err != nil {
		return nil, &fieldErr{"output_length", err}
	}
	if t.MaxTokens < 0 {
		return nil, &fieldErr{"output_length", fmt.Errorf("must not be negative, got %d", t.MaxTokens)}
	}
	if err := traceTiming(r, t); err != nil {
		return nil, err
	}
	if e.session, _, err = r.str("session_id"); err != nil {
		return nil, &fieldErr{"session_id", err}
	}
	if t.Extra, _, err = r.object("extra"); err != nil {
		return nil, &fieldErr{"extra", err}
	}
	hashIDs, _, err = r.ints("hash_ids")
	if err != nil {
		return nil, &fieldErr{"hash_ids", err}
	}
	return hashIDs, nil
}

// mooncakeInput reads the row's one input mode into t (or e's synthetic
// prompt, for input_length).
func (l *loader) mooncakeInput(r row, e *traceEntry, t *dataset.Turn, hashIDs []int, file string, n int) error {
	var err error
	switch {
	case r.has("messages"):
		raw := r.raw("messages")
		if jsontext.Value(raw).Kind() != '[' {
			return &fieldErr{"messages", typeErr(raw, "an array of chat messages")}
		}
		if err := checkMessages(raw); err != nil {
			return &fieldErr{"messages", err}
		}
		t.Messages = append([]byte(nil), raw...)
		t.Tools = r.raw("tools")
		t.Texts = payloadTexts(row{fields: []dataset.Field{{Key: "messages", Value: raw}}})
	case r.has("payload"):
		raw := r.raw("payload")
		if jsontext.Value(raw).Kind() != '{' || string(raw) == "{}" {
			return &fieldErr{"payload", errors.New("want a non-empty object")}
		}
		if *t, err = l.rawTurn(append([]byte(nil), raw...)); err != nil {
			return &fieldErr{"payload", err}
		}
		traceTiming(r, t)
		if n, ok, _ := r.int("output_length"); ok {
			t.MaxTokens = n
		}
	case r.has("text_input"):
		s, _, err := r.str("text_input")
		if err != nil {
			return &fieldErr{"text_input", err}
		}
		t.Texts = []string{s}
	default:
		length, _, err := r.int("input_length")
		if err != nil {
			return &fieldErr{"input_length", err}
		}
		if length < 1 {
			return &fieldErr{"input_length", fmt.Errorf("must be at least 1, got %d", length)}
		}
		e.prompt = &synthesis.PromptRequest{Length: length, HashIDs: hashIDs, File: file, Line: n}
	}
	return nil
}

// traceTiming reads a trace row's timestamp or delay (milliseconds).
func traceTiming(r row, t *dataset.Turn) error {
	stamp, hasStamp, err := r.num("timestamp")
	if err != nil {
		return &fieldErr{"timestamp", err}
	}
	if hasStamp {
		if err := checkMs(stamp); err != nil {
			return &fieldErr{"timestamp", err}
		}
		t.Timestamp, t.HasTimestamp = msDuration(stamp), true
	}
	delay, hasDelay, err := r.num("delay")
	if err != nil {
		return &fieldErr{"delay", err}
	}
	if hasDelay {
		if err := checkMs(delay); err != nil {
			return &fieldErr{"delay", err}
		}
		t.Delay = msDuration(delay)
	}
	return nil
}

// bailianEntry is a bailian_trace row's linkage.
type bailianEntry struct {
	chat, parent, turnNo int
	entry                traceEntry
}

// bailian reads an Alibaba Bailian trace: chat_id, parent_chat_id (-1 for
// a root), timestamp (seconds), input_length, output_length, type, turn,
// hash_ids (16-token blocks). Requests linked through parent_chat_id form
// one session, named after its root chat_id and ordered by turn.
func (l *loader) bailian() ([]dataset.Conversation, error) {
	file := l.opts.Path
	var rows []bailianEntry
	var p problems
	id := p.eachLine(file, func(n int, line []byte) error {
		b, err := bailianLine(file, n, line)
		if err != nil {
			return err
		}
		rows = append(rows, b)
		return nil
	})
	if err := p.err(); err != nil {
		return nil, err
	}
	byChat := make(map[int]int, len(rows))
	for i, r := range rows {
		byChat[r.chat] = i
	}
	root := func(chat int) int {
		seen := map[int]bool{}
		cur := chat
		for {
			i, ok := byChat[cur]
			if !ok || rows[i].parent == -1 || seen[cur] {
				return cur
			}
			seen[cur] = true
			parent := rows[i].parent
			if _, ok := byChat[parent]; !ok || parent == cur {
				return cur
			}
			cur = parent
		}
	}
	groups := map[int][]bailianEntry{}
	var order []int
	for _, r := range rows {
		g := root(r.chat)
		if _, ok := groups[g]; !ok {
			order = append(order, g)
		}
		groups[g] = append(groups[g], r)
	}
	var entries []traceEntry
	for _, g := range order {
		rs := groups[g]
		sort.SliceStable(rs, func(a, b int) bool { return rs[a].turnNo < rs[b].turnNo })
		for _, r := range rs {
			r.entry.session = strconv.Itoa(g)
			entries = append(entries, r.entry)
		}
	}
	return l.finishTrace(id, entries, DefaultBailianBlockSize)
}

func bailianLine(file string, n int, line []byte) (bailianEntry, error) {
	b := bailianEntry{parent: -1, turnNo: 1}
	r, err := parseRow(line)
	if err != nil {
		return b, err
	}
	need := func(key string) (int, error) {
		v, ok, err := r.int(key)
		if err == nil && !ok {
			err = errors.New("missing")
		}
		if err != nil {
			return 0, &fieldErr{key, err}
		}
		return v, nil
	}
	if b.chat, err = need("chat_id"); err != nil {
		return b, err
	}
	if v, ok, err := r.int("parent_chat_id"); err != nil {
		return b, &fieldErr{"parent_chat_id", err}
	} else if ok {
		b.parent = v
	}
	if v, ok, err := r.int("turn"); err != nil {
		return b, &fieldErr{"turn", err}
	} else if ok {
		b.turnNo = v
	}
	if _, _, err := r.str("type"); err != nil {
		return b, &fieldErr{"type", err}
	}
	stamp, ok, err := r.num("timestamp")
	if err == nil && !ok {
		err = errors.New("missing")
	}
	if err == nil {
		err = checkMs(stamp * 1000)
	}
	if err != nil {
		return b, &fieldErr{"timestamp", err}
	}
	in, err := need("input_length")
	if err != nil {
		return b, err
	}
	if in < 1 {
		return b, &fieldErr{"input_length", fmt.Errorf("must be at least 1, got %d", in)}
	}
	out, err := need("output_length")
	if err != nil {
		return b, err
	}
	if out < 0 {
		return b, &fieldErr{"output_length", fmt.Errorf("must not be negative, got %d", out)}
	}
	hashIDs, _, err := r.ints("hash_ids")
	if err != nil {
		return b, &fieldErr{"hash_ids", err}
	}
	*b.entry.turn() = dataset.Turn{MaxTokens: out, Timestamp: msDuration(stamp * 1000), HasTimestamp: true}
	b.entry.prompt = &synthesis.PromptRequest{Length: in, HashIDs: hashIDs, File: file, Line: n}
	return b, nil
}

// burstGPT columns AIPerf requires; others (Model, Total tokens, Log
// Type) are ignored.
var burstGPTColumns = []string{"Timestamp", "Request tokens", "Response tokens"}

// burstGPT reads a BurstGPT CSV trace: each row is one single-turn
// request at Timestamp (seconds) with a synthesized prompt of Request
// tokens tokens and Response tokens as its output limit.
func (l *loader) burstGPT() ([]dataset.Conversation, error) {
	file := l.opts.Path
	t, err := openText(file)
	if err != nil {
		return nil, err
	}
	defer t.close()
	cr := csv.NewReader(bufio.NewReaderSize(t, 64<<10))
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err != nil {
		return nil, &dataset.InputError{File: file, Line: 1, Err: fmt.Errorf("reading the CSV header: %w", err)}
	}
	col := map[string]int{}
	for i, h := range header {
		col[strings.TrimSpace(h)] = i
	}
	var missing []string
	for _, c := range burstGPTColumns {
		if _, ok := col[c]; !ok {
			missing = append(missing, strconv.Quote(c))
		}
	}
	if len(missing) > 0 {
		return nil, &dataset.InputError{File: file, Line: 1, Err: fmt.Errorf("missing required column(s) %s", strings.Join(missing, ", "))}
	}
	var entries []traceEntry
	var p problems
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var ie *dataset.InputError
			if errors.As(err, &ie) { // NUL byte or a line past the limit
				p.add(ie)
				break
			}
			line := 0
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				line = pe.Line
			}
			p.add(&dataset.InputError{File: file, Line: line, Err: err})
			break
		}
		line, _ := cr.FieldPos(0)
		if !utf8Row(rec) {
			if !p.add(&dataset.InputError{File: file, Line: line, Err: errors.New("not valid UTF-8")}) {
				break
			}
			continue
		}
		e, err := burstGPTRow(file, line, rec, col)
		if err != nil {
			if !p.add(err) {
				break
			}
			continue
		}
		entries = append(entries, e)
	}
	if err := p.err(); err != nil {
		return nil, err
	}
	return l.finishTrace(t.id(), entries, DefaultMooncakeBlockSize)
}

func burstGPTRow(file string, line int, rec []string, col map[string]int) (traceEntry, error) {
	get := func(name string) (string, error) {
		i := col[name]
		if i >= len(rec) {
			return "", &dataset.InputError{File: file, Line: line, Field: name, Err: errors.New("missing")}
		}
		return strings.TrimSpace(rec[i]), nil
	}
	var e traceEntry
	ts, err := get("Timestamp")
	if err != nil {
		return e, err
	}
	stamp, err := strconv.ParseFloat(ts, 64)
	if err != nil || checkMs(stamp*1000) != nil {
		return e, &dataset.InputError{File: file, Line: line, Field: "Timestamp", Err: fmt.Errorf("want a non-negative number of seconds, got %q", ts)}
	}
	ints := [2]int{}
	for i, name := range burstGPTColumns[1:] {
		s, err := get(name)
		if err != nil {
			return e, err
		}
		v, err := strconv.Atoi(s)
		if err != nil || v < 0 || v > 1<<30 {
			return e, &dataset.InputError{File: file, Line: line, Field: name, Err: fmt.Errorf("want a non-negative integer, got %q", s)}
		}
		ints[i] = v
	}
	if ints[0] < 1 {
		return e, &dataset.InputError{File: file, Line: line, Field: "Request tokens", Err: fmt.Errorf("must be at least 1, got %d", ints[0])}
	}
	*e.turn() = dataset.Turn{MaxTokens: ints[1], Timestamp: msDuration(stamp * 1000), HasTimestamp: true}
	e.prompt = &synthesis.PromptRequest{Length: ints[0], File: file, Line: line}
	return e, nil
}

// utf8Row reports whether every field of a CSV record is valid UTF-8.
func utf8Row(rec []string) bool {
	for _, f := range rec {
		if !utf8.ValidString(f) {
			return false
		}
	}
	return true
}
