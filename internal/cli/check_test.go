package cli

import (
	"strings"
	"testing"
)

// TestCheckArgs: CheckArgs finds what Main would refuse, for profile and
// for the other commands, and runs nothing (a runner that fails the test
// is configured).
func TestCheckArgs(t *testing.T) {
	env := Env{Runner: nil}
	tests := []struct {
		name string
		args []string
		full bool
		want string // "" = no error; else a substring of it
	}{
		{"profile ok", []string{"profile", "-m", "mock-model", "--mock-server", "--streaming", "--concurrency", "8"}, true, ""},
		{"profile unknown flag", []string{"profile", "-m", "mock-model", "--concurency", "8"}, true, "--concurency"},
		{"profile bad value", []string{"profile", "-m", "mock-model", "--concurrency", "eight"}, true, "--concurrency"},
		{"profile invalid whole", []string{"profile", "--streaming"}, true, "model"},
		{"profile missing config file", []string{"profile", "-f", "does-not-exist.yaml"}, true, "does-not-exist.yaml"},
		{"profile fragment flags only", []string{"profile", "--pre-connect"}, false, ""},
		{"profile fragment unknown flag", []string{"profile", "--pre-conect"}, false, "--pre-conect"},
		{"profile fragment skips config file", []string{"profile", "-f", "does-not-exist.yaml"}, false, ""},
		{"service runs profile", []string{"service", "--type", "system_controller", "-m", "my-model"}, true, ""},
		{"service bad profile flag", []string{"service", "--type", "system_controller", "-m", "my-model", "--nope"}, true, "--nope"},
		{"tokenize ok", []string{"tokenize", "--tokenizer", "builtin", "--ids"}, true, ""},
		{"tokenize unknown flag", []string{"tokenize", "--tokenizr", "builtin"}, true, "tokenizr"},
		{"config init ok", []string{"config", "init", "aiperf.yaml"}, true, ""},
		{"compare needs a run", []string{"compare"}, true, "arg"},
		{"unknown command", []string{"profil", "-m", "x"}, true, "profil"},
		{"kube stub passes", []string{"kube", "anything", "--goes"}, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			check := CheckArgs
			if !tt.full {
				check = CheckFlags
			}
			err := check(tt.args, env)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("error %v; want none", err)
			case tt.want != "" && err == nil:
				t.Errorf("no error; want one naming %q", tt.want)
			case tt.want != "" && !strings.Contains(err.Error(), tt.want):
				t.Errorf("error %v; want one naming %q", err, tt.want)
			}
		})
	}
}
