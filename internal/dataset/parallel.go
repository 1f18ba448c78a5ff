package dataset

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// forEachParallel calls f(0) ... f(n-1) from up to GOMAXPROCS goroutines
// and returns when all calls have returned.
func ForEachParallel(n int, f func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(n, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				f(i)
			}
		})
	}
	wg.Wait()
}
