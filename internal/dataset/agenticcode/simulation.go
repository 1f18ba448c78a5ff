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
	n := len(sessions)
	m := &simulator{
		sessions: sessions, rowIDs: rowIDs, c: c, p: p, pre: newPrefixes(c.Cache, c.BlockSize),
		cumulative:    cumulativeIDs(rowIDs, n),
		r:             SimResult{Params: p, Sessions: make([]SimSession, n)},
		sessionTokens: make([]float64, n),
		groupHolding:  map[int]int{},
		refs:          map[int]int{},
		blocks:        make([]map[int]bool, n),
		evicted:       map[int]bool{},
		wasEvicted:    make([]bool, n),
		generation:    make([]int, n),
		inLRU:         make([]bool, n),
		aliveGroups:   map[int]int{},
		capacity:      p.KVCapacityGB * 1e9 / p.KVBytesPerToken,
	}
	for i := range n {
		m.r.Sessions[i].Restart = sessions[i].Continuation
	}
	for i := range m.blocks {
		m.blocks[i] = map[int]bool{}
	}
	for m.next < n && m.active < p.Concurrency {
		m.active++
		m.startSession(m.next, 0, -1)
		m.next++
	}
	for m.q.Len() > 0 {
		e := heap.Pop(&m.q).(simEvent)
		m.r.MaxTimeMs = math.Max(m.r.MaxTimeMs, e.at)
		switch e.kind {
		case evReady:
			m.ready(e)
		case evStart:
			m.start(e)
		case evEnd:
			m.end(e)
		}
		if e.kind != evReady {
			m.record(e)
		}
	}
	if m.r.Turns > 0 {
		m.r.AvgTTFTMs = m.ttftSum / float64(m.r.Turns)
	}
	if t := m.hitTokens + m.missTokens; t > 0 {
		m.r.HitRate = float64(m.hitTokens) / float64(t)
	}
	return m.r
}

