package benchmark

import (
	"bytes"
	"context"
	"encoding/gob"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/aiperf-go/aiperf/internal/builtin"
	"github.com/aiperf-go/aiperf/internal/clock"
	"github.com/aiperf-go/aiperf/internal/cluster"
	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/record"
	"github.com/aiperf-go/aiperf/internal/timing"
	"github.com/aiperf-go/aiperf/internal/transport"
	"github.com/aiperf-go/aiperf/internal/worker"
)

// WorkerCommand is the hidden subcommand a load-worker process runs
// (`aiperf cluster-worker --controller HOST:PORT --name NAME`).
const WorkerCommand = "cluster-worker"

// ClusterReportFile is the artifact that describes the load workers of a
// run over --workers: who they were, their measured clock offsets, what
// each sent, and which were lost.
const ClusterReportFile = "cluster.json"

// Load workers are given this long to connect and build their part of the
// run, and this long to hang up at the end before they are killed.
const (
	workerStartTimeout       = 2 * time.Minute
	remoteWorkerStartTimeout = 10 * time.Minute
	workerStopGrace          = 10 * time.Second
)

// clusterSetup is what the controller sends every load worker: the run's
// configuration and everything built from it that must be identical on
// every worker (the dataset and its request bodies, the seed). Pick
// happens on the controller, so a credit names a conversation by index.
type clusterSetup struct {
	Config            *config.Config
	Seed              uint64
	Dataset           *dataset.Dataset
	Payloads          [][][]byte
	MultiTurn         bool
	KeepRequestHeader bool
}

// clusterRun is the controller of a run over load workers.
type clusterRun struct {
	plan   *Plan
	ctl    *cluster.Controller
	log    *slog.Logger
	served chan error
	procs  []*exec.Cmd
	exited []chan struct{}
}

// startCluster serves the protocol on a loopback port, starts the local
// load workers and waits until every one is ready; nil when the run has no
// load workers (--workers unset), whose close does nothing.
func startCluster(ctx context.Context, plan *Plan, clk *clock.Clock, version string, log *slog.Logger) (*clusterRun, error) {
	n := plan.Config.Cluster.Workers
	if n <= 0 {
		return nil, nil
	}
	var blob bytes.Buffer
	if err := gob.NewEncoder(&blob).Encode(&clusterSetup{
		Config: plan.Config, Seed: plan.Seed, Dataset: plan.Dataset, Payloads: plan.Payloads,
		MultiTurn: plan.Sessions.MultiTurn, KeepRequestHeader: plan.Paths.WritesRaw(),
	}); err != nil {
		return nil, fmt.Errorf("--workers: encoding the run for the load workers: %w", err)
	}
	listen, local := plan.Config.Cluster.WorkerListen, plan.Config.Cluster.WorkerListen == ""
	if local {
		listen = "127.0.0.1:0"
	}
	l, err := net.Listen("tcp", listen)
	if err != nil {
		return nil, fmt.Errorf("--worker-listen: %w", err)
	}
	c := &clusterRun{
		plan: plan, log: log, served: make(chan error, 1),
		ctl: cluster.NewController(cluster.ControllerOptions{Clock: clk, Version: version, Log: log}),
	}
	go func() { c.served <- c.ctl.Serve(l) }()
	c.ctl.SetSetup(blob.Bytes())
	timeout := workerStartTimeout
	if local {
		exe, err := os.Executable()
		if err == nil {
			err = c.spawn(exe, l.Addr().String(), n)
		}
		if err != nil {
			c.close()
			return nil, fmt.Errorf("--workers: starting load workers: %w", err)
		}
	} else {
		// Remote workers (pods) may wait for an image pull or a node.
		timeout = remoteWorkerStartTimeout
		log.Info("waiting for load workers", "workers", n, "listen", l.Addr().String())
	}
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := c.ctl.WaitReady(wctx, n); err != nil {
		c.close()
		return nil, &config.ExitError{Code: config.ExitFailure, Err: fmt.Errorf("--workers: %w", err)}
	}
	log.Info("load workers ready", "workers", n, "controller", l.Addr().String())
	return c, nil
}

// spawn starts n worker processes of exe; each one's output goes to
// workers/<name>.log in the artifact directory.
func (c *clusterRun) spawn(exe, addr string, n int) error {
	dir := filepath.Join(c.plan.Paths.Dir, "workers")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for i := range n {
		name := fmt.Sprintf("local-%d", i)
		out, err := os.Create(filepath.Join(dir, name+".log"))
		if err != nil {
			return err
		}
		cmd := exec.Command(exe, WorkerCommand, "--controller", addr, "--name", name)
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			out.Close()
			return err
		}
		exited := make(chan struct{})
		go func() {
			_ = cmd.Wait() // a worker's exit is seen on its stream; its log says why
			out.Close()
			close(exited)
		}()
		c.procs, c.exited = append(c.procs, cmd), append(c.exited, exited)
	}
	return nil
}

// close shuts the workers down (they exit on the controller's shutdown),
// kills those still running after workerStopGrace, and stops the server.
func (c *clusterRun) close() {
	if c == nil {
		return
	}
	c.ctl.Close(workerStopGrace)
	deadline := time.After(workerStopGrace)
	for i, exited := range c.exited {
		select {
		case <-exited:
		case <-deadline:
			_ = c.procs[i].Process.Kill()
			<-exited
		}
	}
	if err := <-c.served; err != nil {
		c.log.Warn("load-worker controller", "error", err)
	}
}

