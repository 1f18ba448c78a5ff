package cluster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/status"

	"github.com/aiperf-go/aiperf/internal/clock"
	"github.com/aiperf-go/aiperf/internal/cluster/clusterpb"
)

// Protocol is the controller-worker protocol's version; a worker speaking
// another is refused at hello.
const Protocol = 1

// setupChunkBytes is the size of the pieces the setup blob is sent in.
const setupChunkBytes = 1 << 20

// maxMessageBytes bounds one message either way (a batch of records with
// their response chunks).
const maxMessageBytes = 64 << 20

// keepalive: a worker whose machine vanished (no FIN, no RST) is declared
// lost after about keepaliveTime + keepaliveTimeout. The timeout is long
// because a ping is answered only when its process gets a CPU: with
// 100,000 streams starting to stream at once, a controller sharing its
// core with six load workers left pings unanswered for over 10 s, and
// every live worker was declared lost. A process that dies on the same
// machine closes its connection and is seen at once.
const (
	keepaliveTime    = 10 * time.Second
	keepaliveTimeout = 50 * time.Second
)

// ControllerOptions configure a Controller.
type ControllerOptions struct {
	// Clock is the run's clock: every worker aligns its records to it.
	Clock *clock.Clock
	// Version is the binary's version; a worker of another version is
	// refused, since the setup blob is only understood by the same build.
	Version string
	Log     *slog.Logger
}

// Controller is the controller's side of the protocol: the gRPC service
// every worker connects to, the registry of workers, and the phases
// (StartPhase) that hand credits to them.
type Controller struct {
	clusterpb.UnimplementedControllerServer
	o   ControllerOptions
	srv *grpc.Server

	setupReady chan struct{}
	setupOnce  sync.Once
	setup      []byte

	mu      sync.Mutex
	workers []*remote
	changed chan struct{} // closed and replaced when a worker's state changes
	phase   *Phase        // the phase running; nil between phases
	epoch   uint32
	closing bool
}

// NewController returns a controller; call Serve to accept workers.
func NewController(o ControllerOptions) *Controller {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	c := &Controller{o: o, setupReady: make(chan struct{}), changed: make(chan struct{})}
	c.srv = grpc.NewServer(
		grpc.MaxRecvMsgSize(maxMessageBytes),
		grpc.MaxSendMsgSize(maxMessageBytes),
		grpc.KeepaliveParams(keepalive.ServerParameters{Time: keepaliveTime, Timeout: keepaliveTimeout}),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: keepaliveTime / 2, PermitWithoutStream: true}),
	)
	clusterpb.RegisterControllerServer(c.srv, c)
	return c
}

// Serve accepts workers on l until Close; it returns nil after Close.
func (c *Controller) Serve(l net.Listener) error {
	err := c.srv.Serve(l)
	if errors.Is(err, grpc.ErrServerStopped) {
		return nil
	}
	return err
}

// Clock serves one clock exchange.
func (c *Controller) Clock(context.Context, *clusterpb.ClockRequest) (*clusterpb.ClockReply, error) {
	return &clusterpb.ClockReply{ControllerNs: int64(c.o.Clock.Now()), WallStartNs: c.o.Clock.WallNanos(0)}, nil
}

// SetSetup publishes the blob every worker receives after its hello (and
// builds its part of the run from). Only the first call counts.
func (c *Controller) SetSetup(blob []byte) {
	c.setupOnce.Do(func() {
		c.setup = blob
		close(c.setupReady)
	})
}

// WaitReady waits until at least n workers are ready for credits. It fails
// at once when a worker could not build its part of the run (every worker
// runs the same setup, so the others would fail alike), and when ctx ends
// first, naming how many were ready.
func (c *Controller) WaitReady(ctx context.Context, n int) error {
	for {
		c.mu.Lock()
		ready, changed := 0, c.changed
		var failed *remote
		for _, r := range c.workers {
			switch r.state {
			case stateReady:
				ready++
			case stateFailed:
				failed = r
			}
		}
		c.mu.Unlock()
		if failed != nil {
			return fmt.Errorf("load worker %s (%s) could not start: %w", failed.id, failed.describe(), failed.err)
		}
		if ready >= n {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("%d of %d load workers ready: %w", ready, n, context.Cause(ctx))
		}
	}
}

// Changed returns a channel closed at the next change of any worker's
// state (joined, ready, failed, lost).
func (c *Controller) Changed() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.changed
}

// notifyLocked wakes every waiter on Changed; c.mu is held.
func (c *Controller) notifyLocked() {
	close(c.changed)
	c.changed = make(chan struct{})
}

// Close tells every worker the run is over, waits up to grace for them to
// hang up, and stops the server.
func (c *Controller) Close(grace time.Duration) {
	c.mu.Lock()
	c.closing = true
	ws := append([]*remote(nil), c.workers...)
	c.mu.Unlock()
	for _, r := range ws {
		r.out.push(control(0, clusterpb.PhaseControl_SHUTDOWN, 0))
		r.out.close()
	}
	done := make(chan struct{})
	go func() {
		c.srv.GracefulStop()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(grace):
		c.srv.Stop()
		<-done
	}
}

