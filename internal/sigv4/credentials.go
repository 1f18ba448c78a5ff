package sigv4

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/aiperf-go/aiperf/internal/environ"
)

// Credentials are one set of AWS credentials. Expires is zero for
// long-term keys.
type Credentials struct {
	AccessKeyID, SecretAccessKey, SessionToken string
	Expires                                    time.Time
	// Source names where they came from ("environment", "shared
	// credentials file ~/.aws/credentials [default]", ...), for errors
	// and the log; never the secret.
	Source string
}

// Provider returns credentials. Retrieve may block on a file, a process
// or the container endpoint; wrap a provider in NewCache so that only a
// refresh does.
type Provider interface {
	Retrieve() (Credentials, error)
}

// Chain is the standard credential chain, in the AWS CLI's order:
//
//  1. the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
//     AWS_SESSION_TOKEN), skipped when a profile was named explicitly
//     (--aws-profile), as botocore skips it;
//  2. the shared credentials file (AWS_SHARED_CREDENTIALS_FILE, default
//     ~/.aws/credentials), section [profile];
//  3. the profile's credential_process in either file;
//  4. the shared config file (AWS_CONFIG_FILE, default ~/.aws/config),
//     section [profile name] ([default] for default);
//  5. the container credentials endpoint (AWS_CONTAINER_CREDENTIALS_FULL_URI
//     or _RELATIVE_URI, with AWS_CONTAINER_AUTHORIZATION_TOKEN or
//     _TOKEN_FILE): ECS task roles and EKS Pod Identity.
//
// The profile is Profile, else AWS_PROFILE, else "default". Profiles that
// need an AWS API call to turn into keys (role_arn, sso_*,
// web_identity_token_file) are refused with the way around it
// (credential_process with `aws configure export-credentials`), as is
// the EC2 instance metadata service.
type Chain struct {
	Profile string
	// Getenv reads the environment; nil is environ.Getenv.
	Getenv func(string) string
	// HTTP is the client of the container endpoint; nil is a client with
	// a 5 s timeout.
	HTTP *http.Client
}

func (c *Chain) getenv(k string) string {
	if c.Getenv == nil {
		return environ.Getenv(k)
	}
	return c.Getenv(k)
}

// profile is the profile the chain reads and whether it was named.
func (c *Chain) profile() (string, bool) {
	if c.Profile != "" {
		return c.Profile, true
	}
	if p := c.getenv("AWS_PROFILE"); p != "" {
		return p, false
	}
	return "default", false
}

// Retrieve walks the chain and returns the first credentials found.
func (c *Chain) Retrieve() (Credentials, error) {
	profile, explicit := c.profile()
	if !explicit {
		if id, secret := c.getenv("AWS_ACCESS_KEY_ID"), c.getenv("AWS_SECRET_ACCESS_KEY"); id != "" && secret != "" {
			return Credentials{AccessKeyID: id, SecretAccessKey: secret, SessionToken: c.getenv("AWS_SESSION_TOKEN"), Source: "environment"}, nil
		}
	}
	credFile := c.filePath("AWS_SHARED_CREDENTIALS_FILE", "credentials")
	confFile := c.filePath("AWS_CONFIG_FILE", "config")
	credSec, err := readSection(credFile, profile, false)
	if err != nil {
		return Credentials{}, err
	}
	confSec, err := readSection(confFile, profile, true)
	if err != nil {
		return Credentials{}, err
	}
	for _, f := range []struct {
		sec  map[string]string
		path string
	}{{credSec, credFile}, {confSec, confFile}} {
		if f.sec == nil {
			continue
		}
		if id, secret := f.sec["aws_access_key_id"], f.sec["aws_secret_access_key"]; id != "" && secret != "" {
			return Credentials{AccessKeyID: id, SecretAccessKey: secret, SessionToken: f.sec["aws_session_token"],
				Source: fmt.Sprintf("%s [%s]", f.path, profile)}, nil
		}
		if cmd := f.sec["credential_process"]; cmd != "" {
			return credentialProcess(cmd, fmt.Sprintf("credential_process of %s [%s]", f.path, profile))
		}
	}
	for _, sec := range []map[string]string{credSec, confSec} {
		for _, k := range []string{"role_arn", "sso_session", "sso_start_url", "web_identity_token_file"} {
			if sec[k] != "" {
				return Credentials{}, fmt.Errorf("AWS profile %q uses %s, which needs an AWS API call this build does not make; "+
					"put `credential_process = aws configure export-credentials --profile %s --format process` in a profile of its own and name that one with --aws-profile", profile, k, profile)
			}
		}
	}
	if explicit && credSec == nil && confSec == nil {
		return Credentials{}, fmt.Errorf("AWS profile %q not found in %s or %s", profile, credFile, confFile)
	}
	if cr, err := c.container(); cr.AccessKeyID != "" || err != nil {
		return cr, err
	}
	return Credentials{}, fmt.Errorf("%w: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or give a profile of %s or %s with --aws-profile (the EC2 instance metadata service is not read)",
		ErrNoCredentials, credFile, confFile)
}

