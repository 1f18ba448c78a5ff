package benchmark

import (
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aiperf-go/aiperf/internal/clock"
	"github.com/aiperf-go/aiperf/internal/export"
	"github.com/aiperf-go/aiperf/internal/live"
	"github.com/aiperf-go/aiperf/internal/metrics"
	"github.com/aiperf-go/aiperf/internal/record"
)

// pipeline carries finished records from the workers to the artifacts:
//
//	raw records -> Processor x N (parse, tokenize, record metrics)
//	            -> one consumer (Accumulator, JSONL stream, progress counters)
//
// Parsing and tokenizing happen off the worker goroutines so CPU work never
// delays a send; the consumer is the single writer of the accumulator.
type pipeline struct {
	raw       chan *record.Record
	processed chan metrics.Processed
	acc       *metrics.Accumulator
	warm      *metrics.Accumulator // warmup records (warmup_metrics); nil without a warmup
	// phaseAccs are the per-phase accumulators by phase index (phases.go);
	// nil for a single-phase run.
	phaseAccs []*metrics.Accumulator
	// adaptive, while a phase runs an adaptive-scale controller, is fed
	// every finished profiling record.
	adaptive atomic.Pointer[adaptiveRun]
	records  *export.RecordWriter  // nil when the export level writes no records
	rawOut   *export.RawWriter     // nil unless --export-level raw
	outputs  *export.OutputsWriter // nil unless --export-outputs-json
	payload  func(*record.Record) []byte
	log      *slog.Logger
	counts   *[2]counters  // by record.Phase
	guard    *failureGuard // --failed-request-threshold; nil when not set
	span     sendSpan      // profiling Due/Sent bounds, for client health
	retries  int           // profiling requests' ConnectionRetries, summed
	conns    connCounts    // profiling requests that opened a connection (fidelity.go)
	secrets  [][]byte      // the run's credentials, scrubbed from what the server sent
	live     *liveMeters   // the live view's meters; the consumer is their writer
	clk      *clock.Clock
	slices   *timeslicer           // --slice-duration; nil when not set
	recObs   []live.RecordObserver // IO.Records (integrations.go)
	accuracy *accuracyRun          // --accuracy-benchmark; nil when off (accuracy.go)

	procWG     sync.WaitGroup
	consumerWG sync.WaitGroup
	writeErr   error // first export write error; owned by the consumer until it exits
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
	// firstSent is the run offset of the phase's first send plus 1 ns; 0
	// until a request is sent. Every record's Sent is at or after it.
	firstSent atomic.Int64
}

// noteSend counts one request about to be sent. The first stamps
// firstSent: one atomic load per send after that.
func (c *counters) noteSend(clk *clock.Clock) {
	c.sent.Add(1)
	if c.firstSent.Load() == 0 {
		c.firstSent.CompareAndSwap(0, int64(clk.Now())+1)
	}
}

// startPipeline starts the processors and the consumer. Close raw (after
// the last worker is done) and call wait to drain it.
func startPipeline(p *Plan, clk *clock.Clock, records *export.RecordWriter, rawOut *export.RawWriter, log *slog.Logger, counts *[2]counters, guard *failureGuard) (*pipeline, error) {
	n := max(1, runtime.GOMAXPROCS(0))
	if rp := p.Config.Compat.RecordProcessors; rp != nil { // --record-processor-service-count
		n = *rp
	}
	pl := &pipeline{
		raw:       make(chan *record.Record, 4096),
		processed: make(chan metrics.Processed, 4096),
		acc:       metrics.NewAccumulator(p.Registry, p.Metrics, p.SLOs),
		records:   records,
		rawOut:    rawOut,
		payload:   payloadLookup(p),
		log:       log,
		counts:    counts,
		guard:     guard,
		secrets:   secretsOf(p.Config),
		live:      newLiveMeters(p.Registry),
		clk:       clk,
	}
	pl.acc.SetListSketch(envListSketch(log))
	pl.slices = newTimeslicer(p, &counts[record.Profiling], pl.acc)
	if p.Warmup != nil {
		pl.warm = metrics.NewAccumulator(p.Registry, p.Metrics, p.SLOs)
		pl.warm.SetPhase(record.Warmup)
	}
	pl.phaseAccs = phaseAccumulators(p, pl.acc, pl.warm)
	procs := make([]*metrics.Processor, n)
	for i := range procs {
		proc, err := metrics.NewProcessor(p.Registry, metrics.ProcessorOptions{
			ID:                  fmt.Sprintf("record_processor_%d", i),
			Parser:              p.Endpoint,
			Tokenizer:           p.recordTokenizer(), // issue 13
			UseServerTokenCount: p.Config.Endpoint.UseServerTokenCount,
			StrictStreams:       p.Config.Reliability.StrictStreams,
			NonTextOutputTokens: p.Meta.ProducesTokens, // issue 13
			Metrics:             p.Metrics,
			Clock:               clk,
			SLOs:                p.SLOs,
			Logger:              log,
			KeepText:            p.Config.Artifacts.ExportOutputsJSON || p.Config.AccuracyEnabled(),
		})
		if err != nil {
			return nil, fmt.Errorf("record processor: %w", err)
		}
		procs[i] = proc
	}
	for _, proc := range procs {
		pl.procWG.Add(1)
		go func() {
			defer pl.procWG.Done()
			for rec := range pl.raw {
				pl.processed <- proc.Process(rec)
			}
		}()
	}
	pl.consumerWG.Add(1)
	go pl.consume()
	return pl, nil
}

// consume folds every processed record into the results and streams it to
// disk, and rolls the live meters every liveBucket. Warmup records only
// move the progress counters and the live view.
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

// consumeOne folds one processed record.
func (pl *pipeline) consumeOne(p *metrics.Processed) {
	rec := p.Record
	scrubRecord(rec, pl.secrets) // before anything stores or prints it
	c := &pl.counts[rec.Phase]
	if rec.Cancelled { // before done and errors: see publisher.progress
		c.cancelled.Add(1)
	}
	c.done.Add(1)
	if rec.Error != nil {
		c.errors.Add(1)
	}
	if lag := rec.Lag(); lag > metrics.LateThreshold {
		c.late.Add(1)
	}
	if lag := int64(rec.Lag()); lag > c.maxLag.Load() {
		c.maxLag.Store(lag)
	}
	pl.live.observe(p)
	pl.addToPhase(p)
	if rec.Phase == record.Profiling {
		pl.guard.observeRecord(rec) // first: it may stop the run
		if a := pl.adaptive.Load(); a != nil {
			a.observe(p)
		}
		pl.span.observe(rec)
		pl.retries += rec.ConnectionRetries
		pl.conns.observe(rec)
		pl.acc.Add(p)
		pl.slices.add(p)
		pl.accuracy.grade(p)
	} else if pl.warm != nil {
		pl.warm.Add(p)
	}
	// The per-request files carry warmup records too, marked by their
	// benchmark_phase, as AIPerf 0.13 writes them; outputs.json takes
	// profiling records only.
	if pl.records != nil {
		pl.noteWriteErr(pl.records.Write(p))
	}
	if pl.rawOut != nil {
		pl.noteWriteErr(pl.rawOut.Write(p, scrubbed(pl.payload(rec), pl.secrets)))
	}
	if pl.outputs != nil {
		pl.noteWriteErr(pl.outputs.Write(p))
	}
	pl.observeRecord(p)
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

// payloadLookup finds the request body a record sent, for the raw export.
func payloadLookup(p *Plan) func(*record.Record) []byte {
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
