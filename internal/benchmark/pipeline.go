package benchmark

import (
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aiperf-go/aiperf/internal/accuracy"
	"github.com/aiperf-go/aiperf/internal/clienthealth"
	"github.com/aiperf-go/aiperf/internal/clock"
	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/export"
	"github.com/aiperf-go/aiperf/internal/live"
	"github.com/aiperf-go/aiperf/internal/metrics"
	"github.com/aiperf-go/aiperf/internal/record"
	"github.com/aiperf-go/aiperf/internal/servertrace"
)

// pipeline carries finished records from the workers to the artifacts:
//
//	raw records -> Processor x N (parse, tokenize, record metrics)
//	            -> one consumer -> every sink in the list (sinks.go)
//
// Parsing and tokenizing happen off the worker goroutines so CPU work never
// delays a send; the consumer is the single writer of every sink, the
// accumulators included.
type pipeline struct {
	raw       chan *record.Record
	processed chan metrics.Processed
	sinks     []sink

	acc  *metrics.Accumulator
	warm *metrics.Accumulator // warmup records (warmup_metrics); nil without a warmup
	// phaseAccs are the per-phase accumulators by phase index (phases.go);
	// nil for a single-phase run.
	phaseAccs []*metrics.Accumulator
	// adaptive, while a phase runs an adaptive-scale controller, is fed
	// every finished profiling record.
	adaptive atomic.Pointer[adaptiveRun]
	counts   *[2]counters  // by record.Phase
	guard    *failureGuard // --failed-request-threshold; nil when not set
	// saturation is --over-saturation's detector; nil when off.
	saturation *saturationGuard
	sends      clienthealth.Sends // profiling sends, for client health
	sources    serverSources      // profiling records by their server timing's source
	live       *liveMeters        // the live view's meters
	slices     *timeslicer        // --slice-duration; nil when not set
	// accuracy is --accuracy-benchmark's tally, set when its sink is
	// finished; nil when off.
	accuracy *accuracy.Summary
	secrets  [][]byte // the run's credentials, scrubbed from what the server sent
	log      *slog.Logger
	clk      *clock.Clock

	procWG     sync.WaitGroup
	consumerWG sync.WaitGroup
	writeErr   error // first error of a sink while fed; owned by the consumer until it exits
}

// counters are one phase's live numbers for the progress view. The
// consumer is the only writer of everything but sent and firstSent
// (written by the workers, just before each send).
type counters struct {
	sent, done, errors, late atomic.Int64
	maxLag                   atomic.Int64 // ns
	// cancelled counts the done records the client cancelled (also in
	// errors); sessions are AIPerf's user sessions (conversations), see
	// sessionCounts.
	cancelled atomic.Int64
	sessions  sessionCounts
	// The phase's end, as AIPerf's phase stats flag it: its duration ran
	// out, its grace period ran out with requests in flight, an interrupt
	// stopped it. Reset when a phase of this kind starts.
	timedOut, graceTimedOut, interrupted atomic.Bool
	// firstSent is the earliest Sent of the phase's records so far plus
	// 1 ns; 0 until a request is sent.
	firstSent atomic.Int64
}

// noteSend counts one request as its Sent is stamped and keeps the
// earliest Sent in firstSent: one atomic load per send once the first
// sends are in. Concurrent first sends may store out of order, so it
// lowers the value to the earliest rather than keeping the first store.
func (c *counters) noteSend(sent time.Duration) {
	c.sent.Add(1)
	v := int64(sent) + 1
	for {
		cur := c.firstSent.Load()
		if cur != 0 && cur <= v {
			return
		}
		if c.firstSent.CompareAndSwap(cur, v) {
			return
		}
	}
}

// startPipeline opens the per-request files, builds the sinks and starts
// the processors and the consumer. Close raw (after the last worker is
// done) and call wait to drain it, then close to finish the sinks.
//
// With a trace receiver (recv, nil without --otlp-traces-receiver) the raw
// records pass through its join before the processors, so each carries
// its server span when one arrives in time.
func startPipeline(p *Plan, clk *clock.Clock, log *slog.Logger, guard *failureGuard, sat *saturationGuard, observers []live.RecordObserver, recv *servertrace.Receiver) (*pipeline, error) {
	pl := &pipeline{
		raw:        make(chan *record.Record, 4096),
		processed:  make(chan metrics.Processed, 4096),
		acc:        metrics.NewAccumulator(p.Registry, p.Metrics, p.SLOs),
		counts:     new([2]counters),
		log:        log,
		guard:      guard,
		saturation: sat,
		secrets:    secretsOf(p.Config),
		live:       newLiveMeters(p.Registry),
		clk:        clk,
	}
	lineOpts := export.LineOptions{Clock: clk, WarmupFirst: p.Warmup != nil && len(p.Phases) == 2, SensitiveHeader: config.IsSensitiveHeader, Scrub: scrubber(p.Config)}
	files, err := pl.openRecordFiles(p, lineOpts)
	if err != nil {
		return nil, err
	}
	pl.acc.SetListSketch(envListSketch(p.Env, log))
	pl.slices = newTimeslicer(p, &pl.counts[record.Profiling], pl.acc)
	if sat != nil {
		sat.counts = &pl.counts[record.Profiling]
	}
	if p.Warmup != nil {
		pl.warm = metrics.NewAccumulator(p.Registry, p.Metrics, p.SLOs)
		pl.warm.SetPhase(record.Warmup)
	}
	pl.phaseAccs = phaseAccumulators(p, pl.acc, pl.warm)
	procs, err := newProcessors(p, clk, log)
	if err != nil {
		return nil, err
	}
	pl.sinks = pl.runSinks(files, observers)
	var in <-chan *record.Record = pl.raw
	if recv != nil {
		joined := make(chan *record.Record, cap(pl.raw))
		go recv.Join(pl.raw, joined, servertrace.DefaultWait)
		in = joined
	}
	for _, proc := range procs {
		pl.procWG.Add(1)
		go func() {
			defer pl.procWG.Done()
			for rec := range in {
				pl.processed <- proc.Process(rec)
			}
		}()
	}
	pl.consumerWG.Add(1)
	go pl.consume()
	return pl, nil
}

