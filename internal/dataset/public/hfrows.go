package public

import (
	"context"
	"encoding/base64"
	"fmt"
	"mime"
	"path"
	"sort"
	"strings"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/dataset/hfdata"
	"github.com/aiperf-go/aiperf/internal/dataset/media"
	"github.com/aiperf-go/aiperf/internal/dataset/sound"
)

// asrPrompt is the text every ASR turn sends with its audio.
const asrPrompt = "Transcribe this audio."

// maxASRSeconds: longer clips are skipped, as ASR benchmarks do.
const maxASRSeconds = 30

// hfRows reads the spec's split row by row and converts each row with the
// spec's loader family, in order, skipping rows that give nothing.
func (l *loading) hfRows(ctx context.Context) ([]dataset.Conversation, error) {
	local, err := l.fetch(ctx, l.spec.Repo)
	if err != nil {
		return nil, err
	}
	var convs []dataset.Conversation
	first := true
	skipped := 0
	err = local.Rows(func(r hfdata.Row) error {
		if l.full(len(convs)) {
			return errLimit
		}
		if first {
			first = false
			if err := l.checkColumns(r); err != nil {
				return err
			}
		}
		turns, err := l.convert(r)
		if err != nil {
			return err
		}
		if len(turns) == 0 {
			skipped++
			return nil
		}
		convs = append(convs, dataset.Conversation{ID: l.ids.Next(), Turns: turns})
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(convs) == 0 && skipped > 0 {
		return nil, fmt.Errorf("all %d rows of %s (%s/%s) were skipped (empty prompt or missing media)", skipped, l.spec.Repo, local.Config, local.Split)
	}
	return convs, nil
}

// checkColumns rejects a dataset that lacks the column the loader needs,
// naming the columns it has (AIPerf checks the first row).
func (l *loading) checkColumns(r hfdata.Row) error {
	var need string
	switch l.spec.Kind {
	case KindInstruction:
		if l.spec.Template == "" {
			need = l.spec.PromptColumn
		}
	case KindMTBench:
		need = "prompt"
	}
	if need == "" {
		return nil
	}
	if _, ok := r[need]; !ok {
		cols := make([]string, 0, len(r))
		for k := range r {
			cols = append(cols, k)
		}
		sort.Strings(cols)
		return fmt.Errorf("%w: %q is not in %s (available: %s)", errNoColumn, need, l.spec.Repo, strings.Join(cols, ", "))
	}
	return nil
}

// convert maps one row to a conversation's turns; none skips the row.
func (l *loading) convert(r hfdata.Row) ([]dataset.Turn, error) {
	switch l.spec.Kind {
	case KindInstruction:
		return l.instruction(r)
	case KindConversation:
		return l.conversation(r), nil
	case KindMMVU:
		return l.mmvu(r), nil
	case KindMTBench:
		return mtBench(r), nil
	case KindASR:
		return l.asr(r), nil
	}
	return nil, fmt.Errorf("loader %s reads no hub rows", l.spec.Kind)
}

// instruction is one flat prompt column (or a template over the row),
// plus the row's image when the spec names an image column.
func (l *loading) instruction(r hfdata.Row) ([]dataset.Turn, error) {
	var prompt string
	if l.spec.Template != "" {
		var err error
		if prompt, err = pyFormat(l.spec.Template, r); err != nil {
			return nil, err
		}
	} else {
		v := r[l.spec.PromptColumn]
		if v == nil || isEmptyValue(v) {
			return nil, nil
		}
		prompt = pyStr(v)
	}
	if strings.TrimSpace(prompt) == "" {
		return nil, nil
	}
	t := dataset.Turn{Texts: []string{prompt}}
	if l.spec.ImageColumn != "" {
		t.Images = rowImage(r[l.spec.ImageColumn])
	}
	if l.spec.VideoColumn != "" {
		t.Videos = rowVideo(r[l.spec.VideoColumn])
	}
	if l.spec.AudioColumn != "" {
		t.Audios, t.AudioSeconds = rowAudio(r[l.spec.AudioColumn])
	}
	return []dataset.Turn{t}, nil
}

// isEmptyValue is Python's falsiness for the values a prompt column holds.
func isEmptyValue(v any) bool {
	switch x := v.(type) {
	case string:
		return x == ""
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	case int64:
		return x == 0
	case float64:
		return x == 0
	case bool:
		return !x
	}
	return false
}

// rowImage returns the first decodable image of an image column: an Image
// feature's {"bytes", "path"} struct, or a list of them. Path-only
// images and undecodable bytes are skipped.
func rowImage(v any) []string {
	items, ok := v.([]any)
	if !ok {
		items = []any{v}
	}
	for _, it := range items {
		m, ok := it.(map[string]any)
		if !ok {
			continue
		}
		b, _ := m["bytes"].(string)
		if b == "" {
			continue
		}
		if url, err := media.ImageDataURL([]byte(b)); err == nil {
			return []string{url}
		}
	}
	return nil
}

// rowVideo is a video column's URL (a bare path becomes file://) or its
// bytes as a data URL typed from the file name (video/mp4 by default).
func rowVideo(v any) []string {
	switch x := v.(type) {
	case string:
		if x == "" {
			return nil
		}
		if strings.Contains(x, "://") || strings.HasPrefix(x, "data:") {
			return []string{x}
		}
		return []string{"file://" + x}
	case map[string]any:
		b, _ := x["bytes"].(string)
		if b == "" {
			return nil
		}
		typ := "video/mp4"
		if p, _ := x["path"].(string); p != "" {
			if t := mime.TypeByExtension(path.Ext(p)); t != "" {
				typ, _, _ = strings.Cut(t, ";")
			}
		}
		return []string{"data:" + typ + ";base64," + base64.StdEncoding.EncodeToString([]byte(b))}
	}
	return nil
}

// rowAudio decodes an Audio feature's bytes and re-encodes them as 16-bit
// WAV ("wav,<base64>"), with the clip's duration.
func rowAudio(v any) ([]string, float64) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, 0
	}
	b, _ := m["bytes"].(string)
	if b == "" {
		return nil, 0
	}
	pcm, err := sound.Decode([]byte(b))
	if err != nil {
		return nil, 0
	}
	return []string{"wav," + base64.StdEncoding.EncodeToString(sound.WAV16(pcm))}, pcm.Duration()
}

