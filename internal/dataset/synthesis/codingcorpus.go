package synthesis

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// codingCorpusBlocks is how many generated blocks make the coding corpus
// (about 400,000 tokens with a typical BPE tokenizer, the size of AIPerf's
// coding tool pool).
const codingCorpusBlocks = 2400

// codingSeed fixes the coding corpus text: it is a constant of the
// program, like the sonnet text; which windows a run uses comes from the
// run's seed.
const codingSeed = 0x636f64696e67 // "coding"

// Identifier pools of the generated code.
var (
	codeClasses = []string{"SessionManager", "RequestRouter", "CacheStore", "TokenBucket", "MetricsCollector", "UserRepository",
		"OrderService", "PaymentGateway", "ConfigLoader", "EventBus", "RetryPolicy", "ConnectionPool", "BatchScheduler",
		"InventoryIndex", "AuthProvider", "RateLimiter", "QueueConsumer", "SchemaValidator", "FeatureFlags", "ReportBuilder"}
	codeMethods = []string{"fetch", "process", "validate", "refresh", "flush", "resolve", "dispatch", "serialize", "load",
		"commit", "rollback", "acquire", "release", "schedule", "normalize", "compute_total", "apply_discount", "merge",
		"retry", "parse_header", "build_index", "evict", "subscribe", "publish", "drain"}
	codeVars = []string{"user_id", "payload", "timeout", "retries", "session", "cursor", "batch", "request", "response",
		"config", "items", "offset", "limit", "token", "key", "value", "deadline", "buffer", "result", "entry"}
	codeTypes = []string{"str", "int", "float", "bool", "dict[str, Any]", "list[str]", "bytes", "Optional[int]", "datetime"}
	codeFiles = []string{"src/app/session.py", "src/app/router.py", "internal/cache/store.go", "internal/api/handler.go",
		"src/lib.rs", "src/queue/consumer.rs", "web/src/components/Cart.tsx", "web/src/api/client.ts", "tests/test_orders.py",
		"pkg/metrics/collector.go", "config/settings.yaml", "scripts/deploy.sh", "Cargo.toml", "package.json", "Makefile"}
	codeErrors = []string{"KeyError", "ValueError", "TimeoutError", "ConnectionResetError", "AttributeError", "TypeError",
		"IndexError", "PermissionError", "FileNotFoundError", "RuntimeError"}
	codeWords = []string{"the cache", "the retry loop", "this handler", "the serializer", "the config parser", "the worker pool",
		"the migration", "the login flow", "the test suite", "the API client", "the scheduler", "the queue consumer"}
)

// codeGen draws the pieces of one generated block.
type codeGen struct{ r *rand.Rand }

func (g codeGen) pick(list []string) string { return list[g.r.IntN(len(list))] }
func (g codeGen) n(lo, hi int) int          { return lo + g.r.IntN(hi-lo+1) }
func (g codeGen) snake(s string) string     { return strings.ToLower(s[:1]) + s[1:] }
func (g codeGen) camel(s string) string {
	parts := strings.Split(s, "_")
	for i := 1; i < len(parts); i++ {
		parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
	}
	return strings.Join(parts, "")
}
func (g codeGen) pascal(s string) string { c := g.camel(s); return strings.ToUpper(c[:1]) + c[1:] }

// generateCodingCorpus writes n blocks of coding content, shuffled, and
// groups them into chunks the way splitCorpus groups corpus lines.
func generateCodingCorpus(n int) []string {
	g := codeGen{rand.New(rand.NewPCG(codingSeed, codingSeed^0x5eed))}
	kinds := []func() string{
		g.pythonClass, g.pythonFunction, g.pythonTest, g.goCode, g.goTest, g.rustCode, g.typescriptCode,
		g.traceback, g.gitDiff, g.shellOutput, g.jsonResponse, g.yamlConfig, g.logLines, g.sqlQuery,
		g.request, g.request, g.toolRead, g.toolSearch,
	}
	blocks := make([]string, n)
	for i := range blocks {
		blocks[i] = kinds[g.r.IntN(len(kinds))]()
	}
	var chunks []string
	var b strings.Builder
	for _, bl := range blocks {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(bl)
		if b.Len() >= minChunkChars {
			chunks = append(chunks, b.String())
			b.Reset()
		}
	}
	if b.Len() > 0 {
		chunks = append(chunks, b.String())
	}
	return chunks
}

