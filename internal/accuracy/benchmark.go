// Package accuracy is accuracy mode (--accuracy-benchmark): the question
// sets of AIPerf 0.13's accuracy benchmarks, read from the HuggingFace
// hub cache with the prompts AIPerf builds (lighteval's and the
// benchmarks' own formats), its graders, and the per-task tally written
// to the console, accuracy_results.csv, accuracy_export.jsonl and the
// summary JSON.
//
// The run sends each problem once (a single-turn conversation whose
// messages are the benchmark's chat messages, with its generation size
// and stop sequences); every profiling answer is graded against its
// problem's ground truth, found by conversation.
package accuracy

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/aiperf-go/aiperf/internal/dataset/hfdata"
	"github.com/aiperf-go/aiperf/internal/environ"
	"github.com/aiperf-go/aiperf/internal/pyrand"
	"github.com/aiperf-go/aiperf/internal/tokenizer/hub"
)

// Problem is one question (AIPerf's BenchmarkProblem).
type Problem struct {
	Prompt string // the flat prompt (completions endpoints)
	// Messages are the chat messages sent (few-shot turns included).
	Messages []Message
	Truth    string // ground truth as the grader reads it
	Task     string // task or subject
	// MaxTokens is the generation size; Stop the stop sequences.
	MaxTokens int
	Stop      []string
}

// Message is one chat message.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Meta is a benchmark's plugin metadata.
type Meta struct {
	Name          string
	Description   string
	DefaultGrader string
	DefaultShots  int
	DefaultCoT    bool
	SystemPrompt  string
	// Supported is false for benchmarks whose prompts need third-party
	// template files this implementation does not ship.
	Supported bool
	load      func(l *loader, tasks []string, shots int, cot bool) ([]Problem, error)
}

// Benchmarks lists every benchmark, AIPerf's catalogue order.
func Benchmarks() []Meta {
	return []Meta{
		{Name: "mmlu", Description: "MMLU, 57 subjects (lighteval/mmlu), lighteval's prompt and balanced few-shot sampling.", DefaultGrader: "multiple_choice", DefaultShots: 5, Supported: true, load: loadMMLU},
		{Name: "mmlu_pro", Description: "MMLU-Pro, 14 categories and up to 10 options (TIGER-Lab/MMLU-Pro), chain-of-thought few-shots from its validation split.", DefaultGrader: "mmlu_pro", DefaultShots: 5, DefaultCoT: true, Supported: true, load: loadMMLUPro},
		{Name: "aime", Description: "AIME 2024 (Maxwell-Jia/AIME_2024) with the trt-llm recipe's few-shot template (**Problem** / **Solution** / **Answer**).", DefaultGrader: "math", DefaultShots: 8, DefaultCoT: true,
			SystemPrompt: `Please reason step by step, and put your final answer within \boxed{}.`, Supported: true, load: loadAIME},
		{Name: "hellaswag", Description: "HellaSwag (Rowan/hellaswag, validation) with DeepEval's template: few-shots from the first train row of each activity label, the confinement line, a bare letter as gold.", DefaultGrader: "exact_match", DefaultShots: 10, Supported: true, load: loadHellaswag},
		{Name: "bigbench", Description: "BigBench-Hard with DeepEval's 27 bundled CoT prompt files, not shipped here.", DefaultGrader: "exact_match", DefaultShots: 3, DefaultCoT: true},
		{Name: "aime24", Description: "AIME 2024 (HuggingFaceH4/aime_2024), zero-shot, the bare problem.", DefaultGrader: "lighteval_expr", Supported: true, load: loadSimple("HuggingFaceH4/aime_2024", "", "train", "aime24", "problem", "answer", 32768, "")},
		{Name: "aime25", Description: "AIME 2025 (yentinglin/aime_2025), zero-shot, the bare problem.", DefaultGrader: "lighteval_expr", Supported: true, load: loadSimple("yentinglin/aime_2025", "", "train", "aime25", "problem", "answer", 32768, "")},
		{Name: "math_500", Description: "MATH-500 (HuggingFaceH4/MATH-500); the gold is the solution's boxed answer.", DefaultGrader: "lighteval_latex", Supported: true, load: loadSimple("HuggingFaceH4/MATH-500", "", "test", "math_500", "problem", "solution", 32768, "")},
		{Name: "gsm8k", Description: "GSM8K (openai/gsm8k, main, test), lighteval's \"Question: ...\\nAnswer:\" prompt.", DefaultGrader: "lighteval_gsm8k", Supported: true, load: loadSimple("openai/gsm8k", "main", "test", "gsm8k", "question", "answer", 256, "Question: %s\nAnswer:")},
		{Name: "gpqa_diamond", Description: "GPQA Diamond (Idavidrein/gpqa, gpqa_diamond), the simple-evals prompt with SHA-256-seeded option shuffling.", DefaultGrader: "lighteval_gpqa", Supported: true, load: loadGPQA},
		{Name: "lcb_codegeneration", Description: "LiveCodeBench code generation; needs lighteval's prompt and test-case payloads, not shipped here.", DefaultGrader: "code_execution"},
	}
}

