package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestWakeLatesSortedAndNonNegative(t *testing.T) {
	lates := wakeLates(5, 4*time.Millisecond)
	if len(lates) != 5 || !slices.IsSorted(lates) || lates[0] < 0 {
		t.Fatalf("wakeLates = %v; want 5 sorted, non-negative values", lates)
	}
}

func TestSleeperLatesNeverEarly(t *testing.T) {
	for _, name := range []string{"wake", "precise", "coarse", "raw"} {
		var out strings.Builder
		if err := wakeFloorMain([]string{"-sleeper", name, "-n", "20", "-gap", "200us"}, &out); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var q [4]float64
		var cpu float64
		if _, err := fmt.Sscan(out.String(), &q[0], &q[1], &q[2], &q[3], &cpu); err != nil {
			t.Fatalf("%s: output %q: %v", name, out.String(), err)
		}
		if cpu < 0 {
			t.Errorf("%s: CPU per wake-up %v < 0", name, cpu)
		}
		if q[0] < 0 || !slices.IsSorted(q[:]) {
			t.Errorf("%s: p50 p90 p99 max = %v; want sorted, non-negative (never early)", name, q)
		}
	}
	if err := wakeFloorMain([]string{"-sleeper", "nap"}, io.Discard); err == nil {
		t.Error("an unknown -sleeper was accepted")
	}
}
