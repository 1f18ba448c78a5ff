package kube

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// TestTakeCredentials: the API key and every header value leave the
// arguments for a Secret, in each spelling a flag can take; the objects
// then hold only $(VAR) references, and the key is in none of them but
// the Secret.
func TestTakeCredentials(t *testing.T) {
	const key, tok = "sk-live-0123456789", "Bearer tok-abcdef"
	for _, c := range []struct {
		name string
		args []string
	}{
		{"separate", []string{"-m", "llama", "--api-key", key, "-H", "Authorization: " + tok, "--header", "X-Trace: 1"}},
		{"inline", []string{"-m", "llama", "--api-key=" + key, "-HAuthorization: " + tok, "--header=X-Trace: 1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := Options{Name: "chat", Namespace: "perf", Workers: 2, ProfileArgs: c.args}
			sec, err := o.TakeCredentials()
			if err != nil {
				t.Fatal(err)
			}
			if sec == nil || sec.Name != "chat-credentials" || string(sec.Data["api-key"]) != key ||
				string(sec.Data["header-0"]) != tok || string(sec.Data["header-1"]) != "1" {
				t.Fatalf("secret %+v", sec)
			}
			if !slices.Equal(o.ProfileArgs, []string{"-m", "llama"}) {
				t.Fatalf("args left %q", o.ProfileArgs)
			}
			objs, err := Objects(o)
			if err != nil {
				t.Fatal(err)
			}
			y, err := YAML(objs)
			if err != nil {
				t.Fatal(err)
			}
			var rest []string
			for _, obj := range objs {
				if _, ok := obj.(*corev1.Secret); !ok {
					b, _ := YAML([]runtime.Object{obj})
					rest = append(rest, string(b))
				}
			}
			all := strings.Join(rest, "\n")
			for _, secret := range []string{key, "tok-abcdef"} {
				if strings.Contains(all, secret) {
					t.Errorf("%q in plaintext outside the Secret:\n%s", secret, all)
				}
			}
			if !strings.Contains(string(y), "kind: Secret") {
				t.Error("the Secret is not among the objects")
			}
			args := strings.Join(o.ControllerArgs(), " ")
			if !strings.Contains(args, "--api-key $(AIPERF_API_KEY) --header Authorization: $(AIPERF_HEADER_0) --header X-Trace: $(AIPERF_HEADER_1)") {
				t.Errorf("controller args %s", args)
			}
			env := o.controllerJob().Spec.Template.Spec.Containers[0].Env
			if len(env) != 4 || env[1].ValueFrom.SecretKeyRef.Name != "chat-credentials" || env[1].ValueFrom.SecretKeyRef.Key != "api-key" {
				t.Errorf("env %+v", env)
			}
		})
	}
}

func TestCredentialErrors(t *testing.T) {
	o := Options{Name: "chat", Namespace: "perf", Workers: 1, ProfileArgs: []string{"-m", "x", "--api-key", "k"}}
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "--api-key-secret") {
		t.Errorf("plaintext --api-key accepted: %v", err)
	}
	o.APIKeySecret = &SecretRef{Name: "mine", Key: "k"}
	if _, err := o.TakeCredentials(); err == nil || !strings.Contains(err.Error(), "one way") {
		t.Errorf("--api-key beside --api-key-secret: %v", err)
	}
	o = Options{Name: "chat", ProfileArgs: []string{"-m", "x", "-H", `{"Authorization":"Bearer zzzz"}`}}
	if _, err := o.TakeCredentials(); err == nil || !strings.Contains(err.Error(), "Name:Value") || strings.Contains(err.Error(), "zzzz") {
		t.Errorf("-H JSON object: %v", err)
	}
	o = Options{Name: "chat", ProfileArgs: []string{"-m", "x", "--api-key"}}
	if _, err := o.TakeCredentials(); err == nil {
		t.Error("--api-key without a value accepted")
	}
	for _, c := range []struct {
		in   string
		want SecretRef
		bad  bool
	}{
		{"openai", SecretRef{"openai", "api-key"}, false},
		{"openai/token", SecretRef{"openai", "token"}, false},
		{"Bad_Name", SecretRef{}, true},
		{"ok/bad key", SecretRef{}, true},
		{"", SecretRef{}, true},
	} {
		got, err := ParseSecretRef(c.in)
		if (err != nil) != c.bad || (!c.bad && got != c.want) {
			t.Errorf("ParseSecretRef(%q) = %v, %v", c.in, got, err)
		}
	}
}

// FuzzParseSecretRef: an accepted reference prints back to itself.
func FuzzParseSecretRef(f *testing.F) {
	for _, s := range []string{"openai", "openai/token", "a/b/c", "", "/", "x/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseSecretRef(s)
		if err != nil {
			return
		}
		again, err := ParseSecretRef(r.String())
		if err != nil || again != r {
			t.Fatalf("%q -> %v -> %v, %v", s, r, again, err)
		}
	})
}