func (g codeGen) pythonClass() string {
	cls, m1, m2 := g.pick(codeClasses), g.pick(codeMethods), g.pick(codeMethods)
	v1, v2, t1, t2 := g.pick(codeVars), g.pick(codeVars), g.pick(codeTypes), g.pick(codeTypes)
	return fmt.Sprintf(`class %s:
    """Coordinates %s for the %s layer."""

    def __init__(self, %s: %s, %s: %s | None = None) -> None:
        self._%s = %s
        self._%s = %s or {}
        self._lock = asyncio.Lock()

    async def %s(self, %s: %s) -> %s:
        async with self._lock:
            if %s is None:
                raise ValueError("%s must not be None")
            return await self._%s(%s)

    async def _%s(self, %s: %s) -> %s:
        logger.debug("%s.%s called with %%r", %s)
        return self._%s.get(%s, %d)
`, cls, m1, g.snake(cls), v1, t1, v2, t2, v1, v1, v2, v2, m1, v1, t1, t2, v1, v1, m2, v1, m2, v1, t1, t2, cls, m2, v1, v2, v1, g.n(0, 99))
}

func (g codeGen) pythonFunction() string {
	f, v1, v2, v3 := g.pick(codeMethods), g.pick(codeVars), g.pick(codeVars), g.pick(codeVars)
	return fmt.Sprintf(`def %s(%s: %s, *, %s: int = %d, max_retries: int = 3) -> %s:
    for attempt in range(max_retries):
        try:
            %s = client.get(%s, timeout=%s)
            %s.raise_for_status()
            return %s.json()
        except requests.RequestException as exc:
            if attempt == max_retries - 1:
                raise
            time.sleep(2 ** attempt)
    return None
`, f, v1, g.pick(codeTypes), v2, g.n(1, 120), g.pick(codeTypes), v3, v1, v2, v3, v3)
}

func (g codeGen) pythonTest() string {
	cls, m1, m2, v := g.pick(codeClasses), g.pick(codeMethods), g.pick(codeMethods), g.pick(codeVars)
	return fmt.Sprintf(`@pytest.fixture
def instance():
    return %s(%s=%d)


@pytest.mark.asyncio
async def test_%s_returns_expected(instance):
    result = await instance.%s(%q)
    assert result == %d


@pytest.mark.parametrize("%s", [0, 1, %d, None])
def test_%s_with_values(instance, %s):
    assert instance.%s(%s) is not None
`, cls, v, g.n(1, 500), m1, m1, v, g.n(0, 9), v, g.n(2, 64), m2, v, m2, v)
}

func (g codeGen) goCode() string {
	cls, m, v1, v2 := g.pick(codeClasses), g.pick(codeMethods), g.camel(g.pick(codeVars)), g.camel(g.pick(codeVars))
	return fmt.Sprintf(`// %s serves %s requests. It is safe for concurrent use.
type %s struct {
	mu      sync.Mutex
	%s  map[string]int
	%s time.Duration
}

func (s *%s) %s(ctx context.Context, %s string) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.%s[%s]
	if !ok {
		return 0, fmt.Errorf("%s %%q: %%w", %s, ErrNotFound)
	}
	select {
	case <-ctx.Done():
		return 0, ctx.Err()
	case <-time.After(s.%s):
	}
	return v + %d, nil
}
`, cls, g.pick(codeWords), cls, v1, v2, cls, g.pascal(m), v2, v1, v2, m, v2, v2, g.n(1, 9))
}

func (g codeGen) goTest() string {
	cls, m := g.pick(codeClasses), g.pascal(g.pick(codeMethods))
	return fmt.Sprintf(`func Test%s%s(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		want int
	}{
		{"a", %d}, {"b", %d}, {"", 0},
	} {
		s := New%s()
		got, err := s.%s(context.Background(), c.in)
		if err != nil || got != c.want {
			t.Errorf("%s(%%q) = %%d, %%v; want %%d", c.in, got, err, c.want)
		}
	}
}
`, cls, m, g.n(1, 50), g.n(51, 99), cls, m, m)
}