// Work is one worker's session (see the protocol in clusterpb).
func (c *Controller) Work(stream clusterpb.Controller_WorkServer) error {
	first, err := stream.Recv()
	if err != nil {
		return err
	}
	hello := first.GetHello()
	switch {
	case hello == nil:
		return status.Error(codes.InvalidArgument, "the first message must be a hello")
	case hello.Protocol != Protocol:
		return status.Errorf(codes.FailedPrecondition, "protocol %d, the controller speaks %d", hello.Protocol, Protocol)
	case hello.Version != c.o.Version:
		return status.Errorf(codes.FailedPrecondition, "aiperf version %q, the controller runs %q: run the same build on both", hello.Version, c.o.Version)
	}
	r, err := c.join(hello)
	if err != nil {
		return status.Error(codes.Unavailable, err.Error())
	}
	writeErr := make(chan error, 1)
	go func() { writeErr <- r.out.drain(stream.Send) }()
	err = c.serveWorker(stream, r)
	r.out.close()
	werr := <-writeErr
	if err == nil {
		err = werr
	}
	c.leave(r, err)
	return nil
}

// serveWorker runs a joined worker's session until its stream ends.
func (c *Controller) serveWorker(stream clusterpb.Controller_WorkServer, r *remote) error {
	r.out.push(&clusterpb.ControllerMessage{Body: &clusterpb.ControllerMessage_Welcome{
		Welcome: &clusterpb.Welcome{Index: int32(r.index), Id: r.id},
	}})
	select {
	case <-c.setupReady:
	case <-stream.Context().Done():
		return context.Cause(stream.Context())
	}
	for off := 0; ; off += setupChunkBytes {
		end := min(off+setupChunkBytes, len(c.setup))
		last := end == len(c.setup)
		r.out.push(&clusterpb.ControllerMessage{Body: &clusterpb.ControllerMessage_Setup{
			Setup: &clusterpb.SetupChunk{Data: c.setup[off:end], Last: last},
		}})
		if last {
			break
		}
	}
	msg, err := stream.Recv()
	if err != nil {
		return err
	}
	ready := msg.GetReady()
	if ready == nil {
		return errors.New("expected ready after the setup")
	}
	if ready.Error != "" {
		c.fail(r, errors.New(ready.Error))
		return nil
	}
	c.ready(r)
	for {
		msg, err := stream.Recv()
		if err != nil {
			return err
		}
		switch b := msg.Body.(type) {
		case *clusterpb.WorkerMessage_Events:
			c.events(r, b.Events.Events)
		case *clusterpb.WorkerMessage_Clock:
			r.noteClock(estimateFromWire(b.Clock))
		}
	}
}

// join registers a worker that said hello.
func (c *Controller) join(h *clusterpb.Hello) (*remote, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closing {
		return nil, errors.New("the run is over")
	}
	r := &remote{
		index: len(c.workers), hello: h, out: newOutbox(), state: stateJoining,
		joined: c.o.Clock.Now(),
	}
	r.id = fmt.Sprintf("w%d", r.index)
	r.clockFirst = estimateFromWire(h.Clock)
	r.clockLast = r.clockFirst
	c.workers = append(c.workers, r)
	c.notifyLocked()
	c.o.Log.Info("load worker connected", "worker", r.id, "name", h.Name, "host", h.Host, "pid", h.Pid,
		"clock_offset", r.clockFirst.Offset, "clock_rtt", r.clockFirst.RTT)
	return r, nil
}

// ready marks a worker ready; during a phase it joins it at once.
func (c *Controller) ready(r *remote) {
	c.mu.Lock()
	r.state = stateReady
	p := c.phase
	c.notifyLocked()
	c.mu.Unlock()
	c.o.Log.Info("load worker ready", "worker", r.id, "pid", r.hello.Pid)
	if p != nil {
		p.admit(r)
	}
}

// fail marks a worker that could not build its setup.
func (c *Controller) fail(r *remote, err error) {
	c.mu.Lock()
	r.state, r.err = stateFailed, err
	c.notifyLocked()
	c.mu.Unlock()
	c.o.Log.Error("load worker could not start", "worker", r.id, "error", err)
}

// leave handles a worker's stream ending: during a run that loses its
// work in flight (see Phase.lose).
func (c *Controller) leave(r *remote, err error) {
	c.mu.Lock()
	wasReady := r.state == stateReady
	closing := c.closing
	if r.state != stateFailed {
		r.state = stateLost
		if r.err == nil {
			r.err = err
		}
	}
	p := c.phase
	c.notifyLocked()
	c.mu.Unlock()
	if closing {
		return
	}
	c.o.Log.Warn("load worker lost", "worker", r.id, "pid", r.hello.Pid, "error", err)
	if p != nil && wasReady {
		p.lose(r, err)
	}
}

// liveLocked lists the ready workers; c.mu is held.
func (c *Controller) liveLocked() []*remote {
	var out []*remote
	for _, r := range c.workers {
		if r.state == stateReady {
			out = append(out, r)
		}
	}
	return out
}

// events hands a batch of a worker's events to the phase they belong to.
func (c *Controller) events(r *remote, evs []*clusterpb.Event) {
	c.mu.Lock()
	p := c.phase
	c.mu.Unlock()
	if p == nil {
		c.o.Log.Warn("load worker sent events between phases; dropped", "worker", r.id, "events", len(evs))
		return
	}
	p.events(r, evs)
}

// Workers describes every worker that joined, in joining order.
func (c *Controller) Workers() []WorkerInfo {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]WorkerInfo, len(c.workers))
	for i, r := range c.workers {
		out[i] = r.info()
	}
	return out
}

func control(epoch uint32, a clusterpb.PhaseControl_Action, prefill int) *clusterpb.ControllerMessage {
	return &clusterpb.ControllerMessage{Body: &clusterpb.ControllerMessage_Control{
		Control: &clusterpb.PhaseControl{Epoch: epoch, Action: a, PrefillLimit: int32(prefill)},
	}}
}