// filePath is the shared file named by env, else ~/.aws/name.
func (c *Chain) filePath(env, name string) string {
	if p := c.getenv(env); p != "" {
		return expandHome(p, c.getenv)
	}
	home := c.getenv("HOME")
	if runtime.GOOS == "windows" && home == "" {
		home = c.getenv("USERPROFILE")
	}
	return filepath.Join(home, ".aws", name)
}

func expandHome(p string, getenv func(string) string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		return filepath.Join(getenv("HOME"), rest)
	}
	return p
}

// readSection reads the profile's section of an INI-style shared file:
// [name] in the credentials file, [profile name] (or [default]) in the
// config file. A missing file is no section; an unreadable one is an
// error naming it.
func readSection(path, profile string, config bool) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading AWS shared file: %w", err)
	}
	want := profile
	if config && profile != "default" {
		want = "profile " + profile
	}
	var sec map[string]string
	in := false
	for _, line := range strings.Split(string(data), "\n") {
		t := strings.TrimSpace(line)
		if t == "" || t[0] == '#' || t[0] == ';' {
			continue
		}
		if t[0] == '[' && strings.HasSuffix(t, "]") {
			name := strings.Join(strings.Fields(t[1:len(t)-1]), " ")
			in = name == want || (config && profile == "default" && name == "profile default")
			if in && sec == nil {
				sec = map[string]string{}
			}
			continue
		}
		// Indented lines are sub-settings (s3 = ...) of the key above.
		if !in || line[0] == ' ' || line[0] == '\t' {
			continue
		}
		if k, v, ok := strings.Cut(t, "="); ok {
			sec[strings.ToLower(strings.TrimSpace(k))] = strings.TrimSpace(v)
		}
	}
	return sec, nil
}

// processOutput is what a credential_process prints (version 1).
type processOutput struct {
	Version         int    `json:"Version"`
	AccessKeyID     string `json:"AccessKeyId"`
	SecretAccessKey string `json:"SecretAccessKey"`
	SessionToken    string `json:"SessionToken"`
	Expiration      string `json:"Expiration"`
}

// credentialProcess runs a profile's credential_process through the
// shell, as the AWS CLI does, and reads its JSON.
func credentialProcess(command, source string) (Credentials, error) {
	shell, flag := "/bin/sh", "-c"
	if runtime.GOOS == "windows" {
		shell, flag = "cmd.exe", "/C"
	}
	var stderr bytes.Buffer
	cmd := exec.Command(shell, flag, command)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return Credentials{}, fmt.Errorf("%s failed: %w: %s", source, err, strings.TrimSpace(stderr.String()))
	}
	return parseProcessOutput(out, source)
}

func parseProcessOutput(out []byte, source string) (Credentials, error) {
	var p processOutput
	if err := json.Unmarshal(out, &p); err != nil {
		return Credentials{}, fmt.Errorf("%s printed no credentials JSON: %w", source, err)
	}
	if p.Version != 1 {
		return Credentials{}, fmt.Errorf("%s printed Version %d; only version 1 is defined", source, p.Version)
	}
	if p.AccessKeyID == "" || p.SecretAccessKey == "" {
		return Credentials{}, fmt.Errorf("%s printed no AccessKeyId or SecretAccessKey", source)
	}
	cr := Credentials{AccessKeyID: p.AccessKeyID, SecretAccessKey: p.SecretAccessKey, SessionToken: p.SessionToken, Source: source}
	if p.Expiration != "" {
		t, err := time.Parse(time.RFC3339, p.Expiration)
		if err != nil {
			return Credentials{}, fmt.Errorf("%s printed Expiration %q, not an RFC 3339 time", source, p.Expiration)
		}
		cr.Expires = t
	}
	return cr, nil
}

