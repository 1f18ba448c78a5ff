package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/aiperf-go/aiperf/internal/mlflow"
)

// uploadPlots is `aiperf plot --mlflow-upload`: the plots go to the MLflow
// run of the (first) run directory, found in its mlflow_export.json
// unless uri and runID are given.
func uploadPlots(ctx context.Context, env *Env, out io.Writer, runDirs, files []string, uri, runID string) error {
	if len(runDirs) == 0 {
		return errors.New("--mlflow-upload: no run directory")
	}
	dir := runDirs[0]
	if uri == "" || runID == "" {
		md, err := mlflow.ReadMetadata(filepath.Join(dir, mlflow.MetadataFile))
		if err != nil {
			return fmt.Errorf("--mlflow-upload: %w (run the benchmark with --mlflow-tracking-uri, or pass --mlflow-tracking-uri and --mlflow-run-id)", err)
		}
		if uri == "" {
			uri = strings.Replace(md.TrackingURI, "<redacted>@", "", 1) // credentials come from MLFLOW_TRACKING_*
		}
		if runID == "" {
			runID = md.RunID
		}
	}
	getenv := func(string) string { return "" }
	if env != nil && env.Getenv != nil {
		getenv = env.Getenv
	}
	names, err := mlflow.UploadPaths(ctx, uri, getenv, runID, dir, files)
	if err != nil {
		return fmt.Errorf("--mlflow-upload: %w", err)
	}
	fmt.Fprintf(out, "Uploaded %d plot file(s) to MLflow run %s\n", len(names), runID)
	return nil
}
