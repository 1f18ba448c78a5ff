package accuracy

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/dataset/hfdata"
)

// TestGraders checks every grader on answers it must accept and reject.
func TestGraders(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		grader, resp, truth string
		correct, unparsed   bool
	}{
		{"exact_match", "  B ", "B", true, false},
		{"exact_match", "b", "B", false, false},
		{"exact_match", "", "B", false, true},
		{"multiple_choice", " B\n\nQuestion: ...", " B", true, false},
		{"multiple_choice", "C", " B", false, false},
		{"multiple_choice", "Let me think. A. 0, B. 4\nSo the answer is (D).", " D", true, false},
		{"multiple_choice", "I pick B here", " B", true, true},
		{"multiple_choice", "no idea", " A", false, true},
		{"mmlu_pro", "Step 1...\nThe answer is (J)", "J", true, false},
		{"mmlu_pro", "maybe the answer is A ... actually the answer is (C)", "C", true, false},
		{"mmlu_pro", "Answer: E", "E", true, true},
		{"mmlu_pro", "The answer is (B)", "C", false, false},
		{"lighteval_gsm8k", "3+4 = 7.\n#### 7", "...\n#### 7", true, false},
		{"lighteval_gsm8k", "The total is 1,500 apples.", "#### 1500", true, true},
		{"lighteval_gsm8k", "It is 7.0", "#### 7", true, true},
		{"lighteval_gsm8k", "#### 8", "#### 7", false, false},
		{"math", `so the answer is \boxed{204}.`, "204", true, false},
		{"math", `\boxed{\frac{1}{2}}`, "0.5", true, false},
		{"math", "the answer is 33", "204", false, true},
		{"lighteval_expr", `\boxed{24}`, "24", true, false},
		{"lighteval_latex", `We get $\boxed{\dfrac{2}{3}}$`, `Add: $\boxed{\frac{2}{3}}$.`, true, false},
		{"lighteval_latex", `\boxed{\frac23}`, `$\boxed{\frac{2}{3}}$`, true, false},
		{"lighteval_latex", `\boxed{4/6}`, `$\boxed{\frac{2}{3}}$`, true, false},
		{"lighteval_latex", `\boxed{3}`, `$\boxed{\frac{2}{3}}$`, false, false},
		{"lighteval_gpqa", "Reasoning...\nAnswer: C", "C", true, false},
		{"lighteval_gpqa", "I think it is B", "B", true, true},
		{"lighteval_gpqa", "Answer: A", "C", false, false},
	} {
		g, err := NewGrader(tc.grader)
		if err != nil {
			t.Fatal(err)
		}
		got := g.Grade(tc.resp, tc.truth)
		if got.Correct != tc.correct || got.Unparsed != tc.unparsed {
			t.Errorf("%s(%q, %q) = correct %v unparsed %v (%s); want %v %v", tc.grader, tc.resp, tc.truth, got.Correct, got.Unparsed, got.Reason, tc.correct, tc.unparsed)
		}
	}
	if _, err := NewGrader("vibes"); err == nil {
		t.Error("NewGrader(vibes) = nil error")
	}
}

func TestCodeExecution(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed")
	}
	g, err := NewGrader("code_execution")
	if err != nil {
		t.Fatal(err)
	}
	truth := `{"public_test_cases": "[{\"input\": \"2 3\\n\", \"output\": \"5\\n\", \"testtype\": \"stdin\"}]", "private_test_cases": [{"input": "10 -4\n", "output": "6"}]}`
	good := "Here:\n```python\na, b = map(int, input().split())\nprint(a + b)\n```\n"
	bad := "```python\nprint(5)\n```"
	if r := g.Grade(good, truth); !r.Correct {
		t.Errorf("correct program graded wrong: %s", r.Reason)
	}
	if r := g.Grade(bad, truth); r.Correct {
		t.Errorf("wrong program graded correct: %s", r.Reason)
	}
	if r := g.Grade("no code", truth); r.Correct || !r.Unparsed {
		t.Errorf("no code: %+v", r)
	}
}

func offline(t *testing.T) func(string) string {
	dir, _ := filepath.Abs(filepath.Join("testdata", "hub"))
	return func(k string) string {
		switch k {
		case "HF_HUB_CACHE":
			return dir
		case "HF_HUB_OFFLINE":
			return "1"
		case "HOME":
			return os.Getenv("HOME")
		}
		return ""
	}
}

