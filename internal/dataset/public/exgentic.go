package public

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/dataset/hfdata"
)

// Exgentic filter values (case-insensitive), AIPerf's enums.
var (
	exgenticHarnesses = []string{"claude_code", "openai_solo", "smolagents_code", "tool_calling", "tool_calling_with_shortlisting"}
	exgenticModels    = []string{"DeepSeek-V3.2", "Kimi-K2.5", "claude-opus-4-5", "gemini-3-pro-preview", "gpt-4.1", "gpt-5.2-2025-12-11"}
	exgenticBenches   = []string{"appworld", "browsecompplus", "swebench", "tau2_airline", "tau2_retail", "tau2_telecom"}
)

// exgenticUnsupported are the harness/model pairs each corpus lacks.
var exgenticUnsupported = map[string][][2]string{
	"exgentic": {
		{"openai_solo", "gpt-5.2-2025-12-11"}, {"smolagents_code", "claude-opus-4-5"}, {"smolagents_code", "gemini-3-pro-preview"},
		{"smolagents_code", "gpt-5.2-2025-12-11"}, {"tool_calling", "gpt-5.2-2025-12-11"}, {"tool_calling_with_shortlisting", "claude-opus-4-5"},
		{"tool_calling_with_shortlisting", "gpt-4.1"}, {"tool_calling_with_shortlisting", "gpt-5.2-2025-12-11"},
	},
	"exgentic_v2": {
		{"claude_code", "gpt-4.1"}, {"openai_solo", "gpt-4.1"}, {"smolagents_code", "gpt-4.1"}, {"tool_calling", "gpt-4.1"},
		{"tool_calling_with_shortlisting", "claude-opus-4-5"}, {"tool_calling_with_shortlisting", "gpt-4.1"},
		{"tool_calling_with_shortlisting", "gpt-5.2-2025-12-11"},
	},
}

// canonicalSourceModel strips Exgentic's provider prefixes.
func canonicalSourceModel(v string) string {
	low := strings.ToLower(v)
	for _, p := range []string{"openai/azure/", "azure/", "aws/", "gcp/"} {
		if strings.HasPrefix(low, p) {
			return v[len(p):]
		}
	}
	return v
}

func pickFold(choices []string, v string) (string, bool) {
	for _, c := range choices {
		if strings.EqualFold(c, v) {
			return c, true
		}
	}
	return "", false
}

type exgenticFilters struct{ harness, model, benchmark string }

func (l *loading) exgenticFilters() (exgenticFilters, error) {
	var f exgenticFilters
	available := func() string {
		s := "harness=[" + strings.Join(exgenticHarnesses, ", ") + "], source_model=[" + strings.Join(exgenticModels, ", ") + "]"
		if l.spec.BenchmarkFilter {
			s += ", benchmark=[" + strings.Join(exgenticBenches, ", ") + "]"
		}
		return s
	}
	keys := make([]string, 0, len(l.o.Filters))
	for k := range l.o.Filters {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := l.o.Filters[k]
		var ok bool
		switch k {
		case "harness":
			f.harness, ok = pickFold(exgenticHarnesses, v)
		case "source_model":
			f.model, ok = pickFold(exgenticModels, canonicalSourceModel(v))
		case "benchmark":
			if !l.spec.BenchmarkFilter {
				return f, errors.New("--dataset-filter benchmark is only supported for exgentic_v2")
			}
			f.benchmark, ok = pickFold(exgenticBenches, v)
		default:
			return f, fmt.Errorf("--dataset-filter: unknown key %q; available filters: %s", k, available())
		}
		if !ok {
			return f, fmt.Errorf("--dataset-filter %s=%q is not a valid value; available filters: %s", k, v, available())
		}
	}
	bad := exgenticUnsupported[l.spec.Name]
	if f.harness != "" && f.model != "" && slices.Contains(bad, [2]string{f.harness, f.model}) {
		var ok []string
		for _, m := range exgenticModels {
			if !slices.Contains(bad, [2]string{f.harness, m}) {
				ok = append(ok, m)
			}
		}
		return f, fmt.Errorf("unsupported Exgentic filter combination harness=%q, source_model=%q; available source models for this harness: %s",
			f.harness, f.model, strings.Join(ok, ", "))
	}
	if f.model != "" {
		all := true
		for _, h := range exgenticHarnesses {
			all = all && slices.Contains(bad, [2]string{h, f.model})
		}
		if all {
			return f, fmt.Errorf("unsupported Exgentic source_model=%q; no harness supports it", f.model)
		}
	}
	return f, nil
}

// exgenticSpan is one replayable recorded call.
type exgenticSpan struct {
	start, end float64 // ms since the epoch
	index      int
	turn       dataset.Turn
}

