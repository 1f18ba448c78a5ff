package openai

import (
	"github.com/aiperf-go/aiperf/internal/endpoint"
)

// chatParts renders chat message content as AIPerf's chat endpoint does:
// {"type":"text","text":..}, {"type":"image_url","image_url":{"url":..}}
// (plus "uuid" when the image has a cache UUID), OpenAI's input_audio part
// and {"type":"video_url","video_url":{"url":..}}.
var chatParts = endpoint.Parts{
	API:   "the chat endpoint",
	Text:  endpoint.TextPart("text"),
	Image: chatImagePart,
	Audio: endpoint.InputAudioPart,
	Video: func(dst []byte, url string) []byte {
		dst = append(dst, `{"type":"video_url","video_url":{"url":`...)
		dst = endpoint.AppendString(dst, url)
		return append(dst, "}}"...)
	},
}

func chatImagePart(dst []byte, url, uuid string) []byte {
	dst = append(dst, `{"type":"image_url","image_url":{"url":`...)
	dst = endpoint.AppendString(dst, url)
	dst = append(dst, '}')
	if uuid != "" {
		dst = append(dst, `,"uuid":`...)
		dst = endpoint.AppendString(dst, uuid)
	}
	return append(dst, '}')
}
