package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/tokenizer"
)

// newChatCommand is `aiperf chat`: a quick interactive sanity check of an
// OpenAI-compatible chat server that streams each reply and prints its
// speed: TTFT, tokens per second end to end, inter-token latency and the
// prompt cache hit rate when the server reports it, measured as `aiperf
// profile` measures them (SSE events stamped at their first byte, TTFT
// and latency on content chunks, output tokens counted by the tokenizer).
func newChatCommand(env *Env) *cobra.Command {
	var model, urlFlag, system, quick, apiKey, tok string
	history := true
	cmd := &cobra.Command{
		Use:   "chat -m MODEL [-u URL] [-q MESSAGE]",
		Short: "Chat with a model and see TTFT, tokens/s and ITL per reply",
		Long: `Chat with an OpenAI-compatible server: each reply streams as it is generated,
followed by its speed, measured the way aiperf profile measures it:

  TTFT: 182.41 ms
  TPS:  41.20 tokens/s (96 tokens in 2.33s)
  ITL:  22.45 ms/token (decode 44.54 tokens/s)

With -q/--quick one message is sent and the command exits; otherwise type
messages (Ctrl-D to exit). The conversation is resent each turn unless
--no-history.

Exit codes: 0 done; 1 a request failed; 2 bad arguments.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if model == "" {
				return &config.ExitError{Code: config.ExitUsage, Err: errors.New("--model (-m) is required")}
			}
			base := config.NormalizeURL(urlFlag)
			if err := checkChatURL(base); err != nil {
				return &config.ExitError{Code: config.ExitUsage, Err: err}
			}
			name := tok
			tk, err := tokenizer.Resolve(name, model)
			if err != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "warning: tokenizer for %s: %v; counting with the built-in tokenizer\n", model, err)
				if tk, err = tokenizer.Builtin(); err != nil {
					return &config.ExitError{Code: config.ExitFailure, Err: err}
				}
			}
			if !cmd.Flags().Changed("api-key") {
				apiKey = env.Getenv("OPENAI_API_KEY") // AIPerf's default
			}
			c := &chatSession{url: strings.TrimRight(base, "/") + "/v1/chat/completions", model: model, apiKey: apiKey,
				count: tk.Count, out: cmd.OutOrStdout(), history: history, client: &http.Client{}}
			if system != "" {
				c.messages = append(c.messages, chatMessage{Role: "system", Content: system})
			}
			ctx := cmd.Context()
			if quick != "" {
				if err := c.turn(ctx, quick); err != nil {
					return &config.ExitError{Code: config.ExitFailure, Err: err}
				}
				return nil
			}
			in := env.Stdin
			if in == nil {
				in = eofReader{}
			}
			fmt.Fprintln(c.out, "Please enter a message for the chat model (Ctrl-D to exit):")
			sc := bufio.NewScanner(in)
			sc.Buffer(make([]byte, 64<<10), 16<<20)
			for {
				fmt.Fprint(c.out, "> ")
				if !sc.Scan() {
					fmt.Fprintln(c.out)
					return nil
				}
				msg := strings.TrimSpace(sc.Text())
				if msg == "" {
					continue
				}
				if err := c.turn(ctx, msg); err != nil {
					fmt.Fprintf(cmd.ErrOrStderr(), "request failed: %v\n", err)
					if ctx.Err() != nil {
						return nil
					}
				}
			}
		},
	}
	fs := cmd.Flags()
	fs.StringVarP(&model, "model", "m", "", "Model name served by the endpoint. Required.")
	fs.StringVarP(&urlFlag, "url", "u", config.DefaultURL, "Base URL of the OpenAI-compatible server.")
	fs.StringVar(&system, "system-prompt", "", "System prompt prepended to the conversation.")
	fs.StringVarP(&quick, "quick", "q", "", "Send this one MESSAGE, print the reply and its stats, and exit.")
	fs.BoolVar(&history, "history", true, "Resend the conversation each turn (--no-history sends each message alone).")
	fs.Bool("no-history", false, "Send each message without the conversation before it.")
	fs.StringVar(&apiKey, "api-key", "", "API key, sent as a Bearer token. Default: the OPENAI_API_KEY environment variable.")
	fs.StringVar(&tok, "tokenizer", "", "Tokenizer for the output token counts; default the model's (builtin when unavailable).")
	cmd.PreRun = func(cmd *cobra.Command, _ []string) {
		if f := cmd.Flags().Lookup("no-history"); f.Changed && f.Value.String() == "true" {
			history = false
		}
	}
	return cmd
}

func checkChatURL(u string) error {
	if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
		return fmt.Errorf("--url %q: not an http(s) URL", config.RedactURL(u))
	}
	return nil
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// chatSession is one conversation.
type chatSession struct {
	url, model, apiKey string
	count              func(string) int
	out                io.Writer
	history            bool
	messages           []chatMessage
	client             *http.Client
}

// chatStats is one reply's measurements.
type chatStats struct {
	TTFT, Latency time.Duration
	OutputTokens  int
	Reasoning     int
	PromptTokens  int
	CachedTokens  int
	HasCache      bool
}

// turn sends msg, streams the reply to out and prints its stats.
func (c *chatSession) turn(ctx context.Context, msg string) error {
	conv := append(append([]chatMessage(nil), c.messages...), chatMessage{Role: "user", Content: msg})
	if !c.history {
		conv = append(c.systemOnly(), chatMessage{Role: "user", Content: msg})
	}
	resp, start, err := c.post(ctx, conv)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 500))
		return fmt.Errorf("HTTP %s: %s", resp.Status, strings.TrimSpace(string(b)))
	}
	r := chatReply{out: c.out}
	err = readSSE(resp.Body, start, r.chunk)
	fmt.Fprintln(c.out)
	if err != nil {
		return err
	}
	st := r.st
	st.TTFT, st.Latency = r.first, r.last
	if r.content.Len() > 0 {
		st.OutputTokens = c.count(r.content.String())
	}
	if r.reasoning.Len() > 0 {
		st.Reasoning = c.count(r.reasoning.String())
	}
	fmt.Fprintln(c.out, formatChatStats(st))
	if c.history {
		c.messages = append(conv, chatMessage{Role: "assistant", Content: r.content.String()})
	}
	return nil
}

// post sends the streaming chat completion request for conv; start is
// when it was sent, the zero of the reply's times.
func (c *chatSession) post(ctx context.Context, conv []chatMessage) (resp *http.Response, start time.Time, err error) {
	body, _ := json.Marshal(map[string]any{"model": c.model, "messages": conv, "stream": true,
		"stream_options": map[string]any{"include_usage": true}})
	req, err := http.NewRequestWithContext(ctx, "POST", c.url, bytes.NewReader(body))
	if err != nil {
		return nil, start, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	if c.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.apiKey)
	}
	start = time.Now()
	resp, err = c.client.Do(req)
	return resp, start, err
}

// chatReply gathers one streamed reply: its text and reasoning (echoed to
// out as they arrive), the usage and the times of the first and last token.
type chatReply struct {
	out                io.Writer
	content, reasoning strings.Builder
	st                 chatStats
	first, last        time.Duration
}

// chunk takes one SSE payload that arrived at at; a payload that is not
// JSON is ignored, an error object ends the stream.
func (r *chatReply) chunk(at time.Duration, data []byte) error {
	var ch struct {
		Choices []struct {
			Delta struct {
				Content          string `json:"content"`
				ReasoningContent string `json:"reasoning_content"`
				Reasoning        string `json:"reasoning"`
			} `json:"delta"`
		} `json:"choices"`
		Usage *struct {
			PromptTokens        int `json:"prompt_tokens"`
			PromptTokensDetails *struct {
				CachedTokens *int `json:"cached_tokens"`
			} `json:"prompt_tokens_details"`
		} `json:"usage"`
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(data, &ch) != nil {
		return nil
	}
	if ch.Error != nil {
		return errors.New("server error mid-stream: " + ch.Error.Message)
	}
	if u := ch.Usage; u != nil {
		r.st.PromptTokens = u.PromptTokens
		if d := u.PromptTokensDetails; d != nil && d.CachedTokens != nil {
			r.st.CachedTokens, r.st.HasCache = *d.CachedTokens, true
		}
	}
	if len(ch.Choices) == 0 {
		return nil
	}
	d := ch.Choices[0].Delta
	reasoning := d.ReasoningContent
	if reasoning == "" {
		reasoning = d.Reasoning
	}
	if d.Content == "" && reasoning == "" {
		return nil
	}
	if r.first == 0 {
		r.first = at
	}
	r.last = at
	if reasoning != "" {
		r.reasoning.WriteString(reasoning)
		fmt.Fprint(r.out, reasoning)
	}
	if d.Content != "" {
		r.content.WriteString(d.Content)
		fmt.Fprint(r.out, d.Content)
	}
	return nil
}

func (c *chatSession) systemOnly() []chatMessage {
	var out []chatMessage
	for _, m := range c.messages {
		if m.Role == "system" {
			out = append(out, m)
		}
	}
	return out
}

// readSSE calls fn with each "data:" payload of an SSE stream and the
// time its first byte arrived (since start), until [DONE] or EOF.
func readSSE(r io.Reader, start time.Time, fn func(at time.Duration, data []byte) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var data []byte
	var at time.Duration
	for {
		if _, err := br.Peek(1); err == nil && data == nil {
			at = time.Since(start)
		}
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			line = bytes.TrimRight(line, "\r\n")
			switch {
			case len(line) == 0:
				if data != nil {
					if string(data) == "[DONE]" {
						return nil
					}
					if ferr := fn(at, data); ferr != nil {
						return ferr
					}
					data = nil
				}
			case bytes.HasPrefix(line, []byte("data:")):
				v := bytes.TrimPrefix(bytes.TrimPrefix(line, []byte("data:")), []byte(" "))
				if data == nil {
					data = append([]byte{}, v...)
				} else {
					data = append(append(data, '\n'), v...)
				}
			}
		}
		if err == io.EOF {
			if data != nil && string(data) != "[DONE]" {
				return fn(at, data)
			}
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// formatChatStats renders AIPerf's per-turn stats block.
func formatChatStats(s chatStats) string {
	if s.OutputTokens+s.Reasoning == 0 || s.Latency <= 0 {
		return "(no tokens received)"
	}
	osl := s.OutputTokens + s.Reasoning
	lat := s.Latency.Seconds()
	desc := fmt.Sprintf("%d tokens", osl)
	if s.Reasoning > 0 {
		desc += fmt.Sprintf(", %d reasoning", s.Reasoning)
	}
	lines := []string{
		fmt.Sprintf("TTFT: %.2f ms", float64(s.TTFT)/float64(time.Millisecond)),
		fmt.Sprintf("TPS:  %.2f tokens/s (%s in %.2fs)", float64(osl)/lat, desc, lat),
	}
	if osl >= 2 {
		itl := (s.Latency - s.TTFT) / time.Duration(osl-1)
		if itl > 0 {
			lines = append(lines, fmt.Sprintf("ITL:  %.2f ms/token (decode %.2f tokens/s)", float64(itl)/float64(time.Millisecond), 1/itl.Seconds()))
		}
	}
	if s.HasCache && s.PromptTokens > 0 {
		lines = append(lines, fmt.Sprintf("Cache: %d/%d prompt tokens cached (%.1f%%)", s.CachedTokens, s.PromptTokens, 100*float64(s.CachedTokens)/float64(s.PromptTokens)))
	}
	return strings.Join(lines, "\n")
}
