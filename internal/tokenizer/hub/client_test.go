package hub

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestFromEnvCacheDir(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"home default", map[string]string{"HOME": "/h"}, "/h/.cache/huggingface/hub"},
		{"XDG", map[string]string{"HOME": "/h", "XDG_CACHE_HOME": "/x"}, "/x/huggingface/hub"},
		{"HF_HOME beats XDG", map[string]string{"HOME": "/h", "XDG_CACHE_HOME": "/x", "HF_HOME": "/hf"}, "/hf/hub"},
		{"legacy HUGGINGFACE_HUB_CACHE beats HF_HOME", map[string]string{"HF_HOME": "/hf", "HUGGINGFACE_HUB_CACHE": "/legacy"}, "/legacy"},
		{"HF_HUB_CACHE beats everything", map[string]string{"HF_HOME": "/hf", "HUGGINGFACE_HUB_CACHE": "/legacy", "HF_HUB_CACHE": "/cache"}, "/cache"},
		{"tilde and vars expand", map[string]string{"HOME": "/h", "WHERE": "w", "HF_HOME": "~/$WHERE"}, "/h/w/hub"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := FromEnv(envOf(tt.env), nil)
			if c.CacheDir != filepath.FromSlash(tt.want) {
				t.Errorf("CacheDir = %q; want %q", c.CacheDir, tt.want)
			}
		})
	}
}

func TestFromEnvEndpointOfflineToken(t *testing.T) {
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenFile, []byte("hf_fromfile\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name                 string
		env                  map[string]string
		endpoint             string
		offline              bool
		token, tokenFromHint string
	}{
		{"defaults", map[string]string{"HOME": dir + "/nohome"}, DefaultEndpoint, false, "", ""},
		{"endpoint trimmed", map[string]string{"HF_ENDPOINT": "http://mirror/", "HOME": dir}, "http://mirror", false, "", ""},
		{"offline 1", map[string]string{"HF_HUB_OFFLINE": "1"}, DefaultEndpoint, true, "", ""},
		{"offline yes", map[string]string{"HF_HUB_OFFLINE": "Yes"}, DefaultEndpoint, true, "", ""},
		{"offline on", map[string]string{"HF_HUB_OFFLINE": "on"}, DefaultEndpoint, true, "", ""},
		{"offline 0", map[string]string{"HF_HUB_OFFLINE": "0"}, DefaultEndpoint, false, "", ""},
		{"transformers offline", map[string]string{"TRANSFORMERS_OFFLINE": "true"}, DefaultEndpoint, true, "", ""},
		{"HF_HUB_OFFLINE set wins", map[string]string{"HF_HUB_OFFLINE": "0", "TRANSFORMERS_OFFLINE": "1"}, DefaultEndpoint, false, "", ""},
		{"HF_TOKEN", map[string]string{"HF_TOKEN": " hf_a\n", "HUGGING_FACE_HUB_TOKEN": "hf_b", "HF_TOKEN_PATH": tokenFile}, DefaultEndpoint, false, "hf_a", "HF_TOKEN"},
		{"legacy token", map[string]string{"HUGGING_FACE_HUB_TOKEN": "hf_b", "HF_TOKEN_PATH": tokenFile}, DefaultEndpoint, false, "hf_b", "HUGGING_FACE_HUB_TOKEN"},
		{"token file", map[string]string{"HF_TOKEN_PATH": tokenFile}, DefaultEndpoint, false, "hf_fromfile", tokenFile},
		{"token file in HF_HOME", map[string]string{"HF_HOME": dir}, DefaultEndpoint, false, "hf_fromfile", tokenFile},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, ok := tt.env["HOME"]; !ok {
				tt.env["HOME"] = filepath.Join(dir, "nohome")
			}
			c := FromEnv(envOf(tt.env), nil)
			if c.Endpoint != tt.endpoint || c.Offline != tt.offline || c.Token != tt.token || !strings.Contains(c.TokenFrom, tt.tokenFromHint) {
				t.Errorf("FromEnv = endpoint %q offline %v token %q from %q; want %q %v %q from %q",
					c.Endpoint, c.Offline, c.Token, c.TokenFrom, tt.endpoint, tt.offline, tt.token, tt.tokenFromHint)
			}
		})
	}
}
