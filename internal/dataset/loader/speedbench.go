package loader

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// SPEED-Bench (nvidia/SPEED-Bench, speculative decoding): JSONL rows of
// {question_id, category, messages}. The qualitative split has eleven
// semantic categories, the throughput splits (1k ... 32k input tokens)
// three entropy tiers; a type names a split and, optionally, one category.
const speedBenchPrefix = "speed_bench_"

// speedBenchPlaceholder is the text rows carry when their content must be
// fetched with NVIDIA's specdec_bench tool; such rows are invalid.
const speedBenchPlaceholder = "FULL BENCHMARK DATA SHOULD BE FETCHED FROM THE SOURCE USING SPECDEC_BENCH"

// SpeedBenchTypes lists the speed_bench_* dataset types, AIPerf's order.
func SpeedBenchTypes() []string {
	out := []string{"speed_bench_qualitative"}
	for _, c := range speedBenchCategories {
		out = append(out, speedBenchPrefix+c)
	}
	for _, n := range speedBenchSizes {
		out = append(out, speedBenchPrefix+"throughput_"+n)
	}
	for _, n := range speedBenchSizes {
		for _, v := range speedBenchEntropies {
			out = append(out, speedBenchPrefix+"throughput_"+n+"_"+v)
		}
	}
	return out
}

var (
	speedBenchCategories = []string{"coding", "humanities", "math", "multilingual", "qa", "rag", "reasoning", "roleplay", "stem", "summarization", "writing"}
	speedBenchSizes      = []string{"1k", "2k", "8k", "16k", "32k"}
	speedBenchEntropies  = []string{"low_entropy", "mixed", "high_entropy"}
)

// speedBenchSplit returns the split file a type reads (qualitative.jsonl,
// throughput_1k.jsonl, ...) and the category it keeps ("" for all).
func speedBenchSplit(typ string) (file, category string, ok bool) {
	rest, found := strings.CutPrefix(typ, speedBenchPrefix)
	if !found {
		return "", "", false
	}
	if rest == "qualitative" {
		return "qualitative.jsonl", "", true
	}
	for _, c := range speedBenchCategories {
		if rest == c {
			return "qualitative.jsonl", c, true
		}
	}
	for _, n := range speedBenchSizes {
		if rest == "throughput_"+n {
			return "throughput_" + n + ".jsonl", "", true
		}
		for _, v := range speedBenchEntropies {
			if rest == "throughput_"+n+"_"+v {
				return "throughput_" + n + ".jsonl", v, true
			}
		}
	}
	return "", "", false
}

// isSpeedBenchType reports whether typ is one of the speed_bench_* types.
func isSpeedBenchType(typ string) bool { _, _, ok := speedBenchSplit(typ); return ok }

// speedBenchRow is one validated row.
type speedBenchRow struct {
	id, category string
	turns        []dataset.Turn
}

func parseSpeedBenchRow(line []byte) (speedBenchRow, error) {
	var out speedBenchRow
	r, err := parseRow(line)
	if err != nil {
		return out, err
	}
	id, ok, err := r.str("question_id")
	if err == nil && (!ok || len(id) != 32) {
		err = fmt.Errorf("want a 32-character id, got %q", id)
	}
	if err != nil {
		return out, &fieldErr{"question_id", err}
	}
	cat, ok, err := r.str("category")
	if err == nil && (!ok || cat == "") {
		err = errors.New("missing")
	}
	if err != nil {
		return out, &fieldErr{"category", err}
	}
	raw := r.raw("messages")
	var msgs []jsontext.Value
	if raw == nil || jsontext.Value(raw).Kind() != '[' || json.Unmarshal(raw, &msgs) != nil || len(msgs) == 0 {
		return out, &fieldErr{"messages", errors.New("want a non-empty array of {role, content} messages")}
	}
	for i, m := range msgs {
		var msg struct {
			Role    jsontext.Value `json:"role"`
			Content jsontext.Value `json:"content"`
		}
		var role, content string
		if m.Kind() != '{' || json.Unmarshal(m, &msg) != nil || msg.Role.Kind() != '"' || msg.Content.Kind() != '"' ||
			json.Unmarshal(msg.Role, &role) != nil || json.Unmarshal(msg.Content, &content) != nil {
			return out, &fieldErr{fmt.Sprintf("messages[%d]", i), errors.New("want {\"role\": string, \"content\": string}")}
		}
		switch {
		case strings.TrimSpace(role) == "":
			return out, &fieldErr{fmt.Sprintf("messages[%d].role", i), errors.New("must not be empty")}
		case strings.TrimSpace(content) == "":
			return out, &fieldErr{fmt.Sprintf("messages[%d].content", i), errors.New("must not be empty")}
		case content == speedBenchPlaceholder:
			return out, &fieldErr{fmt.Sprintf("messages[%d].content", i), errors.New("is the placeholder text: fetch the full SPEED-Bench data with specdec_bench first")}
		}
		out.turns = append(out.turns, dataset.Turn{Role: role, Texts: []string{content}})
	}
	out.id, out.category = id, cat
	return out, nil
}

// speedBench reads a SPEED-Bench split: every row a conversation named by
// its question_id, each message a turn with its role (a leading system
// message stays a turn: the benchmark's message structure is fixed);
// rows of other categories are skipped when the type names one.
func (l *loader) speedBench(typ string) ([]dataset.Conversation, error) {
	_, category, _ := speedBenchSplit(typ)
	file := l.opts.Path
	var s sessions
	var p problems
	p.eachLine(file, func(_ int, line []byte) error {
		row, err := parseSpeedBenchRow(line)
		if err != nil {
			return err
		}
		if category != "" && row.category != category {
			return nil
		}
		s.add(row.id, row.turns...)
		return nil
	})
	if err := p.err(); err != nil {
		return nil, err
	}
	if category != "" && len(s.order) == 0 {
		return nil, &dataset.InputError{File: file, Err: fmt.Errorf("no row has category %q: is this the right SPEED-Bench split?", category)}
	}
	convs := s.conversations()
	l.countTurns(convs)
	return convs, nil
}

// speedBenchDetect names the speed_bench_* type of a file whose first
// line is a SPEED-Bench row: by its split file name.
func speedBenchDetect(path string, first []byte) (string, bool) {
	if _, err := parseSpeedBenchRow(first); err != nil {
		return "", false
	}
	base := filepath.Base(path)
	if base == "qualitative.jsonl" {
		return "speed_bench_qualitative", true
	}
	for _, n := range speedBenchSizes {
		if base == "throughput_"+n+".jsonl" {
			return speedBenchPrefix + "throughput_" + n, true
		}
	}
	return "", false
}
