package export

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if a streaming writer's flusher goroutine
// outlives its Close.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
