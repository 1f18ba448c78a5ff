package endpoint

import "testing"

func TestJoinURL(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ base, path, want string }{
		{"http://h:8000", "/v1/chat/completions", "http://h:8000/v1/chat/completions"},
		{"h:8000", "/v1/completions", "http://h:8000/v1/completions"},
		{"http://h/v1", "/v1/chat/completions", "http://h/v1/chat/completions"},
		{"http://h/v1/", "/v1/embeddings", "http://h/v1/embeddings"},
		{"http://h/proxy/v1/chat/completions", "/v1/chat/completions", "http://h/proxy/v1/chat/completions"},
		{"http://h/api", "/rerank", "http://h/api/rerank"},
		{"http://h:9/x?key=1", "/generate", "http://h:9/x/generate?key=1"},
		{"http://h:9/my/endpoint", "", "http://h:9/my/endpoint"},
		{"http://h:9", "", "http://h:9"},
		{"https://h", "v2/rerank", "https://h/v2/rerank"},
		{"http://h/a%2Fb", "/c", "http://h/a%2Fb/c"},
	} {
		if got := JoinURL(tt.base, tt.path); got != tt.want {
			t.Errorf("JoinURL(%q, %q) = %q; want %q", tt.base, tt.path, got, tt.want)
		}
	}
}
