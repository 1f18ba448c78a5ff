package report

import (
	"cmp"
	"fmt"
	"github.com/aiperf-go/aiperf/internal/metrics/stats"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// point is one run's position on a multi-run plot.
type point struct {
	run   *Run
	x, y  float64
	label string
}

// groupedPoints places every run that has both metrics, grouped by the
// spec's groups column (one group when none; experiment_type when a
// classification is configured, as AIPerf), groups in name order. Runs
// lacking a metric are listed in the returned note.
func groupedPoints(s Spec, runs []*Run, classified bool) (names []string, groups [][]point, notes []string) {
	groupBy := groupColumn(s, runs)
	if classified {
		groupBy = "experiment_type"
	}
	byName := map[string][]point{}
	var missing []string
	for _, r := range runs {
		x, okx := r.Value(s.X.Metric, s.X.Stat)
		y, oky := r.Value(s.Y.Metric, s.Y.Stat)
		if !okx || !oky || !stats.Finite(x) || !stats.Finite(y) {
			missing = append(missing, r.Label)
			continue
		}
		p := point{run: r, x: x, y: y, label: pointLabel(s, r)}
		g := ""
		if groupBy != "" {
			g = r.Field(groupBy)
		}
		byName[g] = append(byName[g], p)
	}
	names = sortedKeys(byName)
	slices.SortStableFunc(names, compareNatural)
	for _, n := range names {
		pts := byName[n]
		slices.SortStableFunc(pts, func(a, b point) int { return cmp.Compare(a.x, b.x) })
		groups = append(groups, pts)
	}
	if len(missing) > 0 {
		notes = append(notes, fmt.Sprintf("%d run(s) lack %s or %s and are not drawn: %s",
			len(missing), statName(s.X), statName(s.Y), strings.Join(missing, ", ")))
	}
	return names, groups, notes
}

// groupColumn is the column that splits the runs into series: the spec's
// groups column, except that when it does not split them (one model) and
// the runs sweep another parameter besides the labels column, that
// parameter does: a concurrency x ISL sweep draws one curve per ISL.
func groupColumn(s Spec, runs []*Run) string {
	groupBy := ""
	if len(s.Groups) > 0 {
		groupBy = s.Groups[0]
	}
	if distinct(runs, groupBy) > 1 {
		return groupBy
	}
	label := ""
	if len(s.Labels) > 0 {
		label = s.Labels[0]
	}
	var params []string
	for _, r := range runs {
		for k := range r.VariationValues {
			if k != label && !slices.Contains(params, k) {
				params = append(params, k)
			}
		}
	}
	slices.Sort(params)
	for _, p := range params {
		if distinct(runs, p) > 1 {
			return p
		}
	}
	return groupBy
}

// distinct counts the values of a column across runs ("" counts).
func distinct(runs []*Run, column string) int {
	if column == "" {
		return 1
	}
	seen := map[string]bool{}
	for _, r := range runs {
		seen[r.Field(column)] = true
	}
	return len(seen)
}

// compareNatural orders numbers numerically and before other names.
func compareNatural(a, b string) int {
	fa, ea := strconv.ParseFloat(a, 64)
	fb, eb := strconv.ParseFloat(b, 64)
	switch {
	case ea == nil && eb == nil:
		return cmp.Compare(fa, fb)
	case ea == nil:
		return -1
	case eb == nil:
		return 1
	}
	return cmp.Compare(a, b)
}

func statName(a Axis) string { return a.Metric + " " + cmp.Or(a.Stat, "avg") }

// pointLabel is the run's labels column ("c=8" style for concurrency), or
// its label.
func pointLabel(s Spec, r *Run) string {
	if len(s.Labels) > 0 {
		if v := r.Field(s.Labels[0]); v != "" {
			if s.Labels[0] == "concurrency" {
				return "c=" + v
			}
			return s.Labels[0] + "=" + v
		}
	}
	return r.Label
}

// groupTitle names a group's series.
func groupTitle(groupBy []string, name string, classified bool) string {
	switch {
	case name == "":
		return "runs"
	case classified:
		return name
	case len(groupBy) > 0:
		return groupBy[0] + " = " + name
	}
	return name
}

// multiChart builds a multi-run preset over runs.
func multiChart(name string, s Spec, runs []*Run, classified bool) (*Chart, error) {
	c := &Chart{Name: name, Type: s.Type, Title: cmp.Or(s.Title, titleCase(name)), Description: s.Description}
	c.XLabel = axisLabel(s.X.Metric, s.X.Stat, unitAcross(runs, s.X.Metric))
	c.YLabel = axisLabel(s.Y.Metric, s.Y.Stat, unitAcross(runs, s.Y.Metric))
	s = perGPUFallback(s, runs, c)
	names, groups, notes := groupedPoints(s, runs, classified)
	c.Notes = append(c.Notes, notes...)
	if len(groups) == 0 {
		return nil, fmt.Errorf("%w: no run has both %s and %s", ErrNoData, statName(s.X), statName(s.Y))
	}
	groupBy := []string{groupColumn(s, runs)}
	for gi, pts := range groups {
		title := groupTitle(groupBy, names[gi], classified)
		xs, ys, labels := make([]float64, len(pts)), make([]float64, len(pts)), make([]string, len(pts))
		for i, p := range pts {
			xs[i], ys[i], labels[i] = p.x, p.y, p.label
		}
		switch s.Type {
		case TypeScatterLine:
			// Joined in x order (groupedPoints sorts them): a line that
			// followed the configurations instead (concurrency 1, 2, 4)
			// zigzags wherever x does not grow with them, and reads as a
			// curve that doubles back. The labels name the configurations.
			c.Series = append(c.Series, Series{Name: title, Kind: Line, X: xs, Y: ys, Labels: labels, Group: gi})
		case TypePareto:
			c.Series = append(c.Series, Series{Name: title, Kind: Markers, X: xs, Y: ys, Labels: labels, Group: gi})
			front := paretoFront(xs, ys, largerIsBetter(s.X.Metric), largerIsBetter(s.Y.Metric))
			fx, fy := make([]float64, len(front)), make([]float64, len(front))
			for i, k := range front {
				fx[i], fy[i] = xs[k], ys[k]
			}
			c.Series = append(c.Series, Series{Name: title + " Pareto front", Kind: Line, X: fx, Y: fy, Group: gi})
		case TypeUncertainty:
			uncertaintySeries(c, s, title, gi, pts)
		default:
			return nil, fmt.Errorf("plot type %s is not a multi-run plot", s.Type)
		}
	}
	if s.XLabel != "" {
		c.XLabel = s.XLabel
	}
	if s.YLabel != "" {
		c.YLabel = s.YLabel
	}
	c.declutterLabels()
	return c, nil
}

// minRunsForEllipse is the number of runs a point needs for its
// confidence ellipse. The Student-t interval of n runs has n-1 degrees of
// freedom: its half-width is t times the standard error, and t at 95 % is
// 12.7 for 2 runs, 4.3 for 3 and 2.8 for 5 (1.96 for many), so ellipses
// from 2 or 3 runs dwarf the differences the chart compares. From 5 runs
// on the sample correlation is also worth its name and tilts the ellipse
// (below it that of 3 or 4 runs swings from -1 to 1 by chance).
const minRunsForEllipse = 5

// uncertaintySeries draws each point's joint confidence region: an
// ellipse whose semi-axes are the two confidence-interval half-widths,
// rotated by the correlation of the two metrics across the point's runs,
// with the mean as a marker. Points from fewer than minRunsForEllipse runs
// get the marker only, and the caption says so.
func uncertaintySeries(c *Chart, s Spec, title string, gi int, pts []point) {
	level := s.CILevel
	if level == 0 {
		level = 0.95
	}
	xs, ys, labels := make([]float64, len(pts)), make([]float64, len(pts)), make([]string, len(pts))
	few, fewest := 0, minRunsForEllipse
	for i, p := range pts {
		xs[i], ys[i], labels[i] = p.x, p.y, p.label
		xlo, xhi, nx, okx := p.run.Interval(s.X.Metric, cmp.Or(s.X.Stat, "avg"), level)
		ylo, yhi, ny, oky := p.run.Interval(s.Y.Metric, cmp.Or(s.Y.Stat, "avg"), level)
		n := min(nx, ny)
		if !okx || !oky || !stats.Finite(xlo+xhi+ylo+yhi) || n < minRunsForEllipse {
			runs := max(n, 1)
			if !okx || !oky {
				runs = 1 // no interval: a single run
			}
			fewest = min(fewest, runs)
			few++
			continue
		}
		rho := correlation(p.run.trialValues(s.X.Metric, cmp.Or(s.X.Stat, "avg")), p.run.trialValues(s.Y.Metric, cmp.Or(s.Y.Stat, "avg")))
		ex, ey := ellipse(p.x, p.y, (xhi-xlo)/2, (yhi-ylo)/2, rho, 64)
		c.Series = append(c.Series, Series{
			Name: fmt.Sprintf("%s %s %.0f%% CI (n=%d)", title, p.label, level*100, n), Kind: Polygon,
			X: ex, Y: ey, Group: gi, NoLegend: true,
		})
	}
	c.Series = append(c.Series, Series{Name: title, Kind: Markers, X: xs, Y: ys, Labels: labels, Group: gi})
	if few > 0 {
		c.Notes = append(c.Notes, fmt.Sprintf("%s: no confidence ellipse for %d of %d point(s): they have fewer than %d runs (as few as %d), whose t-interval is too wide to compare; use --num-profile-runs %d or more",
			title, few, len(pts), minRunsForEllipse, fewest, minRunsForEllipse))
	}
}

// unitAcross is a metric's unit in the first run that knows it.
func unitAcross(runs []*Run, metric string) string {
	for _, r := range runs {
		if u := r.Unit(metric); u != "" {
			return u
		}
	}
	return ""
}

// perGPUFallback replaces a *_per_gpu axis with its total when no run has
// GPU telemetry (so no GPU count): AIPerf cannot draw those presets then;
// this draws the total, says so, and takes "per GPU" out of the title. A
// per-GPU axis whose GPU count comes from simulated GPUs marks the title
// simulated.
func perGPUFallback(s Spec, runs []*Run, c *Chart) Spec {
	simulated := false
	for _, ax := range []*Axis{&s.X, &s.Y} {
		base, ok := strings.CutSuffix(ax.Metric, "_per_gpu")
		if !ok {
			continue
		}
		any := false
		for _, r := range runs {
			if _, has := r.Value(ax.Metric, ax.Stat); has {
				any = true
				simulated = simulated || r.simulatedGPUs()
			}
		}
		if any {
			continue
		}
		c.Title = withoutPerGPU(c.Title)
		c.Notes = append(c.Notes, "no GPU telemetry, so no GPU count: "+ax.Metric+" is drawn as the total "+base)
		label := axisLabel(base, ax.Stat, unitAcross(runs, base))
		if ax == &s.X {
			c.XLabel = label
		} else {
			c.YLabel = label
		}
		ax.Metric = base
	}
	if simulated {
		c.Title += simulatedTitle
	}
	return s
}

// perGPUWords matches "per GPU" in a title, in any case, with the space
// before it.
var perGPUWords = regexp.MustCompile(`(?i)\s+per\s+gpu\b`)

// withoutPerGPU takes "per GPU" out of a title ("Token Throughput per GPU
// vs Latency" -> "Token Throughput vs Latency").
func withoutPerGPU(title string) string { return perGPUWords.ReplaceAllString(title, "") }
