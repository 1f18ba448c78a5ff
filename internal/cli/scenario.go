package cli

import (
	"fmt"

	"github.com/aiperf-go/aiperf/internal/config"
)

// applyScenario applies --scenario's locks to the configuration (see
// config.ApplyScenario) and prints the violations --unsafe-override turned
// into warnings. A scenario is one locked run, so it cannot be combined
// with a sweep (AIPerf rejects that too).
func (p *profileCommand) applyScenario() []error {
	if p.cfg.Compat.Scenario == "" {
		return nil
	}
	if len(p.cf.vars) > 1 {
		return []error{&config.FieldError{Flag: "--scenario", Problem: fmt.Sprintf(
			"cannot be combined with a sweep (%d variations): a scenario locks one run's invariants", len(p.cf.vars))}}
	}
	out, err := p.cfg.ApplyScenario()
	if err != nil {
		return []error{&config.FieldError{Flag: "--scenario", Problem: err.Error(), Err: err}}
	}
	for _, v := range out.Violations {
		fmt.Fprintf(p.env.Stderr, "Warning: scenario violation (override active, submission_valid=false): %s\n", v)
	}
	// The scenario may have switched the profiling phase to agentic
	// replay: its own rules apply now.
	return unjoin(p.cfg.ValidateAgenticReplay())
}
