package config

import (
	"math"
	"time"
)

// Visuals are the options of what a run draws after it ends: time slices
// (--slice-duration) and the automatic `aiperf plot` (--auto-plot,
// --plot-required, the config file's plot: envelope). They are AIPerf's
// artifacts.slice_duration, auto_plot and plot_required.
type Visuals struct {
	// SliceDurationSeconds splits the profiling phase into fixed-width
	// slices with their own metrics; nil = no slices.
	SliceDurationSeconds *float64 `json:"slice_duration,omitempty"`
	// AutoPlot runs `aiperf plot` on the artifact directory after the run;
	// nil = not given (on when Plot is set).
	AutoPlot *bool `json:"auto_plot,omitempty"`
	// PlotRequired makes a failed auto-plot fail the run.
	PlotRequired bool `json:"plot_required,omitempty"`
	// Plot is the plot configuration of the config file's plot: envelope,
	// as YAML text (an inline mapping, or the file a path pointed to); ""
	// = none. internal/report parses it.
	Plot string `json:"plot,omitempty"`
	// PlotSource names where Plot came from ("run.yaml:12" or a file
	// path), for error messages.
	PlotSource string `json:"-"`
}

// SliceDuration returns the time-slice width and whether slices were
// asked for.
func (c *Config) SliceDuration() (time.Duration, bool) {
	s := c.Visuals.SliceDurationSeconds
	if s == nil || !(*s > 0) || math.IsInf(*s, 0) {
		return 0, false
	}
	return time.Duration(*s * float64(time.Second)), true
}

// AutoPlot reports whether plots are drawn after the run: as given, else
// on exactly when a plot: envelope is set (AIPerf's rule).
func (c *Config) AutoPlot() bool {
	if c.Visuals.AutoPlot != nil {
		return *c.Visuals.AutoPlot
	}
	return c.Visuals.Plot != ""
}

func (c *Config) validateVisuals(p *problems) {
	if s := c.Visuals.SliceDurationSeconds; s != nil {
		if !(*s > 0) || math.IsInf(*s, 0) {
			p.add("--slice-duration", "must be a positive number of seconds, got %v", *s)
		} else if *s < 0.001 {
			p.add("--slice-duration", "%v s is below the 1 ms resolution of the slices", *s)
		}
	}
}
