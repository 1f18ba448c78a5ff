package main

import (
	"slices"
	"testing"
	"time"
)

func TestWakeLatesSortedAndNonNegative(t *testing.T) {
	lates := wakeLates(5, 4*time.Millisecond)
	if len(lates) != 5 || !slices.IsSorted(lates) || lates[0] < 0 {
		t.Fatalf("wakeLates = %v; want 5 sorted, non-negative values", lates)
	}
}
