package kube

import (
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/kubernetes"
)

// JobSet (sigs.k8s.io/jobset), the CRD AIPerf's operator and direct mode
// run a benchmark as, when it is installed.
const (
	JobSetGroup        = "jobset.x-k8s.io"
	JobSetVersion      = "v1alpha2"
	JobSetGroupVersion = JobSetGroup + "/" + JobSetVersion
)

// JobSetInstalled reports whether the API server serves jobsets in
// jobset.x-k8s.io/v1alpha2 (discovery).
func JobSetInstalled(cs kubernetes.Interface) (bool, error) {
	rl, err := cs.Discovery().ServerResourcesForGroupVersion(JobSetGroupVersion)
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	for _, r := range rl.APIResources {
		if r.Name == "jobsets" {
			return true, nil
		}
	}
	return false, nil
}
