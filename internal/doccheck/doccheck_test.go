// Package doccheck holds the documentation test: every shell command in
// README.md and docs/*.md runs as written.
//
// The commands are the lines of the fenced code blocks marked sh, bash or
// shell. A block that needs something outside this machine (an inference
// server, a cluster, a GPU, the network, a Python install, root) or that
// is itself a build or a test command says so on the line just above its
// fence:
//
//	<!-- needs: vllm -->
//
// Every `aiperf` command of every block is checked through the real
// command line without running it (cli.CheckArgs: the sub-command and its
// flags exist, their values parse, and `profile` is validated in full, as
// before a run); a fragment such as `aiperf profile ... --pre-connect`
// (an argument `...`) has only its flags checked. Every block with no
// needs line and no fragment is then run, end to end, with the built
// binary as `aiperf` and `./aiperf`, by bash with -e and -o pipefail in a
// temporary directory (the repository's top-level entries linked in, HOME
// pointed there), in a network namespace of its own where the machine
// allows one, so that nothing outside is reached, the documented ports
// are free and several blocks can run at once; it must exit 0. A server a block starts in the background
// (`aiperf mock-server ... &`) is waited for until it accepts connections,
// as a reader would, and killed with the block.
package doccheck

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/cli"
	"github.com/aiperf-go/aiperf/internal/kubecli"
)

// block is one fenced shell block of a markdown file.
type block struct {
	file  string // relative to the repository root
	line  int    // of the opening fence
	needs string // the needs line's text; "" = runs here
	text  string
}

func (b block) name() string { return fmt.Sprintf("%s:%d", b.file, b.line) }

var needsLine = regexp.MustCompile(`^<!--\s*needs:\s*(.*?)\s*-->$`)

// readBlocks returns the shell blocks of a markdown file. An unlabelled
// block holding an aiperf command is an error: label it sh (it is a
// command) or text (it is output).
func readBlocks(t *testing.T, root, rel string) []block {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	var out []block
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); i++ {
		open := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(open, "```") {
			continue
		}
		lang := strings.TrimPrefix(open, "```")
		start := i
		var body []string
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
			body = append(body, lines[i])
		}
		b := block{file: rel, line: start + 1, text: strings.Join(body, "\n")}
		for j := start - 1; j >= 0; j-- {
			if s := strings.TrimSpace(lines[j]); s != "" {
				if m := needsLine.FindStringSubmatch(s); m != nil {
					b.needs = m[1]
				}
				break
			}
		}
		switch lang {
		case "sh", "bash", "shell":
			out = append(out, b)
		case "":
			for _, c := range splitCommands(b.text) {
				if c.isAiperf {
					t.Errorf("%s: an unlabelled block holds the command %q: label its fence sh, or text if it is output", b.name(), strings.Join(c.words, " "))
					break
				}
			}
		}
	}
	return out
}

// command is one simple command of a shell line: its words, without the
// leading VAR=value assignments (env) and redirections.
type command struct {
	env      map[string]string
	words    []string
	isAiperf bool // words[0] is aiperf or ./aiperf
}

// fragment reports whether the command is an elided sketch.
func (c command) fragment() bool {
	for _, w := range c.words {
		if w == "..." {
			return true
		}
	}
	return false
}

// splitCommands splits a block into simple commands: comment lines and
// trailing comments dropped, backslash continuations joined, and lines
// split at |, ||, &&, ; and &. Quotes and $(...) are kept inside words.
func splitCommands(text string) []command {
	var out []command
	cur := command{env: map[string]string{}}
	flush := func() {
		if len(cur.words) > 0 {
			cur.isAiperf = cur.words[0] == "aiperf" || cur.words[0] == "./aiperf"
			out = append(out, cur)
		}
		cur = command{env: map[string]string{}}
	}
	var word strings.Builder
	inWord, redirect := false, false
	endWord := func() {
		if !inWord {
			return
		}
		w := word.String()
		word.Reset()
		inWord = false
		switch {
		case redirect:
			redirect = false
		case len(cur.words) == 0 && isAssignment(w):
			k, v, _ := strings.Cut(w, "=")
			cur.env[k] = unquote(v)
		default:
			cur.words = append(cur.words, unquote(w))
		}
	}
	rs := []rune(text)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == '\\' && i+1 < len(rs) && rs[i+1] == '\n':
			i++ // a continuation
		case r == '\n':
			endWord()
			flush()
		case r == '#' && !inWord:
			for i+1 < len(rs) && rs[i+1] != '\n' {
				i++
			}
		case r == ' ' || r == '\t':
			endWord()
		case r == '|' || r == ';' || r == '&':
			if r == '&' && inWord && strings.HasSuffix(word.String(), ">") { // 2>&1
				word.WriteRune(r)
				continue
			}
			endWord()
			flush()
			if i+1 < len(rs) && (rs[i+1] == '|' || rs[i+1] == '&') {
				i++
			}
		case (r == '>' || r == '<') && !inWord:
			redirect = true
			for i+1 < len(rs) && (rs[i+1] == '>' || rs[i+1] == '&') {
				i++
			}
		case r == '\'' || r == '"':
			inWord = true
			word.WriteRune(r)
			for i++; i < len(rs) && rs[i] != r; i++ {
				if r == '"' && rs[i] == '\\' && i+1 < len(rs) {
					word.WriteRune(rs[i])
					i++
				}
				word.WriteRune(rs[i])
			}
			word.WriteRune(r)
		case r == '$' && i+1 < len(rs) && rs[i+1] == '(':
			inWord = true
			depth := 0
			for ; i < len(rs); i++ {
				word.WriteRune(rs[i])
				if rs[i] == '(' {
					depth++
				} else if rs[i] == ')' {
					if depth--; depth == 0 {
						break
					}
				}
			}
		default:
			if (r == '>' || r == '<') && inWord && isAllDigits(word.String()) { // 2>file
				word.Reset()
				inWord = false
				redirect = true
				continue
			}
			inWord = true
			word.WriteRune(r)
		}
	}
	endWord()
	flush()
	return out
}

