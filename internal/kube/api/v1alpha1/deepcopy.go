package v1alpha1

// Deep copies, written by hand (controller-gen is not needed for five
// types); TestDeepCopyIsDeep checks that no copy shares memory.

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// DeepCopyInto copies s into out.
func (s *WorkloadSpec) DeepCopyInto(out *WorkloadSpec) {
	*out = *s
	s.Benchmark.DeepCopyInto(&out.Benchmark)
	if s.Sweep != nil {
		out.Sweep = s.Sweep.DeepCopy()
	}
	out.TotalWorkers = copyPtr(s.TotalWorkers)
	out.TimeoutSeconds = copyPtr(s.TimeoutSeconds)
	out.TTLSecondsAfterFinished = copyPtr(s.TTLSecondsAfterFinished)
	if s.ProfileArgs != nil {
		out.ProfileArgs = append([]string(nil), s.ProfileArgs...)
	}
	out.APIKeySecret = copyPtr(s.APIKeySecret)
	if s.HeaderSecrets != nil {
		out.HeaderSecrets = append([]HeaderSecret(nil), s.HeaderSecrets...)
	}
	if s.ChildMetadata != nil {
		out.ChildMetadata = &ChildMetadata{Labels: copyMap(s.ChildMetadata.Labels), Annotations: copyMap(s.ChildMetadata.Annotations)}
	}
	if s.Extra != nil {
		out.Extra = make(map[string]runtime.RawExtension, len(s.Extra))
		for k, v := range s.Extra {
			out.Extra[k] = *v.DeepCopy()
		}
	}
}

// DeepCopy returns a copy of s.
func (s *WorkloadSpec) DeepCopy() *WorkloadSpec {
	if s == nil {
		return nil
	}
	out := new(WorkloadSpec)
	s.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies l into out.
func (l *Lifecycle) DeepCopyInto(out *Lifecycle) {
	*out = *l
	out.Conditions = copyConditions(l.Conditions)
	out.StartTime = l.StartTime.DeepCopy()
	out.CompletionTime = l.CompletionTime.DeepCopy()
}

// DeepCopyInto copies s into out.
func (s *AIPerfJobStatus) DeepCopyInto(out *AIPerfJobStatus) {
	*out = *s
	s.Lifecycle.DeepCopyInto(&out.Lifecycle)
	out.Workers = copyPtr(s.Workers)
	out.Progress = copyPtr(s.Progress)
}

// DeepCopyInto copies s into out.
func (s *AIPerfSweepStatus) DeepCopyInto(out *AIPerfSweepStatus) {
	*out = *s
	s.Lifecycle.DeepCopyInto(&out.Lifecycle)
	out.Workers = copyPtr(s.Workers)
	out.Progress = copyPtr(s.Progress)
	if s.Children != nil {
		out.Children = append([]SweepChild(nil), s.Children...)
	}
}

// DeepCopyInto copies j into out.
func (j *AIPerfJob) DeepCopyInto(out *AIPerfJob) {
	*out = *j
	out.TypeMeta = j.TypeMeta
	j.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	j.Spec.DeepCopyInto(&out.Spec)
	j.Status.DeepCopyInto(&out.Status)
}

// DeepCopy returns a copy of j.
func (j *AIPerfJob) DeepCopy() *AIPerfJob {
	if j == nil {
		return nil
	}
	out := new(AIPerfJob)
	j.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (j *AIPerfJob) DeepCopyObject() runtime.Object { return j.DeepCopy() }

// DeepCopyInto copies l into out.
func (l *AIPerfJobList) DeepCopyInto(out *AIPerfJobList) {
	*out = *l
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	if l.Items != nil {
		out.Items = make([]AIPerfJob, len(l.Items))
		for i := range l.Items {
			l.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
}

// DeepCopy returns a copy of l.
func (l *AIPerfJobList) DeepCopy() *AIPerfJobList {
	if l == nil {
		return nil
	}
	out := new(AIPerfJobList)
	l.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (l *AIPerfJobList) DeepCopyObject() runtime.Object { return l.DeepCopy() }

// DeepCopyInto copies w into out.
func (w *AIPerfSweep) DeepCopyInto(out *AIPerfSweep) {
	*out = *w
	w.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	w.Spec.DeepCopyInto(&out.Spec)
	w.Status.DeepCopyInto(&out.Status)
}

// DeepCopy returns a copy of w.
func (w *AIPerfSweep) DeepCopy() *AIPerfSweep {
	if w == nil {
		return nil
	}
	out := new(AIPerfSweep)
	w.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (w *AIPerfSweep) DeepCopyObject() runtime.Object { return w.DeepCopy() }

// DeepCopyInto copies l into out.
func (l *AIPerfSweepList) DeepCopyInto(out *AIPerfSweepList) {
	*out = *l
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	if l.Items != nil {
		out.Items = make([]AIPerfSweep, len(l.Items))
		for i := range l.Items {
			l.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
}

// DeepCopy returns a copy of l.
func (l *AIPerfSweepList) DeepCopy() *AIPerfSweepList {
	if l == nil {
		return nil
	}
	out := new(AIPerfSweepList)
	l.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (l *AIPerfSweepList) DeepCopyObject() runtime.Object { return l.DeepCopy() }

func copyConditions(cs []metav1.Condition) []metav1.Condition {
	if cs == nil {
		return nil
	}
	out := make([]metav1.Condition, len(cs))
	for i := range cs {
		cs[i].DeepCopyInto(&out[i])
	}
	return out
}

func copyPtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

func copyMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// DeepCopy returns a copy of s.
func (s *AIPerfJobStatus) DeepCopy() *AIPerfJobStatus {
	if s == nil {
		return nil
	}
	out := new(AIPerfJobStatus)
	s.DeepCopyInto(out)
	return out
}

// DeepCopy returns a copy of s.
func (s *AIPerfSweepStatus) DeepCopy() *AIPerfSweepStatus {
	if s == nil {
		return nil
	}
	out := new(AIPerfSweepStatus)
	s.DeepCopyInto(out)
	return out
}
