package operator

import (
	"context"
	"fmt"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/aiperf-go/aiperf/internal/kube"
	"github.com/aiperf-go/aiperf/internal/kube/api/v1alpha1"
)

// RunOptions configure the operator process.
type RunOptions struct {
	// MetricsAddr and ProbeAddr are the listen addresses of the metrics
	// and health endpoints ("0" turns one off).
	MetricsAddr, ProbeAddr string
	// WatchNamespace restricts the operator to one namespace ("" = all).
	WatchNamespace string
	// Image is the benchmarks' default image (spec.image overrides it).
	Image string
	// Validate checks a job's config file (Reconciler.Validate).
	Validate func(ctx context.Context, o kube.Options) error
	// Runs watches the controller pods' runs (nil: from the Jobs only).
	Runs RunObserver
	// LeaderElect: only the holder of the Lease LeaderElectionID in
	// LeaderElectionNamespace reconciles (several replicas, or an old and a
	// new pod during a rollout). The namespace defaults to the pod's own
	// when running in a cluster.
	LeaderElect             bool
	LeaderElectionNamespace string
}

// The leader-election timing: the lease lasts LeaseDuration, and the
// leader gives up (and exits) when it could not renew it for RenewDeadline.
const (
	LeaseDuration = 60 * time.Second
	RenewDeadline = 45 * time.Second
)

// LeaderElectionID names the operator's leader-election Lease.
const LeaderElectionID = "aiperf-operator." + v1alpha1.Group

// Scheme is client-go's kinds, CustomResourceDefinition, AIPerfJob and AIPerfSweep.
func Scheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		return nil, err
	}
	if err := v1alpha1.AddToScheme(s); err != nil {
		return nil, err
	}
	// For `kube install`, which applies the CRDs.
	if err := apiextensionsv1.AddToScheme(s); err != nil {
		return nil, err
	}
	return s, nil
}

// NewManager builds the operator's manager with the reconciler registered.
func NewManager(cfg *rest.Config, o RunOptions) (ctrl.Manager, error) {
	s, err := Scheme()
	if err != nil {
		return nil, err
	}
	opts := ctrl.Options{
		Scheme:                 s,
		Metrics:                metricsserver.Options{BindAddress: o.MetricsAddr},
		HealthProbeBindAddress: o.ProbeAddr,
		// Cancel's effect must not wait for a resync.
		GracefulShutdownTimeout: ptr(10 * time.Second),
		LeaderElection:          o.LeaderElect,
		LeaderElectionID:        LeaderElectionID,
		LeaderElectionNamespace: o.LeaderElectionNamespace,
		// Give the lease up at once on a clean stop, so a new pod takes over.
		LeaderElectionReleaseOnCancel: true,
		// controller-runtime's defaults (15 s lease, 10 s to renew) lose
		// the lease, and so the process, when a loaded node's API server
		// is slow for ten seconds; a benchmark node is loaded by design.
		// A new leader takes over within a minute of a crash instead.
		LeaseDuration: ptr(LeaseDuration),
		RenewDeadline: ptr(RenewDeadline),
		RetryPeriod:   ptr(5 * time.Second),
	}
	if o.WatchNamespace != "" {
		opts.Cache = cache.Options{DefaultNamespaces: map[string]cache.Config{o.WatchNamespace: {}}}
	}
	mgr, err := ctrl.NewManager(cfg, opts)
	if err != nil {
		return nil, fmt.Errorf("operator manager: %w", err)
	}
	r := &Reconciler{Client: mgr.GetClient(), Scheme: s, Image: o.Image, Validate: o.Validate, Runs: o.Runs,
		Events: mgr.GetEventRecorder("aiperf-operator")}
	if err := r.SetupWithManager(mgr); err != nil {
		return nil, err
	}
	if o.ProbeAddr != "" && o.ProbeAddr != "0" {
		if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
			return nil, err
		}
		if err := mgr.AddReadyzCheck("readyz", healthz.Ping); err != nil {
			return nil, err
		}
	}
	return mgr, nil
}

// Run runs the operator until ctx ends.
func Run(ctx context.Context, cfg *rest.Config, o RunOptions) error {
	mgr, err := NewManager(cfg, o)
	if err != nil {
		return err
	}
	return mgr.Start(ctx)
}