func (g codeGen) rustCode() string {
	cls, m, v := g.pick(codeClasses), g.pick(codeMethods), g.pick(codeVars)
	return fmt.Sprintf(`#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct %s {
    pub %s: u64,
    pub name: String,
    entries: Vec<Entry>,
}

impl %s {
    pub fn %s(&mut self, %s: &str) -> Result<usize, Error> {
        let idx = self
            .entries
            .iter()
            .position(|e| e.key == %s)
            .ok_or_else(|| Error::NotFound(%s.to_string()))?;
        self.entries[idx].hits += %d;
        Ok(idx)
    }
}
`, cls, v, cls, m, v, v, v, g.n(1, 5))
}

func (g codeGen) typescriptCode() string {
	cls, m, v := g.pick(codeClasses), g.camel(g.pick(codeMethods)), g.camel(g.pick(codeVars))
	return fmt.Sprintf(`export interface %sOptions {
  %s: string;
  timeoutMs?: number;
}

export class %s {
  private readonly cache = new Map<string, number>();

  constructor(private readonly options: %sOptions) {}

  async %s(%s: string): Promise<number | undefined> {
    if (this.cache.has(%s)) {
      return this.cache.get(%s);
    }
    const res = await fetch(`+"`/api/%s/${%s}`"+`, { signal: AbortSignal.timeout(this.options.timeoutMs ?? %d) });
    if (!res.ok) throw new Error(`+"`%s failed: ${res.status}`"+`);
    const body = (await res.json()) as { value: number };
    this.cache.set(%s, body.value);
    return body.value;
  }
}
`, cls, v, cls, cls, m, v, v, v, strings.ToLower(cls), v, g.n(500, 5000), m, v)
}

func (g codeGen) traceback() string {
	f1, f2, m := g.pick(codeFiles), g.pick(codeFiles), g.pick(codeMethods)
	e := g.pick(codeErrors)
	return fmt.Sprintf(`Traceback (most recent call last):
  File "/app/%s", line %d, in %s
    result = await self._%s(%s)
  File "/app/%s", line %d, in _%s
    return self._store[%s]
%s: '%s'
`, f1, g.n(10, 400), m, m, g.pick(codeVars), f2, g.n(10, 400), m, g.pick(codeVars), e, g.pick(codeVars))
}

func (g codeGen) gitDiff() string {
	f, m, v := g.pick(codeFiles), g.pick(codeMethods), g.pick(codeVars)
	line := g.n(10, 300)
	return fmt.Sprintf(`diff --git a/%s b/%s
index %07x..%07x 100644
--- a/%s
+++ b/%s
@@ -%d,7 +%d,8 @@ def %s(self, %s):
     if %s is None:
-        return None
+        logger.warning("%s missing, using default")
+        %s = DEFAULT_%s
     try:
         value = self._cache[%s]
     except KeyError:
`, f, f, g.r.IntN(1<<28), g.r.IntN(1<<28), f, f, line, line, m, v, v, v, v, strings.ToUpper(v), v)
}

func (g codeGen) shellOutput() string {
	switch g.r.IntN(3) {
	case 0:
		return fmt.Sprintf(`$ pytest tests/ -q
........F...............s.....                                      [100%%]
FAILED tests/test_%s.py::test_%s - AssertionError: assert %d == %d
1 failed, %d passed, 1 skipped in %d.%02ds
`, g.pick(codeVars), g.pick(codeMethods), g.n(0, 99), g.n(0, 99), g.n(20, 300), g.n(1, 59), g.n(0, 99))
	case 1:
		return fmt.Sprintf(`$ git status
On branch feature/%s
Changes not staged for commit:
  (use "git add <file>..." to update what will be committed)
	modified:   %s
	modified:   %s

Untracked files:
	%s
`, strings.ReplaceAll(g.pick(codeMethods), "_", "-"), g.pick(codeFiles), g.pick(codeFiles), g.pick(codeFiles))
	}
	return fmt.Sprintf(`$ go test ./...
ok  	example.com/app/internal/cache	%d.%03ds
--- FAIL: Test%s (0.%02ds)
    %s_test.go:%d: got %d, want %d
FAIL	example.com/app/internal/api	0.%03ds
`, g.n(0, 3), g.n(0, 999), g.pascal(g.pick(codeMethods)), g.n(0, 99), g.pick(codeMethods), g.n(10, 200), g.n(0, 9), g.n(10, 20), g.n(0, 999))
}

