package agenticcode

// CacheStructure is cache_structure.json: for the first 50 sessions,
// each turn's blocks classified by layer (L1, L1.5, L2 = carried from the
// previous turn or the session's first context, L3 = new history) and
// cache status, run-length encoded. It backs cache_explorer.html.
func CacheStructure(sessions []Session, c *Config) obj {
	p := newPrefixes(c.Cache, c.BlockSize)
	var out []any
	for i, s := range sessions {
		if i >= 50 {
			break
		}
		var turns []any
		var prev map[int]bool
		for ti, t := range s.Turns {
			turns = append(turns, obj{{"turn_index", ti}, {"input_length", t.NewTokens}, {"output_length", t.Output},
				{"num_blocks", len(t.HashIDs)}, {"segments", segments(t.HashIDs, prev, p)}})
			prev = make(map[int]bool, len(t.HashIDs))
			for _, id := range t.HashIDs {
				prev[id] = true
			}
		}
		out = append(out, obj{{"session_id", s.ID}, {"turns", turns}})
	}
	if out == nil {
		out = []any{}
	}
	return obj{{"block_size", c.BlockSize}, {"l1_blocks", p.l1Blocks}, {"l15_blocks", p.l15Blocks}, {"sessions", out}}
}

// segments classifies a turn's blocks and joins runs of one layer and
// status: {start, count, layer, status}.
func segments(ids []int, prev map[int]bool, p prefixes) []any {
	var out []any
	var last obj
	lastKey := ""
	for pos, id := range ids {
		layer, status := "L2", "new"
		switch {
		case pos < p.l1Blocks:
			layer, status = "L1", "cached"
		case pos < p.prefixBlocks():
			layer, status = "L1.5", "cached"
		case prev == nil:
		case prev[id]:
			status = "cached"
		default:
			layer = "L3"
		}
		if key := layer + "/" + status; key == lastKey {
			last[1].v = last[1].v.(int) + 1
			continue
		} else {
			lastKey = key
		}
		last = obj{{"start", pos}, {"count", 1}, {"layer", layer}, {"status", status}}
		out = append(out, last)
	}
	if out == nil {
		out = []any{}
	}
	return out
}

// Per-turn estimates of the report: a turn takes input/prefill +
// output/decode seconds at these token rates.
const (
	estimatePrefillTPS = 20_000
	estimateDecodeTPS  = 60
)

// Metrics are the per-turn and per-session series the reports draw,
// from the rows as written (a row's input is the turn's new tokens).
type Metrics struct {
	InitialContext, NewTokensPerTurn, GenerationLength, InterTurnDelayS []float64
	TurnsPerSession, TotalISL, TotalOSL, HashIDBlocks                   []float64
	RequestLatencyS, SessionDurationMin                                 []float64
	PrefixLength, UniquePromptLength, PrefixRatio                       []float64
	SequentialHitRate, PerSessionHitRate                                []float64
}

// metricsOf computes the report's series as AIPerf's extract_metrics and
// extract_cache_metrics do (sessions sharing an id count as one).
func metricsOf(sessions []Session, blockSize int) *Metrics {
	m := &Metrics{}
	groups := map[string]int{}
	var grouped [][]Turn
	for _, s := range sessions {
		g, ok := groups[s.ID]
		if !ok {
			g = len(grouped)
			groups[s.ID] = g
			grouped = append(grouped, nil)
		}
		grouped[g] = append(grouped[g], s.Turns...)
	}
	global := map[int]bool{}
	for _, turns := range grouped {
		m.TurnsPerSession = append(m.TurnsPerSession, float64(len(turns)))
		session := map[int]bool{}
		total := 0.0
		for i, t := range turns {
			in, out := float64(t.NewTokens), float64(t.Output)
			m.TotalISL = append(m.TotalISL, in)
			m.TotalOSL = append(m.TotalOSL, out)
			m.GenerationLength = append(m.GenerationLength, out)
			m.HashIDBlocks = append(m.HashIDBlocks, float64(len(t.HashIDs)))
			lat := (in/estimatePrefillTPS + out/estimateDecodeTPS) * 1000
			m.RequestLatencyS = append(m.RequestLatencyS, lat/1000)
			total += t.DelayMs + lat
			if i == 0 {
				m.InitialContext = append(m.InitialContext, in)
			} else {
				m.NewTokensPerTurn = append(m.NewTokensPerTurn, in)
				m.InterTurnDelayS = append(m.InterTurnDelayS, t.DelayMs/1000)
			}
			prefix := leadingSeen(t.HashIDs, global)
			tokens := min(float64(prefix*blockSize), in)
			if len(t.HashIDs) > 0 && prefix == len(t.HashIDs) {
				tokens = in
			}
			m.PrefixLength = append(m.PrefixLength, tokens)
			m.UniquePromptLength = append(m.UniquePromptLength, max(in-tokens, 0))
			ratio := 0.0
			if in > 0 {
				ratio = tokens / in
			}
			m.PrefixRatio = append(m.PrefixRatio, ratio)
			m.SequentialHitRate = append(m.SequentialHitRate, hitRate(t.HashIDs, global))
			m.PerSessionHitRate = append(m.PerSessionHitRate, hitRate(t.HashIDs, session))
			for _, id := range t.HashIDs {
				global[id], session[id] = true, true
			}
		}
		m.SessionDurationMin = append(m.SessionDurationMin, total/1000/60)
	}
	return m
}

// leadingSeen counts the leading blocks already seen: the prefix a cache
// holding every earlier request would serve.
func leadingSeen(ids []int, seen map[int]bool) int {
	for i, id := range ids {
		if !seen[id] {
			return i
		}
	}
	return len(ids)
}

func hitRate(ids []int, seen map[int]bool) float64 {
	if len(ids) == 0 {
		return 0
	}
	return float64(leadingSeen(ids, seen)) / float64(len(ids))
}
