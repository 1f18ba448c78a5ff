package kube

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// PodTemplate is AIPerf's spec.podTemplate (the part this implementation
// applies): what is added to both the controller's and the workers' pods.
// The benchmark's own labels, container and security settings stay.
type PodTemplate struct {
	NodeSelector      map[string]string    `json:"nodeSelector,omitempty"`
	Tolerations       []corev1.Toleration  `json:"tolerations,omitempty"`
	Affinity          *corev1.Affinity     `json:"affinity,omitempty"`
	ImagePullSecrets  []PullSecret         `json:"imagePullSecrets,omitempty"`
	Env               []corev1.EnvVar      `json:"env,omitempty"`
	Volumes           []corev1.Volume      `json:"volumes,omitempty"`
	VolumeMounts      []corev1.VolumeMount `json:"volumeMounts,omitempty"`
	Labels            map[string]string    `json:"labels,omitempty"`
	Annotations       map[string]string    `json:"annotations,omitempty"`
	PriorityClassName string               `json:"priorityClassName,omitempty"`
}

// PullSecret is an image pull secret, written as its name or as {name: ...}.
type PullSecret string

// UnmarshalJSON reads either form.
func (p *PullSecret) UnmarshalJSON(b []byte) error {
	if bytes.HasPrefix(bytes.TrimSpace(b), []byte("{")) {
		var ref corev1.LocalObjectReference
		if err := json.Unmarshal(b, &ref); err != nil {
			return err
		}
		*p = PullSecret(ref.Name)
		return nil
	}
	return json.Unmarshal(b, (*string)(p))
}

// ParsePodTemplate reads a spec.podTemplate value; a key this
// implementation does not apply is an error naming it (rather than a
// setting silently dropped).
func ParsePodTemplate(raw []byte) (*PodTemplate, error) {
	var p PodTemplate
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	if err := d.Decode(&p); err != nil {
		return nil, fmt.Errorf("spec.podTemplate: %w (applied: nodeSelector, tolerations, affinity, imagePullSecrets, env, volumes, volumeMounts, labels, annotations, priorityClassName)", err)
	}
	return &p, nil
}

// apply adds p to a pod template (every container gets the env and mounts).
func (p *PodTemplate) apply(t *corev1.PodTemplateSpec) {
	s := &t.Spec
	if len(p.NodeSelector) > 0 {
		s.NodeSelector = maps.Clone(p.NodeSelector)
	}
	s.Tolerations = append(s.Tolerations, p.Tolerations...)
	if p.Affinity != nil {
		s.Affinity = p.Affinity.DeepCopy()
	}
	for _, n := range p.ImagePullSecrets {
		s.ImagePullSecrets = append(s.ImagePullSecrets, corev1.LocalObjectReference{Name: string(n)})
	}
	s.Volumes = append(s.Volumes, p.Volumes...)
	if p.PriorityClassName != "" {
		s.PriorityClassName = p.PriorityClassName
	}
	for i := range s.Containers {
		c := &s.Containers[i]
		c.Env = append(c.Env, p.Env...)
		c.VolumeMounts = append(c.VolumeMounts, p.VolumeMounts...)
	}
	for k, v := range p.Labels {
		if _, ours := t.Labels[k]; !ours {
			if t.Labels == nil {
				t.Labels = map[string]string{}
			}
			t.Labels[k] = v
		}
	}
	if len(p.Annotations) > 0 {
		if t.Annotations == nil {
			t.Annotations = map[string]string{}
		}
		maps.Copy(t.Annotations, p.Annotations)
	}
}

// PodTemplateFrom reads spec.podTemplate (or pod_template) from a
// resource's spec keys; nil when there is none.
func PodTemplateFrom(spec map[string]runtime.RawExtension) (*PodTemplate, error) {
	for _, k := range []string{"podTemplate", "pod_template"} {
		if raw, ok := spec[k]; ok && len(raw.Raw) > 0 && string(raw.Raw) != "null" {
			return ParsePodTemplate(raw.Raw)
		}
	}
	return nil, nil
}