// Lookup returns benchmark name's metadata.
func Lookup(name string) (Meta, bool) {
	for _, m := range Benchmarks() {
		if m.Name == name {
			return m, true
		}
	}
	return Meta{}, false
}

// Options select and shape a benchmark's problems.
type Options struct {
	Benchmark string
	Tasks     []string
	Shots     *int  // nil = the benchmark's default
	CoT       *bool // nil = the benchmark's default
	// Getenv reads the hub settings (HF_HUB_CACHE, HF_HUB_OFFLINE,
	// HF_TOKEN, HF_ENDPOINT); nil reads the process environment.
	Getenv func(string) string
}

// Load reads the benchmark's problems from the hub cache, downloading
// missing files unless offline.
func Load(ctx context.Context, o Options) ([]Problem, error) {
	m, ok := Lookup(o.Benchmark)
	if !ok {
		return nil, fmt.Errorf("--accuracy-benchmark: unknown benchmark %q", o.Benchmark)
	}
	if !m.Supported {
		return nil, fmt.Errorf("--accuracy-benchmark %s is not supported by this implementation: %s Supported: %s", m.Name, m.Description, strings.Join(supported(), ", "))
	}
	shots, cot := m.DefaultShots, m.DefaultCoT
	if o.Shots != nil {
		shots = *o.Shots
	}
	if o.CoT != nil {
		cot = *o.CoT
	}
	if o.Getenv == nil {
		o.Getenv = environ.Getenv
	}
	l := &loader{ctx: ctx, client: hub.FromEnv(o.Getenv, nil)}
	ps, err := m.load(l, o.Tasks, shots, cot)
	if err != nil {
		return nil, fmt.Errorf("--accuracy-benchmark %s: %w", m.Name, err)
	}
	if len(ps) == 0 {
		return nil, fmt.Errorf("--accuracy-benchmark %s returned 0 problems (tasks %v): check --accuracy-tasks", m.Name, o.Tasks)
	}
	return ps, nil
}

func supported() []string {
	var out []string
	for _, m := range Benchmarks() {
		if m.Supported {
			out = append(out, m.Name)
		}
	}
	return out
}

// loader reads dataset splits from the hub.
type loader struct {
	ctx    context.Context
	client *hub.Client
}

func (l *loader) rows(repo, config, split string) ([]hfdata.Row, error) {
	local, err := hfdata.Fetch(l.ctx, l.client, hfdata.Source{Repo: repo, Config: config, Split: split})
	if err != nil {
		return nil, err
	}
	var out []hfdata.Row
	err = local.Rows(func(r hfdata.Row) error { out = append(out, r); return nil })
	return out, err
}

func str(r hfdata.Row, col string) string {
	switch v := r[col].(type) {
	case string:
		return v
	case nil:
		return ""
	default:
		return fmt.Sprint(v)
	}
}

// loadSimple is a zero-shot benchmark of one task: the prompt column as
// the user message (through format when set), the answer column as gold.
func loadSimple(repo, config, split, task, promptCol, answerCol string, gen int, format string) func(*loader, []string, int, bool) ([]Problem, error) {
	return func(l *loader, _ []string, _ int, _ bool) ([]Problem, error) {
		rows, err := l.rows(repo, config, split)
		if err != nil {
			return nil, err
		}
		var out []Problem
		for i, r := range rows {
			q := str(r, promptCol)
			if _, ok := r[promptCol]; !ok {
				return nil, fmt.Errorf("%s row %d has no %q column", repo, i, promptCol)
			}
			p := q
			if format != "" {
				p = fmt.Sprintf(format, q)
			}
			out = append(out, Problem{Prompt: p, Messages: []Message{{"user", p}}, Truth: str(r, answerCol), Task: task, MaxTokens: gen})
		}
		return out, nil
	}
}