// writeReport writes cluster.json.
func (c *clusterRun) writeReport() error {
	b, err := json.MarshalIndent(struct {
		Workers []cluster.WorkerInfo `json:"workers"`
	}{c.ctl.Workers()}, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(c.plan.Paths.Dir, ClusterReportFile), append(b, '\n'), 0o644)
}

// startPhase starts a phase on the workers with the options a local pool
// would get (wo): the schedule, the picks, the budget and the records stay
// on this process.
func (c *clusterRun) startPhase(ctx context.Context, spec *PhaseSpec, wo worker.Options, gate *timing.Gate, noWorkers func(error)) (phasePool, error) {
	ds := c.plan.Dataset
	o := cluster.PhaseOptions{
		Phase: spec.Phase, Name: wo.PhaseName, Index: wo.PhaseIndex, ProfilingIndex: wo.ProfilingIndex, Named: spec.Named,
		Fixed: wo.FixedSchedule, Pick: wo.Pick, Budget: wo.Budget, Out: wo.Out, Done: wo.Done, OnSend: wo.OnSend,
		Turns:     func(conv int) int { return len(ds.Conversations[conv].Turns) },
		NoWorkers: noWorkers,
		Describe: func(rec *record.Record, conv int) {
			cv := &ds.Conversations[conv]
			rec.ConversationID = cv.ID
			rec.URLIndex = int(rec.Seq % uint64(len(c.plan.URLs)))
			if rec.TurnIndex < len(cv.Turns) {
				t := &cv.Turns[rec.TurnIndex]
				rec.Model, rec.InputTexts, rec.InputTokens, rec.RequestedOSL = t.Model, t.Texts, t.InputTokens, t.MaxTokens
			}
		},
	}
	if gate != nil {
		o.Prefill = gate.Limit()
	}
	return c.ctl.StartPhase(ctx, o)
}

// RunWorker runs this process as a load worker of the controller at addr
// until the controller shuts the run down.
func RunWorker(ctx context.Context, addr, name, version string, log *slog.Logger) error {
	return RunWorkerRuns(ctx, addr, name, version, log, 0)
}

// RunWorkerRuns is RunWorker for the runs of an experiment (a sweep or
// repeated runs, each a run of the controller with its own workers):
// after each run the worker waits up to nextRun for the controller's next
// one and joins it; when none comes it returns nil. nextRun 0 is one run.
func RunWorkerRuns(ctx context.Context, addr, name, version string, log *slog.Logger, nextRun time.Duration) error {
	log.Info("load worker starting", "pid", os.Getpid(), "controller", addr, "name", name)
	for run := 1; ; run++ {
		o := cluster.AgentOptions{
			Controller: addr, Name: name, Version: version, Log: log,
			Build: func(blob []byte) (cluster.Runner, error) {
				w, err := newWorkerRunner(blob)
				if err == nil {
					// A worker holds its share of the streams: its open-file
					// limit and GC target are set for that share.
					connBudget(w.plan).RaiseFileLimit(true, log)
					connBudget(w.plan).TuneGC(log)
				}
				return w, err
			},
		}
		if run > 1 {
			o.ConnectTimeout = nextRun
		}
		err := cluster.RunAgent(ctx, o)
		switch {
		case run > 1 && errors.Is(err, cluster.ErrNoController):
			log.Info("no further run of the controller; done", "runs", run-1, "waited", nextRun)
			return nil
		case err != nil || nextRun <= 0 || ctx.Err() != nil:
			return err
		}
		log.Info("run done; waiting for the controller's next run", "run", run, "for", nextRun)
	}
}

// workerRunner is a load worker's part of the run: the plan rebuilt from
// the controller's setup, and one HTTP client for every phase.
type workerRunner struct {
	plan   *Plan
	client *transport.Client
	keep   bool
}

func newWorkerRunner(blob []byte) (*workerRunner, error) {
	var s clusterSetup
	if err := gob.NewDecoder(bytes.NewReader(blob)).Decode(&s); err != nil {
		return nil, fmt.Errorf("decoding the controller's setup: %w", err)
	}
	if s.Config == nil || s.Dataset == nil {
		return nil, errors.New("the controller's setup has no configuration or dataset")
	}
	p := &Plan{Config: s.Config, Models: s.Config.Endpoint.ModelNames, Seed: s.Seed, Dataset: s.Dataset, Payloads: s.Payloads}
	p.Sessions.MultiTurn = s.MultiTurn
	if problems := p.resolveEndpoint(builtin.New()); len(problems) > 0 {
		return nil, errors.Join(problems...)
	}
	p.shapeRequests()
	p.Profiling = profilingSpec(s.Config)
	client, err := newTransportClient(p)
	if err != nil {
		return nil, err
	}
	return &workerRunner{plan: p, client: client, keep: s.KeepRequestHeader}, nil
}

// NewPool builds one phase's pool with what the controller's phase runner
// would give a local one; the hooks carry its records back.
func (w *workerRunner) NewPool(ctx context.Context, ph cluster.PhaseInfo, h cluster.Hooks) (*worker.Pool, error) {
	wo := w.plan.poolOptions(w.client, h.Clock, w.keep)
	wo.Emit, wo.OnSend, wo.Done, wo.FixedSchedule = h.Emit, h.OnSend, h.Done, ph.Fixed
	if h.Prefill != nil {
		wo.Prefill, wo.Parser = h.Prefill, w.plan.Endpoint
	}
	if ph.Named {
		wo.PhaseName, wo.PhaseIndex, wo.ProfilingIndex = ph.Name, ph.Index, max(0, ph.ProfilingIndex)
	}
	return worker.NewPool(ctx, wo)
}
