package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/protobuf/proto"

	"github.com/aiperf-go/aiperf/internal/clock"
	"github.com/aiperf-go/aiperf/internal/cluster/clusterpb"
	"github.com/aiperf-go/aiperf/internal/record"
	"github.com/aiperf-go/aiperf/internal/timing"
	"github.com/aiperf-go/aiperf/internal/worker"
)

// Clock exchanges: a burst at start, then a few every resyncEvery; the
// estimate is the shortest round trip among the last clockWindow samples.
const (
	startSamples   = 16
	resyncSamples  = 4
	resyncEvery    = 5 * time.Second
	clockWindow    = 32
	maxBatchEvents = 1024
	maxBatchBytes  = 4 << 20
)

// PhaseInfo is one phase as a worker sees it.
type PhaseInfo struct {
	Phase          record.Phase
	Name           string
	Index          int
	ProfilingIndex int
	Named          bool
	Fixed          bool
}

// Hooks connect a worker's pool to the protocol: give them to the
// worker.Options of the pool NewPool builds.
type Hooks struct {
	// Clock is aligned to the controller's run clock (see ClockEstimate).
	Clock *clock.Clock
	// Emit, OnSend and Done are worker.Options' fields of the same name.
	Emit   func(*record.Record)
	OnSend func(*record.Record)
	Done   func(timing.Credit)
	// Prefill is the worker's share of the prefill gate; nil without one.
	Prefill *timing.Gate
}

// Runner builds a worker's part of a run from the controller's setup.
type Runner interface {
	// NewPool returns the pool that runs one phase's credits. Its credits
	// come with DispatchConversation; its requests run under ctx.
	NewPool(ctx context.Context, ph PhaseInfo, h Hooks) (*worker.Pool, error)
}

// AgentOptions configure RunAgent.
type AgentOptions struct {
	// Controller is the controller's host:port.
	Controller string
	// Name identifies the worker in the controller's log and reports (a
	// pod name); the record's worker_id is it plus the pool's own id.
	Name    string
	Version string
	// Build makes the Runner from the setup blob.
	Build func(setup []byte) (Runner, error)
	// ConnectTimeout bounds the wait for the controller to answer (a
	// controller pod may start after its workers); 0 means 1 minute.
	ConnectTimeout time.Duration
	Log            *slog.Logger
}

// ErrControllerLost: the controller's stream ended without its shutdown
// (RunAgent returns nil after one).
var ErrControllerLost = errors.New("the controller went away")

// ErrNoController: no controller answered within ConnectTimeout.
var ErrNoController = errors.New("no controller")

// RunAgent runs a load worker until the controller shuts the run down (nil)
// or goes away (an error wrapping ErrControllerLost).
func RunAgent(ctx context.Context, o AgentOptions) error {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = time.Minute
	}
	conn, err := grpc.NewClient(o.Controller,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxMessageBytes), grpc.MaxCallSendMsgSize(maxMessageBytes)),
		grpc.WithKeepaliveParams(keepalive.ClientParameters{Time: keepaliveTime, Timeout: keepaliveTimeout, PermitWithoutStream: true}),
	)
	if err != nil {
		return fmt.Errorf("load worker: controller %s: %w", o.Controller, err)
	}
	defer conn.Close()
	client := clusterpb.NewControllerClient(conn)
	a := &agent{o: o, client: client, local: clock.New(), log: o.Log}

	// The first exchange waits for the controller to come up.
	cctx, cancel := context.WithTimeout(ctx, o.ConnectTimeout)
	_, err = client.Clock(cctx, &clusterpb.ClockRequest{Worker: o.Name}, grpc.WaitForReady(true))
	cancel()
	if err != nil {
		return fmt.Errorf("load worker: %w at %s: %w", ErrNoController, o.Controller, err)
	}
	samples, err := sampleClock(ctx, client, a.local, o.Name, startSamples)
	if err != nil {
		return fmt.Errorf("load worker: clock exchange with %s: %w", o.Controller, err)
	}
	a.samples = samples
	est, _ := Estimate(samples)
	a.est.Store(&est)
	o.Log.Info("clock aligned to the controller", "offset", est.Offset, "rtt", est.RTT, "wall_skew", est.WallSkew)

	sctx, stop := context.WithCancel(ctx)
	defer stop()
	stream, err := client.Work(sctx)
	if err != nil {
		return fmt.Errorf("load worker: %w", err)
	}
	host, _ := os.Hostname()
	if err := stream.Send(&clusterpb.WorkerMessage{Body: &clusterpb.WorkerMessage_Hello{Hello: &clusterpb.Hello{
		Protocol: Protocol, Version: o.Version, Name: o.Name, Host: host, Pid: int64(os.Getpid()), Clock: est.wire(),
	}}}); err != nil {
		return fmt.Errorf("load worker: hello: %w", err)
	}
	return a.run(sctx, stream)
}

