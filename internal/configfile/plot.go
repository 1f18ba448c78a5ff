package configfile

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/goccy/go-yaml"

	"github.com/aiperf-go/aiperf/internal/userfile"
)

// maxPlotFile bounds a plot configuration file read for plot: <path>.
const maxPlotFile = 1 << 20

// lowerPlot decodes the envelope's plot: key, AIPerf's two forms: a path
// to a plot configuration file (relative to the config file's directory)
// or an inline mapping of the same shape. Either way the configuration is
// kept as YAML text in Visuals.Plot; internal/report parses and checks it
// before the run starts.
func lowerPlot(n *Node, t target, ps *problems) {
	switch n.Kind {
	case Null, broken:
		return
	case Map:
		b, err := yaml.Marshal(n.Interface())
		if err != nil {
			ps.add(n.Pos, "plot", "cannot re-encode the mapping: %v", err)
			return
		}
		t.cfg.Visuals.Plot = string(b)
		t.cfg.Visuals.PlotSource = fmt.Sprintf("%s:%d (plot:)", ps.file, n.Pos.Line)
	case Scalar:
		s, ok := n.Value.(string)
		if !ok || s == "" {
			ps.add(n.Pos, "plot", "must be a plot configuration mapping or the path of a plot configuration file, not %s", describe(n))
			return
		}
		path := s
		if !filepath.IsAbs(path) && ps.file != "" {
			path = filepath.Join(filepath.Dir(ps.file), path)
		}
		text, err := readPlotFile(path)
		if err != nil {
			ps.add(n.Pos, "plot", "%v", err)
			return
		}
		t.cfg.Visuals.Plot, t.cfg.Visuals.PlotSource = text, path
	default:
		ps.add(n.Pos, "plot", "must be a plot configuration mapping or the path of a plot configuration file, not %s", describe(n))
	}
}

func readPlotFile(path string) (string, error) {
	f, err := userfile.Open(path)
	if err != nil {
		return "", fmt.Errorf("plot configuration file: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxPlotFile+1))
	if err != nil {
		return "", fmt.Errorf("plot configuration file %s: %w", path, err)
	}
	if len(b) > maxPlotFile {
		return "", fmt.Errorf("plot configuration file %s: larger than %d bytes", path, maxPlotFile)
	}
	return string(b), nil
}