func (g codeGen) jsonResponse() string {
	return fmt.Sprintf(`{
  "id": "%s_%06d",
  "status": "%s",
  "items": [
    {"%s": %d, "name": "%s", "active": %v},
    {"%s": %d, "name": "%s", "active": %v}
  ],
  "pagination": {"offset": %d, "limit": %d, "total": %d}
}`, g.pick(codeVars), g.n(0, 999999), g.pick([]string{"ok", "pending", "failed"}), g.pick(codeVars), g.n(1, 9999), g.pick(codeClasses),
		g.r.IntN(2) == 0, g.pick(codeVars), g.n(1, 9999), g.pick(codeClasses), g.r.IntN(2) == 0, g.n(0, 100), g.n(10, 100), g.n(100, 5000))
}

func (g codeGen) yamlConfig() string {
	return fmt.Sprintf(`service:
  name: %s
  replicas: %d
  resources:
    limits: {cpu: "%d", memory: %dGi}
  env:
    - name: %s
      value: "%d"
    - name: LOG_LEVEL
      value: %s
`, strings.ToLower(g.pick(codeClasses)), g.n(1, 8), g.n(1, 16), g.n(1, 64), strings.ToUpper(g.pick(codeVars)), g.n(1, 1000),
		g.pick([]string{"debug", "info", "warning"}))
}

func (g codeGen) logLines() string {
	var b strings.Builder
	for range g.n(3, 6) {
		fmt.Fprintf(&b, "2026-%02d-%02dT%02d:%02d:%02d.%03dZ %s [%s] %s %s=%d\n", g.n(1, 12), g.n(1, 28), g.n(0, 23), g.n(0, 59), g.n(0, 59), g.n(0, 999),
			g.pick([]string{"INFO", "WARN", "ERROR", "DEBUG"}), g.pick(codeClasses), g.pick(codeMethods), g.pick(codeVars), g.n(0, 9999))
	}
	return b.String()
}

func (g codeGen) sqlQuery() string {
	return fmt.Sprintf(`SELECT u.id, u.%s, COUNT(o.id) AS orders
FROM users u
LEFT JOIN orders o ON o.user_id = u.id AND o.created_at > NOW() - INTERVAL '%d days'
WHERE u.%s IS NOT NULL
GROUP BY u.id, u.%s
HAVING COUNT(o.id) > %d
ORDER BY orders DESC
LIMIT %d;`, g.pick(codeVars), g.n(1, 90), g.pick(codeVars), g.pick(codeVars), g.n(0, 10), g.n(10, 100))
}

func (g codeGen) request() string {
	cls, m := g.pick(codeClasses), g.pick(codeMethods)
	return g.pick([]string{
		fmt.Sprintf("Can you look at %s in %s? The %s method fails when %s is empty, and I think %s is involved.", cls, g.pick(codeFiles), m, g.pick(codeVars), g.pick(codeWords)),
		fmt.Sprintf("Refactor %s so that %s no longer blocks; keep the public API the same and add a test for the timeout path.", cls, m),
		fmt.Sprintf("Please add retries with exponential backoff to %s.%s and make the limit configurable through %s.", cls, m, g.pick(codeFiles)),
		fmt.Sprintf("The CI run is red: %s raises %s in %s. Find the cause and fix it without changing the fixtures.", m, g.pick(codeErrors), g.pick(codeFiles)),
		fmt.Sprintf("Explain what %s does in %s, then split it into two smaller functions.", m, g.pick(codeFiles)),
	})
}

func (g codeGen) toolRead() string {
	var b strings.Builder
	f := g.pick(codeFiles)
	start := g.n(1, 200)
	fmt.Fprintf(&b, "<read_file path=%q lines=\"%d-%d\">\n", f, start, start+5)
	for i := range 6 {
		fmt.Fprintf(&b, "%5d\t    %s = self.%s(%s)\n", start+i, g.pick(codeVars), g.pick(codeMethods), g.pick(codeVars))
	}
	b.WriteString("</read_file>")
	return b.String()
}

func (g codeGen) toolSearch() string {
	var b strings.Builder
	m := g.pick(codeMethods)
	fmt.Fprintf(&b, "$ rg -n \"def %s\" src/\n", m)
	for range g.n(2, 5) {
		fmt.Fprintf(&b, "%s:%d:    def %s(self, %s):\n", g.pick(codeFiles), g.n(5, 500), m, g.pick(codeVars))
	}
	return b.String()
}
