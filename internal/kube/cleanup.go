package kube

import (
	"context"
	"errors"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
)

// Finished reports whether a benchmark in phase is over (AIPerf's
// terminal phases: it succeeded, failed or was cancelled).
func Finished(phase string) bool {
	return phase == "Succeeded" || phase == "Failed" || phase == "Cancelled"
}

// CleanupTargets are the benchmarks `kube cleanup` removes from
// namespace: the finished ones, every one with all.
func CleanupTargets(ctx context.Context, cs kubernetes.Interface, namespace string, all bool) (targets []Status, skipped int, err error) {
	sts, err := List(ctx, cs, namespace)
	if err != nil {
		return nil, 0, err
	}
	for _, st := range sts {
		if all || Finished(st.Phase) {
			targets = append(targets, st)
		} else {
			skipped++
		}
	}
	return targets, skipped, nil
}

// Cleanup deletes targets (from CleanupTargets) and returns how many
// objects went. A running benchmark's pods are deleted with their Jobs
// (its results with them: fetch them first with `kube results`).
func Cleanup(ctx context.Context, cs kubernetes.Interface, dyn dynamic.Interface, targets []Status) (int, error) {
	var errs []error
	n := 0
	for _, st := range targets {
		k, err := Delete(ctx, cs, dyn, st.Namespace, st.Name)
		n += k
		if err != nil {
			errs = append(errs, err)
		}
	}
	return n, errors.Join(errs...)
}

// DeleteNamespaceIfEmpty deletes namespace when aiperf created it (it
// carries the app.kubernetes.io/name=aiperf label that `kube profile
// --create-namespace` sets) and no benchmark is left in it. It reports
// whether the namespace was deleted.
func DeleteNamespaceIfEmpty(ctx context.Context, cs kubernetes.Interface, namespace string) (bool, error) {
	ns, err := cs.CoreV1().Namespaces().Get(ctx, namespace, metav1.GetOptions{})
	if err != nil {
		return false, fmt.Errorf("namespace %s: %w", namespace, err)
	}
	if ns.Labels[LabelName] != "aiperf" {
		return false, nil
	}
	left, err := cs.BatchV1().Jobs(namespace).List(ctx, metav1.ListOptions{LabelSelector: LabelName + "=aiperf"})
	if err != nil {
		return false, err
	}
	if len(left.Items) > 0 {
		return false, nil
	}
	if err := cs.CoreV1().Namespaces().Delete(ctx, namespace, metav1.DeleteOptions{}); err != nil {
		return false, fmt.Errorf("deleting namespace %s: %w", namespace, err)
	}
	return true, nil
}
