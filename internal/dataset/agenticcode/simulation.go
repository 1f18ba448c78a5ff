package agenticcode

import (
	"container/heap"
	"math"
)

// SimParams are the serving system the simulation replays the dataset
// on: AIPerf's simulation defaults (DefaultSimParams).
type SimParams struct {
	Concurrency     int     // sessions in flight
	PrefillTPS      float64 // aggregate prefill tokens/s (one prefill at a time)
	DecodeTPS       float64 // decode tokens/s per request
	KVBytesPerToken float64
	KVCapacityGB    float64
}

// DefaultSimParams are AIPerf's simulation dashboard's defaults.
var DefaultSimParams = SimParams{Concurrency: 50, PrefillTPS: 64_000, DecodeTPS: 200, KVBytesPerToken: 35_136, KVCapacityGB: 300}

// SimPoint is the state after one request starts or ends.
type SimPoint struct {
	TimeS                           float64
	ActiveRequests, InputTokens     int
	ActiveSessions, Queued          int
	KVCacheGB                       float64
	UniqueBlocks, EvictedBlocks     int
	MissL15Blocks, MissSessionBlock int
	HitTokens, MissTokens           int
}

// SimSession is one session's place in the run: its concurrency slot and
// when it started and ended (ms).
type SimSession struct {
	Slot       int
	Start, End float64
	Restart    bool
}

// SimResult is a simulation's outcome.
type SimResult struct {
	Params    SimParams
	Points    []SimPoint
	Sessions  []SimSession
	MaxTimeMs float64
	Turns     int
	// AvgTTFTMs is the mean wait from a turn's readiness to its first
	// token (queueing for prefill plus prefill).
	AvgTTFTMs    float64
	Evictions    int
	HitRate      float64
	PrefillMs    float64
	DecodeMs     float64
	PrefillWaits float64
}

// simEvent is one event of the discrete-event loop.
type simEvent struct {
	at       float64
	seq      int
	kind     int // evReady, evStart, evEnd
	sess, tu int
}

const (
	evReady = iota
	evStart
	evEnd
)

type eventQueue []simEvent

func (q eventQueue) Len() int { return len(q) }
func (q eventQueue) Less(i, j int) bool {
	if q[i].at != q[j].at {
		return q[i].at < q[j].at
	}
	return q[i].seq < q[j].seq
}
func (q eventQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *eventQueue) Push(x any)   { *q = append(*q, x.(simEvent)) }
func (q *eventQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}

