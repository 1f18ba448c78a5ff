package transport

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if a test leaves goroutines behind: a leaked
// connection reader or SSE loop would grow with every request of a run.
// AIPERF_HTTP_CLIENT=net/http runs every test against net/http's
// Transport instead of the lean one.
func TestMain(m *testing.M) {
	testNetHTTP = os.Getenv("AIPERF_HTTP_CLIENT") == "net/http"
	goleak.VerifyTestMain(m)
}
