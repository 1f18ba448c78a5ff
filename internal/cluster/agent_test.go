package cluster

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"
)

// TestRunAgentReportsNoController: with nothing listening, RunAgent gives
// up after ConnectTimeout with ErrNoController (how an experiment's
// worker tells that the controller has no next run).
func TestRunAgentReportsNoController(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	err = RunAgent(context.Background(), AgentOptions{Controller: addr, Name: "w", ConnectTimeout: 200 * time.Millisecond,
		Build: func([]byte) (Runner, error) { return nil, errors.New("unused") }})
	if !errors.Is(err, ErrNoController) {
		t.Fatalf("RunAgent with no controller: %v; want ErrNoController", err)
	}
}