var assignment = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)

func isAssignment(w string) bool { return assignment.MatchString(w) }

func isAllDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// unquote removes shell quotes from a word (no expansion).
func unquote(w string) string {
	var b strings.Builder
	for i := 0; i < len(w); i++ {
		switch c := w[i]; c {
		case '\'':
			j := strings.IndexByte(w[i+1:], '\'')
			if j < 0 {
				return b.String() + w[i+1:]
			}
			b.WriteString(w[i+1 : i+1+j])
			i += j + 1
		case '"':
			for i++; i < len(w) && w[i] != '"'; i++ {
				if w[i] == '\\' && i+1 < len(w) {
					i++
				}
				b.WriteByte(w[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("no go.mod at %s: %v", root, err)
	}
	return root
}

func docBlocks(t *testing.T, root string) []block {
	t.Helper()
	files := []string{"README.md"}
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		rel, _ := filepath.Rel(root, d)
		files = append(files, rel)
	}
	var out []block
	for _, f := range files {
		out = append(out, readBlocks(t, root, f)...)
	}
	return out
}

// runnable reports whether a block runs here, and if not, why.
func runnable(b block) (bool, string) {
	if b.needs != "" {
		return false, "needs " + b.needs
	}
	for _, c := range splitCommands(b.text) {
		if c.fragment() {
			return false, "fragment: " + strings.Join(c.words, " ")
		}
	}
	return true, ""
}

// TestDocCommandsParse checks every aiperf command in README.md and
// docs/*.md through the real command line, without running it.
func TestDocCommandsParse(t *testing.T) {
	root := repoRoot(t)
	// Relative paths in commands (a config file, a dataset in testdata)
	// are the repository's, as for a reader in a clone.
	t.Chdir(root)
	n := 0
	for _, b := range docBlocks(t, root) {
		for _, c := range splitCommands(b.text) {
			if !c.isAiperf {
				continue
			}
			n++
			env := cli.Env{Getenv: func(k string) string { return c.env[k] }}
			var err error
			if f := configArg(c.words); f != "" && !exists(f) {
				// A config file the block writes before this line: the
				// run checks the whole command; here, its flags.
				err = kubecli.CheckFlags(c.words[1:], env)
			} else if c.fragment() {
				var args []string
				for _, w := range c.words[1:] {
					if w != "..." {
						args = append(args, w)
					}
				}
				err = kubecli.CheckFlags(args, env)
			} else {
				err = kubecli.CheckArgs(c.words[1:], env)
			}
			if err != nil {
				t.Errorf("%s: %s\n  %v", b.name(), strings.Join(c.words, " "), err)
			}
		}
	}
	t.Logf("%d aiperf commands checked", n)
	if n < 50 {
		t.Errorf("only %d aiperf commands found in README.md and docs/: the extraction is broken", n)
	}
}

// configArg returns the -f/--config file a profile command names, or "".
func configArg(words []string) string {
	if len(words) < 2 || words[1] != "profile" {
		return ""
	}
	for i, w := range words {
		switch {
		case (w == "-f" || w == "--config") && i+1 < len(words):
			return words[i+1]
		case strings.HasPrefix(w, "--config="):
			return strings.TrimPrefix(w, "--config=")
		}
	}
	return ""
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// waitForServer is inserted after a line that starts a mock server in the
// background: the next line may use it at once, as a reader's would.
const waitForServer = `for i in $(seq 600); do (exec 3<>/dev/tcp/127.0.0.1/%s) 2>/dev/null && break; sleep 0.05; done
`

var backgroundMock = regexp.MustCompile(`aiperf mock-server\b.*&\s*(#.*)?$`)
var portFlag = regexp.MustCompile(`(?:-p|--port)[ =](\d+)`)

// script is a block as bash runs it.
func script(b block) string {
	var s strings.Builder
	s.WriteString("set -euo pipefail\ntrap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n")
	sc := bufio.NewScanner(strings.NewReader(b.text))
	var logical strings.Builder // the command so far, across "\" continuations
	for sc.Scan() {
		line := sc.Text()
		s.WriteString(line + "\n")
		if cont, ok := strings.CutSuffix(line, "\\"); ok {
			logical.WriteString(cont)
			continue
		}
		logical.WriteString(line)
		line = logical.String()
		logical.Reset()
		if backgroundMock.MatchString(line) {
			port := "8000"
			if m := portFlag.FindStringSubmatch(line); m != nil {
				port = m[1]
			}
			fmt.Fprintf(&s, waitForServer, port)
		}
	}
	return s.String()
}

// TestDocCommandsRun runs every block that needs nothing from outside.
func TestDocCommandsRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the documented commands end to end")
	}
	root := repoRoot(t)
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "aiperf"), "./cmd/aiperf")
	build.Dir = root
	build.Env = append(os.Environ(), "GOTOOLCHAIN=local")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	isolate := isolation(t)
	var run []block
	for _, b := range docBlocks(t, root) {
		if ok, why := runnable(b); !ok {
			t.Logf("%s: flags only (%s)", b.name(), why)
			continue
		}
		run = append(run, b)
	}
	t.Logf("%d blocks run, %d only flag-checked", len(run), len(docBlocks(t, root))-len(run))
	// Each block in its own network namespace shares no port with
	// another, so several run at once (most of their time is a server's
	// latency or a run's duration, not CPU); without one, one at a time.
	limit := 1
	if isolate != nil {
		limit = 6
	}
	errs := make([]error, len(run))
	took := make([]time.Duration, len(run)) // reported, never judged
	dirs := make([][2]string, len(run))
	for i := range run {
		dirs[i] = [2]string{t.TempDir(), t.TempDir()}
	}
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	for i, b := range run {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			start := time.Now()
			errs[i] = runBlock(root, bin, b, isolate, dirs[i][0], dirs[i][1])
			took[i] = time.Since(start)
		})
	}
	wg.Wait()
	for i, b := range run {
		t.Run(b.name(), func(t *testing.T) {
			t.Logf("ran for %v", took[i].Round(time.Millisecond))
			if errs[i] != nil {
				t.Error(errs[i])
			}
		})
	}
}

