package openai

import (
	"fmt"
	"strings"

	"github.com/aiperf-go/aiperf/internal/dataset"
)

// appendContent writes a chat message's "content" for turn t, as AIPerf
// renders a turn:
//
//   - exactly one text and no media: the text itself, a JSON string (the
//     form every OpenAI-compatible server accepts);
//   - otherwise a list of content parts, in this order: each non-empty
//     text {"type":"text","text":..}, each image
//     {"type":"image_url","image_url":{"url":..}}, each audio clip
//     {"type":"input_audio","input_audio":{"data":<base64>,"format":..}},
//     each video {"type":"video_url","video_url":{"url":..}};
//   - no parts at all: "" (servers reject an empty list).
//
// Empty media strings are skipped like empty texts. Audio strings must
// have passed checkMedia.
func appendContent(dst []byte, t *dataset.Turn) []byte {
	if len(t.Texts) == 1 && len(t.Images) == 0 && len(t.Audios) == 0 && len(t.Videos) == 0 {
		return appendString(dst, t.Texts[0])
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
		if s == "" {
			continue
		}
		sep()
		dst = append(dst, `{"type":"text","text":`...)
		dst = appendString(dst, s)
		dst = append(dst, '}')
	}
	for _, url := range t.Images {
		if url == "" {
			continue
		}
		sep()
		dst = append(dst, `{"type":"image_url","image_url":{"url":`...)
		dst = appendString(dst, url)
		dst = append(dst, "}}"...)
	}
	for _, a := range t.Audios {
		if a == "" {
			continue
		}
		format, data, _ := splitAudio(a)
		sep()
		dst = append(dst, `{"type":"input_audio","input_audio":{"data":`...)
		dst = appendString(dst, data)
		dst = append(dst, `,"format":`...)
		dst = appendString(dst, format)
		dst = append(dst, "}}"...)
	}
	for _, url := range t.Videos {
		if url == "" {
			continue
		}
		sep()
		dst = append(dst, `{"type":"video_url","video_url":{"url":`...)
		dst = appendString(dst, url)
		dst = append(dst, "}}"...)
	}
	if len(dst) == start {
		return append(dst, `""`...)
	}
	return append(dst, ']')
}

// splitAudio splits an audio string into its format and base64 data. It
// accepts AIPerf's "<format>,<base64>" and a "data:audio/<format>;base64,"
// URL, whose format defaults to "wav" when the URL names none. ok is false
// when there is no comma.
func splitAudio(a string) (format, data string, ok bool) {
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

// checkMedia reports an audio string of t that cannot be sent: one that is
// neither "<format>,<base64>" nor a data URL (AIPerf refuses these too).
func checkMedia(t *dataset.Turn) error {
	for i, a := range t.Audios {
		if _, _, ok := splitAudio(a); a != "" && !ok {
			return fmt.Errorf("audio %d must be \"<format>,<base64>\" or a data:audio/<format>;base64, URL (got %q, %d bytes)", i, a[:min(len(a), 40)], len(a))
		}
	}
	return nil
}
