package servertrace

import (
	"bufio"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/mockserver"
	"github.com/aiperf-go/aiperf/internal/record"
)

// TestMockSpans: the mock, emitting vLLM's request span over each OTLP
// transport, is read back with every part equal to the mock's configured
// values (within 1 ms; here exactly, the mock reports its plan). The mock
// sends the span before the answer's last bytes, so it is there once the
// answer has been read.
func TestMockSpans(t *testing.T) {
	for _, proto := range []string{mockserver.OTLPGRPC, mockserver.OTLPHTTPProtobuf} {
		for _, stream := range []bool{false, true} {
			name := proto
			if stream {
				name += "/stream"
			}
			t.Run(name, func(t *testing.T) {
				recv, err := Start("127.0.0.1:0", slog.New(slog.DiscardHandler))
				if err != nil {
					t.Fatal(err)
				}
				defer recv.Close()
				cfg := mockserver.DefaultConfig()
				cfg.TTFT, cfg.ITL, cfg.ServerQueue = 12*time.Millisecond, 2*time.Millisecond, 7*time.Millisecond
				cfg.ServerTiming, cfg.OTLPTracesProtocol = mockserver.ServerTimingVLLM, proto
				cfg.OTLPTracesEndpoint = recv.Addr()
				if proto == mockserver.OTLPHTTPProtobuf {
					cfg.OTLPTracesEndpoint = "http://" + recv.Addr()
				}
				mock := httptest.NewServer(mockserver.New(cfg))
				defer mock.Close()

				const osl = 5
				body := `{"model":"m","messages":[{"role":"user","content":"hello there"}],"max_tokens":5,"min_tokens":5,"stream":` + map[bool]string{true: "true", false: "false"}[stream] + `}`
				req, _ := http.NewRequest(http.MethodPost, mock.URL+"/v1/chat/completions", strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("X-Request-ID", "req-42")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, bufio.NewReader(resp.Body))
				resp.Body.Close()

				got, ok := recv.Take("req-42")
				if !ok {
					spans, untaken, other := recv.Counts()
					t.Fatalf("no span for req-42 (spans %d, untaken %d, other %d)", spans, untaken, other)
				}
				decodeTokens := osl
				if stream {
					decodeTokens = osl - 1 // first token to last
				}
				want := map[string][2]time.Duration{
					"queue":     {got.Queue, 7 * time.Millisecond},
					"prefill":   {got.Prefill, 12 * time.Millisecond},
					"decode":    {got.Decode, time.Duration(decodeTokens) * 2 * time.Millisecond},
					"inference": {got.Inference, 12*time.Millisecond + time.Duration(decodeTokens)*2*time.Millisecond},
				}
				for part, v := range want {
					if d := v[0] - v[1]; d < -time.Millisecond || d > time.Millisecond {
						t.Errorf("%s = %v, want %v within 1 ms", part, v[0], v[1])
					}
				}
				if got.Source != record.VLLMSpan || got.Has&(record.HasQueue|record.HasPrefill|record.HasDecode|record.HasInference) != record.HasQueue|record.HasPrefill|record.HasDecode|record.HasInference {
					t.Errorf("source %v parts %b", got.Source, got.Has)
				}
				if got.PromptTokens <= 0 || got.DecodedTokens != osl {
					t.Errorf("tokens: prompt %d, decoded %d (want %d)", got.PromptTokens, got.DecodedTokens, osl)
				}
				if _, again := recv.Take("req-42"); again {
					t.Error("a span was taken twice")
				}
			})
		}
	}
}

func TestRequestID(t *testing.T) {
	for in, want := range map[string]string{
		"chatcmpl-abc": "abc", "cmpl-x-y": "x-y", "resp_1": "1", "plain": "plain", "": "",
	} {
		if got := RequestID(in); got != want {
			t.Errorf("RequestID(%q) = %q, want %q", in, got, want)
		}
	}
}
