package kubetest

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/environ"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// StartControlPlane runs etcd and kube-apiserver from KUBEBUILDER_ASSETS
// (what envtest runs; scripts/envtest-assets.sh builds both from the Go
// module proxy) for the test and returns the admin's config (a bearer
// token in group system:masters). It skips the test unless AIPERF_ENVTEST
// is set. No controller-manager, scheduler or kubelet runs: objects are
// validated and stored, nothing reconciles them and no pod starts.
func StartControlPlane(t testing.TB) *rest.Config {
	t.Helper()
	assets := environ.Getenv("KUBEBUILDER_ASSETS")
	if environ.Getenv("AIPERF_ENVTEST") == "" || assets == "" {
		t.Skip("set AIPERF_ENVTEST=1 and KUBEBUILDER_ASSETS=$(scripts/envtest-assets.sh) to run against a real kube-apiserver")
	}
	dir := t.TempDir()
	start := func(name string, args ...string) {
		cmd := exec.Command(filepath.Join(assets, name), args...)
		log, _ := os.Create(filepath.Join(dir, name+".log"))
		cmd.Stdout, cmd.Stderr = log, log
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			cmd.Process.Kill()
			cmd.Wait()
			log.Close()
			if t.Failed() {
				b, _ := os.ReadFile(log.Name())
				if len(b) > 4000 {
					b = b[len(b)-4000:]
				}
				t.Logf("%s log (tail):\n%s", name, b)
			}
		})
	}
	etcd := fmt.Sprintf("http://127.0.0.1:%d", freePort(t))
	start("etcd", "--data-dir", filepath.Join(dir, "etcd"), "--listen-client-urls", etcd, "--advertise-client-urls", etcd,
		"--listen-peer-urls", fmt.Sprintf("http://127.0.0.1:%d", freePort(t)))
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(dir, "sa.key")
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}), 0o600)
	tokens := filepath.Join(dir, "tokens.csv")
	os.WriteFile(tokens, []byte("admintoken,admin,admin-uid,system:masters\n"), 0o600)
	port := freePort(t)
	start("kube-apiserver", "--etcd-servers", etcd, "--cert-dir", filepath.Join(dir, "certs"),
		"--secure-port", fmt.Sprint(port), "--bind-address", "127.0.0.1", "--token-auth-file", tokens,
		"--authorization-mode", "AlwaysAllow", "--service-cluster-ip-range", "10.0.0.0/24",
		"--service-account-issuer", "https://kubernetes.default.svc", "--service-account-key-file", keyFile,
		"--service-account-signing-key-file", keyFile, "--disable-admission-plugins", "ServiceAccount")
	cfg := &rest.Config{Host: fmt.Sprintf("https://127.0.0.1:%d", port), BearerToken: "admintoken",
		TLSClientConfig: rest.TLSClientConfig{Insecure: true}}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	rc := cs.Discovery().RESTClient()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		body, err := rc.Get().AbsPath("/readyz").DoRaw(context.Background())
		if err == nil && string(body) == "ok" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("kube-apiserver not ready after 2 minutes: %v %s", err, body)
		}
		time.Sleep(200 * time.Millisecond) // polling an external process; no clock to fake
	}
	// The default namespace and the API's own objects are created
	// asynchronously after readyz.
	return cfg
}

// Kubeconfig writes a kubeconfig file for cfg (its host and bearer
// token, TLS unverified) and returns its path, for commands given
// --kubeconfig.
func Kubeconfig(t testing.TB, cfg *rest.Config) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "kubeconfig")
	s := "apiVersion: v1\nkind: Config\nclusters:\n- name: t\n  cluster:\n    server: " + cfg.Host
	if cfg.Insecure {
		s += "\n    insecure-skip-tls-verify: true"
	}
	s += "\ncontexts:\n- name: t\n  context:\n    cluster: t\n    user: u\nusers:\n- name: u\n  user:"
	if cfg.BearerToken != "" {
		s += "\n    token: " + cfg.BearerToken + "\n"
	} else {
		s += " {}\n"
	}
	s += "current-context: t\n"
	if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
