package accuracy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// codeTimeout bounds one test case of the code-execution grader.
const codeTimeout = 10 * time.Second

// codeExecution is LiveCodeBench's pass@1: the response's last ```python
// block runs against every test case of the ground truth (a JSON object
// with public_test_cases and private_test_cases, each {input, output},
// stdin tests) under python3; it passes when every output matches after
// trimming. The program runs as a plain subprocess with a time limit:
// run it only against models whose output you would run yourself.
type codeExecution struct{ python string }

func newCodeExecution() (Grader, error) {
	py, err := exec.LookPath("python3")
	if err != nil {
		return nil, errors.New("--accuracy-grader code_execution runs the generated programs with python3, which is not on PATH")
	}
	return &codeExecution{python: py}, nil
}

type testCase struct {
	Input  string `json:"input"`
	Output string `json:"output"`
}

func (c *codeExecution) Grade(resp, truth string) Grade {
	var gt struct {
		Public  json.RawMessage `json:"public_test_cases"`
		Private json.RawMessage `json:"private_test_cases"`
	}
	if err := json.Unmarshal([]byte(truth), &gt); err != nil {
		return Grade{Unparsed: true, Reason: "ground truth is not a test-case object: " + err.Error()}
	}
	var cases []testCase
	for _, raw := range []json.RawMessage{gt.Public, gt.Private} {
		var cs []testCase
		if len(raw) == 0 {
			continue
		}
		if raw[0] == '"' { // LiveCodeBench stores the lists as JSON strings
			var s string
			json.Unmarshal(raw, &s)
			raw = json.RawMessage(s)
		}
		if err := json.Unmarshal(raw, &cs); err != nil {
			return Grade{Unparsed: true, Reason: "test cases: " + err.Error()}
		}
		cases = append(cases, cs...)
	}
	code := codeBlock(resp)
	if code == "" {
		return Grade{Unparsed: true, Expected: fmt.Sprintf("%d test cases", len(cases)), Reason: "no code block in the response"}
	}
	for i, tc := range cases {
		ctx, cancel := context.WithTimeout(context.Background(), codeTimeout)
		cmd := exec.CommandContext(ctx, c.python, "-c", code)
		cmd.Stdin = strings.NewReader(tc.Input)
		var out bytes.Buffer
		cmd.Stdout = &out
		err := cmd.Run()
		cancel()
		if err != nil || strings.TrimSpace(out.String()) != strings.TrimSpace(tc.Output) {
			return Grade{Extracted: code, Expected: fmt.Sprintf("%d test cases", len(cases)),
				Reason: fmt.Sprintf("test case %d of %d failed (%v)", i+1, len(cases), err)}
		}
	}
	return Grade{Correct: len(cases) > 0, Extracted: code, Expected: fmt.Sprintf("%d test cases", len(cases)),
		Reason: fmt.Sprintf("passed %d test cases", len(cases))}
}

// codeBlock is the last fenced code block of s (```python preferred).
func codeBlock(s string) string {
	best := ""
	for rest := s; ; {
		i := strings.Index(rest, "```")
		if i < 0 {
			break
		}
		body := rest[i+3:]
		nl := strings.IndexByte(body, '\n')
		if nl < 0 {
			break
		}
		end := strings.Index(body[nl+1:], "```")
		if end < 0 {
			break
		}
		best = body[nl+1 : nl+1+end]
		rest = body[nl+1+end+3:]
	}
	return best
}
