package compare

import (
	"github.com/aiperf-go/aiperf/internal/report"
)

// Chart is the comparison as one picture, through the plot package: each
// entry placed by what the node delivers (total tokens/s, x) and what one
// user sees (output tokens/s per user, y), so the two rankings read at a
// glance: right is more capacity, up is a better experience. Entries
// without both figures are left out; nil when none has them.
func (r *Report) Chart() *report.Chart {
	s := report.Series{Name: "runs", Kind: report.Markers, Group: -1}
	for i := range r.Entries {
		e := &r.Entries[i]
		total, ok1 := avg(e, tagTotal)
		perUser, ok2 := avg(e, tagOutputPerUser)
		if !ok1 || !ok2 {
			continue
		}
		s.X, s.Y, s.Labels = append(s.X, total), append(s.Y, perUser), append(s.Labels, e.Label)
	}
	if len(s.X) == 0 {
		return nil
	}
	return &report.Chart{
		Name: "compare", Type: report.TypeScatter,
		Title:       "Capacity vs experience",
		Description: "Each run by total tokens/s of the node (capacity ranking) and output tokens/s per user (experience ranking).",
		XLabel:      "total tokens/sec (node)", YLabel: "output tokens/sec per user",
		Series: []report.Series{s},
	}
}

// ChartPNG renders Chart as a PNG in the light theme; nil without data.
func (r *Report) ChartPNG() ([]byte, error) {
	c := r.Chart()
	if c == nil {
		return nil, nil
	}
	return report.RenderPNG(c, report.LightTheme)
}
