package record

import (
	"testing"
	"time"
)

func TestPhaseString(t *testing.T) {
	t.Parallel()
	if Profiling.String() != "profiling" || Warmup.String() != "warmup" {
		t.Errorf("phase names = %q, %q; want AIPerf's profiling, warmup", Profiling, Warmup)
	}
}

func TestCancelledError(t *testing.T) {
	t.Parallel()
	e := CancelledError(1234 * time.Millisecond)
	want := ErrorDetails{Code: 499, Type: "RequestCancellationError", Message: "Request was cancelled after 1.234 seconds"}
	if *e != want {
		t.Errorf("CancelledError = %+v; want %+v", *e, want)
	}
}

func TestRecordDerivedTimes(t *testing.T) {
	t.Parallel()
	r := Record{Due: 10 * time.Millisecond, Sent: 12 * time.Millisecond, End: 40 * time.Millisecond}
	if r.Lag() != 2*time.Millisecond || r.Latency() != 28*time.Millisecond || r.Failed() {
		t.Errorf("Lag %v, Latency %v, Failed %v; want 2ms, 28ms, false", r.Lag(), r.Latency(), r.Failed())
	}
	p := Parsed{}
	if p.HasContent() {
		t.Error("empty chunk has content")
	}
	p.Reasoning = "x"
	if !p.HasContent() {
		t.Error("reasoning-only chunk is a content response")
	}
}

func TestUUIDv4(t *testing.T) {
	t.Parallel()
	var b [16]byte
	for i := range b {
		b[i] = 0xff
	}
	if got, want := UUIDv4(b), "ffffffff-ffff-4fff-bfff-ffffffffffff"; got != want {
		t.Errorf("UUIDv4(all ones) = %s; want %s", got, want)
	}
	if got, want := UUIDv4([16]byte{}), "00000000-0000-4000-8000-000000000000"; got != want {
		t.Errorf("UUIDv4(zeros) = %s; want %s", got, want)
	}
}