type agent struct {
	o       AgentOptions
	client  clusterpb.ControllerClient
	local   *clock.Clock
	log     *slog.Logger
	samples []ClockSample // resync goroutine only, after start
	est     atomic.Pointer[ClockEstimate]
	id      string
	up      chan *clusterpb.WorkerMessage // single-event messages to batch
	runner  Runner

	// The phase running: its pool and gate, owned by the receive loop.
	epoch uint32
	kind  record.Phase
	pool  *worker.Pool
	gate  *timing.Gate
	ctx   context.Context
}

// run is the worker's session after hello.
func (a *agent) run(ctx context.Context, stream clusterpb.Controller_WorkClient) error {
	setup, err := a.receiveSetup(stream)
	if err != nil {
		return err
	}
	a.runner, err = a.o.Build(setup)
	ready := &clusterpb.Ready{}
	if err != nil {
		ready.Error = err.Error()
	}
	if serr := stream.Send(&clusterpb.WorkerMessage{Body: &clusterpb.WorkerMessage_Ready{Ready: ready}}); serr != nil {
		return fmt.Errorf("load worker: %w: %v", ErrControllerLost, serr)
	}
	if err != nil {
		return fmt.Errorf("load worker: setup: %w", err)
	}
	a.up = make(chan *clusterpb.WorkerMessage, 16384)
	a.ctx = ctx
	upErr := make(chan error, 1)
	go func() { upErr <- a.uplink(stream) }()
	rctx, stopResync := context.WithCancel(ctx)
	var bg sync.WaitGroup
	bg.Add(1)
	go func() {
		defer bg.Done()
		a.resync(rctx)
	}()
	err = a.receive(stream)
	if a.pool != nil { // the controller went away mid-phase
		a.pool.Cancel()
		a.pool.Close()
	}
	stopResync()
	bg.Wait()
	close(a.up)
	<-upErr
	return err
}

func (a *agent) receiveSetup(stream clusterpb.Controller_WorkClient) ([]byte, error) {
	var setup []byte
	for {
		msg, err := stream.Recv()
		if err != nil {
			return nil, fmt.Errorf("load worker: %w: %v", ErrControllerLost, err)
		}
		switch b := msg.Body.(type) {
		case *clusterpb.ControllerMessage_Welcome:
			a.id = b.Welcome.Id
		case *clusterpb.ControllerMessage_Setup:
			setup = append(setup, b.Setup.Data...)
			if b.Setup.Last {
				return setup, nil
			}
		default:
			return nil, fmt.Errorf("load worker: unexpected %T before the setup", b)
		}
	}
}

// receive applies the controller's messages until shutdown.
func (a *agent) receive(stream clusterpb.Controller_WorkClient) error {
	for {
		msg, err := stream.Recv()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return fmt.Errorf("load worker: %w: %v", ErrControllerLost, err)
		}
		switch b := msg.Body.(type) {
		case *clusterpb.ControllerMessage_PhaseStart:
			if err := a.startPhase(b.PhaseStart); err != nil {
				return err
			}
		case *clusterpb.ControllerMessage_Credits:
			if a.pool == nil || b.Credits.Epoch != a.epoch {
				a.log.Warn("credits for a phase that is not running; ignored", "epoch", b.Credits.Epoch, "credits", len(b.Credits.Credits))
				continue
			}
			for _, c := range b.Credits.Credits {
				a.pool.DispatchConversation(timing.Credit{
					Seq: c.Seq, Phase: a.kind, Due: time.Duration(c.DueNs),
					Turns: int(c.Turns), TurnGap: time.Duration(c.TurnGapNs),
				}, int(c.Conversation))
			}
		case *clusterpb.ControllerMessage_Control:
			if done := a.control(b.Control); done {
				return nil
			}
		}
	}
}

