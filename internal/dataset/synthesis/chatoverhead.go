package synthesis

import (
	"math"

	"github.com/aiperf-go/aiperf/internal/chattemplate"
	"github.com/aiperf-go/aiperf/internal/tokenizer"
)

// ChatOverhead is the number of tokens a chat template wraps around a
// conversation, split as AIPerf 0.12+ splits it (its
// _estimate_chat_template_overheads):
//
//	rendered = PerRequest + Σ over messages (PerMessage + content tokens)
//	           (+ the special tokens the server prepends, counted apart)
//
// With --apply-chat-template, synthetic prompts are shortened by it so that
// the rendered prompt, not the bare text, has the requested length. The
// zero value means no compensation.
type ChatOverhead struct {
	// PerRequest is paid once per request: the generation-prompt suffix and
	// any fixed preamble, without the prompt special tokens (BOS), which are
	// subtracted from every synthetic length on their own.
	PerRequest int
	// PerMessage is paid by every message: role header and end-of-turn
	// marker, averaged over user and assistant messages.
	PerMessage int
}

// FirstTurn is what the first user turn of a conversation gives up.
func (o ChatOverhead) FirstTurn() int { return o.PerRequest + o.PerMessage }

// chatOverheadProbes are the sample prompts the overhead is measured with
// (AIPerf's _CHAT_TEMPLATE_PROBE_SAMPLES).
func chatOverheadProbes() []string {
	return []string{
		"Hello, how are you today?",
		"Could you write a Python function to reverse a string?",
		"What's the difference between TCP and UDP in networking?",
	}
}

// EstimateChatOverhead measures tmpl's overhead with tok as AIPerf does:
// for each probe p it renders [user p] and [user p, assistant p, user p],
// both with the generation prompt, and counts (without special tokens)
//
//	perMessage = (triple - single - 2·bare) / 2
//	perRequest = single - bare - perMessage - promptSpecialTokens
//
// then rounds the means over the probes half to even (Python's round). It
// returns the zero value, meaning "do not compensate", when any rendering
// fails or any probe gives a negative part, as AIPerf does: skipping the
// compensation beats over-correcting.
func EstimateChatOverhead(tmpl *chattemplate.Template, tok tokenizer.Tokenizer, promptSpecialTokens int) ChatOverhead {
	if tmpl == nil || tok == nil {
		return ChatOverhead{}
	}
	var fixedSum, wrapSum float64
	probes := chatOverheadProbes()
	for _, p := range probes {
		single, err := tmpl.Render(chattemplate.Input{
			Messages:            []chattemplate.Message{{Role: "user", Content: p}},
			AddGenerationPrompt: true,
		})
		if err != nil {
			return ChatOverhead{}
		}
		triple, err := tmpl.Render(chattemplate.Input{
			Messages: []chattemplate.Message{
				{Role: "user", Content: p}, {Role: "assistant", Content: p}, {Role: "user", Content: p},
			},
			AddGenerationPrompt: true,
		})
		if err != nil {
			return ChatOverhead{}
		}
		s, tr, bare := float64(tok.Count(single)), float64(tok.Count(triple)), float64(tok.Count(p))
		wrap := (tr - s - 2*bare) / 2
		fixed := s - bare - wrap - float64(promptSpecialTokens)
		if wrap < 0 || fixed < 0 {
			return ChatOverhead{}
		}
		wrapSum += wrap
		fixedSum += fixed
	}
	n := float64(len(probes))
	return ChatOverhead{PerRequest: int(math.RoundToEven(fixedSum / n)), PerMessage: int(math.RoundToEven(wrapSum / n))}
}

// PromptSpecialTokens is the number of special tokens the tokenizer's
// post-processor adds to a prompt (BOS for Llama-2 or Gemma, [CLS] and
// [SEP] for BERT; 0 for the built-in tiktoken encoding), as vLLM's
// num_special_tokens_to_add(pair=False), which AIPerf 0.13 subtracts from
// the synthetic length so that the server sees the requested length.
func PromptSpecialTokens(tok tokenizer.Tokenizer) int {
	se, ok := tok.(tokenizer.SpecialEncoder)
	if !ok {
		return 0
	}
	return len(se.EncodeWithSpecialTokens(""))
}

// maxRenderedFixups bounds fitRendered's attempts.
const maxRenderedFixups = 10

// fitRendered adjusts a prompt so that, rendered as the only user message
// with the generation prompt, it counts target tokens. The template's
// overhead is an estimate (AIPerf's); where a BPE merge crosses the
// boundary between the template's text and the prompt, or the template
// trims the prompt, the rendering is a token off. Each attempt rebuilds
// the prompt with its length corrected by the miss, from the builder's
// corpus draws, and the closest is kept. A prompt that cannot be rendered is
// returned as it is: the ISL count falls back to the bare text then, as
// AIPerf's does. A prompt that starts with prefix (token ids of a pooled
// prefix prompt) keeps it: only the part after it is rebuilt.
func (b *promptBuilder) fitRendered(tmpl *chattemplate.Template, target int, prefix []int, text string, count int) (string, int) {
	rendered := func(t string) (int, bool) {
		out, err := tmpl.Render(chattemplate.Input{
			Messages:            []chattemplate.Message{{Role: "user", Content: t}},
			AddGenerationPrompt: true,
		})
		if err != nil {
			return 0, false
		}
		return b.tok.Count(out), true
	}
	best, bestCount := text, count
	r, ok := rendered(text)
	if !ok {
		return text, count
	}
	bestMiss := absInt(r - target)
	for range maxRenderedFixups {
		if r == target {
			break
		}
		n := count + target - r
		if n < 1 || n < len(prefix) {
			break
		}
		text, count = b.buildAfter(prefix, n-len(prefix))
		if r, ok = rendered(text); !ok {
			break
		}
		if m := absInt(r - target); m < bestMiss {
			best, bestCount, bestMiss = text, count, m
		}
	}
	return best, bestCount
}
