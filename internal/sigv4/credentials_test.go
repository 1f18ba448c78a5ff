package sigv4_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/sigv4"
)

// env is a fake environment.
func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func write(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestChainSources(t *testing.T) {
	dir := t.TempDir()
	creds := write(t, dir, "credentials", `
[default]
aws_access_key_id = AKIDDEFAULT
aws_secret_access_key = secretdefault

[staging]
aws_access_key_id=AKIDSTAGING
aws_secret_access_key=secretstaging
aws_session_token = tokstaging

[assumed]
role_arn = arn:aws:iam::123:role/r
source_profile = default
`)
	conf := write(t, dir, "config", `
[default]
region = us-west-2
[profile fromconfig]
aws_access_key_id = AKIDCONFIG
aws_secret_access_key = secretconfig
s3 =
  addressing_style = path
[profile proc]
credential_process = printf '{"Version":1,"AccessKeyId":"AKIDPROC","SecretAccessKey":"sp","SessionToken":"tp","Expiration":"2030-01-02T03:04:05Z"}'
[profile sso]
sso_session = corp
`)
	files := map[string]string{"AWS_SHARED_CREDENTIALS_FILE": creds, "AWS_CONFIG_FILE": conf}
	with := func(extra map[string]string) map[string]string {
		m := map[string]string{}
		for k, v := range files {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	envKeys := map[string]string{"AWS_ACCESS_KEY_ID": "AKIDENV", "AWS_SECRET_ACCESS_KEY": "secretenv", "AWS_SESSION_TOKEN": "tokenv"}
	for _, c := range []struct {
		name, profile string
		env           map[string]string
		wantID, token string
		wantErr       string
	}{
		{name: "environment first", env: with(envKeys), wantID: "AKIDENV", token: "tokenv"},
		{name: "explicit profile skips the environment", profile: "staging", env: with(envKeys), wantID: "AKIDSTAGING", token: "tokstaging"},
		{name: "AWS_PROFILE does not skip the environment", env: with(map[string]string{"AWS_PROFILE": "staging", "AWS_ACCESS_KEY_ID": "AKIDENV", "AWS_SECRET_ACCESS_KEY": "s"}), wantID: "AKIDENV"},
		{name: "AWS_PROFILE", env: with(map[string]string{"AWS_PROFILE": "staging"}), wantID: "AKIDSTAGING", token: "tokstaging"},
		{name: "default profile", env: with(nil), wantID: "AKIDDEFAULT"},
		{name: "config file profile", profile: "fromconfig", env: with(nil), wantID: "AKIDCONFIG"},
		{name: "credential_process", profile: "proc", env: with(nil), wantID: "AKIDPROC", token: "tp"},
		{name: "role_arn refused with the way around", profile: "assumed", env: with(nil), wantErr: "export-credentials"},
		{name: "sso refused", profile: "sso", env: with(nil), wantErr: "sso_session"},
		{name: "unknown profile", profile: "nope", env: with(nil), wantErr: `AWS profile "nope" not found`},
		{name: "nothing at all", env: map[string]string{"HOME": dir}, wantErr: "no AWS credentials found"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := (&sigv4.Chain{Profile: c.profile, Getenv: env(c.env)}).Retrieve()
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err = %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.AccessKeyID != c.wantID || got.SessionToken != c.token {
				t.Errorf("got %s/%s from %s, want %s/%s", got.AccessKeyID, got.SessionToken, got.Source, c.wantID, c.token)
			}
		})
	}
	if _, err := (&sigv4.Chain{Getenv: env(map[string]string{"HOME": dir})}).Retrieve(); !errors.Is(err, sigv4.ErrNoCredentials) {
		t.Errorf("no credentials: %v is not ErrNoCredentials", err)
	}
}

// TestContainerCredentialsRefresh serves expiring credentials from a
// container credentials endpoint and checks that the cache keeps them
// until AdvisoryRefresh before their expiry, then fetches new ones.
func TestContainerCredentialsRefresh(t *testing.T) {
	now := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "pod-token" {
			http.Error(w, "no token", http.StatusUnauthorized)
			return
		}
		n := calls.Add(1)
		fmt.Fprintf(w, `{"AccessKeyId":"AKID%d","SecretAccessKey":"s%d","Token":"t%d","Expiration":%q}`, n, n, n, now.Add(time.Hour).Format(time.RFC3339))
	}))
	defer srv.Close()
	dir := t.TempDir()
	tokenFile := write(t, dir, "token", "pod-token\n")
	chain := &sigv4.Chain{Getenv: env(map[string]string{"HOME": dir, "AWS_CONTAINER_CREDENTIALS_FULL_URI": srv.URL + "/creds", "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE": tokenFile})}
	clock := now
	cache := sigv4.NewCache(chain, func() time.Time { return clock })
	first, err := cache.Retrieve()
	if err != nil || first.AccessKeyID != "AKID1" || first.SessionToken != "t1" {
		t.Fatalf("first = %+v, %v", first, err)
	}
	clock = now.Add(44 * time.Minute) // 16 min before expiry: still fresh
	if c, _ := cache.Retrieve(); c.AccessKeyID != "AKID1" || calls.Load() != 1 {
		t.Fatalf("refreshed too early: %s after %d calls", c.AccessKeyID, calls.Load())
	}
	clock = now.Add(46 * time.Minute) // inside the advisory window
	if c, _ := cache.Retrieve(); c.AccessKeyID != "AKID2" {
		t.Fatalf("not refreshed inside the advisory window: %s", c.AccessKeyID)
	}
}

// failing fails every Retrieve after the first.
type failing struct {
	n   int
	exp time.Time
}

func (f *failing) Retrieve() (sigv4.Credentials, error) {
	f.n++
	if f.n > 1 {
		return sigv4.Credentials{}, errors.New("endpoint down")
	}
	return sigv4.Credentials{AccessKeyID: "A", SecretAccessKey: "S", Expires: f.exp, Source: "test"}, nil
}

// TestCacheRefreshFailure keeps the old credentials through a failed
// advisory refresh and fails once they are inside the mandatory window.
func TestCacheRefreshFailure(t *testing.T) {
	now := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	clock := now
	cache := sigv4.NewCache(&failing{exp: now.Add(time.Hour)}, func() time.Time { return clock })
	if _, err := cache.Retrieve(); err != nil {
		t.Fatal(err)
	}
	clock = now.Add(48 * time.Minute)
	if c, err := cache.Retrieve(); err != nil || c.AccessKeyID != "A" {
		t.Fatalf("advisory window: %+v %v", c, err)
	}
	clock = now.Add(51 * time.Minute)
	if _, err := cache.Retrieve(); err == nil || !strings.Contains(err.Error(), "endpoint down") {
		t.Fatalf("mandatory window: %v", err)
	}
}
