package config

import "fmt"

// Process exit codes of `aiperf`. They live here, not in the CLI, so that
// the benchmark can choose one (through ExitError) without importing the
// CLI.
const (
	// ExitOK: the run finished and at least one request succeeded.
	ExitOK = 0
	// ExitFailure: the run failed (every request failed, or the run could
	// not start or finish).
	ExitFailure = 1
	// ExitUsage: invalid command line or configuration; nothing ran.
	ExitUsage = 2
	// ExitFailedRequestThreshold: the run was aborted because the failed
	// fraction of its requests exceeded --failed-request-threshold; the
	// artifacts cover the requests finished before the abort. It differs
	// from ExitFailure so that CI can tell "the server failed the gate"
	// from "the benchmark could not run".
	ExitFailedRequestThreshold = 3
	// ExitInvalidRun: --fail-on-invalid was given and the run's validity
	// verdict is INVALID (the client did not offer the load it reports,
	// or distorted it); the artifacts are complete. Distinct from
	// ExitFailedRequestThreshold so that CI can tell "the client failed
	// the run" from "the server failed the gate".
	ExitInvalidRun = 4
	// ExitInterrupted: stopped by SIGINT/SIGTERM (128 + SIGINT).
	ExitInterrupted = 130
)

// ExitError is an error that carries the process exit code it should
// produce. Return it (possibly wrapped) from a run to pick the code; any
// other error exits with ExitFailure.
type ExitError struct {
	Code int
	Err  error
}

// Error returns the wrapped error's message, or a generic one.
func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

// Unwrap returns the wrapped error.
func (e *ExitError) Unwrap() error { return e.Err }