// Simulate replays the dataset's rows (rowIDs: each turn's hash ids as
// dataset.jsonl writes them) as AIPerf's simulation does: Concurrency
// sessions at a time, each turn ready after its delay, one prefill at a
// time for the blocks the KV cache lacks, decoding at DecodeTPS; the
// cache holds every running session's context (L1 and a group's L1.5
// stored once) and evicts idle sessions, least recently used first, when
// it overflows; an evicted session's blocks count as misses when it
// resumes.
func Simulate(sessions []Session, rowIDs [][][]int, c *Config, p SimParams) SimResult {
	pre := newPrefixes(c.Cache, c.BlockSize)
	classify := func(id int) string {
		switch {
		case id < pre.l1Blocks:
			return "l1"
		case id < pre.sessionRegionBase:
			return "l15"
		}
		return "session"
	}
	n := len(sessions)
	cumulative := make([][][]int, n) // per turn: the union of the rows' ids so far
	for i := range sessions {
		seen := map[int]bool{}
		var all []int
		for _, ids := range rowIDs[i] {
			for _, id := range ids {
				if !seen[id] {
					seen[id] = true
					all = append(all, id)
				}
			}
			cumulative[i] = append(cumulative[i], append([]int(nil), all...))
		}
	}
	r := SimResult{Params: p, Sessions: make([]SimSession, n)}
	for i := range n {
		r.Sessions[i].Restart = sessions[i].Continuation
	}
	var q eventQueue
	seq := 0
	push := func(at float64, kind, s, t int) {
		heap.Push(&q, simEvent{at: at, seq: seq, kind: kind, sess: s, tu: t})
		seq++
	}
	var (
		prefillFree                        float64
		cached                             float64 // tokens held, before deduplication
		sessionTokens                      = make([]float64, n)
		holding                            int // sessions with tokens cached
		groupHolding                       = map[int]int{}
		refs                               = map[int]int{}
		blocks                             = make([]map[int]bool, n)
		evicted                            = map[int]bool{}
		wasEvicted                         = make([]bool, n)
		lru                                [][2]int
		generation                         = make([]int, n)
		inLRU                              = make([]bool, n)
		hitTokens, missTokens              int
		active, activeRequests, inTokens   int
		next                               int
		ttftSum                            float64
		missL15, missSession, totalEvicted int
		aliveGroups                        = map[int]int{}
	)
	capacity := p.KVCapacityGB * 1e9 / p.KVBytesPerToken
	for i := range blocks {
		blocks[i] = map[int]bool{}
	}
	setTokens := func(s int, v float64) {
		g := sessions[s].Group
		if sessionTokens[s] > 0 && v <= 0 {
			holding--
			groupHolding[g]--
		} else if sessionTokens[s] <= 0 && v > 0 {
			holding++
			groupHolding[g]++
		}
		cached += v - sessionTokens[s]
		sessionTokens[s] = v
	}
	unique := func() float64 {
		dup := float64(max(0, holding-1) * c.Cache.Layer1Tokens)
		for _, k := range groupHolding {
			dup += float64(max(0, k-1) * c.Cache.Layer15Tokens)
		}
		return math.Max(0, cached-dup)
	}
	addBlock := func(s, id int) {
		if blocks[s][id] {
			return
		}
		if evicted[id] {
			switch classify(id) {
			case "l15":
				missL15++
			case "session":
				missSession++
			}
			delete(evicted, id)
		}
		blocks[s][id] = true
		refs[id]++
	}
	evict := func() {
		for unique() > capacity && len(lru) > 0 {
			v, gen := lru[0][0], lru[0][1]
			lru = lru[1:]
			if !inLRU[v] || gen != generation[v] {
				continue
			}
			inLRU[v] = false
			if sessionTokens[v] == 0 {
				continue
			}
			setTokens(v, 0)
			for id := range blocks[v] {
				if refs[id]--; refs[id] <= 0 {
					delete(refs, id)
					evicted[id] = true
					totalEvicted++
				}
			}
			clear(blocks[v])
			wasEvicted[v] = true
			r.Evictions++
		}
	}
	toLRU := func(s int) {
		if !inLRU[s] {
			generation[s]++
			lru = append(lru, [2]int{s, generation[s]})
			inLRU[s] = true
		}
	}
	fromLRU := func(s int) {
		if inLRU[s] {
			inLRU[s] = false
			generation[s]++
		}
	}
	startTurn := func(s, t int, at float64) {
		delay := 0.0
		if t > 0 {
			delay = sessions[s].Turns[t].DelayMs
			if delay > 0 {
				toLRU(s)
			}
		}
		push(at+delay, evReady, s, t)
	}
	slots := 0
	startSession := func(s int, at float64, slot int) {
		if slot < 0 {
			slot = slots
			slots++
		}
		r.Sessions[s].Slot, r.Sessions[s].Start = slot, at
		startTurn(s, 0, at)
	}
	for next < n && active < p.Concurrency {
		active++
		startSession(next, 0, -1)
		next++
	}
	for q.Len() > 0 {
		e := heap.Pop(&q).(simEvent)
		r.MaxTimeMs = math.Max(r.MaxTimeMs, e.at)
		turn := &sessions[e.sess].Turns[e.tu]
		switch e.kind {
		case evReady:
			fromLRU(e.sess)
			all := cumulative[e.sess][e.tu]
			hits := 0
			for _, id := range all {
				if refs[id] > 0 {
					hits++
				}
			}
			ht, mt := hits*c.BlockSize, (len(all)-hits)*c.BlockSize
			hitTokens, missTokens = hitTokens+ht, missTokens+mt
			start := math.Max(e.at, prefillFree)
			end := start + float64(mt)/p.PrefillTPS*1000
			prefillFree = end
			decodeEnd := end + float64(turn.Output)/p.DecodeTPS*1000
			push(end, evStart, e.sess, e.tu)
			push(decodeEnd, evEnd, e.sess, e.tu)
			r.Turns++
			ttftSum += end - e.at
			r.PrefillWaits += start - e.at
			r.PrefillMs += end - start
			r.DecodeMs += decodeEnd - end
		case evStart:
			activeRequests++
			inTokens += turn.Input
			if wasEvicted[e.sess] {
				wasEvicted[e.sess] = false
				setTokens(e.sess, 0)
				for t := range e.tu {
					for _, id := range rowIDs[e.sess][t] {
						addBlock(e.sess, id)
					}
				}
			}
			setTokens(e.sess, float64(turn.Input))
			if e.tu == 0 {
				aliveGroups[sessions[e.sess].Group]++
			}
			for _, id := range rowIDs[e.sess][e.tu] {
				addBlock(e.sess, id)
			}
			evict()
		case evEnd:
			activeRequests--
			inTokens -= turn.Input
			setTokens(e.sess, sessionTokens[e.sess]+float64(turn.Output))
			if e.tu+1 < len(sessions[e.sess].Turns) {
				startTurn(e.sess, e.tu+1, e.at)
				break
			}
			toLRU(e.sess)
			r.Sessions[e.sess].End = e.at
			active--
			if next < n {
				active++
				startSession(next, e.at, r.Sessions[e.sess].Slot)
				next++
			}
		}
		if e.kind != evReady {
			r.Points = append(r.Points, SimPoint{TimeS: e.at / 1000, ActiveRequests: activeRequests, InputTokens: inTokens,
				ActiveSessions: active, Queued: n - next, KVCacheGB: unique() * p.KVBytesPerToken / 1e9,
				UniqueBlocks: len(refs), EvictedBlocks: totalEvicted, MissL15Blocks: missL15, MissSessionBlock: missSession,
				HitTokens: hitTokens, MissTokens: missTokens})
		}
	}
	if r.Turns > 0 {
		r.AvgTTFTMs = ttftSum / float64(r.Turns)
	}
	if t := hitTokens + missTokens; t > 0 {
		r.HitRate = float64(hitTokens) / float64(t)
	}
	return r
}
