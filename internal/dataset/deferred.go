package dataset

import (
	"bytes"
	"encoding/gob"
	"sync"
	"sync/atomic"
)

// Pending builds a dataset's conversations in index order behind the
// send loop, so that the first request waits for its own conversation
// only, however many the dataset holds. It is for content whose draws
// depend on every conversation before (a synthetic dataset's prompt
// windows start where the previous prompts' draws left the generator),
// which therefore cannot be built out of order: conversation i is built
// only after 0..i-1.
//
// Builds run on one goroutine at a time, started when a conversation not
// yet built is asked for and ended when the build has run Lookahead
// conversations past the furthest one asked for, so the cost is spread
// over the run as it sends, and nothing is left running once it stops
// asking. Every write a build makes happens before the return of a wait
// for that conversation (the mutex), so a reader that waited sees it.
type Pending struct {
	build  func(i int) // builds conversation i in place; never concurrently
	finish func(i int) // run after build(i) (the request bodies); may be nil
	n      int

	built atomic.Int64 // conversations [0, built) are complete

	mu      sync.Mutex
	changed *sync.Cond // built or running changed
	want    int        // build through here (exclusive) before resting
	running bool       // a builder goroutine is running
}

// Lookahead is how many conversations the builder runs past the furthest
// one asked for (asking for conversation 0 builds Lookahead+1): enough
// that a closed loop's next sessions find theirs built, small enough that
// the build's CPU follows the sends.
const Lookahead = 64

// NewDeferred returns a dataset of convs whose conversation i is
// completed by build(i) when first asked for (Conversation, Complete and
// everything that reads the slice). Until then only what build does not
// write (IDs, turn counts, timestamps, delays, max tokens) may be read,
// through Len and FirstTurn. build is called once per conversation, in
// index order, never concurrently.
func NewDeferred(convs []Conversation, build func(i int)) *Dataset {
	d := &Pending{build: build, n: len(convs)}
	d.changed = sync.NewCond(&d.mu)
	return &Dataset{Conversations: convs, Pending: d}
}

// Deferred reports whether some of d's conversations are still to be
// built (see NewDeferred).
func (d *Dataset) Deferred() bool {
	return d.Pending != nil && int(d.Pending.built.Load()) < d.Pending.n
}

// OnBuilt sets what runs after each deferred conversation is built, on
// the building goroutine, before any reader sees it (the request bodies
// of its turns). It is set before the first conversation is asked for; on
// a dataset built already it does nothing.
func (d *Dataset) OnBuilt(f func(i int)) {
	if d.Pending != nil {
		d.Pending.finish = f
	}
}

// Complete builds every conversation not built yet, now, for code that
// reads them all (Expand and Materialize call it).
func (d *Dataset) Complete() {
	if d.Pending != nil && d.Pending.n > 0 {
		d.Pending.wait(d.Pending.n-1, 0)
	}
}

// wait returns once conversation i is built, asking the builder to run
// ahead more conversations past it.
func (p *Pending) wait(i, ahead int) {
	if i < int(p.built.Load()) {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.want = max(p.want, min(p.n, i+1+ahead))
	if !p.running {
		p.running = true
		go p.run()
	}
	for int(p.built.Load()) <= i {
		p.changed.Wait()
	}
}

// run builds conversations in order until it reaches want.
func (p *Pending) run() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for {
		i := int(p.built.Load())
		if i >= p.want {
			p.running = false
			return
		}
		p.mu.Unlock()
		p.build(i)
		if p.finish != nil {
			p.finish(i)
		}
		p.mu.Lock()
		p.built.Store(int64(i + 1))
		p.changed.Broadcast()
	}
}

// gobDataset is what a Dataset sends to other processes (load workers).
type gobDataset struct {
	Conversations []Conversation
	Rows          *TraceRows
}

// GobEncode sends the dataset with every deferred conversation built
// first: the other process gets it whole.
func (d *Dataset) GobEncode() ([]byte, error) {
	d.Complete()
	var b bytes.Buffer
	err := gob.NewEncoder(&b).Encode(gobDataset{Conversations: d.Conversations, Rows: d.Rows})
	return b.Bytes(), err
}

// GobDecode receives what GobEncode sent.
func (d *Dataset) GobDecode(data []byte) error {
	var g gobDataset
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&g); err != nil {
		return err
	}
	*d = Dataset{Conversations: g.Conversations, Rows: g.Rows}
	return nil
}