// cumulativeIDs is, per session and turn, the union of the rows' ids so
// far, in first-seen order.
func cumulativeIDs(rowIDs [][][]int, n int) [][][]int {
	cumulative := make([][][]int, n)
	for i := range n {
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
	return cumulative
}

// simulator is Simulate's state: the event queue, the prefill lane, the
// KV cache's blocks, reference counts and LRU of idle sessions, and the
// running totals of the result.
type simulator struct {
	sessions   []Session
	rowIDs     [][][]int
	c          *Config
	p          SimParams
	pre        prefixes
	cumulative [][][]int
	r          SimResult

	q   eventQueue
	seq int

	prefillFree                        float64
	cached                             float64 // tokens held, before deduplication
	sessionTokens                      []float64
	holding                            int // sessions with tokens cached
	groupHolding                       map[int]int
	refs                               map[int]int
	blocks                             []map[int]bool
	evicted                            map[int]bool
	wasEvicted                         []bool
	lru                                [][2]int
	generation                         []int
	inLRU                              []bool
	hitTokens, missTokens              int
	active, activeRequests, inTokens   int
	next                               int
	slots                              int
	ttftSum                            float64
	missL15, missSession, totalEvicted int
	aliveGroups                        map[int]int
	capacity                           float64
}

func (m *simulator) push(at float64, kind, s, t int) {
	heap.Push(&m.q, simEvent{at: at, seq: m.seq, kind: kind, sess: s, tu: t})
	m.seq++
}

// classify names the cache layer of a block id.
func (m *simulator) classify(id int) string {
	switch {
	case id < m.pre.l1Blocks:
		return "l1"
	case id < m.pre.sessionRegionBase:
		return "l15"
	}
	return "session"
}

func (m *simulator) setTokens(s int, v float64) {
	g := m.sessions[s].Group
	if m.sessionTokens[s] > 0 && v <= 0 {
		m.holding--
		m.groupHolding[g]--
	} else if m.sessionTokens[s] <= 0 && v > 0 {
		m.holding++
		m.groupHolding[g]++
	}
	m.cached += v - m.sessionTokens[s]
	m.sessionTokens[s] = v
}

// unique is the tokens cached with the shared L1 and each group's L1.5
// counted once.
func (m *simulator) unique() float64 {
	dup := float64(max(0, m.holding-1) * m.c.Cache.Layer1Tokens)
	for _, k := range m.groupHolding {
		dup += float64(max(0, k-1) * m.c.Cache.Layer15Tokens)
	}
	return math.Max(0, m.cached-dup)
}

func (m *simulator) addBlock(s, id int) {
	if m.blocks[s][id] {
		return
	}
	if m.evicted[id] {
		switch m.classify(id) {
		case "l15":
			m.missL15++
		case "session":
			m.missSession++
		}
		delete(m.evicted, id)
	}
	m.blocks[s][id] = true
	m.refs[id]++
}

// evict drops idle sessions, least recently used first, while the cache
// overflows.
func (m *simulator) evict() {
	for m.unique() > m.capacity && len(m.lru) > 0 {
		v, gen := m.lru[0][0], m.lru[0][1]
		m.lru = m.lru[1:]
		if !m.inLRU[v] || gen != m.generation[v] {
			continue
		}
		m.inLRU[v] = false
		if m.sessionTokens[v] == 0 {
			continue
		}
		m.setTokens(v, 0)
		for id := range m.blocks[v] {
			if m.refs[id]--; m.refs[id] <= 0 {
				delete(m.refs, id)
				m.evicted[id] = true
				m.totalEvicted++
			}
		}
		clear(m.blocks[v])
		m.wasEvicted[v] = true
		m.r.Evictions++
	}
}

func (m *simulator) toLRU(s int) {
	if !m.inLRU[s] {
		m.generation[s]++
		m.lru = append(m.lru, [2]int{s, m.generation[s]})
		m.inLRU[s] = true
	}
}

func (m *simulator) fromLRU(s int) {
	if m.inLRU[s] {
		m.inLRU[s] = false
		m.generation[s]++
	}
}

func (m *simulator) startTurn(s, t int, at float64) {
	delay := 0.0
	if t > 0 {
		delay = m.sessions[s].Turns[t].DelayMs
		if delay > 0 {
			m.toLRU(s)
		}
	}
	m.push(at+delay, evReady, s, t)
}

// startSession starts session s at a slot: the given one, or a new one
// when slot is negative.
func (m *simulator) startSession(s int, at float64, slot int) {
	if slot < 0 {
		slot = m.slots
		m.slots++
	}
	m.r.Sessions[s].Slot, m.r.Sessions[s].Start = slot, at
	m.startTurn(s, 0, at)
}

// ready queues a ready turn's prefill for the blocks the cache lacks and
// its decode after it.
func (m *simulator) ready(e simEvent) {
	turn := &m.sessions[e.sess].Turns[e.tu]
	m.fromLRU(e.sess)
	all := m.cumulative[e.sess][e.tu]
	hits := 0
	for _, id := range all {
		if m.refs[id] > 0 {
			hits++
		}
	}
	ht, mt := hits*m.c.BlockSize, (len(all)-hits)*m.c.BlockSize
	m.hitTokens, m.missTokens = m.hitTokens+ht, m.missTokens+mt
	start := math.Max(e.at, m.prefillFree)
	end := start + float64(mt)/m.p.PrefillTPS*1000
	m.prefillFree = end
	decodeEnd := end + float64(turn.Output)/m.p.DecodeTPS*1000
	m.push(end, evStart, e.sess, e.tu)
	m.push(decodeEnd, evEnd, e.sess, e.tu)
	m.r.Turns++
	m.ttftSum += end - e.at
	m.r.PrefillWaits += start - e.at
	m.r.PrefillMs += end - start
	m.r.DecodeMs += decodeEnd - end
}

// start caches a running turn's context, reloading an evicted session's
// earlier turns first.
func (m *simulator) start(e simEvent) {
	turn := &m.sessions[e.sess].Turns[e.tu]
	m.activeRequests++
	m.inTokens += turn.Input
	if m.wasEvicted[e.sess] {
		m.wasEvicted[e.sess] = false
		m.setTokens(e.sess, 0)
		for t := range e.tu {
			for _, id := range m.rowIDs[e.sess][t] {
				m.addBlock(e.sess, id)
			}
		}
	}
	m.setTokens(e.sess, float64(turn.Input))
	if e.tu == 0 {
		m.aliveGroups[m.sessions[e.sess].Group]++
	}
	for _, id := range m.rowIDs[e.sess][e.tu] {
		m.addBlock(e.sess, id)
	}
	m.evict()
}

// end finishes a turn: the next turn starts after its delay, or the
// session ends and the next queued session takes its slot.
func (m *simulator) end(e simEvent) {
	turn := &m.sessions[e.sess].Turns[e.tu]
	m.activeRequests--
	m.inTokens -= turn.Input
	m.setTokens(e.sess, m.sessionTokens[e.sess]+float64(turn.Output))
	if e.tu+1 < len(m.sessions[e.sess].Turns) {
		m.startTurn(e.sess, e.tu+1, e.at)
		return
	}
	m.toLRU(e.sess)
	m.r.Sessions[e.sess].End = e.at
	m.active--
	if m.next < len(m.sessions) {
		m.active++
		m.startSession(m.next, e.at, m.r.Sessions[e.sess].Slot)
		m.next++
	}
}

// record appends the state after event e to the time series.
func (m *simulator) record(e simEvent) {
	n := len(m.sessions)
	m.r.Points = append(m.r.Points, SimPoint{TimeS: e.at / 1000, ActiveRequests: m.activeRequests, InputTokens: m.inTokens,
		ActiveSessions: m.active, Queued: n - m.next, KVCacheGB: m.unique() * m.p.KVBytesPerToken / 1e9,
		UniqueBlocks: len(m.refs), EvictedBlocks: m.totalEvicted, MissL15Blocks: m.missL15, MissSessionBlock: m.missSession,
		HitTokens: m.hitTokens, MissTokens: m.missTokens})
}
