package telemetry

import (
	"context"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

func TestReachableKeepsOrder(t *testing.T) {
	t.Parallel()
	got := Reachable(context.Background(), []int{1, 2, 3, 4}, func(_ context.Context, n int) bool { return n%2 == 0 })
	if want := []bool{false, true, false, true}; !slices.Equal(got, want) {
		t.Errorf("Reachable = %v; want %v", got, want)
	}
}

// TestSourcesReadAllThenPoll: ReadAll reads every source once; Start polls
// each on its grid until Stop, after which nothing more is read.
func TestSourcesReadAllThenPoll(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		reads := map[string]int{}
		s := Sources[string]{List: []string{"a", "b"}, Read: func(_ context.Context, src string) {
			mu.Lock()
			reads[src]++
			mu.Unlock()
		}}
		s.ReadAll(context.Background())
		if reads["a"] != 1 || reads["b"] != 1 {
			t.Fatalf("after ReadAll: %v; want one read each", reads)
		}
		s.Start(context.Background(), time.Second)
		time.Sleep(3*time.Second + time.Millisecond) // fake time: three ticks
		synctest.Wait()
		s.Stop()
		mu.Lock()
		defer mu.Unlock()
		if reads["a"] != 4 || reads["b"] != 4 {
			t.Errorf("after three intervals: %v; want four reads each", reads)
		}
	})
}
