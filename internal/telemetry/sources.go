package telemetry

import (
	"context"
	"sync"
	"time"
)

// Reachable asks every source at once whether it answers (each call gets
// ctx) and returns the answers in the sources' order.
func Reachable[S any](ctx context.Context, sources []S, answers func(context.Context, S) bool) []bool {
	reach := make([]bool, len(sources))
	var wg sync.WaitGroup
	for i, s := range sources {
		wg.Go(func() { reach[i] = answers(ctx, s) })
	}
	wg.Wait()
	return reach
}

// Sources reads a collector's sources: all of them at once on demand (the
// baseline, the end of warmup, the final reading) and each on its own Poll
// loop in the background between Start and Stop. Read must be safe for
// concurrent use across sources; one source is never read twice at once
// by the background loops.
type Sources[S any] struct {
	List []S
	Read func(context.Context, S)

	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// ReadAll reads every source now, concurrently, and returns when all have
// answered.
func (p *Sources[S]) ReadAll(ctx context.Context) {
	var wg sync.WaitGroup
	for _, s := range p.List {
		wg.Go(func() { p.Read(ctx, s) })
	}
	wg.Wait()
}

// Start polls every source every interval in the background until Stop;
// ctx's values reach the reads, its cancellation does not.
func (p *Sources[S]) Start(ctx context.Context, interval time.Duration) {
	pctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	p.cancel = cancel
	for _, s := range p.List {
		p.wg.Go(func() { Poll(pctx, interval, func(ctx context.Context) { p.Read(ctx, s) }) })
	}
}

// Stop ends the background polling and waits for reads in flight.
func (p *Sources[S]) Stop() {
	if p.cancel != nil {
		p.cancel()
	}
	p.wg.Wait()
}