// MMLU subjects (lighteval's list).
var mmluSubjects = strings.Fields(`abstract_algebra anatomy astronomy business_ethics clinical_knowledge college_biology
college_chemistry college_computer_science college_mathematics college_medicine college_physics computer_security
conceptual_physics econometrics electrical_engineering elementary_mathematics formal_logic global_facts
high_school_biology high_school_chemistry high_school_computer_science high_school_european_history
high_school_geography high_school_government_and_politics high_school_macroeconomics high_school_mathematics
high_school_microeconomics high_school_physics high_school_psychology high_school_statistics high_school_us_history
high_school_world_history human_aging human_sexuality international_law jurisprudence logical_fallacies
machine_learning management marketing medical_genetics miscellaneous moral_disputes moral_scenarios nutrition
philosophy prehistory professional_accounting professional_law professional_medicine professional_psychology
public_relations security_studies sociology us_foreign_policy virology world_religions`)

func pickTasks(all, tasks []string, what string) ([]string, error) {
	if len(tasks) == 0 || slices.Contains(tasks, "all") {
		return all, nil
	}
	for _, t := range tasks {
		if !slices.Contains(all, t) {
			return nil, fmt.Errorf("--accuracy-tasks: unknown %s %q (valid: %s)", what, t, strings.Join(all, ", "))
		}
	}
	return tasks, nil
}

const letters = "ABCDEFGHIJ"

func goldIndex(v any) int {
	switch x := v.(type) {
	case string:
		return strings.Index(letters, x)
	case int64:
		return int(x)
	case float64:
		return int(x)
	case int:
		return x
	}
	return -1
}

func list(v any) []string {
	items, _ := v.([]any)
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = fmt.Sprint(it)
	}
	return out
}

// loadMMLU ports AIPerf's MMLU loader (lighteval's mmlu_prompt): per
// subject, the test split with balanced few-shots from dev.
func loadMMLU(l *loader, tasks []string, shots int, cot bool) ([]Problem, error) {
	subjects, err := pickTasks(mmluSubjects, tasks, "MMLU subject")
	if err != nil {
		return nil, err
	}
	gen, stop := 5, []string{"\n"}
	if cot {
		gen, stop = 4000, nil
	}
	var out []Problem
	for _, sub := range subjects {
		test, err := l.rows("lighteval/mmlu", sub, "test")
		if err != nil {
			return nil, err
		}
		var few []hfdata.Row
		if shots > 0 {
			dev, err := l.rows("lighteval/mmlu", sub, "dev")
			if err != nil {
				return nil, err
			}
			few = balancedShots(dev, shots)
		}
		instr := "The following are multiple choice questions (with answers) about " + strings.ReplaceAll(sub, "_", " ") + "."
		if cot {
			instr += ` Think step by step and then output the answer in the format of "The answer is (X)" at the end.`
		}
		instr += "\n\n"
		var fewText []string
		var msgs []Message
		for i, ex := range few {
			q := "Question: " + str(ex, "question") + choicesText(list(ex["choices"])) + "\nAnswer:"
			gold := " " + letters[goldIndex(ex["answer"]):goldIndex(ex["answer"])+1]
			fewText = append(fewText, q+gold)
			if i == 0 {
				q = instr + q
			}
			msgs = append(msgs, Message{"user", q}, Message{"assistant", gold})
		}
		for _, r := range test {
			gi := goldIndex(r["answer"])
			if gi < 0 || gi > 3 {
				return nil, fmt.Errorf("lighteval/mmlu %s: answer %v is not A-D or 0-3", sub, r["answer"])
			}
			q := "Question: " + str(r, "question") + choicesText(list(r["choices"]))
			if cot {
				q += "\nLet's think step by step.\nAnswer:"
			} else {
				q += "\nAnswer:"
			}
			prompt := instr
			if len(fewText) > 0 {
				prompt += strings.Join(fewText, "\n\n") + "\n\n"
			}
			prompt += q
			main := q
			if len(few) == 0 {
				main = instr + q
			}
			ms := append(slices.Clone(msgs), Message{"user", main})
			out = append(out, Problem{Prompt: prompt, Messages: ms, Truth: " " + letters[gi:gi+1], Task: sub, MaxTokens: gen, Stop: stop})
		}
	}
	return out, nil
}

