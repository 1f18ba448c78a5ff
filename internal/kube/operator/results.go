package operator

import (
	"context"

	"github.com/aiperf-go/aiperf/internal/kube"
	"github.com/aiperf-go/aiperf/internal/kube/api/v1alpha1"
)

// ResultsStore keeps finished jobs' artifacts where `kube results` can
// fetch them.
type ResultsStore interface {
	// Fetch copies the artifacts of job (whose objects o describes) and
	// says where they are now; an error means "not yet" (retried).
	Fetch(ctx context.Context, job *v1alpha1.AIPerfJob, o kube.Options) (Location, error)
	// Forget drops a deleted job's artifacts.
	Forget(job *v1alpha1.AIPerfJob)
}

// Location is where a job's artifacts are: a path on the results endpoint
// (namespace/name) and the endpoint's URL for it.
type Location struct {
	Path, URL string
}
