package endpoint

import (
	"fmt"
	"strings"

	"github.com/aiperf-go/aiperf/internal/dataset"
)

// Parts renders a turn as a message's "content", AIPerf's BaseEndpoint
// rule shared by every message-array API (chat, Responses, Anthropic):
//
//   - exactly one text and no media: the text itself, a JSON string (the
//     form every server accepts);
//   - otherwise a list of content parts, in this order: each non-empty
//     text, each image, each audio clip, each video;
//   - no parts at all: "" (servers reject an empty list).
//
// Empty media strings are skipped like empty texts, except an image with a
// cache UUID, which is sent even without its bytes (a cache reference).
// The hooks write one part each; a nil media hook means the API takes no
// such media, and Check refuses a turn that has some. API names the API in
// those errors.
type Parts struct {
	API   string
	Text  func(dst []byte, text string) []byte
	Image func(dst []byte, url, uuid string) []byte
	Audio func(dst []byte, format, data string) []byte
	Video func(dst []byte, url string) []byte
}

// Check reports media of t the API cannot take, and audio strings that
// are neither "<format>,<base64>" nor a data URL (AIPerf refuses both at
// format time).
func (p *Parts) Check(t *dataset.Turn) error {
	if p.Image == nil && nonEmpty(t.Images) {
		return fmt.Errorf("%s does not support image input; use another endpoint or remove the images", p.API)
	}
	if nonEmpty(t.Audios) {
		if p.Audio == nil {
			return fmt.Errorf("%s does not support audio input; use another endpoint or remove the audio", p.API)
		}
		for i, a := range t.Audios {
			if _, _, ok := SplitAudio(a); a != "" && !ok {
				return fmt.Errorf("audio %d must be \"<format>,<base64>\" or a data:audio/<format>;base64, URL (got %q, %d bytes)", i, a[:min(len(a), 40)], len(a))
			}
		}
	}
	if p.Video == nil && nonEmpty(t.Videos) {
		return fmt.Errorf("%s does not support video input; use endpoint chat for video turns, or remove the videos", p.API)
	}
	return nil
}

func nonEmpty(ss []string) bool {
	for _, s := range ss {
		if s != "" {
			return true
		}
	}
	return false
}

// AppendContent writes t's content. t must have passed Check.
func (p *Parts) AppendContent(dst []byte, t *dataset.Turn) []byte {
	if len(t.Texts) == 1 && len(t.Images) == 0 && len(t.Audios) == 0 && len(t.Videos) == 0 {
		return AppendString(dst, t.Texts[0])
	}
	start := len(dst)
	sep := func() {
		if len(dst) == start {
			dst = append(dst, '[')
		} else {
			dst = append(dst, ',')
		}
	}
	for _, s := range t.Texts {
		if s != "" {
			sep()
			dst = p.Text(dst, s)
		}
	}
	for i, url := range t.Images {
		uuid := ""
		if i < len(t.ImageUUIDs) {
			uuid = t.ImageUUIDs[i]
		}
		if url != "" || uuid != "" {
			sep()
			dst = p.Image(dst, url, uuid)
		}
	}
	for _, a := range t.Audios {
		if a != "" {
			format, data, _ := SplitAudio(a)
			sep()
			dst = p.Audio(dst, format, data)
		}
	}
	for _, v := range t.Videos {
		if v != "" {
			sep()
			dst = p.Video(dst, v)
		}
	}
	if len(dst) == start {
		return append(dst, `""`...)
	}
	return append(dst, ']')
}

// SplitAudio splits an audio string into its format and base64 data. It
// accepts AIPerf's "<format>,<base64>" and a "data:audio/<format>;base64,"
// URL, whose format defaults to "wav" when the URL names none. ok is false
// when there is no comma.
func SplitAudio(a string) (format, data string, ok bool) {
	head, data, ok := strings.Cut(a, ",")
	if !ok {
		return "", "", false
	}
	if rest, isURL := strings.CutPrefix(head, "data:audio/"); isURL {
		format, _, _ = strings.Cut(rest, ";")
		if format == "" {
			format = "wav"
		}
		return format, data, true
	}
	return head, data, true
}

// TextPart writes {"type":typ,"text":s}.
func TextPart(typ string) func(dst []byte, s string) []byte {
	return func(dst []byte, s string) []byte {
		dst = append(dst, `{"type":`...)
		dst = AppendString(dst, typ)
		dst = append(dst, `,"text":`...)
		dst = AppendString(dst, s)
		return append(dst, '}')
	}
}

// InputAudioPart writes OpenAI's {"type":"input_audio","input_audio":
// {"data":..,"format":..}}, which chat and Responses share.
func InputAudioPart(dst []byte, format, data string) []byte {
	dst = append(dst, `{"type":"input_audio","input_audio":{"data":`...)
	dst = AppendString(dst, data)
	dst = append(dst, `,"format":`...)
	dst = AppendString(dst, format)
	return append(dst, "}}"...)
}
