package cluster

import (
	"sync"

	"github.com/aiperf-go/aiperf/internal/cluster/clusterpb"
)

// outbox is the unbounded, ordered queue of messages for one worker. The
// scheduler must never block on a slow worker, so pushes only append; one
// writer goroutine takes the whole queue at a time and sends it. Credits
// pushed while the writer is busy are coalesced into one Credits message.
type outbox struct {
	mu     sync.Mutex
	queue  []*clusterpb.ControllerMessage
	closed bool
	signal chan struct{} // capacity 1: "the queue is not empty, or closed"
}

func newOutbox() *outbox { return &outbox{signal: make(chan struct{}, 1)} }

func (o *outbox) wake() {
	select {
	case o.signal <- struct{}{}:
	default:
	}
}

// push queues m; false once the outbox is closed.
func (o *outbox) push(m *clusterpb.ControllerMessage) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return false
	}
	o.queue = append(o.queue, m)
	o.wake()
	return true
}

// pushCredit queues one credit of phase epoch, appending it to the last
// queued message when that is already a Credits message of the same phase.
func (o *outbox) pushCredit(epoch uint32, c *clusterpb.Credit) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return false
	}
	if n := len(o.queue); n > 0 {
		if cs := o.queue[n-1].GetCredits(); cs != nil && cs.Epoch == epoch {
			cs.Credits = append(cs.Credits, c)
			return true
		}
	}
	o.queue = append(o.queue, &clusterpb.ControllerMessage{Body: &clusterpb.ControllerMessage_Credits{
		Credits: &clusterpb.Credits{Epoch: epoch, Credits: []*clusterpb.Credit{c}},
	}})
	o.wake()
	return true
}

// close stops further pushes; what is queued is still delivered.
func (o *outbox) close() {
	o.mu.Lock()
	o.closed = true
	o.mu.Unlock()
	o.wake()
}

// drain sends every queued message with send, in order, until the outbox
// is closed and empty or send fails.
func (o *outbox) drain(send func(*clusterpb.ControllerMessage) error) error {
	for range o.signal {
		o.mu.Lock()
		batch, closed := o.queue, o.closed
		o.queue = nil
		o.mu.Unlock()
		for _, m := range batch {
			if err := send(m); err != nil {
				return err
			}
		}
		if closed {
			o.mu.Lock()
			empty := len(o.queue) == 0
			o.mu.Unlock()
			if empty {
				return nil
			}
			o.wake()
		}
	}
	return nil
}
