package kubecli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/aiperf-go/aiperf/internal/cli"
	"github.com/aiperf-go/aiperf/internal/kube/api/v1alpha1"
)

// AIPerfJob and AIPerfSweep custom resources, as AIPerf 0.13 defines them
// (internal/kube/api/v1alpha1): spec is the benchmark config envelope
// (spec.benchmark is its body) plus deployment options.
const (
	aiperfAPIVersion = v1alpha1.Group + "/" + v1alpha1.Version
	kindAIPerfJob    = v1alpha1.KindAIPerfJob
	kindAIPerfSweep  = v1alpha1.KindAIPerfSweep
)

// newKubeValidateCommand builds `aiperf kube validate FILE`: an AIPerfJob
// or AIPerfSweep manifest is checked as this build would run it, its
// spec's benchmark config with every problem reported.
func newKubeValidateCommand(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "validate FILE",
		Short: "Check an AIPerfJob or AIPerfSweep manifest (its spec is a benchmark config file)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			body, kind, name, err := unwrapAIPerfJob(args[0])
			if err != nil {
				return cli.UsageError("aiperf kube validate", cli.Problems(err)...)
			}
			tmp := filepath.Join(os.TempDir(), fmt.Sprintf("aiperf-kube-%d-%s.yaml", os.Getpid(), name))
			if err := os.WriteFile(tmp, body, 0o600); err != nil {
				return err
			}
			defer os.Remove(tmp)
			summary, err := cli.CheckConfigFile(env, tmp)
			if err != nil {
				return fmt.Errorf("%s %s (%s): spec: %w", kind, name, args[0], err)
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "%s: %s %s valid (%s)\n", args[0], kind, name, summary)
			return err
		},
	}
}

// unwrapAIPerfJob reads a custom resource and returns its spec, less the
// deployment keys, as a config file body.
func unwrapAIPerfJob(path string) (body []byte, kind, name string, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, "", "", err
	}
	var cr struct {
		APIVersion string         `yaml:"apiVersion"`
		Kind       string         `yaml:"kind"`
		Metadata   map[string]any `yaml:"metadata"`
		Spec       map[string]any `yaml:"spec"`
	}
	if err := yaml.Unmarshal(b, &cr); err != nil {
		return nil, "", "", fmt.Errorf("%s: %w", path, err)
	}
	var problems []error
	if cr.APIVersion != aiperfAPIVersion {
		problems = append(problems, fmt.Errorf("%s: apiVersion %q; want %s", path, cr.APIVersion, aiperfAPIVersion))
	}
	if cr.Kind != kindAIPerfJob && cr.Kind != kindAIPerfSweep {
		problems = append(problems, fmt.Errorf("%s: kind %q; want %s or %s", path, cr.Kind, kindAIPerfJob, kindAIPerfSweep))
	}
	name, _ = cr.Metadata["name"].(string)
	for _, m := range validation.IsDNS1123Subdomain(name) {
		problems = append(problems, fmt.Errorf("%s: metadata.name %q: %s", path, name, m))
	}
	if _, ok := cr.Spec["benchmark"]; !ok {
		problems = append(problems, fmt.Errorf("%s: spec.benchmark is missing (the benchmark config body)", path))
	}
	if c, ok := cr.Spec["cancel"]; ok {
		if _, isBool := c.(bool); !isBool {
			problems = append(problems, fmt.Errorf("%s: spec.cancel must be true or false, got %v", path, c))
		}
	}
	if len(problems) > 0 {
		return nil, cr.Kind, name, errors.Join(problems...)
	}
	for _, k := range v1alpha1.DeploymentKeys {
		delete(cr.Spec, k)
	}
	if _, ok := cr.Spec["schemaVersion"]; !ok {
		cr.Spec["schemaVersion"] = "2.0"
	}
	body, err = yaml.Marshal(cr.Spec)
	return body, cr.Kind, strings.ToLower(name), err
}