func choicesText(choices []string) string {
	var b strings.Builder
	for i, c := range choices {
		if i < len(letters) {
			b.WriteString("\n" + letters[i:i+1] + ". " + c)
		}
	}
	return b.String()
}

// balancedShots is lighteval's FewShotSampler(sorting="balanced",
// variance_seed=0): examples grouped by gold answer text, labels ordered
// by group size then shuffled, drawn round-robin with Python's
// random.Random(0).
func balancedShots(src []hfdata.Row, n int) []hfdata.Row {
	picked := balancedIndices(src, n)
	out := make([]hfdata.Row, len(picked))
	for i, k := range picked {
		out[i] = src[k]
	}
	return out
}

// balancedIndices are balancedShots' row indices, in draw order.
func balancedIndices(src []hfdata.Row, n int) []int {
	groups := map[string][]int{}
	for i, r := range src {
		ch := list(r["choices"])
		gi := goldIndex(r["answer"])
		if gi >= 0 && gi < len(ch) {
			groups[ch[gi]] = append(groups[ch[gi]], i)
		}
	}
	labels := make([]string, 0, len(groups))
	for k := range groups {
		labels = append(labels, k)
	}
	slices.Sort(labels)
	byCount := map[int][]string{}
	var counts []int
	for _, lb := range labels {
		c := len(groups[lb])
		if _, ok := byCount[c]; !ok {
			counts = append(counts, c)
		}
		byCount[c] = append(byCount[c], lb)
	}
	slices.Sort(counts)
	slices.Reverse(counts)
	rng := pyrand.NewRandom(0)
	var order []string
	for _, c := range counts {
		ls := byCount[c]
		rng.Shuffle(len(ls), func(i, j int) { ls[i], ls[j] = ls[j], ls[i] })
		order = append(order, ls...)
	}
	var picked []int
	remaining := min(len(src), n+1)
	for i := 0; remaining > 0 && len(order) > 0; i++ {
		lb := order[i%len(order)]
		pool := groups[lb]
		if len(pool) == 0 {
			if allEmpty(groups) {
				break
			}
			continue
		}
		k := rng.RandRange(len(pool))
		picked = append(picked, pool[k])
		groups[lb] = append(pool[:k:k], pool[k+1:]...)
		remaining--
	}
	if len(picked) > n {
		picked = picked[:n]
	}
	return picked
}

func allEmpty(g map[string][]int) bool {
	for _, v := range g {
		if len(v) > 0 {
			return false
		}
	}
	return true
}

var mmluProCategories = []string{"biology", "business", "chemistry", "computer science", "economics", "engineering",
	"health", "history", "law", "math", "philosophy", "physics", "psychology", "other"}

// loadMMLUPro ports AIPerf's MMLU-Pro loader.
func loadMMLUPro(l *loader, tasks []string, shots int, cot bool) ([]Problem, error) {
	cats, err := pickTasks(mmluProCategories, tasks, "MMLU-Pro category")
	if err != nil {
		return nil, err
	}
	val, err := l.rows("TIGER-Lab/MMLU-Pro", "", "validation")
	if err != nil {
		return nil, err
	}
	test, err := l.rows("TIGER-Lab/MMLU-Pro", "", "test")
	if err != nil {
		return nil, err
	}
	byCat := map[string][]hfdata.Row{}
	for _, r := range val {
		byCat[str(r, "category")] = append(byCat[str(r, "category")], r)
	}
	example := func(q string, opts []string, cotText string) string {
		if cotText == "" {
			cotText = "Let's think step by step."
		}
		cotText = strings.TrimPrefix(cotText, "A: ")
		s := "Question: " + q + "\nOptions: "
		i := 0
		for _, o := range opts {
			if o != "N/A" {
				s += letters[i:i+1] + ". " + o + "\n"
				i++
			}
		}
		return s + "Answer: " + cotText + "\n\n"
	}
	var out []Problem
	for _, r := range test {
		cat := str(r, "category")
		if !slices.Contains(cats, cat) {
			continue
		}
		few := byCat[cat]
		if len(few) > shots {
			few = few[:shots]
		}
		prompt := "The following are multiple choice questions (with answers) about " + cat + "."
		if cot {
			prompt += ` Think step by step and then output the answer in the format of "The answer is (X)" at the end.`
		}
		prompt += "\n\n"
		for _, ex := range few {
			ans := str(ex, "answer")
			if cot {
				ans = str(ex, "cot_content")
			}
			prompt += example(str(ex, "question"), list(ex["options"]), ans)
		}
		if cot {
			prompt += example(str(r, "question"), list(r["options"]), "")
		} else {
			e := example(str(r, "question"), list(r["options"]), "x")
			prompt += strings.TrimSuffix(e, "x\n\n") + "\n\n"
		}
		out = append(out, Problem{Prompt: prompt, Messages: []Message{{"user", prompt}}, Truth: str(r, "answer"), Task: cat, MaxTokens: 4000})
	}
	return out, nil
}

