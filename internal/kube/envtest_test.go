package kube

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

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startControlPlane runs etcd and kube-apiserver from KUBEBUILDER_ASSETS
// (what envtest runs; scripts/envtest-assets.sh builds both from the Go
// module proxy) and returns a clientset of the admin.
func startControlPlane(t *testing.T) kubernetes.Interface {
	t.Helper()
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	if os.Getenv("AIPERF_ENVTEST") == "" || assets == "" {
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
	deadline := time.Now().Add(2 * time.Minute)
	for {
		body, err := cs.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(context.Background())
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
	return cs
}

// TestDirectModeAgainstARealAPIServer: the objects `kube profile
// --no-operator` creates pass the real API server's validation and
// defaulting; list, cancel and delete work on them.
func TestDirectModeAgainstARealAPIServer(t *testing.T) {
	cs := startControlPlane(t)
	ctx := context.Background()
	o := testOptions()
	objs, err := Objects(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := Create(ctx, cs, objs); err != nil {
		t.Fatalf("the API server refused the generated objects: %v", err)
	}
	w, err := cs.BatchV1().Jobs("perf").Get(ctx, "bench1-workers", metav1.GetOptions{})
	if err != nil || *w.Spec.Completions != 3 || w.Spec.Template.Spec.Containers[0].Args[2] != "bench1-controller.perf.svc:7070" {
		t.Fatalf("workers job: %v %+v", err, w)
	}
	svc, err := cs.CoreV1().Services("perf").Get(ctx, "bench1-controller", metav1.GetOptions{})
	if err != nil || svc.Spec.ClusterIP != "None" {
		t.Fatalf("service: %v %+v", err, svc)
	}
	st, err := List(ctx, cs, "perf")
	if err != nil || len(st) != 1 || st[0].Name != "bench1" {
		t.Fatalf("list: %+v %v", st, err)
	}
	if err := Cancel(ctx, cs, "perf", "bench1"); err != nil {
		t.Fatal(err)
	}
	if w, _ := cs.BatchV1().Jobs("perf").Get(ctx, "bench1-workers", metav1.GetOptions{}); w.Spec.Suspend == nil || !*w.Spec.Suspend {
		t.Errorf("cancel did not suspend the workers: %+v", w.Spec.Suspend)
	}
	n, err := Delete(ctx, cs, "perf", "bench1")
	if err != nil || n != 5 {
		t.Fatalf("delete: %d, %v; want 5 objects", n, err)
	}
	jobs, _ := cs.BatchV1().Jobs("perf").List(ctx, selector("bench1"))
	cms, _ := cs.CoreV1().ConfigMaps("perf").List(ctx, selector("bench1"))
	if len(jobs.Items)+len(cms.Items) != 0 {
		t.Errorf("after delete: %d jobs, %d config maps left", len(jobs.Items), len(cms.Items))
	}
}
