package embeddings

import (
	"fmt"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/endpoint"
	"github.com/aiperf-go/aiperf/internal/endpoint/openai"
	"github.com/aiperf-go/aiperf/internal/record"
)

// ChatEmbeddings sends chat-style requests to an embeddings route and
// reads embeddings back: the only way vLLM serves multimodal embedding
// models (VLM2Vec and the like), which take images in chat messages. It
// is stateless.
type ChatEmbeddings struct{}

var _ endpoint.Endpoint = ChatEmbeddings{}

// NewChatEmbeddings returns the chat_embeddings endpoint.
func NewChatEmbeddings() endpoint.Endpoint { return ChatEmbeddings{} }

// Metadata describes the endpoint as AIPerf's plugin metadata does.
func (ChatEmbeddings) Metadata() endpoint.Metadata {
	return endpoint.Metadata{
		Type: "chat_embeddings",
		Description: "Multimodal embeddings through chat messages (vLLM's /v1/embeddings with a \"messages\" " +
			"body): the request is a chat request with text and images, the answer a list of embeddings.",
		Path:                  "/v1/embeddings",
		ServiceKind:           "openai",
		MetricsTitle:          "Embeddings Metrics",
		TokenizesInput:        true,
		SupportsImages:        true,
		ConsumesSystemMessage: true,
		ImagePart:             "image_url",
	}
}

// AppendPayload appends the chat body for t (the chat endpoint's body,
// which never streams here since the endpoint does not stream).
func (ChatEmbeddings) AppendPayload(dst []byte, t *dataset.Turn, o *endpoint.Options) ([]byte, error) {
	return openai.Chat{}.AppendPayload(dst, t, o)
}

// ParseResponse reads embeddings the way AIPerf's auto-detection does
// ({"data":[{"object":"embedding","embedding":[..]}]} or an
// "embeddings"/"embedding" member): a response with embeddings is a
// content response without text; usage and in-band errors are read as
// for chat.
func (ChatEmbeddings) ParseResponse(data []byte) (record.Parsed, error) {
	var r embeddingsResponse
	if done, err := endpoint.DecodeEvent(data, &r); err != nil {
		return record.Parsed{}, fmt.Errorf("chat embeddings response: %w", err)
	} else if done {
		return record.Parsed{Done: true}, nil
	}
	p := r.Envelope.Parsed(r.Object.S == "error")
	p.Output = r.hasEmbeddings()
	return p, nil
}
