package accuracy

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestHellaswag loads the fixture: every task in DeepEval's order, the
// few-shots from the first train row of each activity label (whatever the
// task), unlabelled rows skipped, the confinement line, a letter as gold.
func TestHellaswag(t *testing.T) {
	t.Parallel()
	ps := load(t, Options{Benchmark: "hellaswag", Shots: ptr(2)})
	var truths, tasks []string
	for _, p := range ps {
		truths, tasks = append(truths, p.Truth), append(tasks, p.Task)
		if p.MaxTokens != 5 || len(p.Messages) != 1 || p.Messages[0] != (Message{"user", p.Prompt}) {
			t.Errorf("%s: max tokens %d, messages %v", p.Task, p.MaxTokens, p.Messages)
		}
	}
	if !slices.Equal(truths, []string{"A", "D", "C", "B"}) ||
		!slices.Equal(tasks, []string{"Applying sunscreen", "Applying sunscreen", "Disc dog", "Cars & Other Vehicles"}) {
		t.Errorf("problems: truths %v tasks %v", truths, tasks)
	}
	want := "The following are multiple choice questions (with answers) are sentence completion problems about Disc dog.\n\n" +
		"A person in disc dog clip train 0 then\nA. train 0 ending w\nB. train 0 ending x\nC. train 0 ending y\nD. train 0 ending z\nAnswer: B\n\n" +
		"A person in applying sunscreen clip train 1 then\nA. train 1 ending w\nB. train 1 ending x\nC. train 1 ending y\nD. train 1 ending z\nAnswer: C\n\n" +
		"A person in disc dog clip validation 1 then\nA. validation 1 ending w\nB. validation 1 ending x\nC. validation 1 ending y\nD. validation 1 ending z\nAnswer:\n\n" +
		"Output 'A', 'B', 'C', or 'D'. Full answer not needed."
	if ps[2].Prompt != want {
		t.Errorf("Disc dog prompt:\n%q\nwant:\n%q", ps[2].Prompt, want)
	}
	// Tasks by label in any case or by enum name, in the order given.
	sel := load(t, Options{Benchmark: "hellaswag", Shots: ptr(0), Tasks: []string{"CARS_AND_OTHER_VEHICLES", "disc dog"}})
	if len(sel) != 2 || sel[0].Task != "Cars & Other Vehicles" || sel[1].Task != "Disc dog" ||
		!strings.HasPrefix(sel[1].Prompt, "The following are multiple choice questions (with answers) are sentence completion problems about Disc dog.\n\nA person in disc dog clip validation 1") {
		t.Errorf("selected tasks: %+v", sel)
	}
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{Benchmark: "hellaswag", Shots: ptr(16)}, "at most 15"},
		{Options{Benchmark: "hellaswag"}, "only 4 activity labels"}, // the default 10 shots, from a 4-label fixture
		{Options{Benchmark: "hellaswag", Shots: ptr(1), Tasks: []string{"all", "Disc dog"}}, "cannot be mixed"},
		{Options{Benchmark: "hellaswag", Shots: ptr(1), Tasks: []string{"Underwater chess"}}, `"Underwater chess"`},
	} {
		tc.o.Getenv = offline(t)
		if _, err := Load(context.Background(), tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Load(tasks %v) = %v; want an error containing %q", tc.o.Tasks, err, tc.want)
		}
	}
}

// TestHellaswagMatchesAIPerf renders the fixture's problems with AIPerf
// 0.13's own HellaSwag loader and DeepEval's template and compares them
// byte for byte. DeepEval is not installed with AIPerf here; point
// AIPERF_TEST_DEEPEVAL at an unpacked deepeval wheel (pip download
// --no-deps deepeval; python -m zipfile -e deepeval-*.whl DIR): only its
// HellaSwag task and template modules are loaded.
func TestHellaswagMatchesAIPerf(t *testing.T) {
	src := os.Getenv("AIPERF_TEST_DEEPEVAL")
	if src == "" {
		t.Skip("AIPERF_TEST_DEEPEVAL is not set")
	}
	py := os.Getenv("AIPERF_PYTHON")
	if py == "" {
		py = "/work/aip/bin/python"
	}
	stub := t.TempDir()
	hs := filepath.Join(stub, "deepeval", "benchmarks", "hellaswag")
	if err := os.MkdirAll(hs, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"deepeval/__init__.py", "deepeval/benchmarks/__init__.py", "deepeval/benchmarks/hellaswag/__init__.py"} {
		os.WriteFile(filepath.Join(stub, f), nil, 0o644)
	}
	for _, f := range []string{"task.py", "template.py"} {
		b, err := os.ReadFile(filepath.Join(src, "deepeval", "benchmarks", "hellaswag", f))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(hs, f), b, 0o644)
	}
	hub, _ := filepath.Abs(filepath.Join("testdata", "hub"))
	tasks := []string{"disc dog", "APPLYING_SUNSCREEN", "Cars & Other Vehicles"}
	tj, _ := json.Marshal(tasks)
	cmd := exec.Command(py, "-c", `import glob, json, sys
import pyarrow.parquet as pq
from aiperf.accuracy.benchmarks.hellaswag import HellaSwagBenchmark, _resolve_tasks
rows = lambda s: pq.read_table(glob.glob(sys.argv[1] + "/datasets--Rowan--hellaswag/snapshots/*/data/" + s + "-*.parquet")[0]).to_pylist()
b = HellaSwagBenchmark.__new__(HellaSwagBenchmark)
ps = b._build_problems({"train": rows("train"), "validation": rows("validation")}, _resolve_tasks(json.loads(sys.argv[2])), int(sys.argv[3]))
print(json.dumps([{"prompt": p.prompt, "truth": p.ground_truth, "task": p.task, "messages": p.raw_messages} for p in ps]))`, hub, string(tj), "3")
	cmd.Env = append(os.Environ(), "PYTHONPATH="+stub)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("AIPerf's HellaSwag loader: %v", err)
	}
	var want []struct {
		Prompt, Truth, Task string
		Messages            []Message
	}
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	got := load(t, Options{Benchmark: "hellaswag", Shots: ptr(3), Tasks: tasks})
	if len(got) != len(want) {
		t.Fatalf("%d problems; AIPerf %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.Prompt != w.Prompt || g.Truth != w.Truth || g.Task != w.Task || !slices.Equal(g.Messages, w.Messages) {
			t.Errorf("problem %d:\n%q %s %s %v\nAIPerf:\n%q %s %s %v", i, g.Prompt, g.Truth, g.Task, g.Messages, w.Prompt, w.Truth, w.Task, w.Messages)
		}
	}
}