// isolation returns the command prefix that runs a script in a network
// namespace of its own with loopback up, or nil where the machine does
// not allow one (then the documented ports must be free).
func isolation(t *testing.T) []string {
	prefix := []string{"unshare", "--user", "--map-root-user", "--net", "sh", "-c", `ip link set lo up && exec "$@"`, "sh"}
	probe := exec.Command(prefix[0], append(prefix[1:], "true")...)
	if out, err := probe.CombinedOutput(); err != nil {
		t.Logf("no network namespace (%v: %s): the blocks run on this machine's network", err, strings.TrimSpace(string(out)))
		return nil
	}
	return prefix
}

// runBlock runs a block in dir (the repository's entries linked in) with
// HOME at home, and returns why it failed, or nil.
func runBlock(root, bin string, b block, isolate []string, dir, home string) error {
	entries, err := os.ReadDir(root)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if err := os.Symlink(filepath.Join(root, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	if err := os.Symlink(filepath.Join(bin, "aiperf"), filepath.Join(dir, "aiperf")); err != nil {
		return err
	}
	path := filepath.Join(dir, "run.sh")
	if err := os.WriteFile(path, []byte(script(b)), 0o644); err != nil {
		return err
	}
	argv := append(append([]string{}, isolate...), "bash", path)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+home, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"), "HF_HUB_OFFLINE=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.CombinedOutput()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // background servers
	}
	if err != nil {
		return fmt.Errorf("%s failed: %v\n--- block ---\n%s\n--- output (last 4000 bytes) ---\n%s", b.name(), err, b.text, tail(out, 4000))
	}
	return nil
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// TestScriptWaitsForBackgroundServers: a mock server started in the
// background gets a wait for its port before the next line, also when
// its command runs over several lines ("\" continuations, the "&" on the
// last): without the wait the next line raced the server's listen.
func TestScriptWaitsForBackgroundServers(t *testing.T) {
	for _, text := range []string{
		"./aiperf mock-server -p 8033 &\n./aiperf profile -u localhost:8033\n",
		"./aiperf mock-server -p 8033 --ttft 30 \\\n  --itl 5 &\n./aiperf profile -u localhost:8033\n",
	} {
		got := script(block{text: text})
		wait := fmt.Sprintf(waitForServer, "8033")
		i, j := strings.Index(got, wait), strings.Index(got, "./aiperf profile")
		if i < 0 || j < i {
			t.Errorf("no wait for port 8033 before the profile line:\n%s", got)
		}
	}
}
