package transport

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if a test leaves goroutines behind: a leaked
// connection reader or SSE loop would grow with every request of a run.
// Tests that compare the engines choose net/http through Options.NetHTTP.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