func load(t *testing.T, o Options) []Problem {
	t.Helper()
	o.Getenv = offline(t)
	ps, err := Load(context.Background(), o)
	if err != nil {
		t.Fatalf("Load(%s): %v", o.Benchmark, err)
	}
	return ps
}

func TestLoadFixtures(t *testing.T) {
	t.Parallel()
	gsm := load(t, Options{Benchmark: "gsm8k"})
	if len(gsm) != 4 || gsm[0].Prompt != "Question: Tom has 3 apples and buys 4 more. How many apples does he have?\nAnswer:" ||
		!strings.HasSuffix(gsm[0].Truth, "#### 7") || gsm[0].MaxTokens != 256 || gsm[0].Task != "gsm8k" {
		t.Errorf("gsm8k[0] = %+v", gsm[0])
	}

	mm := load(t, Options{Benchmark: "mmlu", Tasks: []string{"anatomy"}})
	if len(mm) != 3 || mm[0].Task != "anatomy" || mm[0].Truth != " A" || mm[1].Truth != " B" || mm[0].MaxTokens != 5 || mm[0].Stop[0] != "\n" {
		t.Fatalf("mmlu anatomy = %+v", mm)
	}
	// 5 shots: 10 messages of few-shot turns, then the question.
	if n := len(mm[0].Messages); n != 11 {
		t.Errorf("mmlu messages %d; want 11 (5 shots)", n)
	}
	first := mm[0].Messages[0].Content
	if !strings.HasPrefix(first, "The following are multiple choice questions (with answers) about anatomy.\n\nQuestion: anatomy question 1") {
		t.Errorf("mmlu first few-shot message %q", first)
	}
	if !strings.HasSuffix(mm[0].Prompt, "Question: anatomy question 0?\nA. option 0-w\nB. option 0-x\nC. option 0-y\nD. option 0-z\nAnswer:") {
		t.Errorf("mmlu prompt ends %q", mm[0].Prompt[max(0, len(mm[0].Prompt)-120):])
	}
	zero := load(t, Options{Benchmark: "mmlu", Tasks: []string{"abstract_algebra"}, Shots: ptr(0)})
	if len(zero[0].Messages) != 1 || !strings.HasPrefix(zero[0].Messages[0].Content, "The following are") {
		t.Errorf("mmlu 0-shot = %+v", zero[0].Messages)
	}
	all := load(t, Options{Benchmark: "mmlu", Tasks: []string{"abstract_algebra", "anatomy"}, CoT: ptr(true)})
	if len(all) != 6 || !strings.Contains(all[0].Prompt, "Let's think step by step.\nAnswer:") || all[0].MaxTokens != 4000 || all[0].Stop != nil {
		t.Errorf("mmlu cot: %d problems, %+v", len(all), all[0])
	}

	m5 := load(t, Options{Benchmark: "math_500"})
	if len(m5) != 2 || m5[0].Truth == "" || !strings.Contains(m5[0].Truth, `\boxed{\frac{2}{3}}`) {
		t.Errorf("math_500 = %+v", m5)
	}
	gp := load(t, Options{Benchmark: "gpqa_diamond"})
	if len(gp) != 3 {
		t.Fatalf("gpqa: %d problems", len(gp))
	}
	for _, p := range gp {
		line := map[string]string{"A": "A) ", "B": "B) ", "C": "C) ", "D": "D) "}[p.Truth]
		if !strings.Contains(p.Prompt, line+"right") || !strings.HasPrefix(p.Prompt, "Answer the following multiple choice question.") {
			t.Errorf("gpqa gold %s does not point at the correct answer:\n%s", p.Truth, p.Prompt)
		}
	}
	aime := load(t, Options{Benchmark: "aime", Shots: ptr(2)})
	want := aimeHeader + "**Problem**: Problem number 1.\n**Solution**: Solve 1.\n**Answer**: 101\n\n" +
		"**Problem**: Problem number 2.\n**Solution**: Solve 2.\n**Answer**: 102\n\n" +
		"**Problem**: Problem number 3.\n**Answer**: \n\nLet's think step-by-step."
	if len(aime) != 3 || aime[2].Prompt != want || aime[2].Truth != "103" {
		t.Errorf("aime[2] = %q (truth %q); want %q", aime[2].Prompt, aime[2].Truth, want)
	}
	if a := load(t, Options{Benchmark: "aime24"}); len(a) != 1 || a[0].Truth != "24" || a[0].MaxTokens != 32768 {
		t.Errorf("aime24 = %+v", a)
	}
}

func TestLoadErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{Benchmark: "mmlu", Tasks: []string{"astrology"}}, `unknown MMLU subject "astrology"`},
		{Options{Benchmark: "bigbench"}, "not supported"},
		{Options{Benchmark: "aime", Shots: ptr(9)}, "at most 8"},
		{Options{Benchmark: "mmlu", Tasks: []string{"astronomy"}}, "astronomy"}, // a real subject absent from the cache
		{Options{Benchmark: "nope"}, "unknown benchmark"},
	} {
		tc.o.Getenv = offline(t)
		if _, err := Load(context.Background(), tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Load(%+v) = %v; want an error containing %q", tc.o.Benchmark, err, tc.want)
		}
	}
}

func TestTally(t *testing.T) {
	t.Parallel()
	tl := NewTally("mmlu", "multiple_choice")
	tl.Add("a", Grade{Correct: true})
	tl.Add("a", Grade{Unparsed: true})
	tl.Add("b", Grade{Correct: true, Unparsed: true})
	tl.Add("b", Grade{Correct: true})
	s := tl.Summary()
	if s.TotalEvaluated != 4 || s.TotalPassed != 3 || s.AccuracyRate != 0.75 || s.OverallUnparsed != 2 || s.PerTask["a"].AccuracyRate != 0.5 {
		t.Errorf("summary %+v", s)
	}
	ms := s.Metrics()
	if ms[0].Tag != "accuracy.overall" || ms[1].Tag != "accuracy.task.a" || ms[3].Tag != "accuracy.unparsed" || ms[4].Tag != "accuracy.unparsed.task.a" || ms[3].Value != 0.5 {
		t.Errorf("metrics %+v", ms)
	}
	p := filepath.Join(t.TempDir(), "accuracy_results.csv")
	if err := s.WriteCSV(p); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	want := "task,correct,total,unparsed,accuracy\na,1,2,1,0.5000\nb,2,2,1,1.0000\nOVERALL,3,4,2,0.7500\n"
	if string(b) != want {
		t.Errorf("CSV:\n%s\nwant:\n%s", b, want)
	}
	var tb strings.Builder
	s.WriteTable(&tb)
	if !strings.Contains(tb.String(), "OVERALL") || !strings.Contains(tb.String(), "75.00%") {
		t.Errorf("table:\n%s", tb.String())
	}
}

