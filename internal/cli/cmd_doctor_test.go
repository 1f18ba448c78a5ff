package cli

import (
	"bytes"
	"context"
	"net"
	"strings"
	"testing"
)

// TestDoctorCommand: `aiperf doctor` reads profile's flags (aliases and
// all), prints one line per check and exits 1 only on a FAIL; bad flags
// are a usage error naming doctor.
func TestDoctorCommand(t *testing.T) {
	// A port that was free a moment ago and is closed now: nothing listens.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	for _, tt := range []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"doctor", "-m", "mock-model", "--mock-server", "--concurrency", "4", "--output-tokens-mean", "32", "--extra_inputs", "ignore_eos:true"}, 0,
			[]string{"OK   network_path", "(loopback)", "OK   output_length        --osl 32 with ignore_eos:true", "OK   server_metrics", "OK   open_files", "tokenizer_offline"}},
		{[]string{"doctor", "-m", "mock-model", "--mock-server", "--osl", "32", "--tokenizer", "builtin"}, 0,
			[]string{"WARN output_length", "fix: --extra-inputs ignore_eos:true"}},
		{[]string{"doctor", "-m", "x", "-u", closed, "--tokenizer", "builtin"}, 1,
			[]string{"FAIL network_path", "cannot connect", "WARN server_metrics"}},
	} {
		var out, errOut bytes.Buffer
		code := Main(context.Background(), tt.args, Env{Stdout: &out, Stderr: &errOut})
		if code != tt.code {
			t.Errorf("aiperf %v: exit %d, want %d\n%s%s", tt.args, code, tt.code, out.String(), errOut.String())
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		if len(lines) != 9 {
			t.Errorf("aiperf %v: %d lines, want one per check:\n%s", tt.args, len(lines), out.String())
		}
		for _, l := range lines {
			if !strings.HasPrefix(l, "OK ") && !strings.HasPrefix(l, "WARN ") && !strings.HasPrefix(l, "FAIL ") {
				t.Errorf("aiperf %v: line %q", tt.args, l)
			}
		}
		for _, w := range tt.want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("aiperf %v: no %q in\n%s", tt.args, w, out.String())
			}
		}
	}

	var out, errOut bytes.Buffer
	if code := Main(context.Background(), []string{"doctor", "--bogus"}, Env{Stdout: &out, Stderr: &errOut}); code != 2 ||
		!strings.Contains(errOut.String(), "invalid aiperf doctor usage") || !strings.Contains(errOut.String(), "--bogus: unknown flag") {
		t.Errorf("bad flag: exit %d\n%s", code, errOut.String())
	}
	out.Reset()
	if code := Main(context.Background(), []string{"doctor", "--help"}, Env{Stdout: &out}); code != 0 || !strings.Contains(out.String(), "--concurrency") {
		t.Errorf("help: exit %d\n%s", code, out.String())
	}
}