// exgentic replays Exgentic sessions: every recorded LLM call is a turn
// that sends the call's complete message snapshot and tools, with the
// recorded output limit; turns follow each other after the recorded idle
// gap, or, in a fixed-schedule run, each call is its own conversation at
// its recorded time.
func (l *loading) exgentic(ctx context.Context) ([]dataset.Conversation, error) {
	filters, err := l.exgenticFilters()
	if err != nil {
		return nil, err
	}
	limit := l.o.Entries
	if limit == 0 {
		limit = l.o.Limit
	}
	if limit <= 0 {
		return nil, errors.New("exgentic needs a finite entry or request count; set --num-conversations, --num-dataset-entries or --request-count")
	}
	local, err := l.fetch(ctx, l.spec.Repo)
	if err != nil {
		return nil, err
	}
	var (
		convs    []dataset.Conversation
		sessions int
		combos   = map[string]bool{}
		seen     = map[string]bool{}
		rowIndex = 0
	)
	err = local.Rows(func(r hfdata.Row) error {
		rowIndex++
		got, err := l.exgenticRow(rowIndex, r, filters, combos, seen)
		if err != nil {
			return err
		}
		if len(got) > 0 {
			sessions++
			convs = append(convs, got...)
		}
		if sessions >= limit {
			return errLimit
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(convs) == 0 {
		list := make([]string, 0, len(combos))
		for c := range combos {
			list = append(list, c)
		}
		sort.Strings(list)
		avail := strings.Join(list, ", ")
		if avail == "" {
			avail = "none"
		}
		return nil, fmt.Errorf("no replayable Exgentic spans matched harness=%s, source_model=%s, benchmark=%s; available combinations: %s",
			orNone(filters.harness), orNone(filters.model), orNone(filters.benchmark), avail)
	}
	return convs, nil
}

func orNone(s string) string {
	if s == "" {
		return "None"
	}
	return s
}

func (l *loading) exgenticRow(rowIndex int, r hfdata.Row, f exgenticFilters, combos, seen map[string]bool) ([]dataset.Conversation, error) {
	harness, _ := r["harness"].(string)
	session, _ := r["session_id"].(string)
	if harness == "" {
		return nil, fmt.Errorf("exgentic row %d has no harness", rowIndex)
	}
	if session == "" {
		return nil, fmt.Errorf("exgentic row %d has no session_id", rowIndex)
	}
	modelsRaw, ok := r["models"].([]any)
	var models []string
	for _, m := range modelsRaw {
		s, isStr := m.(string)
		ok = ok && isStr && s != ""
		models = append(models, canonicalSourceModel(s))
	}
	if !ok {
		return nil, fmt.Errorf("exgentic row %d models must be a list of non-empty strings", rowIndex)
	}
	spans, ok := r["spans"].([]any)
	for _, s := range spans {
		_, isObj := s.(map[string]any)
		ok = ok && isObj
	}
	if !ok {
		return nil, fmt.Errorf("exgentic row %d spans must be a list of objects", rowIndex)
	}
	for _, m := range models {
		combos[harness+"/"+m] = true
	}
	bench, _ := r["benchmark"].(string)
	if f.harness != "" && harness != f.harness {
		return nil, nil
	}
	if f.model != "" && !slices.ContainsFunc(models, func(m string) bool { return strings.EqualFold(m, f.model) }) {
		return nil, nil
	}
	if f.benchmark != "" && bench != f.benchmark {
		return nil, nil
	}
	var parsed []exgenticSpan
	for i, s := range spans {
		sp, ok, err := parseExgenticSpan(session, i, s.(map[string]any))
		if err != nil {
			return nil, err
		}
		if ok {
			parsed = append(parsed, sp)
		}
	}
	if len(parsed) == 0 {
		return nil, nil
	}
	sort.SliceStable(parsed, func(a, b int) bool {
		if parsed[a].start != parsed[b].start {
			return parsed[a].start < parsed[b].start
		}
		return parsed[a].index < parsed[b].index
	})
	if seen[session] {
		return nil, fmt.Errorf("duplicate Exgentic session_id %q", session)
	}
	seen[session] = true
	if l.o.FixedSchedule {
		out := make([]dataset.Conversation, len(parsed))
		for i, sp := range parsed {
			t := sp.turn
			t.Timestamp, t.HasTimestamp = msDur(sp.start-parsed[0].start), true
			out[i] = dataset.Conversation{ID: fmt.Sprintf("%s:%d", session, sp.index), Context: dataset.ContextMessageArray, Turns: []dataset.Turn{t}}
		}
		return out, nil
	}
	conv := dataset.Conversation{ID: session, Context: dataset.ContextMessageArray}
	for i, sp := range parsed {
		t := sp.turn
		if i > 0 && !l.o.IgnoreDelays {
			t.Delay = msDur(max(0, sp.start-parsed[i-1].end))
		}
		conv.Turns = append(conv.Turns, t)
	}
	return []dataset.Conversation{conv}, nil
}

func msDur(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }

// parseExgenticSpan reads one span; ok is false for spans that are not
// replayable LLM calls, failed, or without tokens.
func parseExgenticSpan(session string, index int, span map[string]any) (exgenticSpan, bool, error) {
	sp := exgenticSpan{index: index}
	attrs, _ := span["attributes"].(map[string]any)
	typ, hasType := span["type"].(string)
	op, _ := attrs["gen_ai.operation.name"].(string)
	if !(typ == "llm_call" || (!hasType && span["type"] == nil && op == "chat")) {
		return sp, false, nil
	}
	if st, ok := span["status"].(map[string]any); ok {
		if c, ok := st["code"].(int64); ok && c == 2 {
			return sp, false, nil
		}
	}
	fail := func(err error) (exgenticSpan, bool, error) {
		return sp, false, fmt.Errorf("exgentic session %q span %d: %w", session, index, err)
	}
	in, ok1 := attrs["gen_ai.usage.input_tokens"].(int64)
	out, ok2 := attrs["gen_ai.usage.output_tokens"].(int64)
	if !ok1 || !ok2 {
		return fail(errors.New("non-integer token counts"))
	}
	if in <= 0 || out <= 0 {
		return sp, false, nil
	}
	var err error
	startS, _ := span["start_time"].(string)
	endS, _ := span["end_time"].(string)
	if sp.start, err = isoMillis(startS); err != nil {
		return fail(fmt.Errorf("start_time: %w", err))
	}
	if sp.end, err = isoMillis(endS); err != nil {
		return fail(fmt.Errorf("end_time: %w", err))
	}
	if sp.end < sp.start {
		return fail(errors.New("span ends before it starts"))
	}
	maxTokens := int(out)
	if v, present := attrs["gen_ai.request.max_tokens"]; present && v != nil {
		n, ok := v.(int64)
		if !ok || n < 1 {
			return fail(errors.New("gen_ai.request.max_tokens must be a positive integer"))
		}
		maxTokens = int(n)
	}
	sys, err := exgenticSystem(attrs["gen_ai.system_instructions"])
	if err != nil {
		return fail(err)
	}
	msgs, texts, err := exgenticMessages(attrs["gen_ai.input.messages"])
	if err != nil {
		return fail(err)
	}
	tools, err := exgenticTools(attrs["gen_ai.tool.definitions"])
	if err != nil {
		return fail(err)
	}
	extra, err := exgenticExtra(attrs)
	if err != nil {
		return fail(err)
	}
	all := append(sys, msgs...)
	sp.turn = dataset.Turn{
		MaxTokens: maxTokens,
		Messages:  jsonArray(all),
		Tools:     tools,
		Extra:     extra,
		Headers:   []dataset.Header{{Name: "x-dynamo-session-id", Value: session}},
		Texts:     texts,
	}
	return sp, true, nil
}

// isoMillis parses an ISO-8601 time (Python's datetime.fromisoformat; no
// zone means UTC) as milliseconds since the epoch.
func isoMillis(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, errors.New("missing")
	}
	layouts := []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999Z07:00",
		"2006-01-02 15:04:05.999999999", "2006-01-02"}
	for _, layout := range layouts {
		if t, err := time.Parse(layout, s); err == nil {
			return float64(t.UnixNano()) / 1e6, nil
		}
	}
	return 0, fmt.Errorf("%q is not an ISO-8601 time", s)
}

// exgenticExtra maps the recorded sampling settings onto body fields.
func exgenticExtra(attrs map[string]any) ([]dataset.Field, error) {
	var out []dataset.Field
	if v, ok := attrs["gen_ai.request.temperature"]; ok && v != nil {
		var x float64
		switch n := v.(type) {
		case int64:
			x = float64(n)
		case float64:
			x = n
		default:
			return nil, errors.New("gen_ai.request.temperature must be finite")
		}
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return nil, errors.New("gen_ai.request.temperature must be finite")
		}
		out = append(out, dataset.Field{Key: "temperature", Value: compactJSON(v)})
	}
	if v, ok := attrs["gen_ai.request.stop_sequences"]; ok && v != nil {
		list, ok := v.([]any)
		for _, e := range list {
			_, isStr := e.(string)
			ok = ok && isStr
		}
		if !ok {
			return nil, errors.New("gen_ai.request.stop_sequences must be a list of strings")
		}
		if len(list) > 0 {
			out = append(out, dataset.Field{Key: "stop", Value: compactJSON(v)})
		}
	}
	return out, nil
}
