package export

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
)

// AIPerf's result-directory markers: the processing marker is present
// while the summary files are being written, and the ready marker is
// installed (atomically, after everything else is on disk) once they are
// stable, so a consumer that polls the directory (AIPerf's results
// sidecar, a dashboard, a CI script) never reads a half-written result.
const (
	ReadyMarker      = ".aiperf_results_ready.json"
	ProcessingMarker = ".aiperf_results_processing.json"
)

// Ready is the content of the ready marker.
type Ready struct {
	WasCancelled bool
	// Partial marks a result some of whose files could not be written;
	// FailedExporters names them.
	Partial         bool
	FailedExporters []string
}

// BeginResults removes a ready marker left by an earlier run in dir and
// installs the processing marker.
func BeginResults(dir string) error {
	if err := os.Remove(filepath.Join(dir, ReadyMarker)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return writeFileAtomic(filepath.Join(dir, ProcessingMarker), []byte(`{"processing":true}`))
}

// CommitResults installs the ready marker and then removes the processing
// marker.
func CommitResults(dir string, r Ready) error {
	body, err := json.Marshal(struct {
		IsReady         bool     `json:"ready"`
		WasCancelled    bool     `json:"was_cancelled"`
		Partial         bool     `json:"partial"`
		FailedExporters []string `json:"failed_exporters,omitempty"`
	}{true, r.WasCancelled, r.Partial, r.FailedExporters})
	if err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(dir, ReadyMarker), body); err != nil {
		return err
	}
	if err := os.Remove(filepath.Join(dir, ProcessingMarker)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}
