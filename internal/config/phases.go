package config

import (
	"fmt"
	"regexp"
	"strings"
)

// NamedPhase is one phase of a multi-phase run (a config file's phases:
// list with several profiling phases, or phases named other than their
// kind; AIPerf 0.12+). Phases run in order, each with its own load and
// stop conditions; profiling-kind phases are summarised together at the
// top level and each on its own under phases/<name>/ (phase_manifest.json).
type NamedPhase struct {
	// Name is the phase's identifier (letters, digits, _ and -, starting
	// with a letter or _), unique regardless of case.
	Name string `json:"name"`
	// Kind is warmup (excluded from the results) or profiling.
	Kind string `json:"kind"`
	// Phase holds the phase's load, stop and load-shape settings, in the
	// fields a single-phase run keeps them in (Load, Warmup-free, Shape,
	// Conversation.NumSessions); its other fields are unused. It is not
	// serialised: the config file holds it.
	Phase *Config `json:"-"`
}

// phaseName is AIPerf's phase name pattern.
var phaseName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)

// windowsReserved are names a phase directory cannot have on Windows.
var windowsReserved = map[string]bool{"CON": true, "PRN": true, "AUX": true, "NUL": true}

// validatePhases checks a multi-phase run: names, kinds, at least one
// profiling phase, and each phase's own load rules and stop condition.
// Problems are reported under "phases.<name>".
func (c *Config) validatePhases(p *problems) {
	phases := c.Shape.Phases
	if len(phases) == 0 {
		return
	}
	seen := map[string]bool{}
	profiling := 0
	for i, ph := range phases {
		key := fmt.Sprintf("phases.%d", i)
		if ph.Name != "" {
			key = "phases." + ph.Name
		}
		up := strings.ToUpper(ph.Name)
		switch {
		case !phaseName.MatchString(ph.Name):
			p.add(key, "phase name %q must start with a letter or _ and hold only letters, digits, _ and -", ph.Name)
		case windowsReserved[up] || (len(up) == 4 && (strings.HasPrefix(up, "COM") || strings.HasPrefix(up, "LPT")) && up[3] >= '1' && up[3] <= '9'):
			p.add(key, "phase name %q is reserved on Windows", ph.Name)
		case seen[strings.ToLower(ph.Name)]:
			p.add(key, "phase name %q is used twice (names are compared without case)", ph.Name)
		}
		seen[strings.ToLower(ph.Name)] = true
		switch ph.Kind {
		case "profiling":
			profiling++
		case "warmup":
		default:
			p.add(key, "kind must be warmup or profiling, not %q", ph.Kind)
		}
		if ph.Phase == nil {
			p.add(key, "has no settings")
			continue
		}
		pc := *ph.Phase
		// The run-wide sections a phase's rules read: the endpoint and the
		// dataset's conversations (a phase keeps its own session count).
		pc.Endpoint.Streaming = c.Endpoint.Streaming
		pc.Dataset = c.Dataset
		sessions := pc.Conversation.NumSessions
		pc.Conversation = c.Conversation
		pc.Conversation.NumSessions = sessions
		pc.Shape.Phases = nil
		var sub problems
		pc.validateLoad(&sub)
		pc.validateShape(&sub)
		l := &pc.Load
		if l.RequestCount == nil && l.BenchmarkDuration == nil && pc.Conversation.NumSessions == nil && !pc.Replay.FixedSchedule {
			sub.add("requests", "at least one of requests, duration or sessions must be set")
		}
		if pc.Shape.Adaptive != nil {
			sub.add("adaptive_scale", "is not supported in a multi-phase run yet")
		}
		for _, e := range sub {
			fe := e.(*FieldError)
			p.add(key, "%s: %s", strings.TrimPrefix(fe.Flag, "--"), fe.Problem)
		}
	}
	if profiling == 0 {
		p.add("phases", "needs at least one profiling phase")
	}
}