func TestMatchesAIPerf(t *testing.T) {
	t.Parallel()
	// random.Random(int(hashlib.sha256(b"Which particle is number 0?").hexdigest(), 16) % 2**32)
	// shuffling [0, 1, 2, 3], computed with CPython 3.11.
	py := os.Getenv("AIPERF_PYTHON")
	if py == "" {
		py = "/work/aip/bin/python"
	}
	if _, err := os.Stat(py); err != nil {
		t.Skip("no Python reference")
	}
	for _, q := range []string{"Which particle is number 0?", "Which particle is number 1?", "ünïcode question"} {
		out, err := exec.Command(py, "-c", `import hashlib,random,sys
k=sys.argv[1]; r=random.Random(int(hashlib.sha256(k.encode()).hexdigest(),16)%2**32); i=list(range(4)); r.shuffle(i); print(i)`, q).Output()
		if err != nil {
			t.Fatal(err)
		}
		if got, want := fmt.Sprint(seededPermutation(q, 4)), strings.ReplaceAll(strings.TrimSpace(string(out)), ",", ""); got != want {
			t.Errorf("seededPermutation(%q) = %s; Python %s", q, got, want)
		}
	}
	// lighteval's balanced few-shot sampling, as AIPerf implements it.
	rows := make([]hfdata.Row, 9)
	pyRows := "["
	for i := range rows {
		rows[i] = hfdata.Row{"choices": []any{"w", "x", "y", "z"}, "answer": int64((i * 7) % 4)}
		pyRows += fmt.Sprintf(`{"choices":["w","x","y","z"],"answer":%d},`, (i*7)%4)
	}
	pyRows = strings.TrimSuffix(pyRows, ",") + "]"
	out, err := exec.Command(py, "-c", `import sys,json
from aiperf.accuracy.benchmarks.mmlu import MMLUBenchmark
for n in (1, 3, 5, 8): print(MMLUBenchmark._balanced_sample_indices(json.loads(sys.argv[1]), n))`, pyRows).Output()
	if err != nil {
		t.Fatalf("AIPerf's sampler: %v", err)
	}
	// The AIME prompt, byte for byte.
	aimeOut, err := exec.Command(py, "-c", `import json
from aiperf.accuracy.benchmarks.aime import AIMEBenchmark
rows=[{"ID":"x","Problem":f"Problem number {i}.","Solution":f"Solve {i}.","Answer":100+i} for i in range(1,4)]
b=AIMEBenchmark.__new__(AIMEBenchmark)
few=[b._format_example(r) for r in rows[:2]]
print(json.dumps(b._format_prompt(rows[2], few, True)))`).Output()
	if err != nil {
		t.Fatalf("AIPerf's AIME prompt: %v", err)
	}
	var aimeWant string
	json.Unmarshal(aimeOut, &aimeWant)
	ps := load(t, Options{Benchmark: "aime", Shots: ptr(2)})
	if ps[2].Prompt != aimeWant {
		t.Errorf("AIME prompt:\n%q\nAIPerf:\n%q", ps[2].Prompt, aimeWant)
	}
	// The MMLU prompt and chat messages (5 balanced shots from dev), byte for byte.
	mmluOut, err := exec.Command(py, "-c", `import json
from aiperf.accuracy.benchmarks.mmlu import MMLUBenchmark
rows=lambda s,n,o:[{"question":f"{s} question {o+i}?","subject":s,"choices":[f"option {o+i}-{c}" for c in "wxyz"],"answer":(o+i)%4} for i in range(n)]
dev,test=rows("anatomy",5,100),rows("anatomy",3,0)
b=MMLUBenchmark.__new__(MMLUBenchmark)
few=[b._format_example(dev[i]) for i in b._balanced_sample_indices(dev,5)]
print(json.dumps({"prompt":b._format_prompt(test[1],"anatomy",few,False),"messages":b._build_chat_messages(test[1],"anatomy",few,False)}))`).Output()
	if err != nil {
		t.Fatalf("AIPerf's MMLU prompt: %v", err)
	}
	var mmluWant struct {
		Prompt   string    `json:"prompt"`
		Messages []Message `json:"messages"`
	}
	json.Unmarshal(mmluOut, &mmluWant)
	mm := load(t, Options{Benchmark: "mmlu", Tasks: []string{"anatomy"}})
	if mm[1].Prompt != mmluWant.Prompt || fmt.Sprint(mm[1].Messages) != fmt.Sprint(mmluWant.Messages) {
		t.Errorf("MMLU prompt:\n%q\n%v\nAIPerf:\n%q\n%v", mm[1].Prompt, mm[1].Messages, mmluWant.Prompt, mmluWant.Messages)
	}
	// GPQA: the shuffled options and the gold letter.
	gpqaOut, err := exec.Command(py, "-c", `import json
from aiperf.accuracy.benchmarks.gpqa_diamond import GPQADiamondBenchmark
rows=[{"Question":f"Which particle is number {i}?","Correct Answer":f"right {i}","Incorrect Answer 1":f"wrong {i}a","Incorrect Answer 2":f"wrong {i}b","Incorrect Answer 3":f"wrong {i}c"} for i in range(3)]
b=GPQADiamondBenchmark.__new__(GPQADiamondBenchmark)
print(json.dumps([[p.prompt,p.ground_truth] for p in b._build_problems(rows)]))`).Output()
	if err != nil {
		t.Fatalf("AIPerf's GPQA prompts: %v", err)
	}
	var gpqaWant [][2]string
	json.Unmarshal(gpqaOut, &gpqaWant)
	gp := load(t, Options{Benchmark: "gpqa_diamond"})
	for i, w := range gpqaWant {
		if gp[i].Prompt != w[0] || gp[i].Truth != w[1] {
			t.Errorf("GPQA %d: %q gold %s; AIPerf %q gold %s", i, gp[i].Prompt, gp[i].Truth, w[0], w[1])
		}
	}
	for i, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		n := []int{1, 3, 5, 8}[i]
		if got, want := fmt.Sprint(balancedIndices(rows, n)), strings.ReplaceAll(line, ",", ""); got != want {
			t.Errorf("balanced few-shots of %d: %s; AIPerf %s", n, got, want)
		}
	}
}

func ptr[T any](v T) *T { return &v }