// startPhase builds the pool of a new phase.
func (a *agent) startPhase(ps *clusterpb.PhaseStart) error {
	if a.pool != nil {
		a.pool.Close()
	}
	a.epoch, a.kind = ps.Epoch, record.Phase(ps.Phase)
	a.gate = nil
	if ps.PrefillLimit > 0 {
		a.gate = timing.NewGate(int(ps.PrefillLimit))
	}
	epoch := ps.Epoch
	clk := a.est.Load().Clock(a.local)
	prefix := a.id + "/"
	h := Hooks{
		Clock: clk,
		Emit: func(rec *record.Record) {
			if a.ctx.Err() != nil {
				// This worker is going away (its own context ended, not a
				// controller CANCEL): a request it cut off would read as
				// the user's cancellation. Sent but never recorded, it is
				// what the controller reports as lost with the worker.
				return
			}
			rec.WorkerID = prefix + rec.WorkerID
			a.up <- event(&clusterpb.Event{Body: &clusterpb.Event_Record{Record: RecordToWire(rec)}})
		},
		OnSend: func(rec *record.Record) {
			a.up <- event(&clusterpb.Event{Body: &clusterpb.Event_Sent{Sent: &clusterpb.Sent{
				Epoch: epoch, Seq: rec.Seq, Turn: int32(rec.TurnIndex), XRequestId: rec.XRequestID,
				XCorrelationId: rec.XCorrelationID, WorkerId: prefix + rec.WorkerID,
				DueNs: int64(rec.Due), SentNs: int64(rec.Sent),
			}}})
		},
		Done: func(c timing.Credit) {
			if a.ctx.Err() != nil {
				return // its flight stays open for the controller to count as lost (see Emit)
			}
			a.up <- event(&clusterpb.Event{Body: &clusterpb.Event_Done{Done: &clusterpb.CreditDone{Epoch: epoch, Seq: c.Seq}}})
		},
		Prefill: a.gate,
	}
	pool, err := a.runner.NewPool(a.ctx, PhaseInfo{
		Phase: a.kind, Name: ps.Name, Index: int(ps.Index), ProfilingIndex: int(ps.ProfilingIndex),
		Named: ps.Named, Fixed: ps.FixedSchedule,
	}, h)
	if err != nil {
		return fmt.Errorf("load worker: phase %d: %w", ps.Epoch, err)
	}
	a.pool = pool
	return nil
}

// control applies a phase control; true on shutdown.
func (a *agent) control(c *clusterpb.PhaseControl) bool {
	if c.Action == clusterpb.PhaseControl_SHUTDOWN {
		return true
	}
	if a.pool == nil || c.Epoch != a.epoch {
		return false
	}
	switch c.Action {
	case clusterpb.PhaseControl_STOP_SENDING:
		a.pool.StopSending()
	case clusterpb.PhaseControl_CANCEL:
		a.pool.Cancel()
	case clusterpb.PhaseControl_END:
		a.pool.Close()
		a.pool, a.gate = nil, nil
	case clusterpb.PhaseControl_PREFILL_LIMIT:
		if a.gate != nil {
			a.gate.SetLimit(int(c.PrefillLimit))
		}
	}
	return false
}

func event(e *clusterpb.Event) *clusterpb.WorkerMessage {
	return &clusterpb.WorkerMessage{Body: &clusterpb.WorkerMessage_Events{Events: &clusterpb.Events{Events: []*clusterpb.Event{e}}}}
}

// uplink is the stream's only sender: it batches the single events queued
// on a.up into one Events message, as many as are waiting (up to the batch
// limits), so a busy worker sends few large messages and an idle one sends
// each event at once. It returns when a.up is closed and drained.
func (a *agent) uplink(stream clusterpb.Controller_WorkClient) error {
	var failed error
	for msg := range a.up {
		evs := msg.GetEvents()
		if evs != nil {
			size := proto.Size(evs.Events[0])
		more:
			for len(evs.Events) < maxBatchEvents && size < maxBatchBytes {
				select {
				case next, ok := <-a.up:
					if !ok {
						break more
					}
					ne := next.GetEvents()
					if ne == nil { // a clock report: send the batch first
						failed = a.send(stream, msg, failed)
						msg, evs, size = next, nil, 0
						break more
					}
					evs.Events = append(evs.Events, ne.Events...)
					size += proto.Size(ne.Events[0])
				default:
					break more
				}
			}
		}
		failed = a.send(stream, msg, failed)
	}
	return failed
}

// send sends m unless an earlier send failed (then the stream is broken
// and the receive loop will see it; the queue is drained so producers
// never block).
func (a *agent) send(stream clusterpb.Controller_WorkClient, m *clusterpb.WorkerMessage, failed error) error {
	if failed != nil {
		return failed
	}
	if err := stream.Send(m); err != nil {
		return err
	}
	return nil
}

// resync refreshes the clock estimate every resyncEvery and reports it.
func (a *agent) resync(ctx context.Context) {
	t := time.NewTicker(resyncEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		s, err := sampleClock(ctx, a.client, a.local, a.o.Name, resyncSamples)
		if err != nil {
			return
		}
		a.samples = append(a.samples, s...)
		if len(a.samples) > clockWindow {
			a.samples = a.samples[len(a.samples)-clockWindow:]
		}
		est, ok := Estimate(a.samples)
		if !ok {
			continue
		}
		a.est.Store(&est)
		select {
		case a.up <- &clusterpb.WorkerMessage{Body: &clusterpb.WorkerMessage_Clock{Clock: est.wire()}}:
		case <-ctx.Done():
			return
		}
	}
}