// asr is one clip of at most 30 s with the transcription prompt.
func (l *loading) asr(r hfdata.Row) []dataset.Turn {
	m, ok := r[l.spec.AudioColumn].(map[string]any)
	if !ok {
		return nil
	}
	b, _ := m["bytes"].(string)
	if b == "" {
		return nil
	}
	pcm, err := sound.Decode([]byte(b))
	if err != nil || pcm.Duration() > maxASRSeconds {
		return nil
	}
	return []dataset.Turn{{
		Texts:        []string{asrPrompt},
		Audios:       []string{"wav," + base64.StdEncoding.EncodeToString(sound.WAV16(pcm))},
		AudioSeconds: pcm.Duration(),
	}}
}

// conversation takes the first user (or human) message of the row's
// message list, "<image>" placeholders removed, plus the row's image.
func (l *loading) conversation(r hfdata.Row) []dataset.Turn {
	msgs, _ := r[l.spec.ConversationColumn].([]any)
	var norm []map[string]any
	for _, it := range msgs {
		if list, ok := it.([]any); ok && len(list) > 0 {
			it = list[0] // VisionArena wraps each message in a list
		}
		if m, ok := it.(map[string]any); ok && len(m) > 0 {
			norm = append(norm, m)
		}
	}
	if len(norm) == 0 {
		return nil
	}
	pick := norm[0]
	for _, m := range norm {
		role, _ := m["role"].(string)
		if role == "" {
			role, _ = m["from"].(string)
		}
		if r := strings.ToLower(role); r == "user" || r == "human" {
			pick = m
			break
		}
	}
	text, _ := pick[l.spec.ContentKey].(string)
	text = strings.TrimSpace(strings.ReplaceAll(text, "<image>", ""))
	if text == "" {
		return nil
	}
	t := dataset.Turn{Texts: []string{text}}
	if l.spec.ImageColumn != "" {
		t.Images = rowImage(r[l.spec.ImageColumn])
	}
	return []dataset.Turn{t}
}

// mmvu is the question followed by its lettered choices, plus the video;
// rows without a video are skipped.
func (l *loading) mmvu(r hfdata.Row) []dataset.Turn {
	q, _ := r["question"].(string)
	q = strings.TrimSpace(q)
	prompt := q
	if choices, ok := r["choices"].(map[string]any); ok {
		keys := make([]string, 0, len(choices))
		for k := range choices {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var parts []string
		for _, k := range keys {
			if v := choices[k]; v != nil && !isEmptyValue(v) {
				parts = append(parts, k+"."+pyStr(v))
			}
		}
		if cs := strings.Join(parts, " "); q != "" && cs != "" {
			prompt = q + " " + cs
		} else if q == "" {
			prompt = cs
		}
	}
	if prompt == "" {
		return nil
	}
	videos := rowVideo(r[l.spec.VideoColumn])
	if len(videos) == 0 {
		return nil
	}
	return []dataset.Turn{{Texts: []string{prompt}, Videos: videos}}
}

// mtBench makes one user turn per non-empty prompt of the row's list.
func mtBench(r hfdata.Row) []dataset.Turn {
	list, ok := r["prompt"].([]any)
	if !ok {
		return nil
	}
	var turns []dataset.Turn
	for _, p := range list {
		if p == nil || isEmptyValue(p) {
			continue
		}
		if s := strings.TrimSpace(pyStr(p)); s != "" {
			turns = append(turns, dataset.Turn{Texts: []string{s}})
		}
	}
	return turns
}