const gpqaTemplate = "Answer the following multiple choice question. The last line of your response should be of the " +
	"following format: 'Answer: $LETTER' (without quotes) where LETTER is one of ABCD. Think step by step before answering.\n\n" +
	"%s\n\nA) %s\nB) %s\nC) %s\nD) %s"

// loadGPQA ports AIPerf's GPQA Diamond loader: the correct answer and
// three distractors shuffled by random.Random(sha256(question) mod 2^32).
func loadGPQA(l *loader, _ []string, _ int, _ bool) ([]Problem, error) {
	rows, err := l.rows("Idavidrein/gpqa", "gpqa_diamond", "train")
	if err != nil {
		return nil, err
	}
	var out []Problem
	for _, r := range rows {
		q := str(r, "Question")
		raw := []string{str(r, "Correct Answer"), str(r, "Incorrect Answer 1"), str(r, "Incorrect Answer 2"), str(r, "Incorrect Answer 3")}
		order := seededPermutation(q, 4)
		opts := make([]string, 4)
		gold := 0
		for pos, src := range order {
			opts[pos] = strings.TrimSpace(raw[src])
			if src == 0 {
				gold = pos
			}
		}
		p := fmt.Sprintf(gpqaTemplate, q, opts[0], opts[1], opts[2], opts[3])
		out = append(out, Problem{Prompt: p, Messages: []Message{{"user", p}}, Truth: letters[gold : gold+1], Task: "gpqa_diamond", MaxTokens: 32768})
	}
	return out, nil
}

// seededPermutation is random.Random(int(sha256(key), 16) % 2**32)
// shuffling range(n).
func seededPermutation(key string, n int) []int {
	sum := sha256.Sum256([]byte(key))
	v := new(big.Int)
	v.SetString(hex.EncodeToString(sum[:]), 16)
	seed := new(big.Int).Mod(v, big.NewInt(1<<32)).Uint64()
	rng := pyrand.NewRandom(seed)
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	rng.Shuffle(n, func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
	return idx
}

const aimeHeader = "The following are problems from the American Invitational Mathematics Examination (AIME) 2024. " +
	"AIME is a prestigious high school mathematics competition known for its challenging mathematical problems.\n\n"

// loadAIME ports AIPerf's AIME loader (the trt-llm recipe's
// AIMETemplate): the first n problems as few-shot examples, solutions
// shown with CoT, one flat user message.
func loadAIME(l *loader, _ []string, shots int, cot bool) ([]Problem, error) {
	if shots > 8 {
		return nil, fmt.Errorf("--accuracy-n-shots: AIME supports at most 8 few-shot examples (got %d)", shots)
	}
	rows, err := l.rows("Maxwell-Jia/AIME_2024", "", "train")
	if err != nil {
		return nil, err
	}
	few := ""
	if shots > 0 {
		few = aimeHeader
		for _, r := range rows[:min(shots, len(rows))] {
			b := "**Problem**: " + str(r, "Problem") + "\n"
			if cot {
				b += "**Solution**: " + str(r, "Solution") + "\n"
			}
			few += b + "**Answer**: " + str(r, "Answer") + "\n\n"
		}
	}
	suffix := "No explanation needed. Just return a number."
	if cot {
		suffix = "Let's think step-by-step."
	}
	var out []Problem
	for _, r := range rows {
		p := few + "**Problem**: " + str(r, "Problem") + "\n**Answer**: \n\n" + suffix
		out = append(out, Problem{Prompt: p, Messages: []Message{{"user", p}}, Truth: str(r, "Answer"), Task: "aime", MaxTokens: 32768})
	}
	return out, nil
}