// newProcessors builds the record processors: one per CPU, or
// --record-processor-service-count.
func newProcessors(p *Plan, clk *clock.Clock, log *slog.Logger) ([]*metrics.Processor, error) {
	n := max(1, runtime.GOMAXPROCS(0))
	if rp := p.Config.Compat.RecordProcessors; rp != nil {
		n = *rp
	}
	procs := make([]*metrics.Processor, n)
	for i := range procs {
		proc, err := newProcessor(p, clk, log, fmt.Sprintf("record_processor_%d", i))
		if err != nil {
			return nil, err
		}
		procs[i] = proc
	}
	return procs, nil
}

// newProcessor builds one record processor of the plan's metrics.
func newProcessor(p *Plan, clk *clock.Clock, log *slog.Logger, id string) (*metrics.Processor, error) {
	proc, err := metrics.NewProcessor(p.Registry, metrics.ProcessorOptions{
		ID:                  id,
		Parser:              p.Endpoint,
		Tokenizer:           p.recordTokenizer(),
		UseServerTokenCount: p.Config.Endpoint.UseServerTokenCount,
		StrictStreams:       p.Config.Reliability.StrictStreams,
		NonTextOutputTokens: p.Meta.ProducesTokens,
		Metrics:             p.Metrics,
		Clock:               clk,
		SLOs:                p.SLOs,
		Logger:              log,
		KeepText:            p.Config.Artifacts.ExportOutputsJSON || p.Config.AccuracyEnabled(),
		Misfit:              p.Misfit.Hint,
	})
	if err != nil {
		return nil, fmt.Errorf("record processor: %w", err)
	}
	return proc, nil
}

// consume folds every processed record into the sinks, and rolls the live
// meters every liveBucket.
func (pl *pipeline) consume() {
	defer pl.consumerWG.Done()
	tick := time.NewTicker(liveBucket)
	defer tick.Stop()
	for {
		select {
		case p, ok := <-pl.processed:
			if !ok {
				pl.live.roll(pl.clk.Now())
				return
			}
			pl.consumeOne(&p)
		case <-tick.C:
			pl.live.roll(pl.clk.Now())
		}
	}
}

// consumeOne scrubs one processed record of the run's secrets, before
// anything stores or prints it, and hands it to every sink that takes its
// phase.
func (pl *pipeline) consumeOne(p *metrics.Processed) {
	scrubRecord(p.Record, pl.secrets)
	for i := range pl.sinks {
		if s := &pl.sinks[i]; s.phases.takes(p.Record.Phase) {
			pl.noteWriteErr(s.consume(p))
		}
	}
	p.Release() // every sink copies what it keeps (sink.consume's contract)
}

func (pl *pipeline) noteWriteErr(err error) {
	if err != nil && pl.writeErr == nil {
		pl.writeErr = err
		pl.log.Error("writing per-request records failed; later records are still summarised", "error", err)
	}
}

// wait closes the processors' input and returns once every record has been
// consumed. Call it after the last worker has finished.
func (pl *pipeline) wait() {
	close(pl.raw)
	pl.procWG.Wait()
	close(pl.processed)
	pl.consumerWG.Wait()
	logSketched(pl.acc, pl.log)
}

// close finishes every sink, in list order, after wait, and returns the
// first error: of a finish, else of a sink while fed.
func (pl *pipeline) close() error {
	var first error
	for _, s := range pl.sinks {
		if s.finish == nil {
			continue
		}
		if err := s.finish(); err != nil && first == nil {
			first = err
		}
	}
	if first == nil {
		first = pl.writeErr
	}
	return first
}

// payloadLookup finds the request body a record sent, for the raw export.
func payloadLookup(p *Plan) func(*record.Record) []byte {
	if p.Dataset.Rows != nil {
		// Compact rows have no prebuilt bodies: each was built when sent.
		return func(r *record.Record) []byte { return r.RequestBody }
	}
	index := make(map[string]int, len(p.Dataset.Conversations))
	for i, c := range p.Dataset.Conversations {
		index[c.ID] = i
	}
	return func(r *record.Record) []byte {
		if r.RequestBody != nil { // built at run time, with history
			return r.RequestBody
		}
		c, ok := index[r.ConversationID]
		if !ok || r.TurnIndex >= len(p.Payloads[c]) {
			return nil
		}
		return p.Payloads[c][r.TurnIndex]
	}
}
