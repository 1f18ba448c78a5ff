// Package v1alpha1 holds the aiperf.nvidia.com/v1alpha1 custom resources
// AIPerf 0.13 defines, AIPerfJob and AIPerfSweep, as Go types with their
// CustomResourceDefinition manifests. A resource written for
// AIPerf's operator is read by ours: spec.benchmark is the config v2 body,
// the other config envelope keys (model, dataset, variables, random_seed,
// multi_run, sweep, ...) sit beside it and are kept as they are, and the
// deployment keys (image, cancel, timeoutSeconds, ...) are typed.
//
// The package depends on apimachinery only (no controller-runtime), so the
// CLI can read and write these resources with a plain client.
package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The group, version, kinds and plurals, as AIPerf's kubernetes/cr_refs.py.
const (
	Group             = "aiperf.nvidia.com"
	Version           = "v1alpha1"
	KindAIPerfJob     = "AIPerfJob"
	KindAIPerfSweep   = "AIPerfSweep"
	PluralAIPerfJob   = "aiperfjobs"
	PluralAIPerfSweep = "aiperfsweeps"
)

// GroupVersion is aiperf.nvidia.com/v1alpha1; APIVersion its string.
var (
	GroupVersion = schema.GroupVersion{Group: Group, Version: Version}
	APIVersion   = GroupVersion.String()
)

// AIPerfJobResource and AIPerfSweepResource name the resources (for a
// dynamic client and RBAC rules).
var (
	AIPerfJobResource   = GroupVersion.WithResource(PluralAIPerfJob)
	AIPerfSweepResource = GroupVersion.WithResource(PluralAIPerfSweep)
)

// SchemeBuilder registers the kinds; AddToScheme adds them to a scheme.
var (
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)
	AddToScheme   = SchemeBuilder.AddToScheme
)

func addKnownTypes(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &AIPerfJob{}, &AIPerfJobList{}, &AIPerfSweep{}, &AIPerfSweepList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}