// containerHost is the ECS agent's link-local address, what a relative
// container credentials URI is resolved against.
const containerHost = "http://169.254.170.2"

// container fetches credentials from the container credentials endpoint
// when the environment names one; zero credentials and no error when it
// does not.
func (c *Chain) container() (Credentials, error) {
	u := c.getenv("AWS_CONTAINER_CREDENTIALS_FULL_URI")
	if rel := c.getenv("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"); rel != "" {
		u = containerHost + rel
	}
	if u == "" {
		return Credentials{}, nil
	}
	token := c.getenv("AWS_CONTAINER_AUTHORIZATION_TOKEN")
	if f := c.getenv("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE"); f != "" {
		b, err := os.ReadFile(f)
		if err != nil {
			return Credentials{}, fmt.Errorf("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE: %w", err)
		}
		token = strings.TrimSpace(string(b))
	}
	hc := c.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 5 * time.Second}
	}
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, u, nil)
	if err != nil {
		return Credentials{}, fmt.Errorf("container credentials endpoint %q: %w", u, err)
	}
	if token != "" {
		req.Header.Set("Authorization", token)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return Credentials{}, fmt.Errorf("container credentials endpoint: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return Credentials{}, fmt.Errorf("container credentials endpoint: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return Credentials{}, fmt.Errorf("container credentials endpoint %s answered %s: %s", u, resp.Status, bytes.TrimSpace(body))
	}
	var p struct {
		AccessKeyID     string `json:"AccessKeyId"`
		SecretAccessKey string `json:"SecretAccessKey"`
		Token           string `json:"Token"`
		Expiration      string `json:"Expiration"`
	}
	if err := json.Unmarshal(body, &p); err != nil || p.AccessKeyID == "" {
		return Credentials{}, fmt.Errorf("container credentials endpoint %s answered no credentials", u)
	}
	cr := Credentials{AccessKeyID: p.AccessKeyID, SecretAccessKey: p.SecretAccessKey, SessionToken: p.Token, Source: "container credentials endpoint"}
	if p.Expiration != "" {
		if t, err := time.Parse(time.RFC3339, p.Expiration); err == nil {
			cr.Expires = t
		}
	}
	return cr, nil
}

// Refresh windows, botocore's: credentials that expire within
// AdvisoryRefresh are refreshed, keeping the old ones if the refresh
// fails; within MandatoryRefresh the refresh must succeed.
const (
	AdvisoryRefresh  = 15 * time.Minute
	MandatoryRefresh = 10 * time.Minute
)

// Cache holds the credentials of a provider until they come within
// AdvisoryRefresh of expiring; long-term keys are fetched once. One
// caller refreshes at a time; the others wait for it.
type Cache struct {
	p   Provider
	now func() time.Time

	mu  sync.Mutex
	cur *Credentials
}

// NewCache caches p's credentials; now nil is time.Now.
func NewCache(p Provider, now func() time.Time) *Cache {
	if now == nil {
		now = time.Now
	}
	return &Cache{p: p, now: now}
}

// Retrieve returns the cached credentials, refreshing them first when
// they are due.
func (c *Cache) Retrieve() (Credentials, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if c.cur != nil && (c.cur.Expires.IsZero() || now.Before(c.cur.Expires.Add(-AdvisoryRefresh))) {
		return *c.cur, nil
	}
	fresh, err := c.p.Retrieve()
	if err != nil {
		if c.cur != nil && now.Before(c.cur.Expires.Add(-MandatoryRefresh)) {
			return *c.cur, nil
		}
		if c.cur != nil {
			return Credentials{}, fmt.Errorf("refreshing the AWS credentials of %s, which expire at %s: %w", c.cur.Source, c.cur.Expires.Format(time.RFC3339), err)
		}
		return Credentials{}, err
	}
	c.cur = &fresh
	return fresh, nil
}
